"""Readings that are options (DIGEST C.27), rover details (W27), the concession occasion (W23),
and the triangle's effect on the first-dance raise (W17, W18)."""

from __future__ import annotations

import pytest

from rules.welsh.game import WelshGame
from rules.welsh.match import settle
from rules.welsh.movegen import Step, legal_plays
from rules.welsh.options import PRESETS, WelshOptions, options_by_name, with_changes
from rules.welsh.position import WelshPosition


def pos(red: str, black: str) -> WelshPosition:
    return WelshPosition.from_labels(red=red, black=black)


HOME_COVER = "B1:5 B2:5 B3:5"  # covers Red's H1-H3
# Red holds a triangle (H6-H3: 4-3-2-1) with one man on the roof; Black covers every Back spike
TRIANGLE_ON_ROOF = ("roof H6:4 H5:3 H4:2 H3 H1:4", "H6:2 H5:2 H4:2 H3:2 H2:2 H1:2 N1:3")


def _triangle_dance(**opts: object) -> WelshGame:
    g = WelshGame(0, options=WelshOptions(**opts), position=pos(*TRIANGLE_ON_ROOF))  # type: ignore[arg-type]
    g.triangle[0] = True  # formed at the end of Red's previous turn
    g.throw((6, 5))
    (dance,) = g.legal_plays()
    g.apply_play(dance)
    return g


def test_w17_first_dance_under_a_triangle_uses_up_the_raise_by_default_R16_R17a():
    g = _triangle_dance()
    assert g.cube == 1 and g.first_dance_done
    h = _triangle_dance(first_dance_raise_used_up_by_triangle=False)
    assert h.cube == 1 and not h.first_dance_done


def test_w18_triangle_safeguard_when_the_holder_cannot_move_at_all_R17a():
    g = _triangle_dance()
    assert g.turn == 1 and "WEL_TRIANGLE_SUSPENDED" in [e.code for e in g.events]
    h = _triangle_dance(triangle_safeguard=False)
    assert h.turn == 0


def test_w8_narrow_skinny_seven_reading_bars_only_the_combined_7():
    p = pos("B5:2 F5:2 N1:2 H6:5 H5:2 H4:2", HOME_COVER)
    single_two_over_bar = Step(18, 20, (2,))
    assert not any(single_two_over_bar in pl.steps for pl in legal_plays(p, 0, (5, 2)))
    narrow = WelshOptions(skinny_seven_each_die=False)
    assert any(single_two_over_bar in pl.steps for pl in legal_plays(p, 0, (5, 2), narrow))


def test_w27_rover_recrosses_the_stream_backward_with_the_exact_value_and_may_hit():
    p = pos("N3 H6:5 H5:5 H4:4", "N3 B1:5 B2:5 B3:4")  # a Black blot on Red's F3
    back_hit = Step(16, 9, (3,), backward=True, hit=True)
    assert any(back_hit in pl.steps for pl in legal_plays(p, 0, (3, 1)))
    assert not any(s.backward and s.to == 9 for pl in legal_plays(p, 0, (4, 1)) for s in pl.steps)


def test_w27_rover_never_moves_back_onto_the_roof():
    p = pos("B2 H6:5 H5:5 H4:4", HOME_COVER)
    steps = [s for pl in legal_plays(p, 0, (2, 1)) for s in pl.steps if s.backward]
    assert steps and all(s.to >= 1 for s in steps)


def test_w23_no_concession_occasion_when_both_have_a_one_throw_win():
    g = WelshGame(1, position=pos("H1:2", "H1:2"))
    g.throw((6, 5))  # Black cannot move (both values bust)
    g.apply_play(g.legal_plays()[0])
    assert g.concession_window is None and not g.concession_occasion_used


def test_c14_no_bonus_throw_when_the_first_check_out_ends_the_game_W22():
    g = WelshGame(0, position=pos("H1", "N2:5 F6:5 N3:5"))
    g.throw((1, 2))
    g.apply_play(next(p for p in g.legal_plays() if p.ending))
    assert g.over and "WEL_FIRST_CHECKOUT_BONUS" not in [e.code for e in g.events]


def test_w35_match_to_nil_trigger_option_R23():
    default = settle(0, (25, 3), "score", loser_games_won=0, scoop=(), options=WelshOptions())
    games_won = settle(0, (25, 3), "score", loser_games_won=0, scoop=(), options=WelshOptions(nil_trigger="no_games_won"))
    assert (default.nil, games_won.nil) == (0, 2500)


def test_presets_are_found_by_name_and_unknown_options_are_rejected():
    assert options_by_name("welsh-narrow-hit").hit_and_stop is False
    assert set(PRESETS) >= {"welsh", "welsh-narrow-hit", "welsh-standard-backgammon"}
    with pytest.raises(ValueError, match="known"):
        options_by_name("welsh-turbo")
    with pytest.raises(ValueError, match="unknown Welsh option"):
        with_changes(WelshOptions(), hit_and_run=True)
