"""Finding the playing surface automatically: a trained corner network and a classical detector.

:func:`find_board_corners` asks both (decision 0728): the corner network
(:mod:`calibration.corner_model`, robust to hands, checkers, rails of the table's colour and cameras
from either seat, a few pixels off) and the classical quadrilateral detector
(:func:`find_board_corners_classical`, exact on a clean view, easily led astray), and keeps the
classical corners where the two agree.

The classical detector finds the board in two steps. Its outline (outer rails) is the largest convex quadrilateral
bar. The detector looks for such quadrilaterals among the contours of an edge map (Canny on the
grey image and on the saturation channel, closed by a small dilation), keeps convex four-sided
polygons of plausible size, and prefers two similar quadrilaterals side by side (the two halves,
8 corners) over one (the whole surface, 4 corners).

Assumption: the camera looks from the near side, so the near edge of the board is the lower one
in the image. Accuracy is to be measured on simulator frames (``docs/vision.md``); give corners by
hand (``--corners``) when it fails or for unusual camera positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import F64, check_corners, check_quad
from calibration.corner_model import MIN_CONFIDENCE, CornerFinding, CornerModel
from calibration.errors import CornerError

MAX_SIDE = 960
MIN_AREA_FRAC = 0.04
MAX_AREA_FRAC = 0.95
OPEN_PX = 5
EDGE_THRESHOLDS = ((50.0, 150.0), (20.0, 60.0), (8.0, 24.0))


@dataclass(frozen=True)
class Quad:
    points: F64
    """4 x 2 pixel corners, issue-5 order."""
    area: float


def order_quad(pts: F64) -> F64:
    """Order 4 points near-right, near-left, far-left, far-right, assuming near = lower in the image."""
    p = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    by_y = p[np.argsort(p[:, 1])]
    far, near = by_y[:2], by_y[2:]
    far = far[np.argsort(far[:, 0])]
    near = near[np.argsort(near[:, 0])]
    return np.array([near[1], near[0], far[0], far[1]])


def _candidate_quads(image: npt.NDArray[np.uint8]) -> list[Quad]:
    h, w = image.shape[:2]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    sat = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)[:, :, 1]
    contours: list[npt.NDArray[np.int32]] = []
    blurred = [cv2.GaussianBlur(channel, (5, 5), 0) for channel in (gray, sat)]
    for low, high in EDGE_THRESHOLDS:  # strong edges first; weak ones for low-contrast rails
        edges = np.zeros((h, w), np.uint8)
        for channel in blurred:
            edges |= np.asarray(cv2.Canny(channel, low, high), dtype=np.uint8)
        edges = np.asarray(cv2.dilate(edges, np.ones((3, 3), np.uint8)), dtype=np.uint8)
        found, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        contours.extend(np.asarray(c, dtype=np.int32) for c in found)
    quads: list[Quad] = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if not MIN_AREA_FRAC * w * h <= area <= MAX_AREA_FRAC * w * h:
            continue
        hull = cv2.convexHull(contour)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(approx) != 4 or not cv2.isContourConvex(approx):
            continue
        # the contour must fill its quadrilateral (rejects L-shapes whose hull is a quad)
        if area < 0.85 * cv2.contourArea(approx):
            continue
        pts = order_quad(np.asarray(approx, dtype=np.float64).reshape(4, 2))
        try:
            check_quad(pts, "candidate")
        except CornerError:
            continue
        quads.append(Quad(pts, float(cv2.contourArea(approx))))
    # merge near-duplicates (inner and outer edge of the same line), keeping the smaller (inner) one
    quads.sort(key=lambda q: q.area)
    unique: list[Quad] = []
    for q in quads:
        if any(np.max(np.abs(q.points - u.points)) < 0.03 * max(w, h) for u in unique):
            continue
        unique.append(q)
    return unique


def _halves_inside(image: npt.NDArray[np.uint8], outer: F64) -> list[F64]:
    """Playing-surface quads inside the board's outline: rectify the outline, mark the rail colour
    (sampled in a band just inside the outline), and fit quads to the large non-rail regions."""
    rw, rh = 800, 600
    dst = np.array([[rw - 1, rh - 1], [0, rh - 1], [0, 0], [rw - 1, 0]], dtype=np.float32)
    hmat = cv2.getPerspectiveTransform(outer.astype(np.float32), dst)
    rect = cv2.warpPerspective(image, hmat, (rw, rh), flags=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(rect, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    band = np.zeros((rh, rw), bool)
    band[4:12, 4:-4] = True
    band[-12:-4, 4:-4] = True
    band[4:-4, 4:12] = True
    band[4:-4, -12:-4] = True
    rail = np.median(lab[band], axis=0)
    dist = np.linalg.norm(lab - rail, axis=2)
    free = (dist > 28).astype(np.uint8)
    free = cv2.morphologyEx(free, cv2.MORPH_OPEN, np.ones((OPEN_PX, OPEN_PX), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    regions = sorted(((int(stats[i, cv2.CC_STAT_AREA]), i) for i in range(1, n)), reverse=True)
    out: list[tuple[float, Rect]] = []
    for area, i in regions[:4]:
        if area < 0.08 * rw * rh:
            continue
        # In the rectified view each half is an axis-aligned rectangle: take the rows and columns
        # that the region fills for at least half of its largest extent (robust to points of the
        # rail's colour that cut into the region's corners).
        mask = labels == i
        cols, rows = mask.sum(axis=0), mask.sum(axis=1)
        xs = np.flatnonzero(cols >= 0.5 * cols.max())
        ys = np.flatnonzero(rows >= 0.5 * rows.max())
        x0, x1, y0, y1 = float(xs[0]), float(xs[-1] + 1), float(ys[0]), float(ys[-1] + 1)
        if (x1 - x0) * (y1 - y0) < 0.7 * area:
            continue
        out.append((float(area), (x0, x1, y0, y1)))
    inv = np.asarray(np.linalg.inv(hmat), dtype=np.float64)
    if len(out) >= 2 and min(out[0][0], out[1][0]) / max(out[0][0], out[1][0]) > 0.6:
        ra, rb = out[0][1], out[1][1]
        u = _board_right_axis(ra, rb, (rw, rh))
        first, second = (ra, rb) if _centre(ra) @ u > _centre(rb) @ u else (rb, ra)
        return [_to_image(_oriented(first, u), inv), _to_image(_oriented(second, u), inv)]
    if out:
        return [_to_image(_oriented(out[0][1], np.array([1.0, 0.0])), inv)]
    return []


Rect = tuple[float, float, float, float]


def _centre(r: Rect) -> F64:
    return np.array([(r[0] + r[1]) / 2, (r[2] + r[3]) / 2])


def _board_right_axis(a: Rect, b: Rect, size: tuple[int, int]) -> F64:
    """Unit vector (rectified view) pointing to the board's right: along the line joining the two
    halves, towards the end with the wider margin (the bear-off tray sits beyond the right half's
    outer rail). Without a clear tray, the orientation that puts the near side lowest in the image."""
    rw, rh = size
    d = _centre(a) - _centre(b)
    if abs(d[0]) >= abs(d[1]):
        low, high = min(a[0], b[0]), rw - max(a[1], b[1])
        axis = np.array([1.0, 0.0])
        span = rw
    else:
        low, high = min(a[2], b[2]), rh - max(a[3], b[3])
        axis = np.array([0.0, 1.0])
        span = rh
    if abs(high - low) > 0.03 * span:
        return axis if high > low else -axis
    # no tray seen: near = +y in the rectified view (the outline was ordered with near lowest)
    return np.array([1.0, 0.0]) if axis[0] else np.array([0.0, -1.0])


def _oriented(r: Rect, u: F64) -> F64:
    """A rectangle's corners in issue-5 order, given the board's right direction ``u``.

    In image coordinates (y down) a camera cannot mirror the board, so "near" is ``u`` turned by
    +90 degrees: ``(-u_y, u_x)``."""
    near = np.array([-u[1], u[0]])
    c = _centre(r)
    corners = np.array([[r[0], r[2]], [r[1], r[2]], [r[1], r[3]], [r[0], r[3]]], dtype=np.float64)
    rel = corners - c
    def pick(sr: float, sn: float) -> F64:
        score = sr * (rel @ u) + sn * (rel @ near)
        return np.asarray(corners[int(np.argmax(score))], dtype=np.float64)
    return np.array([pick(1, 1), pick(-1, 1), pick(-1, -1), pick(1, -1)])


def _to_image(pts: F64, inv: F64) -> F64:
    return np.asarray(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inv), dtype=np.float64).reshape(4, 2)


AGREE_PX = 15.0
"""The trained corner network and the classical detector agree when no corner differs by more than
this (pixels): the classical corners, refined to the edges, are then kept. The network is a few
pixels off (seed 532: a median 2.8 px per corner); the classical detector is exact on a clean view
(synthetic flat boards: within 2 px where the network was 5-13 px off) and far off when it fails
(seed 502, 1,000 frames: where the two differed by 15-25 px the network was nearer in 97% of them,
where they differed more in all)."""


def find_board_corners(image: npt.NDArray[np.uint8], model: CornerModel | None = None) -> F64:
    """4 or 8 pixel corners of the playing surface, or :class:`CornerError` saying to give them by hand.

    Two detectors look (decision 0728): the trained corner network
    (:class:`calibration.corner_model.CornerModel`, ``model``; the committed one by default) and the
    classical outline detector (:func:`find_board_corners_classical`). When both find 8 corners
    within :data:`AGREE_PX` of each other, the classical ones are kept (on a clean view they lie on
    the edges to a fraction of a pixel); otherwise the network's, when it is sure of all 8
    (:data:`calibration.corner_model.MIN_CONFIDENCE`) and they make two proper quadrilaterals;
    otherwise the classical detector's; otherwise the error.
    """
    finder = model or _default_model()
    learned: F64 | None = None
    try:
        found: CornerFinding | None = finder.find(np.asarray(image, dtype=np.uint8))
    except ValueError:  # the network's points make no board
        found = None
    if found is not None and bool(np.all(found.confidence >= MIN_CONFIDENCE)):
        h, w = image.shape[:2]
        try:  # corners a profile accepts (inside the image, two proper halves, the left one left)
            check_corners(found.corners, (w, h))
            # (not refined by cornerSubPix: on seed 532 that moved them 0.04 px further from the truth)
            learned = found.corners
        except CornerError:
            pass
    try:
        classical = find_board_corners_classical(image)
    except CornerError:
        if learned is None:
            raise
        return learned
    if learned is None:
        return classical
    if len(classical) == 8 and float(np.abs(classical - learned).max()) <= AGREE_PX:
        return classical
    return learned


_MODEL: list[CornerModel] = []


def _default_model() -> CornerModel:
    """The committed corner network, loaded once."""
    if not _MODEL:
        _MODEL.append(CornerModel())
    return _MODEL[0]


def find_board_corners_classical(image: npt.NDArray[np.uint8]) -> F64:
    """4 or 8 pixel corners of the playing surface by the classical outline detector, or
    :class:`CornerError` saying to give them by hand.

    Steps: the board's outline is the largest convex quadrilateral among the edge contours; inside
    it, the two halves are the large regions not of the rail colour (8 corners); failing that, one
    such region (4 corners); failing that, the outline itself.
    """
    h, w = image.shape[:2]
    scale = min(1.0, MAX_SIDE / max(h, w))
    small = image
    if scale < 1:
        small = np.asarray(cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA),
                           dtype=np.uint8)
    quads = _candidate_quads(small)
    if not quads:
        raise CornerError(
            "no playing-surface quadrilateral found in the image; give the corners by hand with "
            "--corners X1,Y1,...,X4,Y4 (near-right, near-left, far-left, far-right)"
        )
    # the board's outline: the largest candidate inside which two halves are found, else the
    # largest candidate inside which one playing surface is found, else the largest candidate
    ordered = sorted(quads, key=lambda q: -q.area)[:6]
    found = [(q, _halves_inside(small, q.points)) for q in ordered]
    pairs = [halves for _, halves in found if len(halves) == 2]
    singles = [halves for _, halves in found if len(halves) == 1]
    if pairs:
        corners = np.vstack(pairs[0])
    elif singles:
        corners = singles[0][0]
    else:
        corners = ordered[0].points
    for i in range(0, len(corners), 4):
        check_quad(corners[i : i + 4], "detected corners")
    return _refine(np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8), corners / scale)


def _refine(gray: npt.NDArray[np.uint8], corners: F64) -> F64:
    pts = corners.astype(np.float32).reshape(-1, 1, 2).copy()
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.05)
    try:
        refined = cv2.cornerSubPix(gray, pts, (5, 5), (-1, -1), criteria)
    except cv2.error:
        return corners
    out = refined.reshape(-1, 2).astype(np.float64)
    # keep a refinement only where it moved a little (a corner should not jump to another feature)
    moved = np.linalg.norm(out - corners, axis=1) > 4.0
    out[moved] = corners[moved]
    return out
