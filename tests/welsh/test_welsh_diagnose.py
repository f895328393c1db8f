"""Why a Welsh play is illegal: each C.26 move-legality alert from one small position (DIGEST C.26)."""

from __future__ import annotations

from rules.welsh.movegen import diagnose
from rules.welsh.position import WelshPosition, parse_side


def pos(red: str, black: str) -> WelshPosition:
    return WelshPosition.from_labels(red=red, black=black)


FAR_BLACK = "H6:5 H5:5 H4:5"
HOME_COVER = "B1:5 B2:5 B3:5"  # covers Red's H1-H3


def test_a_legal_result_has_no_diagnosis():
    start = WelshPosition.start()
    assert diagnose(start, 0, (6, 4), pos("B1:2 F6:4 N2:4 H6:5", "B1:2 F6:5 N2:3 H6:5")) == []


def test_roof_entry_first_R16():
    before = pos("roof H6:5 H5:5 H4:4", "H6:2 H5:2 N2:5 F6:5 B3")
    after = pos("roof H6:4 H5:5 H4:4 H1", "H6:2 H5:2 N2:5 F6:5 B3")
    assert diagnose(before, 0, (6, 5), after) == ["WEL_ROOF_ENTRY_FIRST"]


def test_hit_then_moved_R9_W7():
    before = pos("B1:2 H6:5 H5:5 H4:3", "H3 N2:5 F6:5 B2:4")
    after = pos("B1 B6 H6:5 H5:5 H4:3", "roof N2:5 F6:5 B2:4")
    assert diagnose(before, 0, (2, 3), after) == ["WEL_HIT_THEN_MOVED"]


def test_skinny_seven_over_the_central_bar_R9():
    before = pos("B5:2 F5:2 N1:2 H6:5 H5:2 H4:2", HOME_COVER)
    after = pos("B5:2 F5 N5 N1 H6:5 H5:3 H4:2", HOME_COVER)
    assert diagnose(before, 0, (5, 2), after) == ["WEL_SKINNY_SEVEN_BAR_CROSS"]


def test_stream_not_exact_R15():
    after = pos("B1:2 F6:4 N3 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5")
    assert diagnose(WelshPosition.start(), 0, (3, 1), after) == ["WEL_STREAM_NOT_EXACT"]


def test_two_full_spikes_R10():
    before = pos("B1:2 B3:6 B5:5 H6:2", HOME_COVER)
    assert diagnose(before, 0, (4, 3), pos("B3:6 B4 B5:6 H6:2", HOME_COVER)) == ["WEL_TWO_FULL_SPIKES"]


def test_backward_by_a_man_that_is_not_a_rover_R20():
    before = pos("N3:2 H6:5 H5:5 H4:3", HOME_COVER)
    assert diagnose(before, 0, (2, 1), pos("N4 N1 H6:5 H5:5 H4:3", HOME_COVER)) == ["WEL_BACKWARD_NOT_ROVER"]


def test_backward_on_doubles_R20():
    before = pos("B3 H6:5 H5:5 H4:4", HOME_COVER)
    assert "WEL_BACKWARD_ON_DOUBLES" in diagnose(before, 0, (2, 2), pos("B3 H6:3 H5:5 H4:6", HOME_COVER))


def test_check_out_with_a_man_outside_home_R18():
    before = pos("B1 H2:6 H3:6 H4:2", FAR_BLACK)
    assert diagnose(before, 0, (2, 3), pos("B1 H2:5 H3:5 H4:2", FAR_BLACK)) == ["WEL_CHECKOUT_NOT_ALL_HOME"]


def test_check_out_with_too_big_a_value_R18():
    before = pos("H6:5 H3:5 H2:5", FAR_BLACK)
    assert diagnose(before, 0, (5, 4), pos("H6:5 H3:4 H2:4", FAR_BLACK)) == ["WEL_CHECKOUT_BUST"]


def test_six_must_R18():
    before = pos("N1 H6:4 H2:5 H1:5", FAR_BLACK)
    assert diagnose(before, 0, (6, 1), pos("H6:3 H5 H2:5 H1:6", FAR_BLACK)) == ["WEL_SIX_MUST_VIOLATED"]


def test_forward_move_waived_R7():
    after = pos("B1:2 F6:5 N2:3 H6:4 H2", "B1:2 F6:5 N2:3 H6:5")
    assert diagnose(WelshPosition.start(), 0, (6, 4), after) == ["WEL_FORWARD_MOVE_WAIVED"]


def test_illegal_settle_covered_seventh_or_protected_R8_R10_R11():
    start = WelshPosition.start()
    mixed = (parse_side("B1 F6:5 N2:3 H6:5 H1"), parse_side("B1:2 F6:5 N2:3 H6:5"))  # onto Black's B1
    assert diagnose(start, 0, (6, 5), mixed) == ["WEL_ILLEGAL_SETTLE"]
    spread = pos("F1:2 H6:5 H5:5 H4:3", "F1 F2 F3 F4 F5 F6 B1:5 B2:4")
    hit = pos("F4 N1 H6:5 H5:5 H4:3", "roof F2 F3 F4 F5 F6 B1:5 B2:4")
    assert diagnose(spread, 0, (1, 3), hit) == ["WEL_ILLEGAL_SETTLE"]


def test_an_unexplained_change_is_an_illegal_play():
    after = pos("B1:2 F6:5 N2:3 H5:5", "B1:2 F6:5 N2:3 H6:5")
    assert diagnose(WelshPosition.start(), 0, (2, 1), after) == ["WEL_ILLEGAL_PLAY"]
