"""Crops of labelled simulator dice for the die reader's training, measurement and calibration
(``models/train_die_reader.py``, ``models/calibrate_die_reader.py``). No PyTorch here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from calibration.profile import CalibrationProfile  # noqa: E402
from vision.dice import CROP_MARGIN, CROP_SIZE, crop_die, up_directions  # noqa: E402
from vision.dice_validity import TOP_SPAN, top_face_crop  # noqa: E402
from vision.eval_cli import die_shows_value  # noqa: E402
from vision.images import read_image  # noqa: E402


def true_up(label: dict, position_cm: list[float]) -> np.ndarray:
    """Image direction of the world's vertical at a die, from the label's camera (exact)."""
    cam = label["camera"]
    p = np.array(position_cm, dtype=np.float64)
    uv, _ = cv2.projectPoints(np.array([p, p + [0.0, 0.0, 2.0]]), np.array(cam["rvec"], dtype=np.float64),
                              np.array(cam["t_cm"], dtype=np.float64), np.array(cam["K"], dtype=np.float64),
                              np.array(cam["dist"], dtype=np.float64))
    d = uv.reshape(2, 2)[1] - uv.reshape(2, 2)[0]
    n = float(np.hypot(*d))
    return d / n if n > 1e-9 else np.array([0.0, -1.0])


REAL_TOP_ENLARGE = TOP_SPAN / (1.0 + 2.0 * CROP_MARGIN)
"""A top-down photo's die box enlarged by this before :func:`crop_die` so that the die fills the crop as a
flat die's top face fills a :func:`top_face_crop` (half its side; ``crop_die`` leaves the die 1/1.3)."""


def enlarge(box: list[float] | np.ndarray, factor: float) -> list[float]:
    """A box scaled about its centre."""
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2 * factor, (y1 - y0) / 2 * factor
    return [cx - hw, cy - hh, cx + hw, cy + hh]


def shrink_crops(x: np.ndarray) -> np.ndarray:
    """Upright ``crop_die`` crops (N x S x S x 3) rescaled about their centre to the top-face crop's scale."""
    side = x.shape[1]
    inner = int(round(side / REAL_TOP_ENLARGE))
    lo = (side - inner) // 2
    out = np.empty_like(x)
    for i, c in enumerate(x):
        small = cv2.resize(c, (inner, inner), interpolation=cv2.INTER_AREA)
        out[i] = cv2.copyMakeBorder(small, lo, side - inner - lo, lo, side - inner - lo, cv2.BORDER_REPLICATE)
    return out


def sim_test_crops(folder: Path, crop: str = "up", showing_only: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Simulator dice of a frames folder (fully in frame, at least half visible), labelled box, vertical
    from a corners-only profile (as ``recognize --corners``); also whether each die lies flat on the board.
    ``crop`` "top": :func:`top_face_crop` with the camera solved from the 8 labelled corners alone
    (``assumed_camera``, what the run time does for a profile without intrinsics). ``showing_only``: only
    the dice that show their value (``vision.eval_cli.die_shows_value``)."""
    xs, ys, flat = [], [], []
    for path in sorted((folder / "frames").glob("*.json")):
        lab = json.loads(path.read_text())
        dice = [o for o in lab["objects"] if o.get("kind") == "die" and o.get("box_xyxy") is not None
                and o.get("fully_in_frame") and o.get("visible_frac", 0) >= 0.5
                and not (showing_only and die_shows_value(o, lab["objects"]) is False)]
        if not dice:
            continue
        img = read_image(path.with_suffix(".jpg"))
        boxes = [d["box_xyxy"] for d in dice]
        if crop == "top":
            from validity_data import profile_for

            prof = profile_for(lab, None, intrinsics=False)
            for d, b in zip(dice, boxes, strict=True):
                xs.append(top_face_crop(img, prof, b, CROP_SIZE))
                ys.append(int(d["value"]) - 1)
                flat.append(d.get("reason") == "flat_board")
            continue
        try:
            profile = CalibrationProfile.from_corners(lab["board"]["corners4_px"], (img.shape[1], img.shape[0]))
            ups = up_directions(profile, boxes)
        except ValueError:  # corners out of frame: fall back to the true camera
            ups = np.array([true_up(lab, d["pose"]["position_cm"]) for d in dice])
        for d, b, u in zip(dice, boxes, ups, strict=True):
            xs.append(crop_die(img, b, up=u))
            ys.append(int(d["value"]) - 1)
            flat.append(d.get("reason") == "flat_board")
    return np.stack(xs), np.array(ys, dtype=np.int64), np.array(flat, dtype=bool)
