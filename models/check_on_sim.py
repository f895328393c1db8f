"""Measure the die reader and the automatic board detector on simulator frames.

    gammonwatch sim frames --n 60 --out data-gen/simcheck --seed 4242
    python models/check_on_sim.py data-gen/simcheck [--model models/die_reader.onnx]

Die reader: every die label (``objects`` of kind ``die``) fully in the frame and at least half
visible, read from its box; accuracy overall and for valid (flat) dice. Board detector
(``find_board_corners``: the corner network with the classical detector, decision 0728; with
``--classical`` the classical detector alone): the corners found automatically against ``board.corners8_px`` (frames whose 8 corners are all in the
frame): share within 5 px, median and 90th-percentile error, and how often it fails outright.
The simulator frames are never used for training here, so this is a held-out measurement.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.detect import find_board_corners, find_board_corners_classical  # noqa: E402
from calibration.errors import CornerError  # noqa: E402
from vision.dice import DEFAULT_MODEL, DieReader  # noqa: E402
from vision.images import read_image  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path, help="output folder of 'gammonwatch sim frames'")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--no-board", action="store_true", help="skip the board detector")
    ap.add_argument("--no-dice", action="store_true", help="skip the die reader")
    ap.add_argument("--classical", action="store_true",
                    help="measure the classical outline detector alone (the peer of the corner network)")
    args = ap.parse_args(argv)
    labels = sorted((args.folder / "frames").glob("*.json"))
    if not labels:
        print(f"{args.folder}: no frames/*.json; render some with 'gammonwatch sim frames'", file=sys.stderr)
        return 2
    reader = None if args.no_dice else DieReader(args.model)
    truth, pred, flat = [], [], []
    errors: list[float] = []
    failures = 0
    swapped = 0
    t_board = 0.0
    for path in labels:
        lab = json.loads(path.read_text())
        image = read_image(path.with_suffix(".jpg"))
        dice = [o for o in lab["objects"] if o["kind"] == "die" and o.get("fully_in_frame") and o.get("visible_frac", 0) >= 0.5]
        if dice and reader is not None:
            r = reader.read(image, [d["box_xyxy"] for d in dice])
            for d, v in zip(dice, r.value, strict=True):
                truth.append(d["value"])
                pred.append(int(v))
                flat.append(d.get("reason") == "flat_board")
        board = lab["board"]
        if args.no_board or not board.get("corners8_in_frame"):
            continue
        t0 = time.perf_counter()
        try:
            found = find_board_corners_classical(image) if args.classical else find_board_corners(image)
        except CornerError:
            failures += 1
            continue
        finally:
            t_board += time.perf_counter() - t0
        true8 = np.array(board["corners8_px"])
        if len(found) != 8:
            failures += 1
            continue
        err = float(np.abs(found - true8).max())
        # the same corners in another order (e.g. near and far confused) count as a swap
        if err > 20 and np.abs(np.sort(found, axis=0) - np.sort(true8, axis=0)).max() < 20:
            swapped += 1
        errors.append(err)
    t, p, f = np.array(truth), np.array(pred), np.array(flat, dtype=bool)
    print(f"frames: {len(labels)}")
    if len(t):
        print(f"die reader: {float((t == p).mean()):.4f} (n={len(t)}); flat_board dice {float((t[f] == p[f]).mean()):.4f} "
              f"(n={int(f.sum())}); other states {float((t[~f] == p[~f]).mean()) if (~f).any() else float('nan'):.4f} "
              f"(n={int((~f).sum())})")
    if errors or failures:
        e = np.array(errors)
        n = len(e) + failures
        print(f"board detector: {int((e < 5).sum())}/{n} within 5 px, {int((e < 15).sum())}/{n} within 15 px, "
              f"failed {failures}, corners in another order {swapped}; median max-corner error "
              f"{float(np.median(e)) if len(e) else float('nan'):.1f} px, 90th pct "
              f"{float(np.percentile(e, 90)) if len(e) else float('nan'):.1f} px; "
              f"{1000 * t_board / max(n, 1):.0f} ms per frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
