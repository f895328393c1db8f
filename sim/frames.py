"""``gammonwatch sim frames``: labelled 1280x720 frames, deterministic by seed, in parallel workers.

Layout of ``OUT``::

    OUT/manifest.json          the run's settings (a resumed run must match them)
    OUT/frames/000000.jpg      the camera image
    OUT/frames/000000.json     its labels (written last: a frame is done when its JSON exists)
    OUT/summary.json           counts by die reason, cube zone, style (written at the end)

Frame ``i`` is view ``i % views`` of physical scene ``i // views``; a scene's physics and each
view draw from generators seeded by ``(seed, scene)`` and ``(seed, scene, view)``, so any worker
produces the same bytes for the same frame, and a killed run resumes where it stopped.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context, parent_process
from pathlib import Path
from typing import Any

import numpy as np

FORMAT_VERSION = 1


@dataclass
class FramesConfig:
    n: int
    out: Path
    seed: int = 0
    views: int = 3
    styles: list[str] = field(default_factory=list)
    mix: dict[str, float] = field(default_factory=dict)
    shadows: float = 0.5  # share of views rendered with shadows
    translucent: float = 0.3  # share of scenes with translucent precision dice
    jpeg: tuple[int, int] = (60, 95)
    layouts: dict[str, float] | None = None  # layout kind -> weight (sim.scene.LAYOUT_KINDS); None: the default
    hands: int | None = None  # hands over the table in every view; None: 0, 1 or 2 at random

    def manifest(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("layouts", "hands"):  # runs made before these settings existed resume unchanged
            if d[k] is None:
                del d[k]
        d["out"] = None
        d["format_version"] = FORMAT_VERSION
        d["width"], d["height"] = 1280, 720
        d["jpeg"] = list(self.jpeg)
        return d


class ManifestMismatch(ValueError):
    pass


def frame_path(out: Path, i: int, ext: str) -> Path:
    return out / "frames" / f"{i:06d}.{ext}"


def missing_scenes(cfg: FramesConfig) -> list[int]:
    n_scenes = math.ceil(cfg.n / cfg.views)
    todo = []
    for s in range(n_scenes):
        frames = range(s * cfg.views, min(cfg.n, (s + 1) * cfg.views))
        if any(not frame_path(cfg.out, i, "json").exists() for i in frames):
            todo.append(s)
    return todo


def prepare(cfg: FramesConfig) -> None:
    """Create ``OUT``; on an existing run check that its settings match (else a clear error)."""
    (cfg.out / "frames").mkdir(parents=True, exist_ok=True)
    man = cfg.out / "manifest.json"
    want = cfg.manifest()
    if man.exists():
        try:
            have = json.loads(man.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ManifestMismatch(f"{man} is unreadable ({exc}); use another --out directory") from None
        diffs = [k for k in want if k != "n" and have.get(k) != want[k]]
        if diffs:
            k = diffs[0]
            raise ManifestMismatch(
                f"{cfg.out} holds a run with other settings ({k}: {have.get(k)!r} there, {want[k]!r} now); "
                f"resume with the same settings or choose another --out directory")
        if want["n"] > have.get("n", 0):
            man.write_text(json.dumps(want, indent=1))
    else:
        tmp = man.with_suffix(".tmp")
        tmp.write_text(json.dumps(want, indent=1))
        os.replace(tmp, man)


# --------------------------------------------------------------------------- worker side
_WORKER: dict[str, Any] = {}


def _exit_with_parent(parent: int, poll_s: float = 1.0) -> None:
    """Leave as soon as the parent process is gone (killed with -9, say): an orphaned worker
    would otherwise go on rendering frames nobody collects."""
    while True:
        time.sleep(poll_s)
        if os.getppid() != parent:
            os._exit(3)


def _init_worker() -> None:
    parent = parent_process()
    if parent is not None and parent.pid is not None:  # a pool worker, not the single-process run
        threading.Thread(target=_exit_with_parent, args=(parent.pid,), daemon=True,
                         name="exit-with-parent").start()
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    os.environ["LP_NUM_THREADS"] = os.environ.get("LP_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import cv2

    cv2.setNumThreads(1)


def _state() -> dict[str, Any]:
    if not _WORKER:
        import pybullet as pb

        from sim.render import Renderer

        _WORKER["client"] = pb.connect(pb.DIRECT)
        _WORKER["renderer"] = Renderer()
    return _WORKER


def render_scene(cfg_d: dict[str, Any], scene_idx: int) -> list[int]:
    """Make scene ``scene_idx`` and write its missing frames; returns the frame numbers written."""
    from sim.camera import distort, effects, encode_jpeg, sample_camera
    from sim.labels import frame_labels
    from sim.render import sample_look
    from sim.scene import make_scene, scene_rng
    from sim.styles import style_for

    st = _state()
    out = Path(cfg_d["out"])
    views = int(cfg_d["views"])
    n = int(cfg_d["n"])
    frames = [i for i in range(scene_idx * views, min(n, (scene_idx + 1) * views))
              if not frame_path(out, i, "json").exists()]
    if not frames:
        return []
    seed = int(cfg_d["seed"])
    rng = scene_rng(seed, scene_idx)
    scene = make_scene(rng, mix=cfg_d["mix"], client=st["client"], layouts=cfg_d.get("layouts"))
    styles = cfg_d["styles"]
    style = style_for(styles[int(rng.integers(len(styles)))], rng)
    dice_colours = (scene.world.bodies[scene.world.dice[0]].colour, scene.world.bodies[scene.world.dice[1]].colour)
    look = sample_look(scene.world, style, rng, dice_colours, translucent_share=float(cfg_d["translucent"]),
                       hands=cfg_d.get("hands"))
    renderer = st["renderer"]
    pscene = renderer.build(scene.world, look, rng)
    written = []
    for i in frames:
        view = i - scene_idx * views
        vr = np.random.default_rng(np.random.SeedSequence([seed, scene_idx, view + 1, 0x7E1]))
        cam = sample_camera(scene.world.spec, vr)
        shadows = bool(vr.random() < float(cfg_d["shadows"]))
        canvas, depth, light = renderer.render(pscene, cam, vr, shadows=shadows)
        img = distort(canvas, cam)
        img, fx = effects(img, vr)
        q = int(vr.integers(cfg_d["jpeg"][0], cfg_d["jpeg"][1] + 1))
        data = encode_jpeg(img, q)
        labels = frame_labels(scene, look, cam, depth, frame=i)
        labels["image"] = frame_path(out, i, "jpg").name
        labels["id"] = {"frame": i, "seed": seed, "scene": scene_idx, "view": view}
        labels["render"] = {**light, "effects": fx, "jpeg_quality": q}
        jpg = frame_path(out, i, "jpg")
        tmp = jpg.with_suffix(".jpg.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, jpg)
        js = frame_path(out, i, "json")
        tmp = js.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(labels, separators=(",", ":")))
        os.replace(tmp, js)
        written.append(i)
    return written


# --------------------------------------------------------------------------- parent side
class Progress:
    def __init__(self, total: int, done: int, stream: Any = None) -> None:
        self.total, self.done = total, done
        self.start_done = done
        self.t0 = time.perf_counter()
        self.stream = stream or sys.stderr
        self.last = 0.0

    def update(self, k: int) -> None:
        self.done += k
        now = time.perf_counter()
        if now - self.last < 0.5 and self.done < self.total:
            return
        self.last = now
        rate = (self.done - self.start_done) / max(now - self.t0, 1e-6)
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        width = 30
        fill = int(width * self.done / max(self.total, 1))
        eta_s = f"{eta / 60:.1f} min" if math.isfinite(eta) else "?"
        self.stream.write(f"\rframes {self.done}/{self.total} [{'#' * fill}{'.' * (width - fill)}] "
                          f"{rate * 3600:.0f}/h, eta {eta_s}   ")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def run(cfg: FramesConfig, workers: int = 1, progress: bool = True,
        on_frames: Callable[[list[int]], None] | None = None) -> int:
    """Generate (or resume) a run. Returns the number of frames written in this call."""
    prepare(cfg)
    todo = missing_scenes(cfg)
    done_before = sum(1 for i in range(cfg.n) if frame_path(cfg.out, i, "json").exists())
    bar = Progress(cfg.n, done_before) if progress else None
    cfg_d = {**asdict(cfg), "out": str(cfg.out), "jpeg": list(cfg.jpeg)}
    written = 0
    if workers <= 1:
        _init_worker()
        for s in todo:
            w = render_scene(cfg_d, s)
            written += len(w)
            if bar:
                bar.update(len(w))
            if on_frames:
                on_frames(w)
    else:
        ctx = get_context("spawn")
        try:
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker) as pool:
                pending: set[Future[list[int]]] = set()
                queue = list(todo)
                while queue or pending:
                    while queue and len(pending) < workers * 2:
                        pending.add(pool.submit(render_scene, cfg_d, queue.pop(0)))
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        w = f.result()
                        written += len(w)
                        if bar:
                            bar.update(len(w))
                        if on_frames:
                            on_frames(w)
        except BrokenProcessPool:
            if bar:
                bar.close()
            raise
    if bar:
        bar.close()
    write_summary(cfg)
    return written


def write_summary(cfg: FramesConfig) -> dict[str, Any]:
    reasons: dict[str, int] = {}
    zones: dict[str, int] = {}
    styles: dict[str, int] = {}
    frames = 0
    for i in range(cfg.n):
        p = frame_path(cfg.out, i, "json")
        if not p.exists():
            continue
        d = json.loads(p.read_text())
        frames += 1
        if d["id"]["view"] == 0:
            for die in d["table_state"]["dice"]:
                reasons[die["reason"]] = reasons.get(die["reason"], 0) + 1
        z = d["table_state"].get("cube", {"zone": "absent"})["zone"]
        zones[z] = zones.get(z, 0) + 1
        styles[d["look"]["style"]] = styles.get(d["look"]["style"], 0) + 1
    summary = {"frames": frames, "die_reasons_per_scene": reasons, "cube_zones": zones, "styles": styles}
    (cfg.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary
