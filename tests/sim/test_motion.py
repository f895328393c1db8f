"""Scripted-match motion: physical throws with the transcript's values, the hand's path, the
streaming API (``sim.video.iter_frames``) and the referee reproducing a whole random transcript."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pybullet")


def referee_lines(tmp_path: Path, lines: list[str], match: object) -> dict:
    """``sim.video.referee_check`` on a stream given as JSON lines (written to a file, as it reads one)."""
    from sim.video import referee_check

    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return referee_check(path, match)


def test_value_fix_puts_any_wanted_value_on_top_of_any_resting_die():
    import pybullet as pb

    from sim.motion import compose, value_fix
    from sim.physics import face_up, quat_for_top

    rng = np.random.default_rng(0)
    for up in range(1, 7):
        for wanted in range(1, 7):
            q = quat_for_top(up, float(rng.uniform(-math.pi, math.pi)))
            # a slightly tilted resting pose, as physics leaves dice
            tilt = pb.getQuaternionFromEuler([float(rng.normal(0, 0.05)), float(rng.normal(0, 0.05)), 0.0])
            q = tuple(pb.multiplyTransforms([0, 0, 0], tilt, [0, 0, 0], q)[1])
            assert face_up(q) == up
            assert face_up(compose(q, value_fix(up, wanted))) == wanted, (up, wanted)


def test_a_throw_tumbles_from_the_rollers_side_into_his_half_and_comes_to_rest():
    import pybullet as pb

    from sim.dicestate import physics_label
    from sim.layout import TableLayout
    from sim.motion import throw_dice
    from sim.physics import World
    from sim.table import TableSpec

    client = pb.connect(pb.DIRECT)
    try:
        spec = TableSpec()
        rested = 0
        for seed in range(4):
            world = World.build(spec, TableLayout.start(), client=client, die_friction=0.35)
            th = throw_dice(world, world.dice, ["right", "right"], np.random.default_rng(seed), fps=10.0)
            first = np.array([p for p, _q in th.frames[0]])
            last = np.array([p for p, _q in th.frames[-1]])
            # released in the air above the near (light) side, ending on the board
            assert np.all(first[:, 2] > 3.0) and np.all(first[:, 1] < 0)
            assert np.all(last[:, 2] < spec.die)
            # it moves: the dice travel and turn over several frames before resting
            assert th.rest_index >= 3
            travel = np.linalg.norm(last[:, :2] - first[:, :2], axis=1)
            assert np.all(travel > 2.0)
            if th.settled and all(physics_label(world, u, "right").reason == "flat_board" for u in world.dice):
                rested += 1
        assert rested >= 2  # most natural throws end flat in the right half (SIMULATOR-NOTES: ~90% per die)
    finally:
        pb.disconnect(client)


def test_hand_path_starts_at_the_seat_edge_and_carries_between_times():
    from sim.motion import HandPath, seat_edge
    from sim.table import TableSpec

    spec = TableSpec()
    edge = seat_edge(spec, "near", 5.0)
    assert edge[1] < -spec.depth / 2  # beyond the near rail
    path = HandPath("near", keys=[(0.0, edge), (0.5, np.array([5.0, -10.0, 3.0])), (0.9, np.array([5.0, -10.0, 6.0]))],
                    carry=[(0.5, 1e9, [7])])
    assert np.allclose(path.at(0.0), edge) and np.allclose(path.at(0.5), [5.0, -10.0, 3.0])
    assert path.moving(0.2) and not path.moving(0.95)
    assert path.carried(0.3) == [] and path.carried(0.6) == [7]
    mid = path.at(0.25)
    assert mid[2] > (edge[2] + 3.0) / 2  # an arc, not a straight line through the rail


def test_random_short_match_ends_in_a_resignation_the_referee_records(tmp_path):
    from sim.script import ScriptOptions, script_lines
    from sim.video import random_match

    match = random_match(np.random.default_rng(3), rolls=6)
    entries = match.games[0].entries
    assert [e.kind.value for e in entries] == ["roll"] * 6 + ["win"]
    result = referee_lines(tmp_path, list(script_lines(match, ScriptOptions(step_s=0.3))), match)
    assert result["reproduced"], result
    assert result["entries_compared"] == 7 and result["alerts"] == []


def test_transcript_comparison_finds_a_changed_roll():
    from dataclasses import replace

    from rules.matfile import loads
    from sim.video import transcript_differences

    mat = """1 point match

 Game 1
 alice : 0                     bob : 0
  1) 31: 8/5 6/5               52: 13/8 13/11
"""
    a = loads(mat)
    assert transcript_differences(a, loads(mat.replace("8/5 6/5", "6/5 8/5"))) == (2, [])
    game = a.games[0]
    changed = replace(game, entries=(game.entries[0], replace(game.entries[1], dice=(6, 2))))
    n, diffs = transcript_differences(a, replace(a, games=(changed,)))
    assert n == 2 and len(diffs) == 1 and "entry 2" in diffs[0]


def test_unknown_style_or_injection_is_named_by_iter_frames():
    from sim.video import iter_frames

    with pytest.raises(ValueError, match="no-such-style"):
        next(iter_frames(None, style="no-such-style"))
    with pytest.raises(ValueError, match="loaded_dice"):
        next(iter_frames(None, inject=["loaded_dice"]))


def test_iter_frames_streams_a_rolling_throw_then_dice_at_rest_and_a_hand():
    pytest.importorskip("pyrender")
    from rules.matfile import loads
    from sim.video import iter_frames

    mat = """1 point match

 Game 1
 alice : 0                     bob : 0
  1) 31: 8/5 6/5               52: 13/8 13/11
"""
    records: list[dict] = []
    info: dict = {}
    frames = list(iter_frames(loads(mat), seed=2, fps=5.0, max_seconds=6.0, motion_every=2, style="green-felt",
                              on_record=records.append, info=info))
    assert records[0]["type"] == "match_setup" and "corners4_px" in info["camera"]
    assert [f[0] for f in frames] == list(range(len(frames)))
    assert all(f[2].shape == (720, 1280, 3) and f[2].dtype == np.uint8 for f in frames)
    states = [f[3] for f in frames]
    dice_state = [tuple(d["state"] for d in s["dice"]) for s in states]
    rolling = [k for k, d in enumerate(dice_state) if "rolling" in d]
    rest = [k for k, d in enumerate(dice_state) if d == ("at_rest", "at_rest")]
    assert rolling and rest and max(rolling) < min(rest)
    # the dice visibly move while rolling: the rolling frames are not all one image
    imgs = [frames[k][2] for k in rolling]
    assert any(not np.array_equal(imgs[0], im) for im in imgs[1:])
    # and the ground truth says where: the rolling dice's pixel centres change from frame to frame
    centres = [tuple(tuple(d["center_px"]) for d in states[k]["dice"] if "center_px" in d) for k in rolling]
    assert all(centres) and len(set(centres)) >= 2
    # at rest they hold still: the image does not change until the hand comes
    still = [k for k in rest if not states[k].get("hands")]
    assert all(np.array_equal(frames[still[0]][2], frames[k][2]) for k in still[: 2 * 5])
    # >= 2 s at rest before the hand acts (RG19 4.1.4.3)
    hand = [k for k in rest if states[k].get("hands")]
    assert hand and (hand[0] - rest[0]) / 5.0 >= 2.0
    # the hand moves in from the seat edge: consecutive hand frames differ
    assert any(not np.array_equal(frames[a][2], frames[b][2]) for a, b in zip(hand, hand[1:], strict=False))
    assert info["summary"]["throws"] == 1 and info["summary"]["renders"] < len(frames)
    # the values at rest are the transcript's opening roll, read by physics
    assert sorted(d["value"] for d in states[rest[0]]["dice"]) == [1, 3]


def test_four_dice_with_idle_pairs_reproduce_the_transcript_through_the_referee(tmp_path):
    from rules.referee.setup import DiceMode, EndSignal
    from sim.script import ScriptOptions, script_match
    from sim.video import random_match

    match = random_match(np.random.default_rng(5), rolls=5)
    opts = ScriptOptions(step_s=0.3, dice_mode=DiceMode.FOUR, end_signal=EndSignal.LIFT_DICE, idle_dice=True)
    records = [s.record for s in script_match(match, opts)]
    states = [r for r in records if r["type"] == "table_state"]
    assert all(len(s["dice"]) == 4 for s in states)
    for s in states:
        owners = {d["id"]: d["owner"] for d in s["dice"]}
        assert owners == {0: "light", 1: "light", 2: "dark", 3: "dark"}
        live = [d for d in s["dice"] if d["state"] in ("rolling", "at_rest")]
        # never more than two dice in play; after the opening, both belong to one player
        assert len(live) <= 2
    later = [s for s in states[40:] if any(d["state"] == "at_rest" for d in s["dice"])]
    assert later and all(len({d["owner"] for d in s["dice"] if d["state"] == "at_rest"}) == 1 for s in later)
    import json

    result = referee_lines(tmp_path, [json.dumps(r) for r in records], match)
    assert result["reproduced"] and result["alerts"] == [], result


def test_two_trays_keep_the_points_and_add_a_left_tray():
    import pybullet as pb

    from sim.layout import TableLayout
    from sim.physics import World
    from sim.table import TableSpec

    one = TableSpec.sample(np.random.default_rng(9))
    two = one.with_two_trays()
    assert two.trays == 2 and abs(two.half_w - one.half_w) < 1e-9 and abs(two.point_w - one.point_w) < 1e-9
    assert abs(two.x_max - one.x_max) < 1e-9 and two.x_min < one.x_min - one.tray + 1e-9
    lx0, lx1, _, _ = two.tray_rect("left")
    assert two.x_min < lx0 < lx1 < two.half_rect("left")[0]
    with pytest.raises(ValueError, match="one bear-off tray"):
        one.tray_rect("left")
    client = pb.connect(pb.DIRECT)
    try:
        world = World.build(two, TableLayout.start(), client=client, dice_colours=(0, 0, 1, 1))
        names = {b.name for b in world.bodies.values()}
        assert {"rail_inner", "rail_inner_left", "tray_divider", "tray_divider_left"} <= names
        assert len(world.dice) == 4
    finally:
        pb.disconnect(client)


def test_physical_pipeline_without_pixels_reproduces_the_transcript_and_a_cocked_roll_is_rerolled(monkeypatch):
    """The whole video path (physics, throws, hands, labels) with the renderer replaced by a blank
    image: the referee raises the cocked roll (RG19 4.1.4.3), the roller throws again, and the rest
    of the transcript is recorded as played."""
    from rules.matfile import loads
    from sim.video import StateRenderer, iter_frames, transcript_differences

    monkeypatch.setattr(StateRenderer, "render", lambda self, hands: np.zeros((720, 1280, 3), np.uint8))
    mat = """1 point match

 Game 1
 alice : 0                     bob : 0
  1) 31: 8/5 6/5               52: 13/8 13/11
  2) 64: 24/18 18/14           21: bar/23 6/5
"""
    match = loads(mat)
    records: list[dict] = []
    info: dict = {}
    for _k, _t, _img, st in iter_frames(match, seed=3, fps=10.0, max_seconds=120.0, inject=["cocked_roll"],
                                        inject_at=2, on_record=records.append, info=info):
        records.append(st)
    import json

    from rules.referee.profiles import get_profile
    from rules.referee.stream import run_stream

    referee, alerts = run_stream((json.dumps(r) for r in records), get_profile("usbgf-2019"))
    codes = [a.code for a in alerts if a.severity.is_alert]
    assert codes == ["ROLL_INVALID_COCKED"], codes
    n, diffs = transcript_differences(match, referee.transcript())
    assert n == 4 and diffs == [], diffs
    assert info["summary"]["throws"] == 5 and info["summary"]["throws_placed_instead"] == 0


def test_four_dice_video_puts_the_idle_pair_in_its_owners_side_of_the_left_tray(monkeypatch, tmp_path):
    from rules.referee.setup import DiceMode, EndSignal
    from sim.script import ScriptOptions
    from sim.video import StateRenderer, iter_frames, random_match

    seen: list[dict[int, np.ndarray]] = []

    def blank(self, hands):
        # where the dice lying aside are when each frame is drawn
        seen.append({k: self.world.pose(self.world.dice[k])[0] for k in self.idle})
        return np.zeros((720, 1280, 3), np.uint8)

    monkeypatch.setattr(StateRenderer, "render", blank)
    match = random_match(np.random.default_rng(8), rolls=3)
    opts = ScriptOptions(dice_mode=DiceMode.FOUR, end_signal=EndSignal.LIFT_DICE, idle_dice=True)
    records: list[dict] = []
    info: dict = {}
    for _k, _t, _img, st in iter_frames(match, seed=8, fps=10.0, max_seconds=120.0, options=opts,
                                        on_record=records.append, info=info):
        records.append(st)
    spec = info["camera"]["table_cm"]
    assert spec["trays"] == 2
    x_lo = -spec["bar"] / 2 - (spec["width"] - 4 * spec["rail"] - spec["bar"] - 2 * spec["tray"]) / 2 - spec["rail"]
    idle = [(k, p) for s in seen for k, p in s.items()]
    assert idle and {k for k, _p in idle} == {0, 1, 2, 3}
    for k, p in idle:
        assert x_lo - spec["tray"] - 0.01 < p[0] < x_lo + 0.01  # inside the left tray
        assert (p[1] < 0) == (k < 2)  # light's pair on the near side, dark's on the far side
    assert info["summary"]["throws"] == 3  # the opening and two rolls
    import json

    result = referee_lines(tmp_path, [json.dumps(r) for r in records], match)
    assert result["reproduced"] and result["alerts"] == [], result
