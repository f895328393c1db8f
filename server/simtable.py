"""A simulated table for ``gammonwatch demo`` and ``scripts/eval_e2e.py``: a scripted match, rendered.

The simulator (``sim``) scripts a transcript into table states and renders each distinct state from
one fixed camera (about one CPU-second per state). This module:

- builds the script with irregularities woven in (:func:`demo_steps`): an illegal move, a cocked
  die, a premature roll, a double in the Crawford game (``sim.video``'s injections);
- renders it **progressively** with ``sim.video.iter_frames`` (physical throws, hands moving in
  and out; about one CPU-second per rendered image) into a cache folder (:func:`render_progressive`,
  run in a background process by :func:`start_render`): each new image once as
  ``frames/NNNNNN.jpg``, one line of ``index.jsonl`` per video frame (its id, time, image and, for
  evaluation only, the simulator's ground truth); ``done.json`` when complete. A complete folder is
  reused, so a second demo starts at once;
- plays the folder as a camera (:class:`RenderedTableProducer`): frame ``k`` at ``k / fps``; when
  the renderer is behind, the camera waits (the demo then runs slower than real time, and says so).

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
    end_signal: str = "bar_tap"
    """How turns end: ``bar_tap`` (the mover taps the bar: visible to the camera, RG19's signal without a
    clock), ``lift_dice`` or ``clock`` (vision has no clock reader yet)."""
    seed: int = 0
    style: str | None = None
    elevation: float | None = None
    max_seconds: float = 1e9
    extra: dict[str, Any] = field(default_factory=dict)

    def key(self) -> str:
        """Cache key: every input of the rendering, and the simulator's source (a changed simulator renders anew)."""
        blob = json.dumps({"v": RENDER_VERSION, "sim": _sim_source_hash(), "match": self.match_text, "from": self.from_game, "inject": self.inject,
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


def _sim_source_hash() -> str:
    import sim

    h = hashlib.sha256()
    for path in sorted(Path(sim.__file__).resolve().parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def bundled_demo_match() -> str:
    """The transcript the demo plays (``rules/data/demo_match.mat``, MIT licence, a real 3-point match)."""
    from importlib import resources

    return resources.files("rules.data").joinpath("demo_match.mat").read_text(encoding="utf-8")


def demo_script(seed: int = 0) -> TableScript:
    """The demo: games 2-4 of the bundled 3-point match (game 4 is the Crawford game) with an illegal
    move (play 2), a cocked die (roll 5) and a premature roll (end of turn 5), and a double in the
    Crawford game."""
    return TableScript(bundled_demo_match(), from_game=2,
                       inject=("illegal_move", "cocked_roll", "premature_roll", "crawford_double"),
                       illegal_at=2, turn_at=5, seed=seed)


def prepared_match(script: TableScript) -> tuple[MatMatch, list[str]]:
    """The transcript as the script plays it: games from ``from_game``, the illegal move applied."""
    from dataclasses import replace

    from rules.matfile import loads
    from sim.video import inject_illegal_move

    match: MatMatch = loads(script.match_text, source="demo")
    notes: list[str] = []
    if script.from_game > 1:
        match = replace(match, games=match.games[script.from_game - 1:])
    if "illegal_move" in script.inject:
        match, what = inject_illegal_move(match, script.illegal_at)
        notes.append(f"illegal move: {what}")
    return match, notes


def frames(script: TableScript, fps: float, info: dict[str, Any], on_record: Any) -> Iterator[Any]:
    """The rendered frames of the script (``sim.video.iter_frames``: physical throws, moving hands)."""
    from rules.referee.setup import EndSignal
    from sim.script import ScriptOptions
    from sim.video import iter_frames

    match, _ = prepared_match(script)
    inject = [n for n in script.inject if n != "illegal_move"]
    return iter_frames(match, seed=script.seed, fps=fps, max_seconds=script.max_seconds, style=script.style,
                       inject=inject, inject_at=script.turn_at, elevation=script.elevation, motion_every=3,
                       options=ScriptOptions(end_signal=EndSignal(script.end_signal)), on_record=on_record, info=info)


def injection_notes(script: TableScript) -> list[str]:
    _, notes = prepared_match(script)
    for n in script.inject:
        if n == "cocked_roll":
            notes.append(f"cocked die: roll {script.turn_at}")
        elif n == "premature_roll":
            notes.append(f"premature roll: end of turn {script.turn_at}")
        elif n == "crawford_double":
            notes.append("double in the Crawford game (offered, then taken back)")
        elif n != "illegal_move":
            notes.append(f"{n}: at turn/roll {script.turn_at}")
    return notes


# ----------------------------------------------------------------------------------------- rendering
def render_progressive(script: TableScript, out: Path, fps: float = 10.0, progress: bool = False) -> None:
    """Render the script's frames into ``out`` (see the module docstring). Each new image is written
    once (``frames/NNNNNN.jpg``); ``index.jsonl`` has one line per video frame: its id ``k``, time
    ``t``, image and the simulator's ground truth (for evaluation only). Restarts from scratch."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "frames").mkdir(exist_ok=True)
    for old in ("index.jsonl", "done.json", "camera.json"):
        (out / old).unlink(missing_ok=True)
    records: list[dict[str, Any]] = []
    info: dict[str, Any] = {}
    notes = injection_notes(script)
    setup: dict[str, Any] | None = None
    last_img: Any = None
    name = ""
    n = 0
    count = [0]  # frames written so far: the frame a record precedes

    def on_record(r: dict[str, Any]) -> None:
        records.append({**r, "t_frame": count[0]})

    with open(out / "index.jsonl", "a", encoding="utf-8") as f:
        for k, t, img, truth in frames(script, fps, info, on_record):
            if setup is None:
                setup = next(({k: v for k, v in r.items() if k != "t_frame"} for r in records
                              if r.get("type") == "match_setup"), None)
                (out / "camera.json").write_text(json.dumps(info["camera"], indent=1), encoding="utf-8")
                (out / "script.json").write_text(json.dumps({"script": script.to_json(), "setup": setup, "notes": notes,
                                                             "fps": fps}, indent=1), encoding="utf-8")
            if img is not last_img:
                last_img = img
                name = f"frames/{k:06d}.jpg"
                tmp = out / (name + ".tmp.jpg")
                cv2.imwrite(str(tmp), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
                tmp.replace(out / name)
            f.write(json.dumps({"k": k, "t": t, "image": name, "truth": truth}, separators=(",", ":")) + "\n")
            f.flush()
            n = count[0] = k + 1
            if progress and k % 10 == 0:
                sys.stderr.write(f"\rrendered {k + 1} frames ({t:.1f} s of table time)")
                sys.stderr.flush()
    others = [r for r in records if r.get("type") not in ("match_setup",)]
    meta = json.loads((out / "script.json").read_text(encoding="utf-8"))
    meta["others"] = others
    (out / "script.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    (out / "done.json").write_text(json.dumps({"frames": n, **info.get("summary", {})}), encoding="utf-8")
    if progress:
        sys.stderr.write("\n")


def start_render(script: TableScript, out: Path, fps: float = 10.0, nice: int = 10) -> subprocess.Popen[bytes] | None:
    """Render in a background process (niced) unless ``out`` is complete; returns the process or None."""
    if (out / "done.json").exists() or render_running(out):
        return None
    out.mkdir(parents=True, exist_ok=True)
    (out / "request.json").write_text(json.dumps(script.to_json()), encoding="utf-8")
    cmd = [sys.executable, "-m", "server.simtable", "render", str(out), "--fps", str(fps)]
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
    """A folder written by :func:`render_progressive`, played as a camera: frame ``k`` at ``k / fps``.

    Frames are paced at ``speed`` times real time; timestamps (:attr:`t`) are the table's time.
    ``live=True`` behaves like a camera (the oldest frames are dropped when vision falls behind);
    ``live=False`` (the demo's default) hands every frame to vision, so the table slows down to the
    speed of vision on a slow machine instead of losing frames. When the renderer has not reached a
    frame yet, the camera waits for it (:attr:`waited_s`)."""

    def __init__(self, folder: Path, fps: float = 10.0, speed: float = 1.0, wait_s: float = 900.0,
                 renderer: subprocess.Popen[bytes] | None = None, live: bool = False) -> None:
        self.folder = Path(folder)
        self.is_live = live
        self.name = f"simulated table ({self.folder})"
        self.fps: float | None = fps
        self.speed = speed
        self.wait_s = wait_s
        self.renderer = renderer
        self._images: list[str] = []
        self._pos = 0  # bytes of index.jsonl read
        self._k = 0
        self._image: U8 | None = None
        self._shown = ""
        self._start: float | None = None
        self.t = 0.0
        self.waited_s = 0.0
        """Seconds spent waiting for the renderer (why the demo can run slower than real time)."""
        self.total_frames: int | None = None
        self.last_work_ms: float | None = None
        """Time spent reading the frame (decoding), without the waits for pacing or the renderer."""
        self._stopped = False

    def _poll(self) -> None:
        index = self.folder / "index.jsonl"
        if self.total_frames is None and (self.folder / "done.json").exists():
            self.total_frames = int(json.loads((self.folder / "done.json").read_text())["frames"])
        if not index.exists():
            return
        with open(index, "rb") as f:
            f.seek(self._pos)
            chunk = f.read()
        end = chunk.rfind(b"\n")
        if end >= 0:
            for line in chunk[: end + 1].decode("utf-8").splitlines():
                self._images.append(str(json.loads(line)["image"]))
            self._pos += end + 1

    @property
    def rendered(self) -> int:
        """Frames rendered so far."""
        return len(self._images)

    @property
    def complete(self) -> bool:
        return self.total_frames is not None and len(self._images) >= self.total_frames

    def renderer_failed(self) -> str | None:
        if self.renderer is not None and self.renderer.poll() not in (None, 0) and not self.complete:
            log = self.folder / "render.log"
            tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
            return f"the simulator's renderer stopped (exit code {self.renderer.returncode}): {tail}"
        return None

    def read(self) -> U8 | None:
        waited = 0.0
        while not self._stopped:
            self._poll()
            if self._k < len(self._images):
                break
            if self.complete:
                return None  # the end of the match
            failed = self.renderer_failed()
            if failed:
                raise RuntimeError(failed)
            if waited > self.wait_s:
                raise RuntimeError(f"no new rendered frame in {self.wait_s:.0f} s; see {self.folder / 'render.log'}")
            time.sleep(0.2)
            waited += 0.2
        if self._stopped:
            return None
        self.waited_s += waited
        t = self._k / (self.fps or 10.0)
        t0 = time.perf_counter()
        name = self._images[self._k]
        if self._image is None or name != self._shown:
            img = cv2.imread(str(self.folder / name), cv2.IMREAD_COLOR)
            if img is None:
                raise RuntimeError(f"{self.folder / name}: cannot read a rendered frame; delete {self.folder} to render again")
            self._image = np.asarray(img, dtype=np.uint8)
            self._shown = name
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


def load_truth(folder: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, Any]]]:
    """Evaluation only: the set-up, the ground-truth state of every frame, the other records (with
    ``t_frame``, the frame they precede)."""
    meta = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    truth = [json.loads(line)["truth"] for line in (folder / "index.jsonl").read_text(encoding="utf-8").splitlines()]
    setup = {k: v for k, v in meta["setup"].items() if k != "t_frame"} if meta.get("setup") else None
    return setup, truth, list(meta.get("others", []))


def iter_announcements(folder: Path, fps: float) -> Iterator[tuple[float, dict[str, Any]]]:
    """Spoken acts of the script (resignations): a monitor enters these; the camera cannot see them."""
    meta = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    for r in meta.get("others", []):
        if r.get("type") == "announce":
            yield float(r.get("t_frame", 0)) / fps, {k: v for k, v in r.items() if k != "t_frame"}


def rolls_in(match_text: str, from_game: int = 1) -> int:
    from rules.matfile import loads

    m = loads(match_text)
    return sum(1 for g in m.games[from_game - 1:] for e in g.entries if e.kind is EntryKind.ROLL)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m server.simtable", description="render a TableScript progressively")
    ap.add_argument("what", choices=["render"])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args(argv)
    script = TableScript.from_json(json.loads((a.folder / "request.json").read_text(encoding="utf-8")))
    render_progressive(script, a.folder, fps=a.fps, progress=a.progress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
