"""``gammonwatch sim video``: a scripted match rendered from the referee engineer's script, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pybullet")
pytest.importorskip("pyrender")

ROOT = Path(__file__).resolve().parents[2]
MAT = """1 point match

 Game 1
 alice : 0                     bob : 0
  1) 31: 8/5 6/5               52: 13/8 13/11
"""


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl", "LP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "server.cli", "sim", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=400)


def test_missing_transcript_is_named(tmp_path: Path):
    r = run_cli("video", "--match", str(tmp_path / "nope.mat"), "--out", str(tmp_path / "v"))
    assert r.returncode == 2 and "nope.mat" in r.stderr
    assert not (tmp_path / "v").exists()


def test_unreadable_transcript_is_named(tmp_path: Path):
    bad = tmp_path / "garbage.mat"
    bad.write_text("this is not a match\n 1) 99: 8/5\n")
    r = run_cli("video", "--match", str(bad), "--out", str(tmp_path / "v"))
    assert r.returncode == 2 and "garbage.mat" in r.stderr


def test_unknown_irregularity_is_refused(tmp_path: Path):
    m = tmp_path / "m.mat"
    m.write_text(MAT)
    r = run_cli("video", "--match", str(m), "--out", str(tmp_path / "v"), "--inject", "loaded_dice")
    assert r.returncode == 2 and "'loaded_dice'" in r.stderr and "premature_roll" in r.stderr


def test_short_video_and_ground_truth_stream(tmp_path: Path):
    m = tmp_path / "m.mat"
    m.write_text(MAT)
    out = tmp_path / "v"
    r = run_cli("video", "--match", str(m), "--out", str(out), "--max-seconds", "4", "--fps", "2", "--quiet",
                "--style", "green-felt")
    assert r.returncode == 0, r.stderr
    import cv2

    cap = cv2.VideoCapture(str(out / json.loads((out / "summary.json").read_text())["video"]))
    n = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape == (720, 1280, 3)
        n += 1
    records = [json.loads(line) for line in (out / "states.jsonl").read_text().splitlines()]
    assert records[0]["type"] == "match_setup"
    states = [r for r in records if r["type"] == "table_state"]
    assert len(states) == n == json.loads((out / "summary.json").read_text())["frames"]
    assert [s["frame"] for s in states] == list(range(n))
    tablestate = pytest.importorskip("rules.referee.tablestate")
    for s in states:
        tablestate.TableState.from_json(s)
    # the opening roll comes to rest within 4 s: the dice at rest carry the physics label and a pixel centre
    rest = [d for s in states for d in s["dice"] if d["state"] == "at_rest"]
    assert rest and all(d["reason"] in ("flat_board", "on_checker") or not d["valid"] for d in rest)
    assert all("center_px" in d for d in rest)


ENTER = """1 point match

 Game 1
 light : 0                       dark : 0
  1) 52: 8/3 13/11               32: 6/3 13/11
  2) 21: 11/10 24/22*            65: bar/20 13/7
  3) 31: 6/5* 10/7               42: bar/23 11/7
"""


def test_an_injected_illegal_move_never_lands_on_the_opponents_checkers():
    """From a render: dark's bar/20 made bar/19 entered on light's 6-point; the table showed both
    colours on one point and the ground truth of the rest of the match meant nothing."""
    import json

    from rules.matfile import loads
    from sim.script import script_lines
    from sim.video import inject_illegal_move

    match, what = inject_illegal_move(loads(ENTER), 4)
    assert "bar/19" not in what and "(illegal)" in what
    # the table as each turn starts (a roll begins; a hit shows both colours for a moment, not then)
    # never has both colours on a point
    starts, was_rolling = [], False
    for line in script_lines(match):
        rec = json.loads(line)
        if rec.get("type") != "table_state":
            continue
        rolling = any(d["state"] == "rolling" for d in rec["dice"])
        if rolling and not was_rolling:
            starts.append([p["point"] for p in rec["points"] if p["light"] and p["dark"]])
        was_rolling = rolling
    assert len(starts) >= 6 and not any(starts), (what, starts)


@pytest.mark.parametrize("seed", [301, 302, 303, 304, 305])
def test_after_an_injected_illegal_move_the_rest_of_the_game_still_plays(seed):
    """The illegal move stands (nobody corrects it in the script) and the transcript is played on
    from it: the referee on the scripted table then raises the injected illegal move and nothing
    after it. Seed 301's render broke this (the changed step no longer hit a blot that was later
    entered from the bar): its ground truth was 'moved while on bar' on every later turn."""
    import numpy as np

    from rules.matfile import dumps, loads
    from rules.referee import get_profile
    from rules.referee.stream import run_stream
    from sim.script import script_lines
    from sim.video import inject_illegal_move, random_match

    match = loads(dumps(random_match(np.random.default_rng(np.random.SeedSequence([seed, 0xA11])))))
    bad_match, what = inject_illegal_move(match, 4)
    _, alerts = run_stream(script_lines(bad_match), get_profile("usbgf-2019"))
    codes = [a.code for a in alerts if a.severity.is_alert]
    assert codes and codes[0] in ("ILLEGAL_MOVE", "IMPOSSIBLE_MOVE"), (what, codes)
    assert codes[1:] == [], (what, codes)


def test_injected_illegal_move_is_caught_by_the_referee(tmp_path: Path):
    from rules.matfile import loads
    from sim.script import script_lines
    from sim.video import inject_illegal_move

    match, what = inject_illegal_move(loads(MAT), 1)
    assert "8/4 6/5" in what  # 31 played as 8/4 6/5: one checker a pip too far
    stream = tmp_path / "states.jsonl"
    stream.write_text("\n".join(script_lines(match)) + "\n")
    r = subprocess.run([sys.executable, "-m", "server.cli", "referee", str(stream)], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert "ILLEGAL_MOVE" in r.stdout + r.stderr
    clean = tmp_path / "clean.jsonl"
    clean.write_text("\n".join(script_lines(loads(MAT))) + "\n")
    r2 = subprocess.run([sys.executable, "-m", "server.cli", "referee", str(clean)], cwd=ROOT, capture_output=True,
                        text=True, timeout=120)
    assert "ILLEGAL_MOVE" not in r2.stdout + r2.stderr


def test_sim_cli_dispatches_script_and_names_a_missing_transcript(tmp_path: Path):
    r = run_cli("script", str(tmp_path / "absent.mat"))
    assert r.returncode == 2 and "absent.mat" in r.stderr
    r = run_cli("bogus")
    assert r.returncode == 2 and "frames" in r.stderr and "video" in r.stderr


def test_random_match_is_a_legal_game():
    import numpy as np

    from rules.matfile import EntryKind
    from sim.video import random_match

    m = random_match(np.random.default_rng(4))
    entries = m.games[0].entries
    assert entries[-1].kind is EntryKind.WIN
    from rules.position import Position

    pos = Position.start(turn=int(entries[0].player))
    for e in entries[:-1]:
        pos = pos.apply(e.play, e.dice)  # raises if a play were illegal
    assert pos.is_game_over()


MAT2 = """1 point match

 Game 1
 alice : 0                     bob : 0
  1) 31: 8/5 6/5               52: 13/8 13/11
  2) 64: 24/18 18/14           21: bar/23 6/5
"""


@pytest.mark.parametrize("kind, codes", [
    ("premature_roll", {"FAST_ROLL"}),  # RG19 4.1.8.1 (the early pick-up is also a FAST_GRAB)
    ("premature_grab", {"FAST_GRAB"}),  # RG19 4.1.8.2
    ("double_after_roll", {"DOUBLE_AFTER_ROLL_ATTEMPT"}),  # RG19 4.4.2
    ("crawford_double", {"CRAWFORD_CUBE_ACTION_VOID"}),  # RG19 4.4.7
])
def test_turn_level_irregularities_reach_the_referee_and_the_transcript_survives(tmp_path: Path, kind, codes):
    from rules.matfile import loads
    from sim.script import ScriptOptions
    from sim.video import irregular_script

    stream = tmp_path / "s.jsonl"
    # MAT2 is a 1-point match; for the Crawford double the same game is the Crawford game of a 3-point match at 2-0
    text = MAT2 if kind != "crawford_double" else MAT2.replace("1 point", "3 point").replace("alice : 0", "alice : 2")
    steps = irregular_script(loads(text), ScriptOptions(), [kind], 1)
    stream.write_text("\n".join(json.dumps(s.record) for s in steps) + "\n")
    out = tmp_path / "out.mat"
    r = subprocess.run([sys.executable, "-m", "server.cli", "referee", str(stream), "--transcript", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    raised = {line.split()[1] for line in r.stdout.splitlines() if line and not line.startswith("EVENT")}
    assert codes <= raised and "ILLEGAL_MOVE" not in raised
    text = out.read_text()
    assert "31: 8/5 6/5" in text and "52: 13/8 13/11" in text and "64: 24/18 18/14*" in text


def test_injected_cocked_roll_is_rendered_and_the_referee_rules_it_invalid(tmp_path: Path):
    """The opening throw tumbles, then its first die rests cocked (physics' label): RG19 4.1.4.3; the
    opening is thrown again."""
    m = tmp_path / "m.mat"
    m.write_text(MAT)
    out = tmp_path / "v"
    # the throw takes about 1.5 s and the referee rules after 2 s at rest (RG19 4.1.4.3)
    r = run_cli("video", "--match", str(m), "--out", str(out), "--max-seconds", "6", "--fps", "2", "--quiet",
                "--style", "green-felt", "--inject", "cocked_roll", "--inject-at", "1", "--check")
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["throws"] == 2 and summary["cocked_die_states"] >= 1
    records = [json.loads(line) for line in (out / "states.jsonl").read_text().splitlines()]
    rest = [d for s in records if s["type"] == "table_state" for d in s["dice"] if d["state"] == "at_rest"]
    cocked = [d for d in rest if d["reason"] == "cocked"]
    assert summary["dice_constructions_failed"] == 0  # physics kept the constructed cocked die (seed 0)
    assert cocked and all(d["valid"] is False for d in cocked)
    assert "ROLL_INVALID_COCKED" in summary["referee"]["alerts"]


def test_unknown_board_style_is_named_before_anything_is_rendered(tmp_path: Path):
    r = run_cli("video", "--random", "--out", str(tmp_path / "v"), "--style", "plaid-velvet")
    assert r.returncode == 2 and "plaid-velvet" in r.stderr and "green-felt" in r.stderr
    assert not (tmp_path / "v").exists()


def test_a_hand_that_went_home_does_not_come_back_from_where_it_was_before():
    """Seed 308: the near hand picked a checker on point 18 (state 1), put it on point 11 and went
    home (state 2, the next state has no hands); in state 3 (no hands) it reappeared over point 18
    and went home from there, an arm in a frame whose ground truth has none. A hand that went home
    holds no place to start from."""
    from sim.table import TableSpec
    from sim.video import _plan_segment

    class Renderer:
        spec = TableSpec()

        def __init__(self) -> None:
            self.targets = iter([np.array([-20.0, 15.0]), np.array([-12.0, -15.0])])

        def hand_target(self, h, action_for):
            return next(self.targets), 3.0, {}

    sr = Renderer()
    pick = {"t": 0.0, "hands": [{"side": "near", "over": "board", "n": 1}], "dice": []}
    place = {"t": 1.0, "hands": [{"side": "near", "over": "board", "n": 2}], "dice": []}
    none = {"t": 2.0, "hands": [], "dice": []}
    later = {"t": 3.0, "hands": [], "dice": [], "n": 3}
    hand_end: dict = {}
    _plan_segment(sr, pick, None, place, None, 0.5, 10.0, hand_end, {})
    assert set(hand_end) == {"near"}  # it stays out: the next state has it too
    seg = _plan_segment(sr, place, pick, none, None, 0.5, 10.0, hand_end, {})
    path = seg.paths[0][0]
    assert path.keys[0][1][1] == 15.0 and path.keys[-1][1][1] < -TableSpec().depth / 2  # from 18 via 11 home
    assert hand_end == {}
    seg = _plan_segment(sr, none, place, later, None, 0.5, 10.0, hand_end, {})
    assert seg.paths == []  # nothing comes back


def test_a_hand_touches_the_bar_or_the_dice_only_once_it_gets_there():
    """The video's ground truth must describe the frame: a hand sent to tap the bar (the end of a
    turn) or to grab the dice travels MOVE_S seconds from its seat before it touches anything. The
    truth said 'touching the bar' from the first frame of the reach, 0.45 s before the picture showed
    it, which the end-to-end latency then counted against the pipeline. A hand moving checkers handles
    them all along (the truth's position changes as it sets out)."""
    from sim.table import TableSpec
    from sim.video import MOVE_S, _plan_segment

    class Renderer:
        spec = TableSpec()

        def hand_target(self, h, action_for):
            return np.array([0.0, -5.0]), 3.0, {}

    tap = {"t": 0.0, "hands": [{"side": "near", "over": "bar", "touching": True}], "dice": []}
    grab = {"t": 0.0, "hands": [{"side": "far", "over": "dice", "touching": True},
                                {"side": "near", "over": "checkers", "touching": True}], "dice": []}
    before = {"t": -1.0, "hands": [], "dice": []}
    for rec in (tap, grab):
        seg = _plan_segment(Renderer(), rec, before, None, None, 0.5, 10.0, {}, {})
        for tau in (0.0, 0.1, MOVE_S - 0.05):
            shown = seg.hands_at(rec["hands"], tau)
            assert [h["touching"] for h in shown] == [h["over"] == "checkers" for h in rec["hands"]], tau
        assert all(h["touching"] for h in seg.hands_at(rec["hands"], MOVE_S))
    # nothing new (the same state held on): the hands are already there
    seg = _plan_segment(Renderer(), tap, tap, None, None, 0.5, 10.0, {"near": np.array([0.0, -5.0, 3.0])}, {})
    assert seg.hands_at(tap["hands"], 0.0) == tap["hands"]
