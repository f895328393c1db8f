"""Tracker benchmark: can the per-frame work keep up with 30 fps at 1280x720 on this machine?

    python scripts/bench_tracker.py [--frames 600] [--repeat 3]

A 1280x720 simulator frame (tests/data/sim-sample) is the table; over it a die-sized patch tumbles
for 1 s and then lies still, and a hand-sized blob comes in from the near edge and leaves, 20 s at
30 fps in all. Per frame the tracker's own work is timed: the motion detector (resize to a small
grey copy, difference, threshold, per-die change) and ``Tracker.update`` with the dice positions.
Recognition of settled frames (checkers, cube, dice values and validity) is a separate budget
(100 ms per settled frame, issue 5); the script counts how many frames asked for one.

Peer in the same run: motion by differencing the full-resolution colour frames (what the small copy
saves). Figures: median and 99th percentile milliseconds per frame, and the frame rate that leaves
(1000 / mean).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.observation import DieObservation, TableObservation  # noqa: E402
from vision.tracker import HandObservation, MotionDetector, Tracker  # noqa: E402

SAMPLE = ROOT / "tests" / "data" / "sim-sample" / "000000.jpg"
CORNERS = [[1100, 650], [180, 650], [180, 80], [1100, 80]]


def frames(n: int) -> list[tuple[np.ndarray, list[tuple[float, float]], bool]]:
    base = cv2.imread(str(SAMPLE), cv2.IMREAD_COLOR) if SAMPLE.is_file() else None
    if base is None or base.shape[:2] != (720, 1280):
        rng0 = np.random.default_rng(0)
        base = rng0.integers(60, 120, (720, 1280, 3), dtype=np.uint8)
    rng = np.random.default_rng(1)
    out = []
    pos = [(600.0, 350.0), (700.0, 380.0)]
    for f in range(n):
        img = base.copy()
        phase = f % 300
        if phase < 30:  # dice tumble
            pos = [(x + float(rng.uniform(-25, 25)), y + float(rng.uniform(-25, 25))) for x, y in pos]
        for x, y in pos:
            cv2.rectangle(img, (int(x) - 12, int(y) - 12), (int(x) + 12, int(y) + 12), (245, 245, 245), -1)
        hand = 150 <= phase < 200
        if hand:
            cv2.ellipse(img, (640, 720 - (phase - 150) * 4), (90, 160), 0, 0, 360, (150, 170, 200), -1)
        out.append((img, list(pos), hand))
    return out


def run(seq: list[tuple[np.ndarray, list[tuple[float, float]], bool]], full_res: bool) -> tuple[list[float], int]:
    md = MotionDetector((1280, 720), CORNERS)
    tracker = Tracker()
    board = TableObservation.from_counts([2] + [0] * 23, [0] * 23 + [2])
    vp = np.eye(6)[3] * 0.9 + 0.02
    times = []
    recognitions = 0
    prev = None
    for i, (img, pos, hand) in enumerate(seq):
        t0 = time.perf_counter()
        if full_res:
            moving = False
            if prev is not None:
                diff = cv2.absdiff(img, prev)
                moving = cv2.countNonZero(cv2.threshold(cv2.cvtColor(diff, cv2.COLOR_BGR2GRAY), 18, 255, cv2.THRESH_BINARY)[1]) > 500
            prev = img
            die_motion = None
        else:
            m = md(img)
            moving = m.moving
            die_motion = [md.changed_in(m, (x - 14, y - 14, x + 14, y + 14)) > 0.2 for x, y in pos]
        dice = [DieObservation(vp, p, half="right") for p in pos]
        hands = [HandObservation("near", "board")] if hand else []
        want = tracker.wants_recognition
        recognitions += want
        tracker.update(i, i / 30.0, dice=dice, board=board if want else None, hands=hands, moving=moving,
                       die_motion=die_motion)
        times.append((time.perf_counter() - t0) * 1000.0)
    return times, recognitions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    seq = frames(a.frames)
    print(f"{a.frames} frames of 1280x720 (source: {'simulator frame' if SAMPLE.is_file() else 'noise'}), 1 OpenCV thread")
    for name, full in (("tracker (small grey copy)", False), ("peer: full-resolution differencing", True)):
        best: list[float] = []
        recog = 0
        for _ in range(a.repeat):
            times, recog = run(seq, full)
            if not best or statistics.mean(times) < statistics.mean(best):
                best = times
        mean = statistics.mean(best)
        p99 = float(np.percentile(best, 99))
        print(f"{name:38s} median {statistics.median(best):6.2f} ms  p99 {p99:6.2f} ms  mean {mean:6.2f} ms"
              f"  -> {1000.0 / mean:7.0f} fps {'(keeps up with 30 fps)' if 1000.0 / mean >= 30 else '(TOO SLOW for 30 fps)'}")
        if not full:
            print(f"{'':38s} recognitions asked for: {recog} of {a.frames} frames ({100.0 * recog / a.frames:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
