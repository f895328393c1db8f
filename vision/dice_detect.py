"""Locating dice in an image: a classical detector (no model), a first step before a trained one.

Dice are compact, roughly square blobs that differ from what lies under them. Given a background
(an image of the same view without dice, e.g. the tracker's running background of the board) the
difference shows them directly; without one, the background is estimated by a median filter much
larger than a die. The difference (Lab distance) is thresholded, cleaned, and connected regions of
die size and shape become boxes; regions the size of two touching dice are split along the
distance transform.

Recall on the real dice photos is measured by ``gammonwatch eval dice DIR --detect``
(``docs/vision.md``). On a backgammon board without a background image the points and checkers
make this much harder: a trained detector on simulator frames is the next step.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.detections import DIE, Detections


def detect_dice(image: npt.NDArray[np.uint8], die_px: tuple[float, float] = (18.0, 75.0),
                background: npt.NDArray[np.uint8] | None = None, threshold: float = 28.0) -> Detections:
    """Boxes of die-like blobs. ``die_px``: smallest and largest expected die side in pixels."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected a colour image H x W x 3, got shape {image.shape}")
    lo, hi = die_px
    if background is None:
        k = int(hi * 2.5) | 1
        if k > 99:  # median filters are slow for large kernels: estimate at a lower resolution
            scale = 99.0 / k
            small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            bg = np.asarray(cv2.resize(cv2.medianBlur(small, 99), (image.shape[1], image.shape[0]),
                                       interpolation=cv2.INTER_LINEAR), dtype=np.uint8)
        else:
            bg = np.asarray(cv2.medianBlur(image, k), dtype=np.uint8)
    elif background.shape != image.shape:
        raise ValueError(f"background shape {background.shape} differs from the image's {image.shape}")
    else:
        bg = background
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    lab_bg = cv2.cvtColor(bg, cv2.COLOR_BGR2LAB).astype(np.float32)
    diff = np.linalg.norm(lab - lab_bg, axis=2)
    mask = (diff > threshold).astype(np.uint8)
    r = max(1, int(lo * 0.12))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    blobs = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if np.sqrt(area) < lo * 0.7 or max(w, h) > hi * 2.6:
            continue
        blobs.append((i, x, y, w, h, area))
    # the typical die side in this image: median of the compact blobs' sides
    compact = [max(w, h) for _, _, _, w, h, a in blobs
               if max(w, h) / max(1, min(w, h)) <= 1.4 and a / float(w * h) >= 0.6 and max(w, h) <= hi]
    typical = float(np.median(compact)) if len(compact) >= 3 else hi
    boxes: list[tuple[float, float, float, float]] = []
    scores: list[float] = []
    for i, x, y, w, h, area in blobs:
        fill = area / float(w * h)
        aspect = max(w, h) / max(1, min(w, h))
        if max(w, h) <= typical * 1.45 and aspect <= 1.8 and fill >= 0.45:
            boxes.append((float(x), float(y), float(x + w), float(y + h)))
            scores.append(float(min(1.0, fill)) / aspect)
            continue
        # several touching dice: split at the peaks of the distance transform
        region = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
        dist = cv2.distanceTransform(region, cv2.DIST_L2, 5)
        size = int(typical * 0.6) | 1
        peaks = (dist >= 0.3 * typical) & (dist >= cv2.dilate(dist, np.ones((size, size), np.uint8)) - 1e-3)
        m, _, _, centroids = cv2.connectedComponentsWithStats(peaks.astype(np.uint8))
        if not 2 <= m - 1 <= 8:
            continue
        for j in range(1, m):
            cx, cy = centroids[j]
            half = typical / 2
            boxes.append((x + cx - half, y + cy - half, x + cx + half, y + cy + half))
            scores.append(0.5)
    if not boxes:
        return Detections.empty()
    return Detections.from_boxes(np.array(boxes), DIE, np.array(scores))
