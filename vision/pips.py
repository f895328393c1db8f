"""A classical pip counter: the fallback when no die model is available, and the benchmark peer.

On a die crop (``vision.dice.crop_die``), the face colour is the median of the crop's centre;
pips are the blobs inside the die's box whose colour differs from the face (Otsu threshold on the
Lab distance), of plausible size and roundness. The count, clamped to 1..6, is the value.

It needs no training data and is fast, but it is fooled by side faces seen at an angle and by
neighbouring dice; compare ``gammonwatch eval dice DIR --reader pips`` with the default model.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.dice import CROP_MARGIN, CROP_SIZE


def count_pips(crop: npt.NDArray[np.uint8]) -> int:
    """Value 1..6 read from one ``CROP_SIZE`` crop by counting blobs."""
    if crop.shape != (CROP_SIZE, CROP_SIZE, 3):
        raise ValueError(f"die crops must be {CROP_SIZE}x{CROP_SIZE}x3, got {crop.shape}")
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    # the die's box inside the crop (the crop adds CROP_MARGIN on every side)
    inset = int(round(CROP_SIZE * CROP_MARGIN / (1 + 2 * CROP_MARGIN)))
    box = lab[inset : CROP_SIZE - inset, inset : CROP_SIZE - inset]
    side = box.shape[0]
    face = np.median(box.reshape(-1, 3), axis=0)
    dist = np.linalg.norm(box - face, axis=2)
    dist8 = np.clip(dist * (255.0 / max(float(dist.max()), 1e-3)), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # ignore what touches the box border (edges of the die, shadows, neighbours)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    area_min, area_max = (side * 0.04) ** 2, (side * 0.3) ** 2
    count = 0
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if x == 0 or y == 0 or x + w >= side or y + h >= side:
            continue
        if not area_min <= area <= area_max:
            continue
        if max(w, h) > 2.2 * min(w, h):  # pips are round
            continue
        count += 1
    return int(min(6, max(1, count)))


def count_pips_batch(crops: npt.NDArray[np.uint8] | list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.int64]:
    return np.array([count_pips(c) for c in crops], dtype=np.int64)
