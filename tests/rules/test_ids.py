"""gnubg Position ID / Match ID and XGID, both directions, and `gammonwatch position`.

Known values come from GNU Backgammon 1.07 (its manual's starting Position ID, and IDs it printed
for the positions named). Round trips run over positions from seeded random games.
"""

from __future__ import annotations

import random

import pytest

from rules import InvalidIdError, Position
from rules.ids import (
    MatchInfo,
    from_gnubg_id,
    from_xgid,
    match_from_id,
    match_id,
    position_from_id,
    position_id,
    to_xgid,
)
from rules.movegen import generate
from rules.position_cli import main as position_main


def _game_positions(seed: int, n: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    pos = Position.start()
    while len(out) < n:
        if pos.is_game_over():
            pos = Position.start(turn=rng.randrange(2))
        out.append(pos)
        results = list(generate(*pos.mover_view(), rng.randint(1, 6), rng.randint(1, 6)))
        m, o = results[rng.randrange(len(results))]
        pos = Position(o, m, 0) if pos.turn == 1 else Position(m, o, 1)
    return out


POSITIONS = _game_positions(seed=7, n=400)


def test_start_position_id():
    assert position_id(Position.start()) == "4HPwATDgc/ABMA"
    assert position_from_id("4HPwATDgc/ABMA", turn=1) == Position.start(turn=1)


def test_known_gnubg_position_after_its_opening_move():
    # gnubg (player 0) opened 62 with 24/18 13/11 and printed 4HPkQSDgc/ABMA : cAkAAAAAAAAA
    pos, info = from_gnubg_id("4HPkQSDgc/ABMA:cAkAAAAAAAAA")
    assert info is not None and info.player_on_roll == 1 and info.match_length == 0
    assert pos == Position.start().apply("24/18 13/11", "62")


def test_known_match_id_fields():
    info = match_from_id("MIEOAAAAAAAA")  # gnubg: player 0 rolled 53 at the start of a money game
    assert info.dice == (5, 3) and info.player_on_roll == 0 and info.cube_value == 1
    assert info.cube_owner is None and info.game_state == 1


@pytest.mark.parametrize("pos", POSITIONS[::4])
def test_position_id_round_trip(pos):
    assert position_from_id(position_id(pos), pos.turn) == pos


def test_match_id_round_trip_over_fields():
    rng = random.Random(3)
    for _ in range(500):
        length = rng.choice([0, 1, 5, 7, 25])
        info = MatchInfo(
            match_length=length,
            score=(rng.randrange(max(length, 1)), rng.randrange(max(length, 1))),
            cube_value=1 << rng.randrange(7),
            cube_owner=rng.choice([None, 0, 1]),
            player_on_roll=rng.randrange(2), turn=rng.randrange(2), crawford=rng.random() < 0.2,
            doubled=rng.random() < 0.2, resigned=rng.randrange(4),
            dice=rng.choice([None, (rng.randint(1, 6), rng.randint(1, 6))]), jacoby=rng.random() < 0.5,
        )
        assert match_from_id(match_id(info)) == info


def test_xgid_start_and_round_trip():
    assert to_xgid(Position.start(turn=1)) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    pos, info = from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:52:3:4:1:7:10")
    assert pos == Position.start(turn=0)  # turn -1: the top player (our player 0) is on roll
    assert info.cube_value == 2 and info.cube_owner == 0
    assert info.score == (4, 3)  # (top, bottom)
    assert info.crawford and info.match_length == 7 and info.dice == (5, 2)
    for p in POSITIONS:
        back, _ = from_xgid(to_xgid(p))
        assert back == p


@pytest.mark.parametrize(
    "text,message",
    [
        ("4HPwATDgc/ABM", "has 13 characters"),
        ("4HPwATDgc/AB!A", "outside base64"),
        ("//////////////", "ends before both sides"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAA", "has 11 characters"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn 1/-1"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:7x:0:0:0:0:10", "dice field"),
        ("XGID=zb----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "not readable"),
    ],
)
def test_bad_ids_say_what_is_wrong(text, message):
    with pytest.raises(InvalidIdError, match=message):
        if text.startswith("XGID"):
            from_xgid(text)
        else:
            from_gnubg_id(text)


def test_position_id_with_sixteen_checkers_is_rejected():
    import base64

    from rules.ids import position_key

    sixteen = tuple(16 if i == 6 else 0 for i in range(26))
    one = tuple(1 if i == 6 else 0 for i in range(26))
    text = base64.b64encode(position_key(one, sixteen)).decode()[:14]
    with pytest.raises(InvalidIdError, match="16 checkers"):
        position_from_id(text)


def test_position_command(capsys):
    assert position_main(["4HPwATDgc/ABMA:cAkAAAAAAAAA", "--to", "xgid"]) == 0
    assert capsys.readouterr().out.strip() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert position_main(["XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "--to", "gnubg"]) == 0
    assert capsys.readouterr().out.strip() == "4HPwATDgc/ABMA:cAkAAAAAAAAA"
    assert position_main(["4HPwATDgc/ABMA"]) == 0
    assert "X: player 1" in capsys.readouterr().out
    assert position_main(["nonsense"]) == 2
    assert "cannot tell the format" in capsys.readouterr().err
