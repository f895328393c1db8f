"""Vision benchmark: dice locator per frame, die-reader latency per crop and per batch on this CPU, with peers.

    python scripts/bench_vision.py [--repeat N]

Figures (median of repeated runs, milliseconds):
- die reader (ONNX Runtime, 1 and 2 threads): one crop, and batches of 2, 8 and 32 crops, plus
  the cost of cutting the crops from a 1280x720 frame;
- peer in the same run: the classical pip counter (vision/pips.py) on the same crops;
- dice locator (trained, ONNX, 1 thread) per 1280x720 frame (a sample simulator frame), against
  its peer in the same run, the classical detector (vision/dice_detect.py); and locate + read of a
  settled frame's dice as FrameRecognizer does it (crops turned to the vertical);
- calibration: automatic board detection on a synthetic 1280x720 view.
A settled frame has two dice, so "2 crops" is the figure that counts against the 100 ms budget.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "models"))


def timed(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args(argv)

    from synth_dice import render_sample

    from vision.dice import DEFAULT_MODEL, DieReader, crop_die
    from vision.errors import ModelMissingError
    from vision.pips import count_pips_batch

    print(f"CPU cores: {os.cpu_count()}, repeat {args.repeat} (median ms)")
    rng = np.random.default_rng(7)
    samples = [render_sample(rng, i % 6 + 1) for i in range(32)]
    crops = np.stack([crop_die(img, box) for img, box in samples])
    frame = np.random.default_rng(8).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    boxes = [(600.0 + 40 * i, 300.0, 632.0 + 40 * i, 332.0) for i in range(2)]

    try:
        readers = {t: DieReader(DEFAULT_MODEL, threads=t) for t in (1, 2)}
    except ModelMissingError as exc:
        print(f"die reader: {exc}")
        return 1
    size_kb = DEFAULT_MODEL.stat().st_size / 1024
    print(f"die reader model: {DEFAULT_MODEL.name}, {size_kb:.0f} KB")
    print(f"{'':34s}{'1 crop':>9s}{'2 crops':>9s}{'8 crops':>9s}{'32 crops':>10s}{'per crop@32':>13s}")
    for t, reader in readers.items():
        row = [timed(lambda n=n, r=reader: r.read_crops(crops[:n]), args.repeat) for n in (1, 2, 8, 32)]
        print(f"{f'die reader ONNX, {t} thread(s)':34s}" + "".join(f"{v:9.2f}" for v in row[:3])
              + f"{row[3]:10.2f}{row[3] / 32:13.3f}")
    row = [timed(lambda n=n: count_pips_batch(crops[:n]), args.repeat) for n in (1, 2, 8, 32)]
    print(f"{'peer: classical pip counter':34s}" + "".join(f"{v:9.2f}" for v in row[:3])
          + f"{row[3]:10.2f}{row[3] / 32:13.3f}")
    crop_ms = timed(lambda: [crop_die(frame, b) for b in boxes], args.repeat)
    full = timed(lambda: readers[1].read(frame, boxes), args.repeat)
    print(f"cutting 2 crops from a 1280x720 frame: {crop_ms:.2f} ms; crop + read 2 dice (1 thread): {full:.2f} ms")

    import cv2

    from calibration.profile import CalibrationProfile
    from vision.dice import up_directions
    from vision.dice_detect import detect_dice
    from vision.dice_locator import DEFAULT_MODEL as LOCATOR_MODEL
    from vision.dice_locator import DiceLocator

    sample = ROOT / "tests" / "data" / "sim-sample" / "000006.jpg"
    sim_frame = cv2.imread(str(sample))
    try:
        locator = DiceLocator(LOCATOR_MODEL, threads=1)
    except ModelMissingError as exc:
        print(f"dice locator: {exc}")
        return 1
    print(f"dice locator model: {LOCATOR_MODEL.name}, {LOCATOR_MODEL.stat().st_size / 1024:.0f} KB")
    loc_ms = timed(lambda: locator.locate(sim_frame, scales=(1.0,)), args.repeat)
    settled_ms = timed(lambda: locator.locate(sim_frame), args.repeat)
    classical_ms = timed(lambda: detect_dice(sim_frame), max(3, args.repeat // 5))
    print(f"locate dice, 1280x720 frame: trained locator (1 thread) {loc_ms:.2f} ms for one look (moving frames), "
          f"{settled_ms:.2f} ms for the looks at scales {locator.scales} (settled frames); "
          f"peer: classical detector {classical_ms:.2f} ms")
    label = json.loads(sample.with_suffix(".json").read_text())
    profile = CalibrationProfile.from_corners(label["board"]["corners4_px"], (1280, 720))
    sim_boxes = locator.locate(sim_frame).as_list()

    from vision.dice import CALIBRATED_MODEL

    calibrated = DieReader(CALIBRATED_MODEL, threads=1)

    def locate_and_read() -> None:
        b = locator.locate(sim_frame).as_list()
        calibrated.read(sim_frame, b, ups=up_directions(profile, b))

    read_ms = timed(lambda: calibrated.read(sim_frame, sim_boxes, ups=up_directions(profile, sim_boxes)), args.repeat)
    both_ms = timed(locate_and_read, args.repeat)
    print(f"read {len(sim_boxes)} located dice turned to the vertical (die_reader_calibrated, crop + mirror): {read_ms:.2f} ms "
          f"({read_ms / max(len(sim_boxes), 1):.2f} ms per die); locate + read: {both_ms:.2f} ms")
    from vision.dice import SETTLED_ZOOMS, DieReaders

    readers = DieReaders.calibrated(threads=1)
    run_ms = timed(lambda: readers.read(sim_frame, sim_boxes, ups=up_directions(profile, sim_boxes), zooms=SETTLED_ZOOMS,
                                        profile=profile), args.repeat)
    print(f"read {len(sim_boxes)} located dice as a settled frame does (DieReaders: turned crop + top face, two box "
          f"sizes, mirrors): {run_ms:.2f} ms")

    from calibration.board import BoardDimensions
    from calibration.detect import find_board_corners
    from calibration.synthetic import board_texture, look_at_pose, plane_view

    tex, t2b = board_texture(BoardDimensions())
    k = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]])
    rvec, tvec = look_at_pose((0.0, -45.0, 70.0), (0.0, 0.0, 0.0))
    view = plane_view(tex, t2b, k, rvec, tvec, (1280, 720))
    detect_ms = timed(lambda: find_board_corners(view), max(3, args.repeat // 10))
    print(f"automatic board detection, synthetic 1280x720 view: {detect_ms:.1f} ms (once per calibration)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
