"""``gammonwatch sim frames``: determinism by seed, resume after a killed worker, labels that follow the
referee's table-state contract, and clear messages for bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pybullet")
pytest.importorskip("pyrender")

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("PYOPENGL_PLATFORM", "egl")


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl", "LP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "server.cli", "sim", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def run_a(tmp_path_factory) -> Path:
    """4 frames (2 scenes x 2 views) with 2 workers."""
    out = tmp_path_factory.mktemp("a")
    r = run_cli("frames", "--n", "4", "--views", "2", "--out", str(out), "--seed", "11", "--workers", "2", "--quiet")
    assert r.returncode == 0, r.stderr
    return out


def test_frames_are_written_with_labels(run_a: Path):
    names = sorted(p.name for p in (run_a / "frames").iterdir())
    assert names == [f"{i:06d}.{e}" for i in range(4) for e in ("jpg", "json")]
    import cv2

    img = cv2.imread(str(run_a / "frames" / "000000.jpg"))
    assert img.shape == (720, 1280, 3)
    lab = json.loads((run_a / "frames" / "000000.json").read_text())
    assert {"table_state", "objects", "board", "camera", "table_cm", "look", "scene", "render", "id"} <= set(lab)
    assert len(lab["board"]["corners4_px"]) == 4 and len(lab["board"]["corners8_px"]) == 8
    dice = [o for o in lab["objects"] if o["kind"] == "die"]
    assert len(dice) == 2
    for d in dice:
        assert d["reason"] in ("flat_board", "on_checker", "cocked", "leaning", "in_gap", "off_board", "wrong_side",
                               "on_die")
        assert d["valid"] == (d["reason"] in ("flat_board", "on_checker"))
        if d["box_xyxy"] is not None and d["fully_in_frame"]:
            x0, y0, x1, y1 = d["box_xyxy"]
            u, v = d["center_px"]
            assert x0 <= u <= x1 and y0 <= v <= y1
    n_checkers = sum(1 for o in lab["objects"] if o["kind"] == "checker")
    ts = lab["table_state"]
    total = sum(p["light"] + p["dark"] for p in ts["points"]) + sum(ts["bar"].values()) + sum(ts["off"].values())
    assert n_checkers == total == 30


def test_table_state_follows_the_referee_contract(run_a: Path):
    tablestate = pytest.importorskip("rules.referee.tablestate")
    for p in sorted((run_a / "frames").glob("*.json")):
        ts = json.loads(p.read_text())["table_state"]
        state = tablestate.TableState.from_json(ts)
        assert len(state.points) == 24
    schema_file = ROOT / "schemas" / "table_state.schema.json"
    if schema_file.exists():
        import jsonschema

        schema = json.loads(schema_file.read_text())
        for p in sorted((run_a / "frames").glob("*.json")):
            jsonschema.validate(json.loads(p.read_text())["table_state"], schema)


def test_board_corners_follow_issue_5_order(run_a: Path):
    # corner 1 near-right, 2 near-left, 3 far-left, 4 far-right: seen from the near side (azimuth ~0),
    # corner 1 is right of corner 2 and nearer the bottom of the image than corner 4
    for p in sorted((run_a / "frames").glob("*.json")):
        lab = json.loads(p.read_text())
        az = lab["camera"]["azimuth_deg"]
        c = np.array(lab["board"]["corners4_px"])
        if az < 45 or az > 315:
            assert c[0, 0] > c[1, 0] and c[0, 1] > c[3, 1]
        elif 135 < az < 225:
            assert c[0, 0] < c[1, 0] and c[0, 1] < c[3, 1]


def test_same_seed_same_frames_whatever_the_worker_count(run_a: Path, tmp_path: Path):
    r = run_cli("frames", "--n", "2", "--views", "2", "--out", str(tmp_path), "--seed", "11", "--workers", "1",
                "--quiet")
    assert r.returncode == 0, r.stderr
    for i in range(2):
        a = json.loads((run_a / "frames" / f"{i:06d}.json").read_text())
        b = json.loads((tmp_path / "frames" / f"{i:06d}.json").read_text())
        assert a == b
        assert (run_a / "frames" / f"{i:06d}.jpg").read_bytes() == (tmp_path / "frames" / f"{i:06d}.jpg").read_bytes()


def test_another_seed_gives_other_frames(run_a: Path, tmp_path: Path):
    r = run_cli("frames", "--n", "1", "--out", str(tmp_path), "--seed", "12", "--workers", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    a = json.loads((run_a / "frames" / "000000.json").read_text())
    b = json.loads((tmp_path / "frames" / "000000.json").read_text())
    assert a["table_cm"] != b["table_cm"]


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        f = task / "children"
        if f.exists():
            out += [int(x) for x in f.read_text().split()]
    return out


def test_killed_worker_keeps_frames_and_the_run_resumes(run_a: Path, tmp_path: Path):
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl", "LP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "sim", "frames", "--n", "4", "--views", "2",
                             "--out", str(tmp_path), "--seed", "11", "--workers", "2", "--quiet"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    frames = tmp_path / "frames"
    deadline = time.time() + 240
    while time.time() < deadline and not (frames.exists() and any(frames.glob("*.json"))):
        time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
    kids = [k for k in _children(proc.pid) if "resource_tracker" not in Path(f"/proc/{k}/cmdline").read_text()]
    assert kids, "no worker processes found"
    for k in kids:  # kill the workers this test started
        os.kill(k, signal.SIGKILL)
    _out, err = proc.communicate(timeout=120)
    kept = sorted(p.name for p in frames.glob("*.json"))
    if proc.returncode == 0:
        pytest.skip("the run finished before the workers could be killed")
    assert proc.returncode == 1
    assert "run the same command again to resume" in err
    assert kept, "frames written before the crash must be kept"
    r = run_cli("frames", "--n", "4", "--views", "2", "--out", str(tmp_path), "--seed", "11", "--workers", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    for i in range(4):
        assert json.loads((frames / f"{i:06d}.json").read_text()) == \
            json.loads((run_a / "frames" / f"{i:06d}.json").read_text())


def test_killed_parent_takes_its_workers_with_it(tmp_path: Path):
    """``kill -9`` of the run: its workers leave too instead of rendering frames nobody collects."""
    env = {**os.environ, "PYOPENGL_PLATFORM": "egl", "LP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "sim", "frames", "--n", "60", "--views", "2",
                             "--out", str(tmp_path), "--seed", "12", "--workers", "2", "--quiet"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    kids: list[int] = []
    while time.time() < deadline and len(kids) < 2:
        time.sleep(0.2)
        assert proc.poll() is None
        kids = [k for k in _children(proc.pid) if "resource_tracker" not in Path(f"/proc/{k}/cmdline").read_text()]
    assert len(kids) >= 2, "no worker processes found"
    proc.kill()
    proc.wait()

    def alive(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
        except OSError:
            return False

    deadline = time.time() + 60
    while time.time() < deadline and any(alive(k) for k in kids):
        time.sleep(0.2)
    left = [k for k in kids if alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"


def test_unknown_style_names_it_and_lists_the_valid_ones(tmp_path: Path):
    r = run_cli("frames", "--n", "1", "--out", str(tmp_path), "--styles", "green-felt,plaid-velvet")
    assert r.returncode == 2
    assert "'plaid-velvet'" in r.stderr and "green-felt" in r.stderr and "walnut-wood" in r.stderr
    assert not (tmp_path / "frames").exists()


def test_bad_state_mix_is_explained(tmp_path: Path):
    r = run_cli("frames", "--n", "1", "--out", str(tmp_path), "--state-mix", "leaning=0.5,tumbling=0.5")
    assert r.returncode == 2 and "'tumbling'" in r.stderr and "leaning" in r.stderr


def test_layouts_and_hands_options_shape_the_scenes(tmp_path: Path):
    r = run_cli("frames", "--n", "2", "--views", "1", "--out", str(tmp_path), "--seed", "3", "--workers", "1",
                "--layouts", "tall=1", "--hands", "0", "--quiet")
    assert r.returncode == 0, r.stderr
    man = json.loads((tmp_path / "manifest.json").read_text())
    assert man["layouts"] == {"tall": 1.0} and man["hands"] == 0
    for i in range(2):
        lab = json.loads((tmp_path / "frames" / f"{i:06d}.json").read_text())
        assert lab["look"]["hands"] == []
        for colour in ("light", "dark"):
            assert sum(1 for p in lab["table_state"]["points"] if p[colour]) <= 4


def test_runs_without_the_new_settings_keep_their_manifest(run_a: Path):
    """A run made before --layouts and --hands existed resumes: its manifest has neither key."""
    man = json.loads((run_a / "manifest.json").read_text())
    assert "layouts" not in man and "hands" not in man


def test_bad_layout_mix_is_explained(tmp_path: Path):
    r = run_cli("frames", "--n", "1", "--out", str(tmp_path), "--layouts", "tall=1,stacked=2")
    assert r.returncode == 2 and "'stacked'" in r.stderr and "tall" in r.stderr
    assert not (tmp_path / "frames").exists()


def test_resuming_with_other_settings_is_refused(run_a: Path):
    r = run_cli("frames", "--n", "4", "--views", "2", "--out", str(run_a), "--seed", "99")
    assert r.returncode == 2 and "seed" in r.stderr and "another --out" in r.stderr


def test_get_style_error_lists_styles():
    from sim.styles import UnknownStyleError, get_style, style_names

    with pytest.raises(UnknownStyleError) as e:
        get_style("nope")
    assert "'nope'" in str(e.value) and all(n in str(e.value) for n in style_names())


def test_random_palettes_are_plausible_boards_and_follow_the_seed():
    """`--styles random`: each scene its own palette, light checkers bright and dark ones dark (the
    counter tells the colours by brightness), the same palette for the same generator state."""
    from sim.styles import RANDOM, parse_styles, random_style, style_for

    assert parse_styles("random,green-felt") == ["random", "green-felt"]
    rng = np.random.default_rng(3)
    styles = [random_style(rng) for _ in range(300)]

    def lum(c):
        return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]

    for s in styles:
        assert s.name == RANDOM and s.material in ("felt", "wood", "leather")
        assert lum(s.checker_light) > lum(s.checker_dark) + 45, s
    assert len({s.surface for s in styles}) == 300  # a palette per scene, not a few
    matched = sum(s.checker_dark in (s.point_a, s.point_b) for s in styles)
    assert 0 < matched < 100  # checkers in the points' own colours now and then
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    assert style_for(RANDOM, a) == style_for(RANDOM, b)
    before = np.random.default_rng(9)
    style_for("green-felt", before)  # a named style draws nothing
    assert before.random() == np.random.default_rng(9).random()
