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
from vision.dice import crop_die, up_directions  # noqa: E402
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


def sim_test_crops(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Simulator dice of a frames folder (fully in frame, at least half visible), labelled box, vertical
    from a corners-only profile (as ``recognize --corners``); also whether each die lies flat on the board."""
    xs, ys, flat = [], [], []
    for path in sorted((folder / "frames").glob("*.json")):
        lab = json.loads(path.read_text())
        dice = [o for o in lab["objects"] if o.get("kind") == "die" and o.get("box_xyxy") is not None
                and o.get("fully_in_frame") and o.get("visible_frac", 0) >= 0.5]
        if not dice:
            continue
        img = read_image(path.with_suffix(".jpg"))
        boxes = [d["box_xyxy"] for d in dice]
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
