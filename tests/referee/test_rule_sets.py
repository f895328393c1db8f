"""Every difference between the rule sets (DIGEST part B) pinned by a scenario whose outcome differs.

Each test runs the same table events under two (or more) profiles and checks both outcomes.
"""

from __future__ import annotations

import pytest
from referee_scenario import Scenario

from rules.referee import get_profile, profile_names, register_profile
from rules.referee.profiles import with_options


def opened(**kw) -> Scenario:
    s = Scenario(**kw)
    s.opening("light", 3, 1)
    s.play("light", "8/5 6/5")
    s.end_turn("light")
    return s


def test_profiles_are_registered_and_unknown_names_are_refused():
    assert {"usbgf-2019", "wbgf-2023", "usbgf-2009", "money"} <= set(profile_names())
    with pytest.raises(ValueError, match="unknown rule set 'fibs'.*usbgf-2019"):
        get_profile("fibs")
    with pytest.raises(ValueError, match="legal or responsible"):
        get_profile("wbgf-2023", moves_policy="lenient")


def test_a_variant_can_plug_in_with_its_own_move_generator():
    calls = []

    def welsh_like(**_):
        def movegen(position, dice):
            calls.append(dice)
            return position.resulting_positions(dice)
        return with_options(get_profile("usbgf-2019"), name="variant-x", legal_results=movegen)

    register_profile("variant-x", welsh_like)
    s = opened(rules="variant-x")
    assert calls == [(3, 1)] and s.codes() == []


# B13: dice on checkers
@pytest.mark.parametrize("rules,options,valid", [
    ("usbgf-2019", {}, True),                           # RG19 4.1.4.3: allowed, subject to the three tests
    ("wbgf-2023", {}, False),                           # WB23 4.1(iv)(a): only if the TD declares it
    ("wbgf-2023", {"dice_on_checkers": True}, True),    # WB23 4.1(iv)(c)
    ("usbgf-2009", {}, False),                          # US09 4.2: flat on the playing surface
    ("money", {}, False),                               # STD Irregularities-1: landing on a checker, reroll
])
def test_dice_on_checkers(rules, options, valid):
    s = opened(rules=rules, **options)
    s.roll("dark", 6, 4, reasons=("on_checker", "flat_board"))
    assert (s.codes() == []) is valid
    assert ("ROLL_VALID" == s.all_codes()[-1]) is valid


# B2, B3: illegal move, remedy and who may condone it
def _illegal(rules: str, **options) -> Scenario:
    s = Scenario(rules=rules, **options)
    s.opening("light", 3, 1)
    s.play("light", "8/4 6/5")
    s.end_turn("light")
    return s


def test_illegal_move_cannot_be_condoned_under_rg19_but_can_under_wb23_responsible_moves():
    rg = _illegal("usbgf-2019").last("ILLEGAL_MOVE")
    rm = _illegal("wbgf-2023", moves_policy="responsible").last("ILLEGAL_MOVE")
    lm = _illegal("wbgf-2023", moves_policy="legal").last("ILLEGAL_MOVE")
    assert rg.severity.value == "VIOL" and rg.details["options"] == ["correct"]
    assert lm.severity.value == "VIOL" and lm.details["options"] == ["correct"]
    assert rm.severity.value == "IRREG" and rm.details["options"] == ["correct", "let stand"]
    assert rg.rules[0].startswith("RG19") and rm.rules[0].startswith("WB23")


def test_us09_condones_by_rolling_even_an_invalid_roll_rg19_waits_for_a_valid_roll():
    for rules, stands in (("usbgf-2009", True), ("usbgf-2019", False)):
        s = _illegal(rules)
        s.roll("dark", 6, 4, reasons=("cocked", "flat_board"))
        assert ("ILLEGAL_MOVE_STANDS" in s.all_codes()) is stands, rules


# B4: the impossible-move class exists only in RG19
def test_backward_move_is_impossible_class_under_rg19_only():
    def run(rules: str) -> list[str]:
        s = Scenario(rules=rules)
        s.opening("light", 3, 1)
        s.play("light", "8/5 6/5")
        s.shift("light", 13, 14)
        s.end_turn("light")
        return s.codes()

    assert run("usbgf-2019") == ["IMPOSSIBLE_MOVE"]
    assert run("wbgf-2023") == ["ILLEGAL_MOVE"]


# B9: starting-position error window
def _setup_error_after_three_rolls(rules: str) -> Scenario:
    s = Scenario(rules=rules)
    s.table.boards[0][13] -= 1
    s.table.boards[0][11] += 1
    s.snap()
    s.opening("light", 3, 1)
    s.play("light", "8/5 6/5")
    s.end_turn("light")
    s.roll("dark", 6, 4)
    s.play("dark", "24/18 18/14")
    s.end_turn("dark")
    s.roll("light", 2, 1)  # the starter's second turn begins with the third valid roll
    return s


def test_setup_error_window_wb23_starter_second_turn_rg19_fifth_valid_roll():
    wb = _setup_error_after_three_rolls("wbgf-2023")
    rg = _setup_error_after_three_rolls("usbgf-2019")
    assert "SETUP_ERROR" in wb.codes() and "SETUP_ERROR" in rg.codes()
    assert "SETUP_ERROR_WINDOW_CLOSED" in wb.all_codes()
    assert "SETUP_ERROR_WINDOW_CLOSED" not in rg.all_codes()
    assert rg.last("SETUP_ERROR").deadline == "before the fifth valid roll of the game"
    assert wb.last("SETUP_ERROR").deadline == "before the starter begins his second turn"
    money = _setup_error_after_three_rolls("money")
    assert money.last("SETUP_ERROR").deadline is None  # STD has no window


# B23: premature roll
def test_fast_roll_stands_or_rerolls_under_rg19_but_is_void_in_money_play():
    def run(rules: str):
        s = Scenario(rules=rules)
        s.opening("light", 3, 1)
        s.play("light", "8/5 6/5")
        s.roll("dark", 6, 4)
        return s.last("FAST_ROLL")

    rg, std = run("usbgf-2019"), run("money")
    assert rg.severity.value == "IRREG" and any("let stand" in o for o in rg.details["options"])
    assert std.severity.value == "VIOL" and any("void" in o for o in std.details["options"])
    assert rg.rules == ("RG19 4.1.8.1",) and std.rules == ("STD Irregularities-3",)


# B28: what counts as a double
def test_touching_the_cube_is_a_double_under_rg19_not_under_us09():
    rg = opened(rules="usbgf-2019")
    rg.hand("dark", "cube")
    us = opened(rules="usbgf-2009")
    us.hand("dark", "cube")
    assert "DOUBLE_BY_TOUCH" in rg.all_codes()
    assert "DOUBLE_BY_TOUCH" not in us.all_codes()


# B34: dead cube
def test_dead_cube_rg19_doubler_would_win_the_match_us09_only_when_the_match_must_end():
    def run(rules: str) -> list[str]:
        s = Scenario(rules=rules, score=(5, 2))  # 7 points: light 2-away, dark 5-away
        s.opening("light", 3, 1)
        s.play("light", "8/5 6/5")
        s.end_turn("light")
        s.double("dark")
        s.take("light")
        s.roll("dark", 6, 4)
        s.play("dark", "24/18 18/14")
        s.end_turn("dark")
        s.double("light", face=4)  # light owns 2 and is 2-away
        return s.codes()

    assert run("usbgf-2019") == ["DEAD_CUBE_DOUBLE"]
    assert run("usbgf-2009") == []


# B26: lifting a die before it is at rest
def test_lifting_a_rolling_die_is_an_infraction_only_under_rg19():
    def run(rules: str) -> list[str]:
        s = opened(rules=rules)
        s.table.dice = [{"id": k, "value": None, "state": "rolling", "half": "left"} for k in (0, 1)]
        s.snap()
        s.table.dice = [{"id": 0, "value": None, "state": "rolling", "half": "left"}, {"id": 1, "value": None, "state": "lifted"}]
        s.snap()
        return s.codes()

    assert run("usbgf-2019") == ["DIE_LIFTED_BEFORE_REST"]
    assert run("wbgf-2023") == []


# B24, B48: the premature grab and touching dice during the opponent's turn
@pytest.mark.parametrize("rules,codes", [
    ("usbgf-2019", ["FAST_GRAB"]),
    ("wbgf-2023", ["FAST_GRAB"]),
    ("usbgf-2009", ["OFF_TURN_DIE_TOUCH"]),
    ("money", []),
])
def test_grabbing_the_dice_before_the_turn_ends(rules, codes):
    s = Scenario(rules=rules)
    s.opening("light", 3, 1)
    s.play("light", "8/5 6/5")
    s.hand("dark", "dice")
    assert s.codes() == codes


def test_fast_grab_penalty_differs_rg19_reserve_wb23_delay():
    def penalty(rules: str) -> str:
        s = Scenario(rules=rules)
        s.opening("light", 3, 1)
        s.play("light", "8/5 6/5")
        s.hand("dark", "dice")
        return s.last("FAST_GRAB").details["penalty"]

    assert "warning" in penalty("usbgf-2019")
    assert "delay" in penalty("wbgf-2023")


# B48: touching checkers during the opponent's turn
def test_off_turn_checker_touch_is_a_warning_under_rg19_a_violation_under_us09():
    def severity(rules: str) -> str:
        s = opened(rules=rules)
        s.roll("dark", 6, 4)
        s.hand("light", "checkers")
        return s.last("OFF_TURN_CHECKER_TOUCH").severity.value

    assert severity("usbgf-2019") == "WARN"
    assert severity("usbgf-2009") == "VIOL"


# B21: how a turn ends with two dice and no clock
@pytest.mark.parametrize("rules,tap_ends,lift_ends", [("usbgf-2019", True, False), ("wbgf-2023", False, True)])
def test_end_of_turn_without_a_clock(rules, tap_ends, lift_ends):
    def run(signal: str) -> bool:
        s = Scenario(rules=rules, end_signal=None)
        s.opening("light", 3, 1)
        s.play("light", "8/5 6/5")
        if signal == "tap":
            s.hand("light", "bar")
        else:
            s.script.hand(0, "dice")
            s.table.dice = [{"id": k, "value": None, "state": "lifted"} for k in (0, 1)]
            s.snap()
        return "END_OF_TURN" in s.all_codes()

    assert run("tap") is tap_ends
    assert run("lift") is lift_ends


# B35: Jacoby, automatic doubles (money only)
def _gammon(rules: str, **kw) -> Scenario:
    s = Scenario(rules=rules, length=0 if rules == "money" else 7, **kw)
    light = [14, 1] + [0] * 24                      # one light checker left, on the 1-point
    dark = [0] * 7 + [3, 3, 3, 3, 3] + [0] * 14      # dark has borne off nothing
    s.set_boards(light, dark)
    from rules.position import Position

    s.ref.position = Position(s.table.boards[0], s.table.boards[1], 0)
    s.ref.phase = s.ref.phase.PRE_ROLL
    s.ref.turn = 0
    s.table.clock = "near"  # light's clock is running
    s.snap()
    s.roll("light", 2, 1)
    s.play("light", "1/off")
    s.end_turn("light")
    return s


def test_jacoby_rule_gammon_counts_single_in_money_play_double_in_a_match():
    money = _gammon("money")
    match = _gammon("usbgf-2019")
    assert money.last("GAME_RESULT").details["points"] == 1 and "JACOBY_APPLIED" in money.all_codes()
    assert match.last("GAME_RESULT").details["points"] == 2 and "JACOBY_APPLIED" not in match.all_codes()
    assert match.last("GAME_RESULT").details["kind"] == "gammon"


def test_automatic_double_on_a_tied_opening_in_money_play_only():
    def run(rules: str) -> Scenario:
        s = Scenario(rules=rules, length=0 if rules == "money" else 7)
        s.opening("light", 4, 4)
        return s

    money, match = run("money"), run("usbgf-2019")
    assert "AUTO_DOUBLE" in money.all_codes() and money.ref.match.cube.value == 2
    assert "AUTO_DOUBLE" not in match.all_codes() and match.ref.match.cube.value == 1
    assert "OPENING_TIE_REROLL" in match.all_codes()


# B30: where a take is set down
def test_take_set_down_on_the_takers_side_of_the_board_counts_under_wb23_not_rg19():
    def run(rules: str) -> Scenario:
        s = opened(rules=rules)
        s.double("dark")
        s.script.hand(0, "cube")
        s.table.cube = {"value": 2, "zone": "board", "side": "near"}  # moved to light's half, on the surface
        s.snap()
        s.script.no_hands()
        s.snap()
        return s

    wb, rg = run("wbgf-2023"), run("usbgf-2019")
    assert "TAKE" in wb.all_codes() and wb.ref.match.cube.owner == 0
    assert "TAKE" not in rg.all_codes() and rg.ref.match.cube.offered_by is not None  # RG19 4.4.5.2: nothing decided yet
    rg.take("light")  # set down off the playing surface on light's side
    assert "TAKE" in rg.all_codes()


def test_a_variant_can_add_its_own_alert_codes_and_citations():
    from rules.referee import CATALOGUE, AlertSpec, Severity, add_citations, register_alert
    from rules.referee.alerts import _SPECS

    try:
        register_alert(AlertSpec("TEST_VARIANT_ONLY", Severity.VIOL, "test", {"XYZ": ("XYZ R1",)}))
        with pytest.raises(ValueError, match="already in the catalogue"):
            register_alert(AlertSpec("ILLEGAL_MOVE", Severity.VIOL, "again", {}))
        add_citations("ILLEGAL_MOVE", "XYZ", ("XYZ R7",))
        assert CATALOGUE["ILLEGAL_MOVE"].cites_for("XYZ") == ("XYZ R7",)
        assert CATALOGUE["ILLEGAL_MOVE"].cites_for("RG19")[0] == "RG19 4.2.3.1(a)"
        assert CATALOGUE["TEST_VARIANT_ONLY"].applies("XYZ") and not CATALOGUE["TEST_VARIANT_ONLY"].applies("RG19")
    finally:  # leave the shared catalogue as it was
        CATALOGUE.pop("TEST_VARIANT_ONLY", None)
        _SPECS[:] = [x for x in _SPECS if x.code != "TEST_VARIANT_ONLY"]
        CATALOGUE["ILLEGAL_MOVE"].cites.pop("XYZ", None)


def test_wb23_setup_window_also_closes_when_the_starter_doubles_in_his_second_turn():
    s = Scenario(rules="wbgf-2023")
    s.table.boards[0][13] -= 1
    s.table.boards[0][11] += 1
    s.snap()
    s.opening("light", 3, 1)
    s.play("light", "8/5 6/5")
    s.end_turn("light")
    s.roll("dark", 6, 4)
    s.play("dark", "24/18 18/14")
    s.end_turn("dark")
    assert "SETUP_ERROR_WINDOW_CLOSED" not in s.all_codes()
    s.double("light")
    assert "SETUP_ERROR_WINDOW_CLOSED" in s.all_codes()


def test_a_variant_can_set_its_own_starting_position():
    """A Nackgammon-like start (24: 2, 23: 2, 13: 4, 8: 3, 6: 4) is a set-up error in standard play only."""
    from rules.position import Position

    points = {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    nack = Position.from_points(points, points)
    register_profile("nack-test", lambda **_: with_options(get_profile("usbgf-2019"), name="nack-test",
                                                           start_position=lambda: nack))

    def run(rules: str) -> list[str]:
        s = Scenario(rules=rules)
        s.set_boards(list(nack.board(0)), list(nack.board(1)))
        s.snap()
        s.opening("light", 3, 1)
        s.play("light", "8/5 6/5")
        s.end_turn("light")
        return s.codes()

    assert run("usbgf-2019") == ["SETUP_ERROR"]
    assert run("nack-test") == []
