"""The ``welsh`` referee profile: registration, alert codes, the legal-results hook (DIGEST C.26)."""

from __future__ import annotations

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


def test_referee_builds_the_welsh_machine_and_judges_a_turn_with_the_welsh_engine_R15():
    from welsh_scenario import BLACK, RED, WelshScenario

    from rules.referee import Referee
    from rules.welsh.referee import WelshReferee

    assert isinstance(Referee(None, get_profile("welsh")), WelshReferee)
    assert type(Referee(None, get_profile("usbgf-2019"))) is Referee
    ok = WelshScenario()
    ok.throw(RED, 6, 4)
    ok.play(RED, "F6/N2(6+4)")  # F6 across the stream and on to N2, jumping Black's covered spike
    ok.lift(RED)
    ok.throw(BLACK, 3, 1)
    assert ok.codes() == []
    assert ok.last("MOVE").details["play"] == "F6/N2(6+4)"  # the Welsh notation
    bad = WelshScenario()
    bad.throw(RED, 6, 4)
    bad.move(RED, "B1:2 F6:3 N3 N1 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5")  # standard 13/9 13/7
    bad.lift(RED)
    assert bad.codes() == ["WEL_STREAM_NOT_EXACT"]  # men leave Far-Outer 6 only by crossing (R15)
    assert bad.last("WEL_STREAM_NOT_EXACT").rules == ("Welsh R15",)
