"""``gammonwatch calibrate``: camera intrinsics (ChArUco) and board localisation.

    gammonwatch calibrate charuco OUT.png                    # a board to print
    gammonwatch calibrate intrinsics IMAGES... --out camera.json
    gammonwatch calibrate board IMAGE [--corners X1,Y1,...] [--intrinsics camera.json] --out profile.json
    gammonwatch calibrate overlay IMAGE PROFILE --out check.png   # draw points, bar, trays to check
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.board import CORNER_NAMES, BoardDimensions, parse_corners
from calibration.errors import CalibrationError
from calibration.intrinsics import CharucoSpec, Intrinsics, calibrate, load_intrinsics
from calibration.profile import QUADRANTS, CalibrationProfile, Orientation, die_size_warning
from vision.errors import VisionError
from vision.images import read_image


def _squares(text: str) -> tuple[int, int]:
    try:
        x, y = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: give squares as WxH, e.g. 7x5") from exc
    return x, y


def _charuco_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--squares", type=_squares, default=(7, 5), help="squares across x down (default 7x5)")
    p.add_argument("--square-mm", type=float, default=40.0, help="printed square side in mm (default 40)")
    p.add_argument("--marker-mm", type=float, default=30.0, help="printed marker side in mm (default 30)")
    p.add_argument("--dictionary", default="DICT_5X5_100", help="ArUco dictionary (default DICT_5X5_100)")


def _spec(args: argparse.Namespace) -> CharucoSpec:
    return CharucoSpec(args.squares[0], args.squares[1], args.square_mm, args.marker_mm, args.dictionary)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="gammonwatch calibrate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)

    p = sub.add_parser("charuco", help="write a ChArUco board image to print")
    p.add_argument("out", type=Path)
    p.add_argument("--pixels-per-square", type=int, default=200)
    _charuco_args(p)

    p = sub.add_parser("intrinsics", help="camera matrix and distortion from ChArUco photos")
    p.add_argument("images", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True, help="JSON file to write")
    _charuco_args(p)

    p = sub.add_parser("board", help="board corners -> calibration profile (JSON)")
    p.add_argument("image", type=Path)
    p.add_argument("--corners", help="X1,Y1,...,X4,Y4 (or 8 corners: right half's four, then left half's); "
                   "corner 1 near-right, 2 near-left, 3 far-left, 4 far-right. Without: found automatically")
    p.add_argument("--intrinsics", type=Path, help="camera intrinsics JSON (gives the camera pose)")
    p.add_argument("--light-home", choices=QUADRANTS, default="near-right",
                   help="quadrant of the light player's home board (default near-right)")
    p.add_argument("--half-width-cm", type=float, default=BoardDimensions.half_width)
    p.add_argument("--depth-cm", type=float, default=BoardDimensions.play_depth)
    p.add_argument("--bar-cm", type=float, default=BoardDimensions.bar_width)
    p.add_argument("--out", type=Path, help="profile to write (default: print it)")

    p = sub.add_parser("overlay", help="draw a profile's points, bar and trays on an image to check it")
    p.add_argument("image", type=Path)
    p.add_argument("profile", type=Path)
    p.add_argument("--out", type=Path, required=True, help="image to write (.png or .jpg)")
    return ap


def draw_overlay(image: np.ndarray, profile: CalibrationProfile) -> np.ndarray:
    """Point columns (numbered), bar and trays of a profile drawn on a copy of ``image``."""
    from vision.geometry import bar_region, point_regions, tray_regions

    out = image.copy()
    for point, poly in point_regions(profile, stack_layers=0).items():
        colour = (0, 200, 255) if point <= 12 else (255, 160, 0)
        cv2.polylines(out, [poly.astype(np.int32)], True, colour, 1, cv2.LINE_AA)
        cx, cy = poly.mean(axis=0)
        cv2.putText(out, str(point), (int(cx) - 8, int(cy) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    cv2.polylines(out, [bar_region(profile).astype(np.int32)], True, (0, 0, 255), 2, cv2.LINE_AA)
    for poly in tray_regions(profile).values():
        cv2.polylines(out, [poly.astype(np.int32)], True, (0, 255, 0), 2, cv2.LINE_AA)
    for i, (x, y) in enumerate(profile.corners):
        cv2.circle(out, (int(x), int(y)), 5, (255, 0, 255), -1, cv2.LINE_AA)
        cv2.putText(out, str(i + 1), (int(x) + 6, int(y) - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2)
    return out


def _run(args: argparse.Namespace) -> int:
    if args.what == "charuco":
        spec = _spec(args)
        if not cv2.imwrite(str(args.out), spec.image(args.pixels_per_square)):
            raise CalibrationError(f"{args.out}: cannot write the image; give a writable .png path")
        print(f"wrote {args.out}: print it at {spec.square_mm:g} mm per square (measure after printing)")
        return 0
    if args.what == "intrinsics":
        spec = _spec(args)
        images = [(str(p), read_image(p)) for p in args.images]
        intr, skipped = calibrate(images, spec)
        for name in skipped:
            print(f"warning: {name}: ChArUco board not found, image skipped", file=sys.stderr)
        args.out.write_text(json.dumps(intr.to_json(), indent=1) + "\n", encoding="utf-8")
        k = intr.camera_matrix
        print(f"wrote {args.out}: fx {k[0, 0]:.1f} fy {k[1, 1]:.1f} cx {k[0, 2]:.1f} cy {k[1, 2]:.1f}, "
              f"RMS {intr.rms_px:.3f} px from {intr.views_used} views")
        return 0
    if args.what == "overlay":
        image = read_image(args.image)
        profile = CalibrationProfile.load(args.profile)
        h, w = image.shape[:2]
        if (w, h) != profile.image_size:
            raise CalibrationError(
                f"{args.image} is {w}x{h} but {args.profile} was made for {profile.image_size[0]}x{profile.image_size[1]}; "
                "use a frame of the same camera and resolution"
            )
        if not cv2.imwrite(str(args.out), draw_overlay(image, profile)):
            raise CalibrationError(f"{args.out}: cannot write the image; give a writable .png or .jpg path")
        print(f"wrote {args.out}")
        return 0
    # board
    image = read_image(args.image)
    h, w = image.shape[:2]
    dims = BoardDimensions(half_width=args.half_width_cm, play_depth=args.depth_cm, bar_width=args.bar_cm)
    board_intr: Intrinsics | None = load_intrinsics(args.intrinsics) if args.intrinsics else None
    if args.corners:
        corners = parse_corners(args.corners)
        method = "manual"
    else:
        from calibration.detect import find_board_corners

        corners = find_board_corners(image)
        method = "auto"
    profile = CalibrationProfile.from_corners(corners, (w, h), dims=dims, intrinsics=board_intr,
                                              orientation=Orientation(args.light_home), method=method,
                                              source_image=str(args.image))
    text = json.dumps(profile.to_json(), indent=1)
    if args.out:
        profile.save(args.out)
        names = [f"{CORNER_NAMES[i % 4]}" + ("" if len(corners) == 4 else (" R" if i < 4 else " L"))
                 for i in range(len(corners))]
        summary = ", ".join(f"{n} ({x:.1f}, {y:.1f})" for n, (x, y) in zip(names, profile.corners, strict=True))
        print(f"wrote {args.out} ({method}, {len(corners)} corners): {summary}")
        if method == "auto":
            print(f"corners found automatically (a few pixels off, now and then wrong): look at them with "
                  f"'gammonwatch calibrate overlay {args.image} {args.out} --out check.png', or give them "
                  "with --corners X1,Y1,...")
        warning = die_size_warning(profile)
        if warning:
            print(warning, file=sys.stderr)
        if profile.pose is not None:
            pj = profile.pose.to_json()
            print(f"camera pose: height {pj['camera_height_cm']} cm, elevation {pj['elevation_deg']} deg, "
                  f"reprojection {pj['reprojection_px']} px")
    else:
        print(text)
    return 0


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except (CalibrationError, VisionError, ValueError) as exc:
        print(f"gammonwatch calibrate {args.what}: {exc}", file=sys.stderr)
        return 2
