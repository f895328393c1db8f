"""Simulator throughput: labelled 1280x720 frames per hour on this machine (target >= 3,000 on 2 cores).

Runs ``sim frames`` for a bounded batch with 2 worker processes and, as the peer in the same run,
with 1 worker; prints wall-clock frames/hour and the CPU time per frame (which gives frames/hour on
2 dedicated cores when the machine is shared). Also times the physics alone against the
feasibility study's figure (about 10,000 steps/s, SIMULATOR-NOTES.md). Then renders a short
scripted-match video (``sim.video.iter_frames``, a random game's first plays) with hands drawn every
3rd frame, against the peer that draws every moving frame, and prints the CPU cost per second of
video (BENCH_SIM_VIDEO_S seconds, default 12).
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
os.environ.setdefault("LP_NUM_THREADS", "1")

TARGET = 3000.0


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def frames_run(n: int, workers: int, seed: int) -> tuple[float, float]:
    from sim.frames import FramesConfig, run
    from sim.scene import DEFAULT_MIX
    from sim.styles import style_names

    out = Path(tempfile.mkdtemp(prefix="bench_sim_"))
    try:
        cfg = FramesConfig(n=n, out=out, seed=seed, views=3, styles=style_names(), mix=dict(DEFAULT_MIX))
        cpu0 = _children_cpu()
        t0 = time.perf_counter()
        run(cfg, workers=workers, progress=False)
        wall = time.perf_counter() - t0
        cpu = _children_cpu() - cpu0
        return wall, cpu
    finally:
        shutil.rmtree(out, ignore_errors=True)


def physics_steps_per_s() -> float:
    import pybullet as pb

    from sim.layout import TableLayout
    from sim.physics import World
    from sim.scene import scene_rng
    from sim.table import TableSpec

    c = pb.connect(pb.DIRECT)
    rng = scene_rng(0, 0)
    w = World.build(TableSpec(), TableLayout.start(), client=c, rng=rng)
    steps = 0
    t0 = time.process_time()
    for i in range(10):
        w.throw(w.dice, "right", scene_rng(1, i))
        w.step(480)
        steps += 480
    dt = time.process_time() - t0
    pb.disconnect(c)
    return steps / dt


def video_run(seconds: float, motion_every: int) -> tuple[int, int, float]:
    """(frames, renders, CPU seconds) of a ``seconds``-long scripted video at 10 fps."""
    import numpy as np

    from sim.video import iter_frames, random_match

    match = random_match(np.random.default_rng(7), rolls=4)
    info: dict[str, object] = {}
    t0 = time.process_time()
    n = sum(1 for _ in iter_frames(match, seed=7, fps=10.0, max_seconds=seconds, motion_every=motion_every,
                                   style="green-felt", info=info))
    cpu = time.process_time() - t0
    summary = info["summary"]
    assert isinstance(summary, dict)
    return n, int(summary["renders"]), cpu


def main() -> int:
    n = int(os.environ.get("BENCH_SIM_FRAMES", "36"))
    load = os.getloadavg()[0]
    print(f"load average before: {load:.1f} (other jobs on this machine slow the wall-clock figures)")
    sps = physics_steps_per_s()
    print(f"physics: {sps:,.0f} steps/s per core (feasibility study: about 10,000)")
    wall2, cpu2 = frames_run(n, 2, seed=101)
    wall1, cpu1 = frames_run(n // 3, 1, seed=202)  # the peer: one process (the main process renders)
    cpu1 = cpu1 or 0.0
    fph2 = n / wall2 * 3600
    print(f"2 workers: {n} frames in {wall2:.1f} s wall = {fph2:,.0f} frames/hour (wall clock)")
    cpu_per_frame = cpu2 / n
    dedicated = 2 * 3600 / cpu_per_frame if cpu_per_frame > 0 else float("nan")
    print(f"2 workers: {cpu_per_frame:.2f} CPU s per frame -> {dedicated:,.0f} frames/hour on 2 dedicated cores")
    n1 = n // 3
    print(f"1 process (peer): {n1} frames in {wall1:.1f} s wall = {n1 / wall1 * 3600:,.0f} frames/hour; "
          f"speed-up of 2 workers: {fph2 / (n1 / wall1 * 3600):.2f}x")
    ok = max(fph2, dedicated) >= TARGET
    print(f"target {TARGET:,.0f} frames/hour on 2 cores: {'met' if ok else 'NOT met'} "
          f"(wall clock {'met' if fph2 >= TARGET else 'not met'} at load {load:.1f})")
    secs = float(os.environ.get("BENCH_SIM_VIDEO_S", "12"))
    for every, name in ((3, "video, hands every 3rd frame"), (1, "video, peer: every moving frame")):
        n, renders, cpu = video_run(secs, every)
        print(f"{name}: {n} frames ({n / 10:.1f} s at 10 fps), {renders} rendered, {cpu:.1f} CPU s "
              f"= {cpu / max(renders, 1):.2f} CPU s per render, {cpu / (n / 10) * 120 / 60:.1f} CPU min per "
              f"2 minutes of video")
    return 0


if __name__ == "__main__":
    sys.exit(main())
