"""``gammonwatch recognize``: one image -> table state JSON (issue 5, "Command line").

    gammonwatch recognize IMAGE --corners X1,Y1,...,X4,Y4 [--intrinsics camera.json] [--json]

Corner 1 near-right, 2 near-left, 3 far-left, 4 far-right of the playing surface (or eight: the
right half's four, then the left half's four). Points 1..12 run from corner 1 to corner 2, 13..24
from corner 3 to corner 4. The parts are the committed ones: corners parsed and checked by
``calibration`` (``parse_corners``, ``CalibrationProfile.from_corners``), everything else by
:class:`vision.recognizer.FrameRecognizer` (the one composite of recognition).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board import parse_corners
from calibration.errors import CalibrationError
from calibration.intrinsics import Intrinsics, load_intrinsics
from calibration.profile import CalibrationProfile
from vision.errors import VisionError
from vision.images import read_image
from vision.recognizer import FrameRecognizer

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


def recognize(image: U8, profile: CalibrationProfile) -> dict[str, Any]:
    """The issue-5 JSON object for one frame: points, bar, off, dice, cube."""
    return FrameRecognizer(profile).recognize(image).to_json()


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
