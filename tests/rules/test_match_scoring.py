"""Results, concessions and the claim test (rules/scoring.py): STD Gammons and Backgammons,
RG19 4.5.1 (conceding), RG19 4.5.2 (claiming: claimant rolls 1-2, opponent 6-6)."""

from __future__ import annotations

import pytest

from rules.match import ResignationError, ResultKind
from rules.position import Position
from rules.scoring import (
    check_resignation,
    claim_is_valid,
    game_winner,
    possible_kinds,
    resignation_error,
    result_kind,
    turns_to_finish,
)


def test_single_when_the_loser_has_borne_off() -> None:
    pos = Position.from_points({}, {3: 2, 20: 1})  # player 1 has 12 off
    assert game_winner(pos) == 0
    assert result_kind(pos, 0) is ResultKind.SINGLE


def test_gammon_when_the_loser_has_borne_off_nothing() -> None:
    pos = Position.from_points({}, {6: 15})
    assert result_kind(pos, 0) is ResultKind.GAMMON


@pytest.mark.parametrize("where", [{25: 1, 6: 14}, {19: 1, 6: 14}, {24: 2, 6: 13}])
def test_backgammon_with_a_checker_on_the_bar_or_in_the_winners_home(where: dict[int, int]) -> None:
    pos = Position.from_points({}, where)
    assert result_kind(pos, 0) is ResultKind.BACKGAMMON


def test_out_of_play_checkers_do_not_count_as_borne_off_dig_a8_2() -> None:
    pos = Position.from_points({}, {6: 14}, out_of_play=(0, 1))
    assert pos.borne_off(1) == 0
    assert result_kind(pos, 0) is ResultKind.GAMMON


def test_concession_limits_rg19_4_5_1() -> None:
    race = Position.from_points({1: 2}, {20: 1, 6: 14})  # no contact; player 1 in player 0's home
    assert possible_kinds(race, 1) == {ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON}
    check_resignation(race, 1, ResultKind.BACKGAMMON)
    borne = Position.from_points({1: 2}, {6: 10})
    with pytest.raises(ResignationError, match="no gammon"):
        check_resignation(borne, 1, ResultKind.GAMMON)
    home = Position.from_points({1: 2}, {6: 15})
    with pytest.raises(ResignationError, match="no backgammon"):
        check_resignation(home, 1, ResultKind.BACKGAMMON)
    contact = Position.start()
    err = resignation_error(contact, 1, ResultKind.SINGLE)
    assert err is not None and err.rule == "RG19 4.5.1" and "contact" in str(err)
    assert resignation_error(contact, 1, ResultKind.SINGLE, require_no_contact=False) is None


def test_claim_of_a_backgammon_that_the_6_6_cannot_stop_rg19_4_5_2() -> None:
    # player 0 bears off two checkers from his 1-point with 1-2 at once; player 1 rolling 6-6 needs
    # a turn to leave player 0's home board, too late
    pos = Position.from_points({1: 2}, {20: 1, 6: 14})
    assert not pos.is_contact()
    assert claim_is_valid(pos, 0, ResultKind.BACKGAMMON)
    assert claim_is_valid(pos, 0, ResultKind.GAMMON)
    assert claim_is_valid(pos, 0, ResultKind.SINGLE)


def test_claim_fails_when_the_opponent_with_6_6_saves_the_gammon() -> None:
    # four checkers need two turns of 1-2; player 1's 6-6 brings the straggler home and bears one off
    pos = Position.from_points({1: 2, 2: 2}, {20: 1, 6: 14})
    assert turns_to_finish(pos, 0, (1, 2), "all_off") == 2
    assert turns_to_finish(pos, 1, (6, 6), "one_off") == 1
    assert not claim_is_valid(pos, 0, ResultKind.GAMMON)
    assert not claim_is_valid(pos, 0, ResultKind.BACKGAMMON)
    assert claim_is_valid(pos, 0, ResultKind.SINGLE)


def test_claim_after_rolling_uses_the_actual_roll() -> None:
    pos = Position.from_points({1: 2, 2: 2}, {20: 1, 6: 14})
    # having rolled 2-2 the claimant bears all four off now: the gammon claim stands
    assert claim_is_valid(pos, 0, ResultKind.GAMMON, claimant_roll=(2, 2))


def test_claim_of_a_single_game_loses_a_long_race() -> None:
    pos = Position.from_points({6: 3}, {1: 15})
    assert turns_to_finish(pos, 0, (1, 2), "all_off") == 6
    assert turns_to_finish(pos, 1, (6, 6), "all_off") == 4
    assert not claim_is_valid(pos, 0, ResultKind.SINGLE)
    # the claimant always gets the 1-2: player 1 needs 8 turns, player 0's 6-6 finishes in one
    assert not claim_is_valid(pos, 1, ResultKind.SINGLE)
    # one checker on the 6-point: two turns of 1-2, against four turns of 6-6 for 15 checkers
    assert claim_is_valid(Position.from_points({6: 1}, {1: 15}), 0, ResultKind.SINGLE)


def test_claim_needs_broken_contact() -> None:
    with pytest.raises(ResignationError, match="RG19 4.5.2"):
        claim_is_valid(Position.start(), 0, ResultKind.SINGLE)


@pytest.mark.parametrize(
    ("points", "goal", "roll"),
    [
        ({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}, "all_off", (1, 2)),
        ({6: 2, 5: 2, 4: 2}, "all_off", (1, 2)),
        ({1: 1, 3: 1, 5: 3, 6: 1}, "all_off", (1, 2)),
        ({9: 2, 8: 1, 2: 3}, "one_off", (6, 6)),  # already has checkers off: 0 turns
        ({9: 5, 8: 5, 2: 5}, "one_off", (6, 6)),
        ({20: 2, 12: 3, 6: 4}, "escape", (6, 6)),
        ({20: 2, 12: 3, 6: 4}, "all_off", (6, 6)),
    ],
)
def test_race_bounds_enclose_the_searched_number_of_turns(points: dict[int, int], goal: str,
                                                          roll: tuple[int, int]) -> None:
    from rules.scoring import race_bounds

    pos = Position.from_points(points, {1: 2})
    low, high = race_bounds(pos, 0, roll, goal)
    exact = turns_to_finish(pos, 0, roll, goal)
    assert low <= exact <= high


def test_claim_far_from_the_end_is_decided_by_the_bounds_quickly() -> None:
    # 15 checkers on points 6-10: the claimant's 1-2 needs 40 turns; a full search takes minutes
    pos = Position.from_points({6: 3, 7: 3, 8: 3, 9: 3, 10: 3}, {6: 15})
    assert not claim_is_valid(pos, 0, ResultKind.SINGLE)
