"""Board geometry as pure functions: board frame <-> image, and the regions vision looks at.

Board frame (``calibration.board``): origin at the centre of the bar on the playing surface, x to
the right seen from the near side, y away from it, z up, centimetres. Physical points (issue 5):
1..6 near-right (1 at the outer corner), 7..12 near-left, 13..18 far-left (13 at the outer
corner), 19..24 far-right.

A point's *region* is the column of the point's width from its rail edge to the middle of the
board: a tall stack (more checkers than fit along the triangle, or a second layer) stays inside
it. With a camera pose (intrinsics given), regions include the checker tops up to ``stack_layers``
checker heights, so a tall stack seen obliquely is not cut off.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from calibration.board import F64, BoardDimensions
from calibration.profile import CalibrationProfile

Region = Literal["point", "bar", "tray", "off_board"]
POINTS = tuple(range(1, 25))


def point_centre_x(dims: BoardDimensions, point: int) -> float:
    """x (cm) of the centre line of physical point 1..24."""
    pw, b, w = dims.point_width, dims.bar_width / 2, dims.half_width
    if 1 <= point <= 6:
        return b + w - (point - 0.5) * pw
    if 7 <= point <= 12:
        return -b - (point - 6 - 0.5) * pw
    if 13 <= point <= 18:
        return -b - w + (point - 12 - 0.5) * pw
    if 19 <= point <= 24:
        return b + (point - 18 - 0.5) * pw
    raise ValueError(f"no physical point {point}; points are 1..24")


def point_side(point: int) -> int:
    """-1 for the near side (points 1..12), +1 for the far side (13..24)."""
    if not 1 <= point <= 24:
        raise ValueError(f"no physical point {point}; points are 1..24")
    return -1 if point <= 12 else 1


def point_rect(dims: BoardDimensions, point: int) -> tuple[float, float, float, float]:
    """``(x0, x1, y0, y1)`` of a point's column: its width, from its rail edge to the middle line."""
    x = point_centre_x(dims, point)
    s = point_side(point)
    edge = s * dims.play_depth / 2
    ys = sorted((edge, 0.0))
    return (x - dims.point_width / 2, x + dims.point_width / 2, ys[0], ys[1])


def point_triangle(dims: BoardDimensions, point: int) -> F64:
    """3 x 2: base left, base right, tip (cm)."""
    x = point_centre_x(dims, point)
    s = point_side(point)
    edge = s * dims.play_depth / 2
    tip = edge - s * dims.point_length_frac * dims.play_depth
    return np.array([[x - dims.point_width / 2, edge], [x + dims.point_width / 2, edge], [x, tip]])


def checker_slots(dims: BoardDimensions, point: int, n: int) -> F64:
    """Expected centres ``n x 3`` (cm) of ``n`` checkers on a point: a row from the rail towards the
    middle (at most five or six), then layers over the gaps of the row below (as the simulator
    stacks them)."""
    x = point_centre_x(dims, point)
    s = point_side(point)
    d = dims.checker_diameter * 1.01
    y0 = s * (dims.play_depth / 2 - dims.checker_diameter / 2 - 0.05)
    per_row = min(6, max(1, int((dims.play_depth / 2 - 2.0) // d)))
    out: list[tuple[float, float, float]] = []
    layer = 0
    while len(out) < n:
        count = per_row - layer
        if count <= 0:
            layer, count = 0, per_row
        for k in range(count):
            if len(out) >= n:
                break
            out.append((x, y0 - s * (k + 0.5 * layer) * d, dims.checker_height * (layer + 0.5)))
        layer += 1
    return np.array(out, dtype=np.float64).reshape(-1, 3)


def bar_rect(dims: BoardDimensions) -> tuple[float, float, float, float]:
    q = dims.play_depth / 2
    return (-dims.bar_width / 2, dims.bar_width / 2, -q, q)


def tray_rect(dims: BoardDimensions, colour: Literal["light", "dark"]) -> tuple[float, float, float, float]:
    """Borne-off tray of a colour: the near half of the tray for light, the far half for dark
    (the simulator's convention; the profile's orientation decides which seat is light)."""
    r, w, b = dims.rail_width, dims.half_width, dims.bar_width / 2
    x0 = b + w + r if dims.tray_side == "right" else -b - w - r - dims.tray_width
    q = dims.play_depth / 2
    y0, y1 = (-q, 0.0) if colour == "light" else (0.0, q)
    return (x0, x0 + dims.tray_width, y0, y1)


def rect_corners(rect: tuple[float, float, float, float], z: float = 0.0) -> F64:
    x0, x1, y0, y1 = rect
    return np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]], dtype=np.float64)


def project_region(profile: CalibrationProfile, rect: tuple[float, float, float, float], z0: float = 0.0,
                   height: float = 0.0) -> F64:
    """Image polygon (convex hull, pixels) of a board rectangle from height ``z0`` to ``z0 + height``."""
    pts = rect_corners(rect, z0)
    if height > 0 and profile.pose is not None:
        pts = np.vstack([pts, rect_corners(rect, z0 + height)])
    uv = profile.project(pts)
    return convex_hull(uv)


def convex_hull(uv: F64) -> F64:
    """Convex hull (counter-clockwise in image coordinates) of ``N x 2`` points (monotone chain)."""
    pts = sorted({(float(x), float(y)) for x, y in uv})
    if len(pts) <= 2:
        return np.array(pts, dtype=np.float64)

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], dtype=np.float64)


def point_regions(profile: CalibrationProfile, stack_layers: int = 3) -> dict[int, F64]:
    """Image polygon of every physical point's column (tall stacks included)."""
    dims = profile.dims
    h = dims.checker_height * stack_layers
    return {p: project_region(profile, point_rect(dims, p), 0.0, h) for p in POINTS}


def bar_region(profile: CalibrationProfile) -> F64:
    """Image polygon of the bar top (checkers on the bar stand at the rail height)."""
    dims = profile.dims
    return project_region(profile, bar_rect(dims), dims.rail_height, dims.checker_height * 3)


def tray_regions(profile: CalibrationProfile) -> dict[str, F64]:
    dims = profile.dims
    return {c: project_region(profile, tray_rect(dims, c), 0.0, dims.checker_height * 2) for c in ("light", "dark")}


def image_to_board(profile: CalibrationProfile, uv: npt.ArrayLike) -> F64:
    """Board-plane coordinates (z = 0, cm) of image pixels.

    Each pixel is mapped with both halves' homographies and the one that lands on its own side of
    the bar is kept (with 4 corners both are the same homography)."""
    from calibration.board import image_to_board as inv

    pts = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
    hs = profile.homographies
    right = inv(hs["right"], pts)
    left = inv(hs["left"], pts)
    use_right = right[:, 0] >= 0
    return np.where(use_right[:, None], right, left)


def classify_board_xy(dims: BoardDimensions, xy: npt.ArrayLike) -> list[tuple[Region, str | None, int | None]]:
    """For board-plane points: (region, half or colour, point) — region ``point`` with the half
    (``right``/``left``) and the physical point below it, ``bar``, ``tray`` with the colour side,
    or ``off_board``."""
    out: list[tuple[Region, str | None, int | None]] = []
    for x, y in np.asarray(xy, dtype=np.float64).reshape(-1, 2):
        found: tuple[Region, str | None, int | None] = ("off_board", None, None)
        for half in ("right", "left"):
            x0, x1, y0, y1 = dims.half_rect(half)
            if x0 <= x <= x1 and y0 <= y <= y1:
                near = y < 0
                idx = int(min(5, max(0, (x1 - x) // dims.point_width))) if near else int(
                    min(5, max(0, (x - x0) // dims.point_width)))
                if half == "right":
                    point = 1 + idx if near else 19 + idx
                else:
                    point = 7 + idx if near else 13 + idx
                found = ("point", half, point)
        bx0, bx1, by0, by1 = bar_rect(dims)
        if found[0] == "off_board" and bx0 <= x <= bx1 and by0 <= y <= by1:
            found = ("bar", None, None)
        for colour in ("light", "dark"):
            tx0, tx1, ty0, ty1 = tray_rect(dims, colour)
            if found[0] == "off_board" and tx0 <= x <= tx1 and ty0 <= y <= ty1:
                found = ("tray", colour, None)
        out.append(found)
    return out
