"""Match and cube state (rules/match.py). Rule sections cited per test; see DIGEST A7, A8."""

from __future__ import annotations

import pytest

from rules.match import (
    BeaverError,
    CrawfordDoubleError,
    CubeAction,
    CubeError,
    DeadCubeError,
    DeadCubeRule,
    MatchOverError,
    MatchRules,
    MatchState,
    NoCubeAccessError,
    NoOfferError,
    OfferPendingError,
    Player,
    ResultKind,
    Termination,
)

A, B = Player.FIRST, Player.SECOND


def test_centred_cube_gives_both_players_access_rg19_4_4_2() -> None:
    m = MatchState.new(7)
    assert m.legal_cube_actions(A) == {CubeAction.DOUBLE}
    assert m.legal_cube_actions(B) == {CubeAction.DOUBLE}
    assert m.legal_cube_actions(A, before_roll=False) == frozenset()


def test_take_gives_ownership_and_only_owner_redoubles_rg19_4_4_2() -> None:
    m = MatchState.new(7).double(A)
    assert m.legal_cube_actions(B) == {CubeAction.TAKE, CubeAction.PASS}
    assert m.legal_cube_actions(A) == frozenset()
    m = m.take(B)
    assert (m.cube.value, m.cube.owner) == (2, B)
    with pytest.raises(NoCubeAccessError, match="RG19 4.4.2"):
        m.double(A)
    m = m.double(B).take(A)
    assert (m.cube.value, m.cube.owner) == (4, A)


def test_double_while_offer_pending_and_take_without_offer_are_refused() -> None:
    m = MatchState.new(5).double(A)
    with pytest.raises(OfferPendingError):
        m.double(B)
    with pytest.raises(NoOfferError):
        MatchState.new(5).take(B)
    with pytest.raises(NoOfferError):
        m.take(A)  # own double


def test_pass_scores_the_value_before_the_double_rg19_4_6_2() -> None:
    m = MatchState.new(7).double(A).take(B).double(B).pass_(A)
    assert m.score == (0, 2)
    result = m.results[-1]
    assert (result.winner, result.kind, result.cube, result.termination) == (B, ResultKind.SINGLE, 2, Termination.PASS)
    assert m.cube.value == 1 and m.cube.owner is None and m.game == 2


def test_points_are_game_value_times_cube_rg19_4_6_2() -> None:
    m = MatchState.new(11).double(A).take(B)
    assert m.points_for(ResultKind.BACKGAMMON) == 6
    assert m.end_game(B, ResultKind.GAMMON).score == (0, 4)


def test_crawford_game_is_the_first_game_after_reaching_one_away_rg19_4_4_7() -> None:
    m = MatchState.new(5).end_game(A, ResultKind.GAMMON)  # 2-0
    assert not m.crawford
    m = m.end_game(A, ResultKind.GAMMON)  # 4-0: A is 1-away
    assert m.crawford and not m.post_crawford
    with pytest.raises(CrawfordDoubleError, match="RG19 4.4.7"):
        m.double(B)
    assert m.legal_cube_actions(B) == frozenset()
    m = m.end_game(B, ResultKind.SINGLE)  # 4-1, post-Crawford
    assert not m.crawford and m.post_crawford
    assert m.may_double(B)
    # the leader is 1-away: even a centred cube at 1 is dead (DIGEST A7.11)
    with pytest.raises(DeadCubeError, match="RG19 4.4.8"):
        m.double(A)


def test_no_second_crawford_game_when_trailer_reaches_one_away() -> None:
    m = MatchState.new(3).end_game(A, ResultKind.GAMMON)  # 2-0, Crawford next
    assert m.crawford
    m = m.end_game(B, ResultKind.GAMMON)  # 2-2: both 1-away, post-Crawford
    assert not m.crawford and m.post_crawford


def test_dead_cube_example_of_rg19_4_4_8() -> None:
    # "score is 7-5 in a 9-point match, the leader holding a cube of 2 may not redouble;
    # the trailer holding the cube at 2 may double"
    leader_owns = MatchState.new(9, score=(7, 5)).double(B).take(A)
    with pytest.raises(DeadCubeError):
        leader_owns.double(A)
    trailer_owns = MatchState.new(9, score=(7, 5)).double(A).take(B)
    assert trailer_owns.may_double(B)


def test_us09_reading_of_the_dead_cube_stops_both_players_dig_a7_11() -> None:
    # 9-point match at 3-7: A is 6-away, B 2-away. B owns the cube at 2.
    # RG19 4.4.8: B's cube is dead (2 >= 2-away) but A, the trailer, may double.
    rg19 = MatchState.new(9, score=(3, 7)).double(A).take(B)
    assert rg19.is_dead_cube(B) and not rg19.is_dead_cube(A)
    # at cube 8 owned by A: US09 5.6 reading, 8 >= max(6, 2): nobody doubles; RG19 lets A double.
    us09_rules = MatchRules(length=9, dead_cube=DeadCubeRule.US09)
    us09 = MatchState.new(us09_rules, score=(1, 3))  # 8-away v 6-away
    us09 = us09.double(A).take(B).double(B).take(A).double(A).take(B)  # cube 8, B owns
    with pytest.raises(DeadCubeError, match="US09 5.6"):
        us09.double(B)
    same_in_rg19 = MatchState.new(9, score=(1, 3)).double(A).take(B).double(B).take(A).double(A).take(B)
    assert same_in_rg19.is_dead_cube(B)  # 8 >= 6-away
    lower = MatchState.new(us09_rules, score=(1, 3)).double(A).take(B).double(B).take(A)  # cube 4, A owns
    assert lower.may_double(A)  # 4 < max(8, 6)


def test_match_ends_when_a_player_reaches_the_length() -> None:
    m = MatchState.new(3).double(A).take(B).end_game(B, ResultKind.GAMMON)
    assert m.winner is B and m.over
    with pytest.raises(MatchOverError):
        m.end_game(A, ResultKind.SINGLE)
    assert m.legal_cube_actions(A) == frozenset()


def test_money_options_are_refused_in_match_play_rg19_4_4_10() -> None:
    with pytest.raises(ValueError, match="RG19 4.4.10"):
        MatchRules(length=7, jacoby=True)
    with pytest.raises(BeaverError):
        MatchState.new(7).double(A).beaver(B)


def test_jacoby_gammon_counts_single_unless_a_double_was_offered_std_optional_3() -> None:
    money = MatchState.new(MatchRules.money_play(jacoby=True))
    assert money.points_for(ResultKind.GAMMON) == 1
    assert money.double(A).take(B).points_for(ResultKind.GAMMON) == 4
    no_jacoby = MatchState.new(MatchRules.money_play(jacoby=False))
    assert no_jacoby.points_for(ResultKind.BACKGAMMON) == 3
    assert money.end_game(A, ResultKind.GAMMON).score == (1, 0)


def test_beaver_redoubles_and_keeps_the_cube_std_optional_2() -> None:
    m = MatchState.new(MatchRules.money_play(beavers=True)).double(A)
    assert CubeAction.BEAVER in m.legal_cube_actions(B)
    beavered = m.beaver(B)
    assert beavered.legal_cube_actions(A) == {CubeAction.TAKE, CubeAction.PASS}  # no raccoon
    taken = beavered.take(A)
    assert (taken.cube.value, taken.cube.owner) == (4, B)
    refused = beavered.pass_(A)
    assert refused.score == (0, 2)


def test_automatic_doubles_respect_the_per_game_limit_std_optional_1() -> None:
    m = MatchState.new(MatchRules.money_play(automatic_doubles=1)).automatic_double()
    assert m.cube.value == 2 and m.cube.owner is None
    with pytest.raises(CubeError, match="limit"):
        m.automatic_double()
    # a new game resets the count
    assert m.end_game(A, ResultKind.SINGLE).automatic_double().cube.value == 2
    with pytest.raises(CubeError):
        MatchState.new(MatchRules.money_play()).automatic_double()


def test_cube_limit_stops_doubling() -> None:
    m = MatchState.new(MatchRules(length=0, crawford=False, dead_cube=DeadCubeRule.NONE, cube_limit=2))
    m = m.double(A).take(B)
    assert not m.may_double(B)


def test_bad_settings_are_rejected_with_a_reason() -> None:
    with pytest.raises(ValueError, match="already ends"):
        MatchState.new(5, score=(5, 0))
    with pytest.raises(ValueError, match="power of two"):
        MatchRules(length=5, cube_limit=3)


def test_resignation_scores_the_conceded_kind_rg19_4_5_1() -> None:
    m = MatchState.new(7).double(A).take(B).resign(A, ResultKind.GAMMON)
    assert m.score == (0, 4)
    assert m.results[-1].termination is Termination.RESIGN
    with pytest.raises(OfferPendingError):
        MatchState.new(7).double(A).resign(B)  # a doubled player passes instead
    assert MatchState.new(7).double(A).resign(A).score == (0, 1)  # the doubler gives up


def test_forfeit_credits_the_points_needed() -> None:
    m = MatchState.new(5, score=(1, 2)).forfeit(A)
    assert m.winner is A and m.score == (5, 2)
    with pytest.raises(ValueError, match="money"):
        MatchState.new(0).forfeit(A)


def test_the_next_game_after_an_unseen_end_keeps_the_score_and_centres_the_cube() -> None:
    m = MatchState.new(5, score=(1, 2)).double(A).take(B).next_game_unscored()
    assert m.game == 2 and m.score == (1, 2) and m.cube.value == 1 and m.cube.owner is None
    assert m.results == () and not m.doubled
    # the Crawford game's end unseen: the next game is post-Crawford
    c = MatchState.new(3, score=(2, 0)).with_crawford(True, False).next_game_unscored()
    assert not c.crawford and c.crawford_done
    with pytest.raises(MatchOverError):
        MatchState.new(3).end_game(A, ResultKind.BACKGAMMON).next_game_unscored()
