"""Legal plays under the standard rules (STD Movement, Hitting and Entering, Bearing Off; RG19 4.2.2.1).

Fixture counts were cross-checked with GNU Backgammon 1.07 (``set board`` / ``set dice`` / ``hint``,
see scripts/gnubg_peer.py); the small cases can also be checked by hand from the diagrams in the
comments. Positions are written as ``{point: checkers}`` in each player's own numbering (25 = bar);
player 0 is on roll.
"""

from __future__ import annotations

import pytest

from rules import ALL_ROLLS, IllegalPlayError, InvalidPlayError, Play, Position, notation
from rules.movegen import generate

P = Position.from_points
CLOSED_BOARD = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}  # opponent's six home points (our 19..24)

# name, position, dice, number of distinct legal plays (GNU Backgammon's count)
COUNTS = [
    ("opening 31", Position.start(), (3, 1), 16),
    ("opening 66", Position.start(), (6, 6), 11),
    ("opening 65", Position.start(), (6, 5), 7),
    ("opening 11", Position.start(), (1, 1), 42),
    ("closed board, checker on the bar: no play", P({25: 1, 13: 14}, {**CLOSED_BOARD, 24: 3}), (6, 4), 1),
    ("two on the bar, only our 20 open, 55", P({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 6: 2, 24: 5}), (5, 5), 5),
    ("one on the bar, enters with the 4 only", P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 5: 2, 6: 2, 24: 5}), (6, 4), 2),
    ("larger die rule", P({24: 1}, {12: 2, 24: 2}), (6, 5), 1),
    ("double partly blocked", P({24: 1}, {13: 2}), (6, 6), 1),
    ("bear off: higher-point rule", P({5: 1, 3: 1}, {24: 2}), (6, 1), 2),
    ("bear off with a double", P({1: 2, 2: 2, 4: 3}, {20: 2}), (4, 4), 1),
    ("bear off: the 4 must be played inside", P({6: 2, 5: 1}, {24: 2}), (6, 4), 1),
    ("bear off after coming home", P({7: 1, 6: 3, 3: 2}, {24: 1}), (2, 1), 9),
    ("hits during 1-1", P({8: 2, 6: 3}, {20: 1, 18: 1, 24: 2}), (1, 1), 13),
    ("middle game 21", P({24: 2, 13: 4, 11: 1, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 4, 4: 1}), (2, 1), 31),
    ("two on the bar, 66 enters both", P({25: 2, 8: 3, 6: 10}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 24: 5}), (6, 6), 4),
]


@pytest.mark.parametrize("name,position,dice,expected", COUNTS, ids=[c[0] for c in COUNTS])
def test_number_of_legal_plays_matches_gnubg(name, position, dice, expected):
    assert len(position.legal_plays(dice)) == expected


# name, position, dice, every legal play (hand-derived; gnubg lists the same)
EXACT = [
    # one checker on our 24; the opponent holds our 13: 24/18 or 24/19 can be played, not both,
    # so the larger die must be played (STD Movement-3)
    ("larger die", P({24: 1}, {12: 2, 24: 2}), (6, 5), {"24/18"}),
    # 6-6 with one checker on 24 and our 12 blocked: one six only
    ("double blocked", P({24: 1}, {13: 2}), (6, 6), {"24/18"}),
    # checkers on 5 and 3, roll 6-1: the 6 bears off from the highest point (5); the 1 then moves 3/2
    # or bears off nothing more (after 5/off, 3/2 is the only 1; or 1 first: 5/4 then 4/off, or 3/2 then 5/off)
    ("higher point", P({5: 1, 3: 1}, {24: 2}), (6, 1), {"5/off 3/2", "5/off"}),
    # on the bar against five closed points: 6-4 enters with the 4 only (our 21), the 6 then plays
    ("enter first", P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 5: 2, 6: 2, 24: 5}), (6, 4), {"bar/15", "bar/21 13/7"}),
]


@pytest.mark.parametrize("name,position,dice,plays", EXACT, ids=[c[0] for c in EXACT])
def test_exact_legal_plays(name, position, dice, plays):
    got = {str(p) for p in position.legal_plays(dice)}
    # "5/off" alone is also written 5/4/off; compare by resulting position, not by text
    want = {position.apply(p, dice) for p in plays}
    assert set(position.legal_plays(dice).positions()) == want
    assert len(got) == len(plays)


def test_no_legal_play_is_one_empty_play_and_falsy_view():
    pos = P({25: 1, 13: 14}, {**CLOSED_BOARD, 24: 3})
    plays = pos.legal_plays("64")
    assert not plays
    assert [str(p) for p in plays] == [""]
    assert plays.positions() == [pos.pass_turn()]
    assert "" in plays


def test_lazy_view_membership_by_play_text_and_position():
    start = Position.start()
    plays = start.legal_plays("31")
    assert Play.parse("8/5 6/5") in plays
    assert "6/5 8/5" in plays  # order of moves does not matter
    assert "24/20" in plays  # combined move
    assert "24/21 24/23" in plays
    assert "8/4" in plays  # one checker plays both dice (8/5/4)
    assert "13/9" in plays
    assert "24/22" not in plays  # 2 pips is neither die nor their sum
    assert "garbage" not in plays
    assert start.apply("8/5 6/5", "31") in plays


def test_all_dice_must_be_used():
    start = Position.start()
    with pytest.raises(IllegalPlayError, match="uses 1 of the dice but 2 can be played"):
        start.apply("24/18", "64")


def test_bar_checker_must_enter_first():
    pos = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 5: 2, 6: 2, 24: 5})
    with pytest.raises(IllegalPlayError, match="must enter before any other checker moves"):
        pos.apply("13/7 13/9", "64")


def test_hit_sends_the_blot_to_the_bar_and_turn_passes():
    pos = P({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 3: 1})  # opponent blot on our 22
    with pytest.raises(IllegalPlayError, match="uses 2 of the dice but 4 can be played"):
        pos.apply("24/22*", "11")  # 24/23/22* with 1-1, but the other two 1s must be played too
    after = pos.apply("24/22* 6/5(2)", "11")
    assert after.on_bar(1) == 1
    assert after.count(0, 22) == 1 and after.count(0, 5) == 2
    assert after.turn == 1


def test_combined_move_through_a_blot_only_hits_when_written():
    # opponent blot on our 18; 6-5 from 24: 24/18*/13 hits, 24/19/13 does not
    pos = P({24: 2, 13: 13}, {7: 1, 2: 14})
    quiet = pos.apply("24/13", "65")
    loud = pos.apply("24/18*/13", "65")
    assert quiet.on_bar(1) == 0 and loud.on_bar(1) == 1
    assert str(pos.legal_plays("65").play_for(loud)) == "24/18*/13"
    # a transcript that marks the hit only at the end of a combined move still means the hit
    assert pos.apply("24/13*", "65") == loud


@pytest.mark.parametrize("text", ["24-18", "bar*/22", "13/13", "8/5(5)", "x/3", "6/off*", "3/8"])
def test_unreadable_notation_raises_invalid_play_error(text):
    with pytest.raises(InvalidPlayError, match="cannot read play|does not move forward"):
        Position.start().apply(text, "31")


def test_notation_rebuilt_from_before_and_after_for_every_opening_result():
    start = Position.start()
    total = 0
    for roll in ALL_ROLLS:
        for after in start.legal_plays(roll).positions():
            play = notation(start, after, roll)
            assert start.apply(play, roll) == after, (roll, str(play))
            assert start.apply(str(play), roll) == after
            total += 1
    assert total == 447


def test_generate_never_changes_checker_counts():
    for roll in ALL_ROLLS:
        for my, opp in generate(*Position.start().mover_view(), roll.first, roll.second):
            assert sum(my) == 15 and sum(opp) == 15


# plays as GNU Backgammon 1.07 writes them (copied from its hint lists for these positions)
GNUBG_TEXT = [
    (Position.start(), (6, 6), ["24/18(2) 13/7(2)", "24/18 13/7(3)", "13/7(2) 8/2(2)", "24/18 13/7(2) 8/2"]),
    (Position.start(), (3, 1), ["8/5 6/5", "24/23 13/10", "24/20", "13/9", "24/23 24/21", "24/21 6/5"]),
    (P({8: 2, 6: 3}, {20: 1, 18: 1, 24: 2}), (1, 1),
     ["8/7*/5* 6/5", "8/7* 6/5*(3)", "8/7*/6(2)", "8/7*(2) 6/5*/4", "8/7*(2) 6/5*(2)", "8/7*/5*/4"]),
    (P({7: 1, 6: 3, 3: 2}, {24: 1}), (2, 1), ["7/5 6/5", "6/3", "7/4", "7/6 3/1*", "3/2 3/1*", "6/5 3/1*"]),
    (P({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 6: 2, 24: 5}), (5, 5),
     ["bar/20(2) 13/8(2)", "bar/15 bar/20 13/8", "bar/10 bar/20", "bar/20(2) 13/3", "bar/15(2)"]),
]


@pytest.mark.parametrize("position,dice,texts", GNUBG_TEXT)
def test_notation_is_written_as_gnubg_writes_it(position, dice, texts):
    plays = position.legal_plays(dice)
    for text in texts:
        after = position.apply(text, dice)
        assert str(plays.play_for(after)) == text


# wildbg-style fixtures keyed by gnubg Position ID (player on roll first in gnubg's sense), with
# GNU Backgammon's number of plays (gnubg lists none when the player cannot move: we count the
# empty play once)
BY_ID = [
    ("4HPwATDgc/ABMA", "21", 15),
    ("27YBADgA8P8DQA", "64", 1),  # on the bar against a closed board
    ("22YAAD4A8P8BYA", "55", 5),
    ("22wAAD4A8P8DQA", "64", 2),
    ("AACAIQEAAAAAAA", "61", 2),  # bear-off, higher-point rule
    ("AAAY2BwAAAAAAA", "44", 1),
    ("yHPwATDQc+QBMA", "21", 31),
    ("AAASBpwBAAAAAA", "11", 13),
    ("2zYAAD7gfw4AYA", "66", 4),
]


@pytest.mark.parametrize("pos_id,dice,expected", BY_ID)
def test_plays_by_position_id(pos_id, dice, expected):
    from rules.ids import position_from_id

    for turn in (0, 1):  # the count does not depend on which of our players is on roll
        assert len(position_from_id(pos_id, turn).legal_plays(dice)) == expected
