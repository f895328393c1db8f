"""Welsh geometry and movement, one test per rule (DIGEST C.1-C.3, C.6-C.12; R2, R7-R11, R15, R16, R20).

Positions are written with labels from each player's own view (B=Back, F=Far-Outer, N=Near-Outer,
H=Home, then the spike number); men not listed are checked out.
"""

from __future__ import annotations

import pytest

from rules.welsh.geometry import crosses_central_bar, label, parse_label, quarter_of
from rules.welsh.movegen import Step, legal_plays
from rules.welsh.options import WelshOptions
from rules.welsh.position import InvalidPositionError, WelshPosition


def pos(red: str, black: str) -> WelshPosition:
    return WelshPosition.from_labels(red=red, black=black)


def results(p: WelshPosition, throw: tuple[int, ...], player: int = 0, **opts: object) -> set[WelshPosition]:
    return {x.result for x in legal_plays(p, player, throw, WelshOptions(**opts))}  # type: ignore[arg-type]


# ---- C.1 equipment, C.2 geometry, C.3 start ---------------------------------------------------

def test_c1_fifteen_men_a_side_and_at_most_six_on_a_spike_R1_R10():
    with pytest.raises(InvalidPositionError, match="16 men"):
        WelshPosition.from_labels(red="B1:2 F6:5 N2:3 H6:6", black="B1:2 F6:5 N2:3 H6:5")
    with pytest.raises(InvalidPositionError, match="at most 6"):
        WelshPosition.from_labels(red="H6:7", black="H6")


def test_c2_spike_numbering_and_one_number_per_physical_spike_R2_W3():
    # inner quarters: 1 at the edge; outer quarters: 1 at the bar (R15, R18)
    assert [label(r) for r in (1, 6, 7, 12, 13, 18, 19, 24)] == ["B1", "B6", "F1", "F6", "N6", "N1", "H6", "H1"]
    for name in ("B1", "F3", "N5", "H2", "roof", "off"):
        assert label(parse_label(name)) == name
    # my Back k is the opponent's Home k; my Far-Outer c is his Near-Outer c
    assert 25 - parse_label("B4") == parse_label("H4")
    assert 25 - parse_label("F2") == parse_label("N2")
    assert [quarter_of(r) for r in (1, 7, 13, 19)] == [0, 1, 2, 3]
    # the central bar lies B6|F1 and N1|H6; the stream F6|N6 is not the bar (C.9)
    assert crosses_central_bar(parse_label("B6"), parse_label("F1"))
    assert crosses_central_bar(parse_label("N1"), parse_label("H6"))
    assert not crosses_central_bar(parse_label("F6"), parse_label("N6"))
    with pytest.raises(ValueError, match="quarter letter"):
        parse_label("X9")


def test_c3_starting_position_R2_W2():
    start = WelshPosition.start()
    assert start.labels() == ("B1:2 F6:5 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5")
    # Red's Far-Outer 6 faces Black's five men on Red's Near-Outer 6 across the stream
    assert start.owner_at(0, parse_label("N6")) == (1, 5)
    assert start.owner_at(0, parse_label("H1")) == (1, 2)


# ---- C.6 general movement (R7, R8, R9) ------------------------------------------------------------

RED_BACK = "B1:2 H6:5 H5:5 H4:3"


def test_c6_combined_move_jumps_over_covered_spikes_R9():
    # B3 and B4 are covered: neither die alone can move a B1 man, 3+2 together jumps to B6
    p = pos(RED_BACK, "H3:2 H4:2 N2:5 F6:5 B2")
    plays = legal_plays(p, 0, (3, 2))
    assert any(s == Step(1, 6, (3, 2)) for pl in plays for s in pl.steps)
    assert not any(s.frm == 1 and s.to in (3, 4) for pl in plays for s in pl.steps)


def test_c6_combined_move_cannot_hit_on_the_way_R9():
    p = pos(RED_BACK, "H3 N2:5 F6:5 B2:4")  # a Black blot on Red's B3
    combined = next(pl for pl in legal_plays(p, 0, (2, 3)) for s in pl.steps if s == Step(1, 6, (3, 2)))
    assert combined.hits == 0 and combined.result.on_roof(1) == 0


def test_c6_hit_and_stop_default_and_narrow_option_R9_W7():
    p = pos(RED_BACK, "H3 N2:5 F6:5 B2:4")
    hit_then_on = pos("B1 B6 H6:5 H5:5 H4:3", "roof N2:5 F6:5 B2:4")
    assert hit_then_on not in results(p, (2, 3))  # the hitter may not move on (W7 default)
    assert hit_then_on in results(p, (2, 3), hit_and_stop=False)
    # the same man may still make separate moves without hitting (R15 6-4 style)
    assert pos("B1 B6 H6:5 H5:5 H4:3", "H3 N2:5 F6:5 B2:4") in results(p, (2, 3))


def test_c6_never_settle_on_a_covered_spike_or_a_seventh_man_R8_R9_R10():
    p = pos("N1:2 H6:6 H5:4 H4:3", "B1:5 B2:5 B3:5")  # Black covers Red's H1-H3
    for r in results(p, (1, 2)):
        assert r.at(0, parse_label("H6")) <= 6
        assert r.at(0, parse_label("H3")) == 0 and r.at(0, parse_label("H2")) == 0


def test_c6_larger_die_when_only_one_can_be_played_R7():
    # Red's only mobile man is on B1: the 6 (to F1) or the 5 (to B6), not both (F6 is covered)
    p = pos("B1 H6:5 H5:5 H4:4", "N6:2 B1:5 B2:5 B3:3")
    # (the lone B1 man is also a rover, R20: its plays with a backward move are not R7's business)
    plays = [pl for pl in legal_plays(p, 0, (6, 5)) if not pl.backward]
    assert [str(pl) for pl in plays] == ["B1/F1(6)"]


def test_c6_as_many_dice_as_possible_with_doubles_R7():
    p = WelshPosition.start()
    assert all(pl.dice_used == 4 for pl in legal_plays(p, 0, (4, 4)))


# ---- C.7 the roof (R9, R14, R16) -------------------------------------------------------------------

def test_c7_reentry_first_only_roof_men_move_R16():
    p = pos("roof H6:5 H5:5 H4:4", "N2:5 F6:5 B2:5")
    plays = legal_plays(p, 0, (6, 5))
    assert plays and all(pl.steps[0].frm == 0 for pl in plays)
    # a combined value enters too: 3-2 on the 3, 2 or 5 spike (R16 example)
    entries = {pl.steps[0].to for pl in legal_plays(p, 0, (3, 2))}
    assert entries == {2, 3, 5}


def test_c7_two_on_the_roof_both_enter_before_anything_else_moves_R16_W5():
    p = pos("roof:2 H6:5 H5:5 H4:3", "H6:2 N2:5 F6:5 B2:3")  # Red's B6 covered
    plays = legal_plays(p, 0, (6, 5))
    assert len(plays) == 1
    (only,) = plays
    assert [(s.frm, s.to) for s in only.steps] == [(0, 5)] and only.dance


def test_c7_values_above_six_do_not_enter_W4():
    p = pos("roof H6:5 H5:5 H4:4", "H3:2 H4:2 N2:5 F6:5 B2")
    (dance,) = legal_plays(p, 0, (4, 3))
    assert dance.steps == () and dance.dance
    assert any(pl.steps for pl in legal_plays(p, 0, (4, 3), WelshOptions(enter_above_six=True)))


def test_c7_third_man_on_the_roof_ends_the_game_mid_turn_R14_W16():
    p = pos(RED_BACK, "roof:2 H3 N2:5 F6:5 B2:2")
    ending = [pl for pl in legal_plays(p, 0, (2, 6)) if pl.ending == "three_on_roof"]
    assert ending and ending[0].steps == (Step(0 + 1, 3, (2,), hit=True),)
    assert ending[0].dice_used == 2  # the rest of the turn is abandoned


# ---- C.8 Crossing The Stream (R15) ----------------------------------------------------------------

def test_c8_R15_opening_6_4_crosses_from_the_6_spike_and_joins_the_three():
    after = pos("B1:2 F6:4 N2:4 H6:5", "B1:2 F6:5 N2:3 H6:5")
    plays = [pl for pl in legal_plays(WelshPosition.start(), 0, (6, 4)) if pl.result == after]
    assert plays and str(plays[0]) == "F6/N2(6+4)"
    # without settling on the covered Near-Outer 6 (Black's five men)
    assert after not in results(WelshPosition.start(), (6, 4), cross_then_continue=False)


def _crossers(throw: tuple[int, int]) -> set[int]:
    out = set()
    for c in range(1, 7):
        p = pos(f"F{c} H3:4 H2:5 H1:5", "B6:5 B5:5 B4:5")
        if any(sum(r.side(0)[7:13]) == 0 for r in results(p, throw)):
            out.add(c)
    return out


def test_c8_R15_one_one_crosses_from_spikes_1_to_4():
    assert _crossers((1, 1)) == {1, 2, 3, 4}


def test_c8_R15_two_two_crosses_from_spikes_2_4_6_with_a_2_to_go_from_6():
    assert _crossers((2, 2)) == {2, 4, 6}
    p = pos("F6 H3:4 H2:5 H1:5", "B6:5 B5:5 B4:5")
    assert any(
        Step(12, 13, (2, 2, 2)) in pl.steps and pl.dice_used == 4 for pl in legal_plays(p, 0, (2, 2))
    )


def test_c8_no_overshooting_and_no_passing_through_from_the_back_board_W6():
    p = pos("F5 H3:4 H2:5 H1:5", "B6:5 B5:5 B4:5")
    assert all(r.at(0, parse_label("F5")) == 1 for r in results(p, (3, 3)))  # 5+3 > 6 and 3 != 5
    q = pos("B5:2 H3:4 H2:5 H1:4", "B6:5 H1:5 B4:5")
    assert all(sum(r.side(0)[13:19]) == 0 for r in results(q, (6, 4)))


# ---- C.9 Skinny Sevens (R9) --------------------------------------------------------------------------

def test_c9_skinny_seven_never_crosses_the_central_bar_R9_W8():
    p = pos("B5:2 F5:2 N1:2 H6:5 H5:2 H4:2", "B1:5 B2:5 B3:5")
    skinny = legal_plays(p, 0, (5, 2))
    assert skinny and not any(crosses_central_bar(s.frm, s.to) for pl in skinny for s in pl.steps)
    assert any(Step(11, 14, (5,)) in pl.steps for pl in skinny)  # crossing the stream is not the bar
    other = legal_plays(p, 0, (4, 3))
    assert any(crosses_central_bar(s.frm, s.to) for pl in other for s in pl.steps)


# ---- C.10 Full Spikes (R10) -----------------------------------------------------------------------------

def test_c10_never_two_full_spikes_at_the_end_of_a_turn_R10_W9():
    p = pos("B1:2 B3:6 B5:5 H6:2", "B1:5 B2:5 B3:5")
    res = results(p, (4, 3))
    assert pos("B3:6 B4 B5:6 H6:2", "B1:5 B2:5 B3:5") not in res
    assert pos("B1 B3:5 B5:6 B6 H6:2", "B1:5 B2:5 B3:5") in res
    assert all(len(r.full_spikes(0)) <= 1 for r in res)


def test_c10_moves_only_possible_into_two_full_spikes_are_forfeited_R10():
    # the only legal move of the 2 would make a second full spike: the 2 is forfeited
    p = pos("H6:6 H4:5 H1:4", "N2:5 F6:5 B2:5")
    plays = legal_plays(p, 0, (2, 2))
    assert all(len(pl.result.full_spikes(0)) <= 1 for pl in plays)
    assert all(pl.result.at(0, parse_label("H4")) <= 6 for pl in plays)


# ---- C.11 Full Spreads (R11) -----------------------------------------------------------------------------

def test_c11_blots_of_a_full_spread_cannot_be_hit_R11():
    red = "F1:2 H6:5 H5:5 H4:3"
    spread = pos(red, "F1 F2 F3 F4 F5 F6 B1:5 B2:4")
    assert spread.full_spreads(1) == [1]
    assert all(pl.hits == 0 for pl in legal_plays(spread, 0, (1, 3)))
    broken = pos(red, "F1 F3 F4 F5 F6 B1:5 B2:5")
    assert any(pl.hits for pl in legal_plays(broken, 0, (1, 3)))


# ---- C.12 Rovers and Last Man Roving (R20) ---------------------------------------------------------------

ROVER_BLACK = "B1:5 B2:5 B3:5"  # covers Red's H1-H3


def test_c12_an_activated_rover_may_move_backward_not_on_doubles_R20():
    p = pos("N3 H6:5 H5:5 H4:4", ROVER_BLACK)
    assert p.rovers(0) == [parse_label("N3")]
    assert any(pl.backward for pl in legal_plays(p, 0, (2, 1)))
    assert not any(pl.backward for pl in legal_plays(p, 0, (2, 2)))


def test_c12_a_backward_move_cannot_waive_a_playable_forward_value_R20_W26():
    p = pos("N3 H6:5 H5:5 H4:4", ROVER_BLACK)
    for pl in legal_plays(p, 0, (3, 1)):
        if pl.backward:
            assert pl.dice_used == 2, f"{pl} waives a value that has a forward use"


def test_c12_a_man_left_alone_during_the_turn_is_not_activated_R20():
    p = pos("N3:2 H6:5 H5:5 H4:3", ROVER_BLACK)
    assert p.rovers(0) == []
    assert not any(pl.backward for pl in legal_plays(p, 0, (2, 1)))


def test_c12_R20_last_man_roving_from_the_2_spike():
    p = pos("H2", "H6:5 H5:5 H4:5")
    winners = set()
    for a in range(1, 7):
        for b in range(a, 7):
            if any(pl.ending == "checkout" for pl in legal_plays(p, 0, (a, b))):
                winners.add((a, b))
    # "in addition to 2 or Double 1 rolls, he can also check-out with a 1-3, a 3-5 or a 4-6"
    assert winners == {(1, 2), (2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (1, 1), (1, 3), (3, 5), (4, 6)}
    one_three = next(pl for pl in legal_plays(p, 0, (1, 3)) if pl.ending)
    assert str(one_three) == "H2<H3(1) H3/off(3)"
