"""Welsh match, time control, breaks and prizes (DIGEST C.4, C.18, C.23, C.24; R1, R7, R12, R23, (D))."""

from __future__ import annotations

import pytest

from rules.welsh.alerts import WelshRuleError
from rules.welsh.game import Ending, WelshGame
from rules.welsh.match import WelshMatch, odds_evens_chooser, pounds, settle
from rules.welsh.options import WelshOptions


def snakes(g: WelshGame) -> None:
    """Both players throw 1-1 in turn: a wash by snakes (R22 ii)."""
    g.throw((1, 1))
    g.apply_play(g.legal_plays()[0])
    assert g.throw((1, 1)) == "over"


def test_c4_odds_and_evens_then_mugs_away_R7_W30():
    assert odds_evens_chooser(shaker=0, hidden_sum=7, call="odds") == 1  # the caller was right
    assert odds_evens_chooser(shaker=0, hidden_sum=7, call="evens") == 0
    m = WelshMatch()
    assert m.next_starter() is None
    with pytest.raises(ValueError, match="odds and evens"):
        m.new_game()
    snakes(m.new_game(0))
    assert m.next_starter() is None  # after a wash: odds and evens again (W30 default)
    other = WelshMatch(WelshOptions(wash_starter="other_player"))
    snakes(other.new_game(1))
    assert other.next_starter() == 0


def test_c4_the_loser_of_a_game_starts_the_next_R7():
    m = WelshMatch()
    g = m.new_game(0)
    g.position = g.position.from_labels(red="H6 H5 H4 H3", black="H6:5 H5:5 H4:5")
    g._start_turn()
    g.throw((6, 6))
    g.apply_play(g.legal_plays()[0])
    assert m.scores == [3, 0] and m.next_starter() == 1
    with pytest.raises(WelshRuleError):
        m.new_game(0)


def test_c18_ten_for_two_and_the_time_out_R12():
    m = WelshMatch()
    g = m.new_game(0, clocks=(599.0, 30.0))
    assert g.cube == 2 and g.cube_owner is None  # either player may raise to 4 (W42)
    assert g.can_raise(0) is None
    snakes(g)
    assert m.new_game(0, clocks=(600.0, 30.0)).cube == 1  # 10:00 is not under ten minutes
    m.time_out(1)
    assert m.over and m.winner == 0 and m.ending is Ending.TIMED_OUT
    assert m.settlement().set_payment == 2000  # R23 b) £20


def test_c23_match_to_25_and_both_reaching_it_together_R1_W33():
    m = WelshMatch()
    m.award_penalty(0, 24)
    m.award_penalty(1, 24)
    assert not m.over
    snakes(m.new_game(0))  # a wash: 25-25, one more game decides
    assert m.scores == [25, 25] and not m.over
    m.award_penalty(1, 1)
    assert m.over and m.winner == 1
    assert m.check_consistency() is None


def test_c23_breaks_at_exactly_6_12_18_24_once_and_time_for_tea_D_W37():
    m = WelshMatch()
    m.award_penalty(0, 5)
    m.award_penalty(0, 1)
    m.award_penalty(1, 6)  # 6 again, by the other player: not a second trigger
    m.award_penalty(0, 7)  # 13: jumped over 12
    reasons = [r for _, r in m.breaks]
    assert reasons == ["games-score of exactly 6"]
    g = m.new_game(0)
    g.position = g.position.from_labels(red="H3 H2", black="N2:5 F6:5 N3:5")
    g._start_turn()
    g.throw((2, 3))
    g.apply_play(next(p for p in g.legal_plays() if p.ending))
    assert m.breaks[-1][1].startswith("time for tea")


def test_c24_R23_prize_example_28_to_12_pays_14_pounds():
    s = settle(0, (28, 12), "score", loser_games_won=4, scoop=(), options=WelshOptions())
    assert (s.standard, pounds(s.match_payment)) == (1400, "£14.00")


def test_c24_nil_pony_rectangle_and_scoop_pot_R23_W19_W35_W36():
    nil = settle(1, (0, 25), "score", loser_games_won=0, scoop=(), options=WelshOptions())
    assert (nil.standard, nil.nil) == (1000 + 25 * 25, 2500)
    rect = settle(0, (3, 10), Ending.RECTANGLE, loser_games_won=2, scoop=(), options=WelshOptions())
    assert (rect.standard, rect.set_payment, rect.nil) == (0, 750, 0)
    # scoop pot: a backgammon collects £1 per game since the last collection, across matches
    m = WelshMatch()
    m.scoop_pot.games = 9
    g = m.new_game(0)
    g.position = g.position.from_labels(red="H1", black="N2:5 F6:5 N3:5")
    g._start_turn()
    g.throw((1, 3))
    g.apply_play(next(p for p in g.legal_plays() if p.ending))
    assert g.result is not None and g.result.backgammon and g.result.games == (6, 0)
    assert m.scoop_collections == [(0, 1000)] and m.scoop_pot.games == 0
    assert (len(m.results), "backgammon") in m.breaks


def test_c23_break_the_first_time_both_clocks_are_under_35_minutes_D():
    m = WelshMatch()
    snakes(m.new_game(0, clocks=(2200.0, 2000.0)))  # only one clock under 35:00
    assert m.breaks == []
    snakes(m.new_game(0, clocks=(2099.0, 2000.0)))
    snakes(m.new_game(0, clocks=(1500.0, 1400.0)))  # not a second time
    assert [r for _, r in m.breaks] == ["both clocks under 35 minutes"]
