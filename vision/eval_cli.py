"""``gammonwatch eval``: accuracy reports for the vision models.

    gammonwatch eval dice DIR [--model models/die_reader.onnx] [--reader model|pips] [--errors] [--detect]

``dice``: for a folder of photos with ``NAME.json`` labels (layout of ``shared/data/real-dice``:
``dice`` with ``value`` and ``box_xyxy_norm``), read each labelled die from its box and print the
accuracy; the last line is ``accuracy: 0.973 (n=1487)``. ``--reader pips`` uses the classical pip
counter instead of the model; ``--detect`` also reports the classical dice detector's recall and
precision against the labelled boxes (IoU >= 0.5).
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

IOU_MATCH = 0.5


def eval_dice(folder: Path, model: Path, reader_kind: str = "model", show_errors: bool = False,
              detect: bool = False) -> tuple[int, int]:
    """(correct, total) over every labelled die of the folder; prints per-value figures."""
    photos = read_folder(folder)  # check the labels before loading the model
    reader = DieReader(model) if reader_kind == "model" else None
    truth: list[int] = []
    pred: list[int] = []
    found = labelled = detected = 0
    for photo in photos:
        image = read_image(photo.image_path)
        h, w = image.shape[:2]
        crops = np.stack([crop_die(image, die.box_px(w, h)) for die in photo.dice]) if photo.dice else None
        if crops is None:
            values = np.zeros(0, dtype=np.int64)
            conf = np.zeros(0)
        elif reader is not None:
            readings = reader.read_crops(crops)
            values, conf = readings.value, readings.confidence.astype(np.float64)
        else:
            from vision.pips import count_pips_batch

            values, conf = count_pips_batch(crops), np.ones(len(crops))
        for k, die in enumerate(photo.dice):
            truth.append(die.value)
            pred.append(int(values[k]))
            if show_errors and values[k] != die.value:
                print(f"{photo.name} die {k}: labelled {die.value}, read {values[k]} (p={conf[k]:.2f})")
        if detect:
            from vision.detections import box_iou
            from vision.dice_detect import detect_dice

            dets = detect_dice(image)
            gt = np.array([die.box_px(w, h) for die in photo.dice]).reshape(-1, 4)
            labelled += len(gt)
            detected += len(dets)
            if len(dets) and len(gt):
                found += int((box_iou(gt, dets.xyxy).max(axis=1) >= IOU_MATCH).sum())
    t, p = np.array(truth, dtype=np.int64), np.array(pred, dtype=np.int64)
    print(f"photos: {len(photos)}, dice: {len(t)}, reader: {model if reader is not None else 'classical pip counter'}")
    for v in range(1, 7):
        sel = t == v
        if sel.any():
            print(f"  value {v}: {int((p[sel] == v).sum())}/{int(sel.sum())} = {float((p[sel] == v).mean()):.3f}")
    if detect:
        print(f"detector (classical, IoU >= {IOU_MATCH}): recall {found / max(labelled, 1):.3f} ({found}/{labelled}), "
              f"precision {found / max(detected, 1):.3f} ({found}/{detected})")
    return int((t == p).sum()), len(t)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="gammonwatch eval", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("dice", help="die-value accuracy on labelled dice photos")
    p.add_argument("folder", type=Path, help="folder of NAME.jpg photos with NAME.json labels")
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="die reader ONNX model")
    p.add_argument("--reader", choices=("model", "pips"), default="model",
                   help="model (default) or the classical pip counter")
    p.add_argument("--errors", action="store_true", help="list each misread die")
    p.add_argument("--detect", action="store_true", help="also report the dice detector's recall")
    args = ap.parse_args(argv)
    try:
        correct, total = eval_dice(args.folder, args.model, args.reader, args.errors, args.detect)
    except VisionError as exc:
        print(f"gammonwatch eval {args.what}: {exc}", file=sys.stderr)
        return 2
    if total == 0:
        print(f"gammonwatch eval dice: {args.folder}: the labels list no dice", file=sys.stderr)
        return 2
    print(f"accuracy: {correct / total:.3f} (n={total})")
    return 0
