"""The ``welsh`` referee profile: registration, alert codes, the legal-results hook (DIGEST C.26)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rules.dice import Dice
from rules.position import Position
from rules.referee.alerts import CATALOGUE
from rules.referee.profiles import get_profile
from rules.welsh.movegen import legal_plays
from rules.welsh.position import WelshPosition
from rules.welsh.profile import from_standard, play_notation, to_standard


def test_profile_registers_with_welsh_alerts_C26():
    profile = get_profile("welsh", moves_policy="legal", jacoby=True)  # standard options are ignored
    assert (profile.name, profile.family, profile.crawford) == ("welsh", "WELSH", False)
    for code in ("WEL_THREE_ON_ROOF", "WEL_SKINNY_SEVEN_BAR_CROSS", "WEL_NOMINATE_MATCH_WINNING_FORBIDDEN"):
        assert CATALOGUE[code].applies("WELSH") and not CATALOGUE[code].applies("RG19")
    assert CATALOGUE["WEL_SKINNY_SEVEN_BAR_CROSS"].cites_for("WELSH") == ("Welsh R9",)
    assert not CATALOGUE["CRAWFORD_GAME"].applies("WELSH")
    with pytest.raises(ValueError, match="preset"):
        get_profile("welsh", preset="welsh-unknown")


def test_positions_map_onto_standard_points_C2():
    assert to_standard(WelshPosition.start(), 0) == Position.start()
    p = WelshPosition.from_labels(red="roof H2 F6:3", black="B1 N4:2")
    assert from_standard(to_standard(p, 1)) == p


def test_hook_gives_the_welsh_results_R15():
    profile = get_profile("welsh")
    assert profile.legal_results is not None
    got = set(profile.legal_results(Position.start(), Dice(6, 4)))
    want = {to_standard(pl.result, 1) for pl in legal_plays(WelshPosition.start(), 0, (6, 4))}
    assert got == want
    # R15's crossing F6 -> N2 is standard 13/8 with a 6-4; standard 13/9 13/7 is not Welsh
    after = Position.from_points({24: 2, 13: 4, 8: 4, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, turn=1)
    assert after in got
    std_only = Position.from_points({24: 2, 13: 3, 9: 1, 8: 3, 7: 1, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, turn=1)
    assert std_only not in got
    assert play_notation(Position.start(), after, Dice(6, 4)) == "F6/N2(6+4)"
    assert play_notation(Position.start(), std_only, Dice(6, 4)) == ""


def _scenario():  # type: ignore[no-untyped-def]
    here = Path(__file__).resolve().parents[1] / "referee"
    if not (here / "referee_scenario.py").exists():
        pytest.skip("tests/referee/referee_scenario.py is not available")
    sys.path.insert(0, str(here))
    try:
        from referee_scenario import Scenario
    except ImportError as exc:  # the simulator's script module is optional
        pytest.skip(f"referee scenario helpers unavailable: {exc}")
    return Scenario


def test_referee_judges_a_welsh_turn_with_the_welsh_engine_R15():
    Scenario = _scenario()
    ok = Scenario(rules="welsh")
    ok.opening("light", 6, 4)
    ok.play("light", "13/8")  # F6 across the stream and on to N2, jumping Black's covered spike
    ok.end_turn("light")
    ok.roll("dark", 3, 1)
    assert "ILLEGAL_MOVE" not in ok.codes()
    assert "END_OF_TURN" in ok.all_codes()
    assert "NO_MOVE" not in ok.all_codes()
    move = ok.last("MOVE")
    assert move.details["play"] == "F6/N2(6+4)"  # the Welsh notation, from the profile's hook
    bad = Scenario(rules="welsh")
    bad.opening("light", 6, 4)
    bad.play("light", "13/9 13/7")  # standard, but Welsh men leave Far-Outer 6 only by crossing
    bad.end_turn("light")
    bad.roll("dark", 3, 1)
    assert "ILLEGAL_MOVE" in bad.codes()
    assert bad.last("ILLEGAL_MOVE").rules == ("Welsh R7-R20", "DIGEST W40")
