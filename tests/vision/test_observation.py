"""TableObservation: probabilities, scoring candidate positions, and the table-state contract."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.profile import Orientation
from vision.observation import (
    COUNTS,
    CubeObservation,
    DieObservation,
    TableObservation,
    peaked,
)

rules_position = pytest.importorskip("rules.position", reason="the rules engine is not in this tree")
Position = rules_position.Position

# the start position seen from the near (light) seat, light home near-right (physical = light's own)
START_LIGHT = {24: 2, 13: 5, 8: 3, 6: 5}
START_DARK = {1: 2, 12: 5, 17: 3, 19: 5}  # dark's own 24, 13, 8, 6 as physical 25 - p


def start_counts() -> tuple[list[int], list[int]]:
    light, dark = [0] * 24, [0] * 24
    for p, n in START_LIGHT.items():
        light[p - 1] = n
    for p, n in START_DARK.items():
        dark[p - 1] = n
    return light, dark


def test_the_true_position_scores_higher_than_a_neighbour() -> None:
    light, dark = start_counts()
    obs = TableObservation.from_counts(light, dark)
    start = Position.start()
    moved = start.apply("24/18 13/8", (6, 5))
    assert obs.log_likelihood(start) > obs.log_likelihood(moved) + 5.0


def test_orientation_decides_which_physical_points_a_position_covers() -> None:
    light, dark = start_counts()
    obs = TableObservation.from_counts(light, dark)
    # swapping colours (light is engine player 1) is the same start layout by symmetry
    assert obs.log_likelihood(Position.start(), light_player=1) == pytest.approx(obs.log_likelihood(Position.start()))
    # the mirror image (light home near-left) is a different physical layout and must score worse
    mirrored = TableObservation.from_counts(light, dark, orientation=Orientation("near-left"))
    assert mirrored.log_likelihood(Position.start()) < obs.log_likelihood(Position.start()) - 20


def test_uncertain_points_cost_little_and_certain_misses_cost_much() -> None:
    light, dark = start_counts()
    sharp = TableObservation.from_counts(light, dark)
    # point 6 uncertain between 5 and 4 light checkers
    p = sharp.point_p.copy()
    p[5, 0] = 0.0
    p[5, 0, 5], p[5, 0, 4] = 0.55, 0.45
    unsure = TableObservation(p, sharp.bar_p, sharp.off_p)
    light4 = list(light)
    light4[5] = 4
    drop_unsure = unsure.log_likelihood_physical(light, dark, (0, 0), (0, 0)) - unsure.log_likelihood_physical(
        light4, dark, (0, 0), (0, 0))
    drop_sharp = sharp.log_likelihood_physical(light, dark, (0, 0), (0, 0)) - sharp.log_likelihood_physical(
        light4, dark, (0, 0), (0, 0))
    assert 0 < drop_unsure < 0.5 < drop_sharp


def test_table_state_json_follows_the_referee_schema() -> None:
    tablestate = pytest.importorskip("rules.referee.tablestate", reason="the referee's table state is not in this tree")
    light, dark = start_counts()
    die = DieObservation(np.array([0.01, 0.01, 0.01, 0.01, 0.95, 0.01]), (812.5, 400.0), half="right",
                         valid_p=0.1, reason="leaning")
    cube = CubeObservation(np.eye(7)[1] * 0.9 + 0.1 / 7, np.array([0.05, 0.9, 0.03, 0.01, 0.01]))
    obs = TableObservation.from_counts(light, dark, dice=(die,), cube=cube, frame_id=7, timestamp=1.5)
    state_json = obs.to_table_state()
    state = tablestate.TableState.from_json(state_json)
    assert state.frame == 7 and state.points[5].light == 5 and state.points[0].dark == 2
    assert state.dice[0].value == 5 and state.dice[0].valid is False and state.dice[0].reason.value == "leaning"
    assert state.cube is not None and state.cube.value == 2 and state.cube.zone.value == "near"
    assert state_json["dice"][0]["center_px"] == [812.5, 400.0]
    # the referee's likelihood agrees with ours on which layout is more likely
    light2 = list(light)
    light2[5], light2[4] = 4, 1
    ours = obs.log_likelihood_physical(light, dark, (0, 0), (0, 0)) > obs.log_likelihood_physical(light2, dark, (0, 0), (0, 0))
    theirs = state.checker_log_likelihood(tuple(light), tuple(dark), (0, 0), (0, 0)) > state.checker_log_likelihood(
        tuple(light2), tuple(dark), (0, 0), (0, 0))
    assert ours and theirs


def test_bad_distributions_are_rejected() -> None:
    with pytest.raises(ValueError, match="shape"):
        TableObservation(np.ones((23, 2, COUNTS)), np.ones((2, COUNTS)), np.ones((2, COUNTS)))
    with pytest.raises(ValueError, match="non-negative"):
        DieObservation(np.array([1, -1, 0, 0, 0, 1.0]), (0.0, 0.0))
    with pytest.raises(ValueError, match="not one of"):
        DieObservation(np.ones(6), (0.0, 0.0), reason="tilted")
    with pytest.raises(ValueError, match="0..15"):
        peaked(16, 0.9)


def test_a_table_state_round_trips_through_an_observation() -> None:
    light, dark = start_counts()
    die = DieObservation(np.eye(6)[2] * 0.97 + 0.005, (100.0, 200.0), half="left", valid_p=0.99, reason="flat_board")
    obs = TableObservation.from_counts(light, dark, dice=(die,), frame_id=3, timestamp=0.25)
    again = TableObservation.from_table_state(obs.to_table_state())
    assert again.counts("light") == tuple(light) and again.counts("dark") == tuple(dark)
    assert np.allclose(again.point_p, obs.point_p, atol=1e-4)
    assert again.dice[0].value == 3 and again.dice[0].half == "left" and again.frame_id == 3
    with pytest.raises(ValueError, match="24 entries"):
        TableObservation.from_table_state({"points": []})
