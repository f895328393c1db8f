"""A simulated table for ``gammonwatch demo`` and ``scripts/eval_e2e.py``: a scripted match, rendered.

The simulator (``sim``) scripts a transcript into table states and renders each distinct state from
one fixed camera (about one CPU-second per state). This module:

- builds the script with irregularities woven in (:func:`demo_steps`): an illegal move, a cocked
  die, a premature roll, a double in the Crawford game (``sim.video``'s injections);
- renders it **progressively** into a cache folder (:func:`render_progressive`, run in a background
  process by :func:`start_render`): ``states/NNNNN.jpg`` and one line of ``index.jsonl`` per state
  (its time and, for evaluation only, the simulator's ground truth); ``done.json`` when complete.
  A complete folder is reused, so a second demo starts at once;
- plays the folder as a camera (:class:`RenderedTableProducer`): frame ``k`` shows the latest state
  whose time is ``<= k / fps``; when the renderer is behind, the camera waits (the demo then runs
  slower than real time, and says so).

The pipeline sees only the JPEG frames: the ground truth in ``index.jsonl`` is never fed to the
referee (the evaluation compares against it afterwards).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rules.matfile import EntryKind, MatMatch

U8 = npt.NDArray[np.uint8]
RENDER_VERSION = 1
"""Bump when the rendering or the script changes, so stale caches are not reused."""


@dataclass(frozen=True)
class TableScript:
    """What to render: a transcript (its games from ``from_game``), injections, camera and style."""

    match_text: str
    from_game: int = 1
    inject: tuple[str, ...] = ()
    illegal_at: int = 2
    """``illegal_move``: the play (of the first game rendered) that is made illegal."""
    cocked_at: int = 5
    """``cocked_roll``: the roll (counting every throw) whose first die comes to rest cocked."""
    turn_at: int = 8
    """``premature_roll`` / ``premature_grab`` / ``double_after_roll``: the turn or roll they happen at."""
    end_signal: str = "lift_dice"
    """How turns end: ``lift_dice`` (the mover lifts his dice; visible to the camera), ``bar_tap`` or ``clock``."""
    seed: int = 0
    style: str | None = None
    elevation: float | None = None
    max_seconds: float = 1e9
    extra: dict[str, Any] = field(default_factory=dict)

    def key(self) -> str:
        """Cache key: every input of the rendering."""
        blob = json.dumps({"v": RENDER_VERSION, "match": self.match_text, "from": self.from_game, "inject": self.inject,
                           "ia": self.illegal_at, "ca": self.cocked_at, "ta": self.turn_at, "end": self.end_signal,
                           "seed": self.seed, "style": self.style, "elev": self.elevation, "max": self.max_seconds},
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {"match_text": self.match_text, "from_game": self.from_game, "inject": list(self.inject),
                "illegal_at": self.illegal_at, "cocked_at": self.cocked_at, "turn_at": self.turn_at,
                "end_signal": self.end_signal, "seed": self.seed, "style": self.style, "elevation": self.elevation,
                "max_seconds": self.max_seconds}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TableScript:
        return cls(d["match_text"], int(d["from_game"]), tuple(d["inject"]), int(d["illegal_at"]), int(d["cocked_at"]),
                   int(d["turn_at"]), str(d["end_signal"]), int(d["seed"]), d.get("style"), d.get("elevation"),
                   float(d["max_seconds"]))


def bundled_demo_match() -> str:
    """The transcript the demo plays (``rules/data/demo_match.mat``, MIT licence, a real 3-point match)."""
    from importlib import resources

    return resources.files("rules.data").joinpath("demo_match.mat").read_text(encoding="utf-8")


def demo_script(seed: int = 0) -> TableScript:
    """The demo: games 2-4 of the bundled 3-point match (game 4 is the Crawford game) with an illegal
    move (play 2), a cocked die (roll 5), a premature roll (turn 8) and a double in the Crawford game."""
    return TableScript(bundled_demo_match(), from_game=2,
                       inject=("illegal_move", "cocked_roll", "premature_roll", "crawford_double"),
                       illegal_at=2, cocked_at=5, turn_at=8, seed=seed)


def script_steps(script: TableScript) -> tuple[list[tuple[float, dict[str, Any]]], list[str]]:
    """The scripted records ``(t, record)`` (match_setup, table states, announcements) and notes on the injections."""
    from dataclasses import replace

    from rules.matfile import loads
    from rules.referee.setup import EndSignal
    from sim.script import ScriptOptions, script_match
    from sim.video import TURN_LEVEL, inject_illegal_move, irregular_script

    match: MatMatch = loads(script.match_text, source="demo")
    notes: list[str] = []
    if "illegal_move" in script.inject:
        sliced = replace(match, games=match.games[script.from_game - 1:])
        sliced, what = inject_illegal_move(sliced, script.illegal_at)
        match = sliced
        notes.append(f"illegal_move: {what}")
    elif script.from_game > 1:
        match = replace(match, games=match.games[script.from_game - 1:])
    options = ScriptOptions(end_signal=EndSignal(script.end_signal))
    turn_level = [n for n in script.inject if n in TURN_LEVEL]
    steps = irregular_script(match, options, turn_level, script.turn_at, script.seed) if turn_level \
        else script_match(match, options)
    notes += [f"{n}: at turn/roll {script.turn_at}" for n in turn_level]
    out = [(float(s.t), dict(s.record)) for s in steps if s.t <= script.max_seconds]
    if "cocked_roll" in script.inject:
        notes.append(f"cocked_roll: roll {script.cocked_at}")
    return out, notes


def cocked_states(states: list[dict[str, Any]], at: int) -> dict[int, dict[int, str]]:
    """Which table states show the ``at``-th roll at rest, with its first die forced cocked (as ``sim.video``)."""
    forced: dict[int, dict[int, str]] = {}
    rolls = 0
    prev_rest = False
    start = None
    for i, r in enumerate(states):
        rest = any(d.get("state") == "at_rest" for d in r.get("dice", []))
        if rest and not prev_rest:
            rolls += 1
            if rolls == at:
                start = i
        if start is not None and i >= start:
            if not rest:
                break
            forced[i] = {0: "cocked"}
        prev_rest = rest
    return forced


# ----------------------------------------------------------------------------------------- rendering
def render_progressive(script: TableScript, out: Path, progress: bool = False) -> None:
    """Render every table state of the script into ``out`` (see the module docstring); resumable."""
    from sim.video import StateRenderer

    out.mkdir(parents=True, exist_ok=True)
    (out / "states").mkdir(exist_ok=True)
    records, notes = script_steps(script)
    setup = next((r for t, r in records if r.get("type") == "match_setup"), None)
    states = [(t, r) for t, r in records if r.get("type") == "table_state"]
    others = [(t, r) for t, r in records if r.get("type") not in ("table_state", "match_setup")]
    forced = cocked_states([r for _, r in states], script.cocked_at) if "cocked_roll" in script.inject else {}
    (out / "script.json").write_text(json.dumps({"script": script.to_json(), "setup": setup, "notes": notes,
                                                 "states": len(states), "others": [[t, r] for t, r in others]},
                                                indent=1), encoding="utf-8")
    index = out / "index.jsonl"
    done_before = 0
    if index.exists():  # resume: keep complete lines only
        lines = [x for x in index.read_text(encoding="utf-8").splitlines() if x.endswith("}")]
        done_before = len(lines)
        index.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    sr = StateRenderer(script.seed, script.style, script.elevation)
    camera_written = (out / "camera.json").exists()
    try:
        with open(index, "a", encoding="utf-8") as f:
            for i, (t, rec) in enumerate(states):
                if i < done_before:
                    continue
                rgb, truth = sr.frame(rec, forced.get(i))
                bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
                name = f"states/{i:05d}.jpg"
                tmp = out / (name + ".tmp.jpg")
                cv2.imwrite(str(tmp), bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
                tmp.replace(out / name)
                if not camera_written:
                    _write_camera(sr, out)
                    camera_written = True
                f.write(json.dumps({"i": i, "t": round(t, 4), "image": name, "truth": truth}, separators=(",", ":")) + "\n")
                f.flush()
                if progress:
                    sys.stderr.write(f"\rrendered {i + 1}/{len(states)} states")
                    sys.stderr.flush()
    finally:
        sr.close()
    (out / "done.json").write_text(json.dumps({"states": len(states), "mismatches": sr.mismatches,
                                               "value_changed": sr.value_changed}), encoding="utf-8")
    if progress:
        sys.stderr.write("\n")


def _write_camera(sr: Any, out: Path) -> None:
    cam = sr.cam
    corners = sr.spec.corners()
    (out / "camera.json").write_text(json.dumps({
        "camera": cam.to_json(), "table_cm": sr.spec.to_json(), "style": sr.style.name,
        "corners4_px": np.round(cam.project(np.array(corners["corners4"])), 2).tolist(),
        "corners8_px": np.round(cam.project(np.array(corners["corners8"])), 2).tolist()}, indent=1), encoding="utf-8")


def start_render(script: TableScript, out: Path, nice: int = 10) -> subprocess.Popen[bytes] | None:
    """Render in a background process (niced) unless ``out`` is complete; returns the process or None."""
    if (out / "done.json").exists() or render_running(out):
        return None
    out.mkdir(parents=True, exist_ok=True)
    (out / "request.json").write_text(json.dumps(script.to_json()), encoding="utf-8")
    cmd = [sys.executable, "-m", "server.simtable", "render", str(out)]
    if nice and hasattr(os, "nice"):
        cmd = ["nice", "-n", str(nice), *cmd]
    log = open(out / "render.log", "ab")  # noqa: SIM115 - handed to the child process
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH", "")]))}
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, env=env, start_new_session=True)
    (out / "render.pid").write_text(str(proc.pid), encoding="utf-8")
    return proc


def render_running(out: Path) -> bool:
    """A renderer (of an earlier demo, still completing the cache) is working on ``out``."""
    try:
        pid = int((out / "render.pid").read_text(encoding="utf-8"))
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    return not cmdline.exists() or b"server.simtable" in cmdline.read_bytes()


# ----------------------------------------------------------------------------------------- the camera
class RenderedTableProducer:
    """A folder written by :func:`render_progressive`, played as a camera at ``fps`` (see the module
    docstring). ``is_live``: frames are paced at real time (``speed``), the oldest dropped when
    vision falls behind; timestamps (:attr:`t`) are the table's time."""

    is_live = True

    def __init__(self, folder: Path, fps: float = 10.0, speed: float = 1.0, wait_s: float = 600.0,
                 renderer: subprocess.Popen[bytes] | None = None) -> None:
        self.folder = Path(folder)
        self.name = f"simulated table ({self.folder})"
        self.fps: float | None = fps
        self.speed = speed
        self.wait_s = wait_s
        self.renderer = renderer
        self._entries: list[tuple[float, str]] = []
        self._pos = 0  # bytes of index.jsonl read
        self._k = 0
        self._cur = -1
        self._image: U8 | None = None
        self._start: float | None = None
        self.t = 0.0
        self.waited_s = 0.0
        """Seconds spent waiting for the renderer (why the demo can run slower than real time)."""
        self.total_states: int | None = None
        self._stopped = False
        self._shown = -1
        self.last_work_ms: float | None = None
        """Time spent reading the frame (decoding), without the waits for pacing or the renderer."""

    def _poll(self) -> None:
        index = self.folder / "index.jsonl"
        if index.exists():
            with open(index, "rb") as f:
                f.seek(self._pos)
                chunk = f.read()
            end = chunk.rfind(b"\n")
            if end >= 0:
                for line in chunk[: end + 1].decode("utf-8").splitlines():
                    rec = json.loads(line)
                    self._entries.append((float(rec["t"]), str(rec["image"])))
                self._pos += end + 1
        if self.total_states is None and (self.folder / "done.json").exists():
            self.total_states = int(json.loads((self.folder / "done.json").read_text())["states"])

    @property
    def rendered(self) -> int:
        return len(self._entries)

    @property
    def complete(self) -> bool:
        return self.total_states is not None and len(self._entries) >= self.total_states

    def renderer_failed(self) -> str | None:
        if self.renderer is not None and self.renderer.poll() not in (None, 0) and not self.complete:
            tail = ""
            log = self.folder / "render.log"
            if log.exists():
                tail = log.read_text(errors="replace")[-600:]
            return f"the simulator's renderer stopped (exit code {self.renderer.returncode}): {tail}"
        return None

    def read(self) -> U8 | None:
        if self._stopped:
            return None
        t = self._k / (self.fps or 10.0)
        waited = 0.0
        while True:
            self._poll()
            nxt = self._cur + 1
            if nxt < len(self._entries) and self._entries[nxt][0] <= t + 1e-9:
                self._cur = nxt
                continue
            if nxt < len(self._entries) or self.complete:
                break  # the next state is later than this frame (or there is none)
            # the renderer has not reached this frame's state yet
            failed = self.renderer_failed()
            if failed:
                raise RuntimeError(failed)
            if waited > self.wait_s:
                raise RuntimeError(f"no new rendered state in {self.wait_s:.0f} s; see {self.folder / 'render.log'}")
            time.sleep(0.2)
            waited += 0.2
            if self._stopped:
                return None
        self.waited_s += waited
        if self.complete and self._cur >= len(self._entries) - 1 and t > self._entries[-1][0] + 2.0:
            return None  # two seconds after the last state: the end
        if self._cur < 0:
            self._cur = 0
        image_path = self.folder / self._entries[self._cur][1]
        t0 = time.perf_counter()
        if self._image is None or self._shown != self._cur:
            img = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            if img is None:
                raise RuntimeError(f"{image_path}: cannot read a rendered frame; delete {self.folder} to render again")
            self._image = np.asarray(img, dtype=np.uint8)
            self._shown = self._cur
        self.last_work_ms = (time.perf_counter() - t0) * 1e3
        now = time.monotonic()
        if self._start is None or waited > 0:
            self._start = now - t / self.speed if self.speed > 0 else now  # re-anchor after waiting
        if self.speed > 0:
            due = self._start + t / self.speed
            if due > now:
                time.sleep(due - now)
        self.t = t
        self._k += 1
        return self._image

    def release(self) -> None:
        self._stopped = True


def load_truth(folder: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[tuple[float, dict[str, Any]]]]:
    """Evaluation only: the set-up, the ground-truth states (with ``t``) and the other records (announcements)."""
    meta = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    truth = []
    for line in (folder / "index.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        truth.append({**rec["truth"], "t": rec["t"]})
    return meta["setup"], truth, [(float(t), r) for t, r in meta["others"]]


def iter_announcements(folder: Path) -> Iterator[tuple[float, dict[str, Any]]]:
    """Spoken acts of the script (resignations): a monitor enters these; the camera cannot see them."""
    meta = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    for t, r in meta["others"]:
        if r.get("type") == "announce":
            yield float(t), r


def rolls_in(match_text: str, from_game: int = 1) -> int:
    from rules.matfile import loads

    m = loads(match_text)
    return sum(1 for g in m.games[from_game - 1:] for e in g.entries if e.kind is EntryKind.ROLL)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m server.simtable", description="render a TableScript progressively")
    ap.add_argument("what", choices=["render"])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args(argv)
    script = TableScript.from_json(json.loads((a.folder / "request.json").read_text(encoding="utf-8")))
    render_progressive(script, a.folder, progress=a.progress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
