"""The position type: validation with readable errors, immutability, numbering, reprs, play notation."""

from __future__ import annotations

import pickle

import pytest

from rules import BAR, OFF, Dice, InvalidDiceError, InvalidPlayError, Play, Position, Step
from rules.position import boards_from_simple, simple_from_boards


def test_start_position():
    pos = Position.start()
    assert pos.turn == 0
    assert pos.points(0) == {6: 5, 8: 3, 13: 5, 24: 2} == pos.points(1)
    assert pos.pips() == (167, 167)
    assert pos.borne_off(0) == 0 and pos.on_bar(1) == 0
    assert pos.is_contact() and not pos.is_game_over()


def test_each_players_own_numbering():
    # player 0's point p is player 1's point 25 - p
    pos = Position.start()
    assert pos.owner(6, 0) == (0, 5)
    assert pos.owner(19, 0) == (1, 5)  # player 1's 6 point
    assert pos.owner(6, 1) == (1, 5)
    assert pos.owner(10, 0) == (None, 0)


def test_sixteen_checkers_is_rejected_with_the_count():
    with pytest.raises(ValueError, match=r"player 0 has 16 checkers"):
        Position.from_points({6: 5, 8: 3, 13: 6, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    board = [0] * 26
    board[6] = 16
    with pytest.raises(ValueError, match=r"player 1 has 16 checkers"):
        Position(Position.start().board(0), board)


def test_both_colours_on_one_point_is_rejected_naming_the_point():
    with pytest.raises(ValueError, match=r"point 5 \(player 0's numbering\) holds checkers of both players"):
        Position.from_points({5: 1, 6: 14}, {20: 2, 6: 13})


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"turn": 2}, "turn must be 0 or 1"),
        ({"out_of_play": (16, 0)}, "out_of_play must be 0..15"),
    ],
)
def test_other_bad_input(kwargs, message):
    b = Position.start().board(0)
    with pytest.raises(ValueError, match=message):
        Position(b, b, **kwargs)


def test_negative_count_and_wrong_length():
    b = list(Position.start().board(0))
    b[6] = -1
    b[OFF] = 1
    with pytest.raises(ValueError, match="negative count"):
        Position(b, Position.start().board(1))
    with pytest.raises(ValueError, match="expected 26"):
        Position([0] * 25, Position.start().board(1))


def test_out_of_play_checkers_are_not_borne_off():
    # RG19 4.2.1 / DIGEST A6.4: a player who started with 14 checkers
    pos = Position.from_points({6: 4, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2}, out_of_play=(1, 0))
    assert pos.borne_off(0) == 0
    assert pos.in_play(0) == 14
    assert pos.out_of_play == (1, 0)
    assert eval(repr(pos)) == pos
    # the shortfall travels with the position through plays
    after = pos.apply("24/18 13/11", "62")
    assert after.out_of_play == (1, 0)
    # a side with every checker in play borne off has won even with one out of play
    done = Position.from_points({}, {6: 1}, out_of_play=(1, 0))
    assert done.borne_off(0) == 14 and done.has_won(0)


def test_immutable_hashable_and_picklable():
    pos = Position.start()
    with pytest.raises(AttributeError):
        pos._turn = 1  # type: ignore[misc]
    assert {pos: 1}[Position.start()] == 1
    assert pickle.loads(pickle.dumps(pos)) == pos
    assert pos != pos.with_turn(1)


def test_repr_is_evaluable():
    pos = Position.start().apply("24/18 13/11", "62")
    text = repr(pos)
    assert text.startswith("Position.from_points(")
    assert eval(text) == pos


def test_switch_sides_and_turn():
    pos = Position.start().apply("24/18 13/11", "62")  # player 1 on roll
    sw = pos.switch_sides()
    assert sw.turn == 0
    assert sw.board(0) == pos.board(1) and sw.board(1) == pos.board(0)
    assert sw.switch_sides() == pos
    assert pos.pass_turn().turn == 0 and pos.pass_turn().boards() == pos.boards()


def test_simple_arrays_round_trip():
    pos = Position.from_points({25: 1, 6: 5, 8: 3, 13: 4, 24: 2}, {25: 2, 6: 5, 8: 3, 13: 5})
    simple = simple_from_boards(*pos.boards())
    assert simple[25] == 1 and simple[0] == -2
    assert simple[6] == 5 and simple[19] == -5  # player 1's 6 point is player 0's 19
    assert boards_from_simple(simple) == pos.boards()
    assert pos.to_simple() == simple and Position.from_simple(simple) == pos


def test_diagram_shows_both_sides():
    text = Position.start().diagram()
    assert "O: player 0 (on roll)" in text and "X: player 1" in text
    assert text.count("pips 167") == 2


# --------------------------------------------------------------------------------- notation
@pytest.mark.parametrize(
    "text",
    ["24/18 13/11", "bar/22*", "6/off", "8/5(2) 6/5(2)", "24/13", "13/7*/1", "bar/20(2) 13/8(2)",
     "24/18*/13", "5/off 3/2", "4/off(3) 2/off", ""],
)
def test_notation_round_trip(text):
    play = Play.parse(text)
    assert str(play) == text
    assert eval(repr(play)) == play


def test_parse_variants():
    assert Play.parse("25/22* 6/0").steps == (Step(25, 22, True), Step(6, 0))
    assert Play.parse("Bar/22*, 6/Off") == Play.parse("bar/22* 6/off")
    assert str(Play.parse("24/18 18/13")) == "24/13"  # one checker's steps are joined
    assert str(Play.parse("8/5 6/5 8/5 6/5")) == "8/5(2) 6/5(2)"
    assert Play.parse("cannot move") == Play(())
    assert Play.parse("13/7*/1").hits == 1 and Play.parse("13/7*/1").pips == 12


@pytest.mark.parametrize("text", ["24-18", "24/", "/18", "bar*/22", "22/bar", "0/3", "8/5(0)", "26/20"])
def test_bad_notation(text):
    with pytest.raises(InvalidPlayError):
        Play.parse(text)


def test_dice():
    assert Dice.parse("6-4") == Dice(6, 4) and str(Dice(3, 5)) == "35"
    assert Dice(5, 5).moves == (5, 5, 5, 5) and Dice(2, 5).moves == (5, 2)
    with pytest.raises(InvalidDiceError, match="1..6"):
        Dice(7, 1)
    with pytest.raises(InvalidDiceError, match="cannot read dice"):
        Dice.parse("72")
    assert BAR == 25
