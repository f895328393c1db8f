"""``gammonwatch recognize``: one image -> table state JSON (issue 5, "Command line").

    gammonwatch recognize IMAGE --corners X1,Y1,...,X4,Y4 [--intrinsics camera.json] [--json]

Corner 1 near-right, 2 near-left, 3 far-left, 4 far-right of the playing surface (or eight: the
right half's four, then the left half's four). Points 1..12 run from corner 1 to corner 2, 13..24
from corner 3 to corner 4. The parts are the committed ones: corners parsed and checked by
``calibration`` (``parse_corners``, ``CalibrationProfile.from_corners``), checkers and cube by
:class:`vision.board_reader.BoardReader`, dice located by the classical detector
(:func:`vision.dice_detect.detect_dice`) and kept on the playing surface, values read by
:class:`vision.dice.DieReader`, validity, reason and half by
:class:`vision.dice_validity.DieValidityClassifier`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board import board_to_image, parse_corners
from calibration.errors import CalibrationError
from calibration.intrinsics import Intrinsics, load_intrinsics
from calibration.profile import CalibrationProfile
from vision.board_reader import BoardReader
from vision.dice import DieReader
from vision.dice_detect import detect_dice
from vision.dice_validity import DEFAULT_DIE_CM, VALID_CLASSES, DieValidityClassifier, die_board_xy, half_of
from vision.errors import VisionError
from vision.images import read_image

U8 = np.ndarray[Any, np.dtype[np.uint8]]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="gammonwatch recognize", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("image", type=Path, help="the frame to read (any format OpenCV reads)")
    ap.add_argument("--corners", required=True,
                    help="X1,Y1,...,X4,Y4 in pixels (or 8 corners: right half's four, then left half's); "
                         "corner 1 near-right, 2 near-left, 3 far-left, 4 far-right")
    ap.add_argument("--intrinsics", type=Path, help="camera intrinsics JSON ('gammonwatch calibrate intrinsics')")
    ap.add_argument("--json", action="store_true", help="print one JSON object only")
    return ap


def die_px_range(profile: CalibrationProfile, die_cm: float = DEFAULT_DIE_CM) -> tuple[float, float]:
    """Smallest and largest die side (pixels) to expect on the surface: a die's top face projected
    at the far and near edge of both halves, with room for seeing its sides."""
    sides = []
    q = profile.dims.play_depth / 2
    for half, hmat in profile.homographies.items():
        x0, x1, _, _ = profile.dims.half_rect(half)
        for x in (x0 + die_cm, x1 - die_cm):
            for y in (-q + die_cm, q - die_cm):
                sq = np.array([[x, y], [x + die_cm, y], [x + die_cm, y + die_cm], [x, y + die_cm]])
                uv = board_to_image(hmat, sq)
                sides.append(float(np.sqrt(abs(_area(uv)))))
    return max(6.0, 0.7 * min(sides)), 1.8 * max(sides)


def _area(quad: np.ndarray[Any, np.dtype[np.float64]]) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def read_dice(image: U8, profile: CalibrationProfile, point_counts: list[int],
              reader: DieReader, judge: DieValidityClassifier) -> list[dict[str, Any]]:
    """Dice on the playing surface: value, validity, reason, half, centre and confidence.

    ``valid`` follows the reported reason (``flat_board`` and ``on_checker`` are the valid ones);
    ``confidence`` is the die reader's probability of the value times the classifier's probability
    of the reason."""
    det = detect_dice(image, die_px=die_px_range(profile))
    boxes = [[float(v) for v in b] for b in det.xyxy
             if half_of(profile, die_board_xy(profile, b)) is not None]
    if not boxes:
        return []
    values = reader.read(image, boxes)
    verdicts = judge.judge(image, profile, boxes, point_counts=point_counts)
    out = []
    for i, (b, v) in enumerate(zip(boxes, verdicts, strict=True)):
        out.append({"value": int(values.value[i]), "valid": v.reason in VALID_CLASSES, "reason": v.reason, "half": v.half,
                    "center_px": [round((b[0] + b[2]) / 2, 1), round((b[1] + b[3]) / 2, 1)],
                    "confidence": round(float(values.confidence[i]) * v.confidence, 4)})
    return out


def recognize(image: U8, profile: CalibrationProfile, board: BoardReader | None = None,
              dice: DieReader | None = None, validity: DieValidityClassifier | None = None) -> dict[str, Any]:
    """The issue-5 JSON object for one frame: points, bar, off, dice, cube."""
    reading = (board or BoardReader()).read(image, profile)
    data = reading.to_json()
    counts = [a + b for a, b in reading.point_counts()]
    dice_json = read_dice(image, profile, counts, dice or DieReader(), validity or DieValidityClassifier())
    cube = data.get("cube") or {"value": 1, "zone": "absent", "confidence": 0.0}
    return {"points": data["points"], "bar": data["bar"], "off": data["off"], "dice": dice_json, "cube": cube}


def summary(result: dict[str, Any]) -> str:
    pts = [f"{p['point']}:" + (f"{p['light']}L" if p["light"] else "") + (f"{p['dark']}D" if p["dark"] else "")
           for p in result["points"] if p["light"] or p["dark"]]
    lines = ["points: " + (" ".join(pts) or "(empty)"),
             f"bar: light {result['bar']['light']}, dark {result['bar']['dark']}; "
             f"off: light {result['off']['light']}, dark {result['off']['dark']}"]
    for d in result["dice"]:
        lines.append(f"die {d['value']} at {d['center_px']} ({d['half'] or 'off'} half): "
                     f"{'valid' if d['valid'] else 'INVALID'} ({d['reason']}), confidence {d['confidence']}")
    if not result["dice"]:
        lines.append("dice: none found on the playing surface")
    c = result["cube"]
    lines.append(f"cube: {c['value']} in zone {c['zone']} (confidence {c['confidence']})")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    image = read_image(args.image)
    h, w = image.shape[:2]
    intr: Intrinsics | None = load_intrinsics(args.intrinsics) if args.intrinsics else None
    profile = CalibrationProfile.from_corners(parse_corners(args.corners), (w, h), intrinsics=intr,
                                              source_image=str(args.image))
    result = recognize(np.asarray(image, dtype=np.uint8), profile)
    if args.json:
        print(json.dumps(result))
    else:
        print(summary(result))
        print(json.dumps(result))
    return 0


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except (CalibrationError, VisionError, ValueError) as exc:
        print(f"gammonwatch recognize: {exc}", file=sys.stderr)
        return 2
