"""Random Welsh games keep every invariant, and Welsh perft (DIGEST C.1, R8, R10, C.19, C.23).

The full 100,000-game run is ``scripts/bench_welsh.py`` (``make bench``); this is a smaller sample.
"""

from __future__ import annotations

from rules.welsh.perft import perft, perft_sets
from rules.welsh.position import WelshPosition
from rules.welsh.randplay import position_violations, run


def test_random_games_break_no_invariant_and_sampled_plays_are_legal():
    stats = run(1200, seed=20261121, cross_check_every=3)
    assert stats.games == 1200
    assert stats.violations == []
    assert stats.checked_plays > 10_000  # a third of the games had every play cross-checked
    # the sample reaches the rules it is meant to exercise
    for code in ("WEL_DANCE", "WEL_AUTO_RAISE", "WEL_FIRST_CHECKOUT_BONUS", "WEL_ROVER_ACTIVE", "WEL_TRIANGLE_FORMED",
                 "WEL_TEN_FOR_TWO", "WEL_BREAK_TRIGGER", "WEL_MATCH_WON", "WEL_CONCESSION_WINDOW_OPEN"):
        assert stats.events.get(code, 0) > 0, code
    for ending in ("checkout", "wash_sticks", "wash_snakes", "three_on_roof", "timed_out", "concession"):
        assert stats.endings.get(ending, 0) > 0, ending


def test_the_invariant_checker_catches_a_broken_turn_end():
    two_full = WelshPosition.from_labels(red="H6:6 H5:6 H4:3", black="B1:2 F6:5 N2:3 H6:5")
    assert position_violations(two_full, 0, game_over=False) == ["player 0 ended his turn with two full spikes"]
    roof3 = WelshPosition.from_labels(red="roof:3 H6:5 H5:5 H4:2", black="B1:2 F6:5 N2:3 H6:5")
    assert position_violations(roof3, 1, game_over=False)
    assert position_violations(roof3, 1, game_over=True) == []


def test_perft_definition_and_regression_values():
    layers = perft_sets(2)
    assert len(layers[0]) == 1 and perft(1) == len(layers[1])
    # ply 2 is Black's: every position in it comes from one of ply 1 by one legal Black play
    assert all(p.checked_out(0) == 0 and p.checked_out(1) == 0 for p in layers[2])
    assert WelshPosition.start() not in layers[1]
    assert (len(layers[1]), len(layers[2])) == (209, 42776)  # pinned; recompute after an intended rules change
