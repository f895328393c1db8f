"""``gammonwatch eval``: accuracy reports for the vision models.

    gammonwatch eval dice DIR [--model models/die_reader.onnx] [--errors]

``dice``: for a folder of photos with ``NAME.json`` labels (layout of ``shared/data/real-dice``:
``dice`` with ``value`` and ``box_xyxy_norm``), read each labelled die from its box and print the
accuracy; the last line is ``accuracy: 0.973 (n=1487)``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from vision.dice import DEFAULT_MODEL, DieReader, crop_die
from vision.dice_data import read_folder
from vision.errors import VisionError
from vision.images import read_image


def eval_dice(folder: Path, model: Path, show_errors: bool = False) -> tuple[int, int]:
    """(correct, total) over every labelled die of the folder; prints per-value figures."""
    reader = DieReader(model)
    photos = read_folder(folder)
    truth: list[int] = []
    pred: list[int] = []
    for photo in photos:
        image = read_image(photo.image_path)
        h, w = image.shape[:2]
        crops = [crop_die(image, die.box_px(w, h)) for die in photo.dice]
        readings = reader.read_crops(crops)
        for k, die in enumerate(photo.dice):
            truth.append(die.value)
            pred.append(int(readings.value[k]))
            if show_errors and readings.value[k] != die.value:
                print(f"{photo.name} die {k}: labelled {die.value}, read {readings.value[k]} "
                      f"(p={readings.confidence[k]:.2f})")
    t, p = np.array(truth), np.array(pred)
    print(f"photos: {len(photos)}, dice: {len(t)}, model: {model}")
    for v in range(1, 7):
        sel = t == v
        if sel.any():
            print(f"  value {v}: {int((p[sel] == v).sum())}/{int(sel.sum())} = {float((p[sel] == v).mean()):.3f}")
    correct = int((t == p).sum())
    return correct, len(t)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="gammonwatch eval", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("dice", help="die-value accuracy on labelled dice photos")
    p.add_argument("folder", type=Path, help="folder of NAME.jpg photos with NAME.json labels")
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="die reader ONNX model")
    p.add_argument("--errors", action="store_true", help="list each misread die")
    args = ap.parse_args(argv)
    try:
        correct, total = eval_dice(args.folder, args.model, args.errors)
    except VisionError as exc:
        print(f"gammonwatch eval {args.what}: {exc}", file=sys.stderr)
        return 2
    if total == 0:
        print(f"gammonwatch eval dice: {args.folder}: the labels list no dice", file=sys.stderr)
        return 2
    print(f"accuracy: {correct / total:.3f} (n={total})")
    return 0
