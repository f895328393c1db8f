"""The board's physical model and its localisation in an image from 4 or 8 corners.

Board frame (the simulator's world frame, ``sim/table.py``): origin at the centre of the bar on
the playing surface, x to the right as seen from the near side, y away from the near side, z up;
centimetres. The playing surface is z = 0.

Corner order (issue 5): corner 1 near-right, 2 near-left, 3 far-left, 4 far-right of the playing
surface. Eight corners: the right half's four, then the left half's four, in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CornerError

Half = Literal["right", "left"]
HALVES: tuple[Half, Half] = ("right", "left")
CORNER_NAMES = ("near-right", "near-left", "far-left", "far-right")
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class BoardDimensions:
    """Physical sizes in centimetres. Defaults: the simulator's 60 x 45 cm board."""

    half_width: float = 22.5
    """Width of one half of the playing surface (six points)."""
    play_depth: float = 41.0
    """Near-to-far depth of the playing surface."""
    bar_width: float = 4.0
    rail_width: float = 2.0
    rail_height: float = 2.5
    """Height of rails and bar above the playing surface."""
    tray_width: float = 5.0
    tray_side: Literal["right", "left"] = "right"
    """Side of the bear-off trays (beyond that half's outer rail)."""
    point_length_frac: float = 0.4
    """Point (triangle) length as a fraction of the playing depth."""
    checker_diameter: float = 3.6
    checker_height: float = 0.9

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if name == "tray_side":
                if value not in ("right", "left"):
                    raise ValueError(f"board dimension tray_side must be 'right' or 'left', got {value!r}")
            elif not (isinstance(value, int | float) and value >= 0 and np.isfinite(value)):
                raise ValueError(f"board dimension {name} must be a non-negative number of cm, got {value!r}")
        if self.half_width <= 0 or self.play_depth <= 0:
            raise ValueError("board half_width and play_depth must be positive (cm)")

    @classmethod
    def from_sim_table(cls, table_cm: dict[str, Any]) -> BoardDimensions:
        """The sizes a user would measure on a simulated board: a frame label's or a sim camera's
        ``table_cm`` (``sim.table.TableSpec``: overall width and depth, rails, bar, trays)."""
        t = table_cm
        trays = int(t.get("trays", 1))
        rail, tray = float(t["rail"]), float(t["tray"])
        half = (float(t["width"]) - (2 + trays) * rail - float(t["bar"]) - trays * tray) / 2  # TableSpec.half_w
        return cls(half_width=half, play_depth=float(t["depth"]) - 2 * rail, bar_width=float(t["bar"]),
                   rail_width=rail, rail_height=float(t["rail_h"]), tray_width=tray,
                   point_length_frac=float(t.get("point_len_frac", 0.4)),
                   checker_diameter=float(t["checker_d"]), checker_height=float(t["checker_h"]))

    @property
    def point_width(self) -> float:
        return self.half_width / 6

    def half_rect(self, half: Half) -> tuple[float, float, float, float]:
        """``(x0, x1, y0, y1)`` of a half's playing surface."""
        q = self.play_depth / 2
        b = self.bar_width / 2
        if half == "right":
            return (b, b + self.half_width, -q, q)
        return (-b - self.half_width, -b, -q, q)

    def corners(self, count: Literal[4, 8]) -> F64:
        """Board-frame corners ``count x 3`` (z = 0) in the issue-5 order."""
        q, b, w = self.play_depth / 2, self.bar_width / 2, self.half_width
        xr, xl = b + w, -b - w
        if count == 4:
            pts = [[xr, -q], [xl, -q], [xl, q], [xr, q]]
        else:
            pts = [[xr, -q], [b, -q], [b, q], [xr, q], [-b, -q], [xl, -q], [xl, q], [-b, q]]
        return np.array([[x, y, 0.0] for x, y in pts], dtype=np.float64)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def parse_corners(text: str) -> F64:
    """``"X1,Y1,...,X4,Y4"`` (8 or 16 numbers) -> ``N x 2`` pixel array; errors say what to give."""
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    try:
        values = [float(p) for p in parts]
    except ValueError as exc:
        raise CornerError(
            f"--corners {text!r}: not a list of numbers; give X1,Y1,...,X4,Y4 in pixels "
            "(corner 1 near-right, 2 near-left, 3 far-left, 4 far-right)"
        ) from exc
    if len(values) not in (8, 16) or not all(np.isfinite(values)):
        raise CornerError(
            f"--corners: got {len(values)} numbers; give 8 (four corners X1,Y1,...,X4,Y4) or 16 "
            "(the right half's four corners, then the left half's four, same order)"
        )
    return np.array(values, dtype=np.float64).reshape(-1, 2)


def signed_area(quad: npt.ArrayLike) -> float:
    """Shoelace area of a polygon in image coordinates (y down): positive for the issue-5 order of
    corners seen by a camera above the board (see :func:`check_quad`)."""
    q = np.asarray(quad, dtype=np.float64)
    x, y = q[:, 0], q[:, 1]
    return float(0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def check_quad(quad: F64, label: str) -> None:
    """A quadrilateral in issue-5 order must be convex, not self-intersecting, not mirrored.

    In image coordinates (y down) the order near-right, near-left, far-left, far-right has a
    positive signed area from any camera position (a camera cannot mirror the board).
    """
    edges = np.roll(quad, -1, axis=0) - quad
    cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    area = signed_area(quad)
    hull_area = float(cv2.contourArea(cv2.convexHull(quad.astype(np.float32))))
    if hull_area < 100.0:
        raise CornerError(f"{label}: the corners enclose almost no area ({hull_area:.0f} px²); "
                          "click the four corners of the playing surface, not one spot")
    if not (np.all(cross > 0) or np.all(cross < 0)):
        raise CornerError(
            f"{label}: the corners cross over or are not convex (self-intersecting order); give them in "
            "the order near-right, near-left, far-left, far-right, going round the playing surface"
        )
    if area < 0:
        raise CornerError(
            f"{label}: the corners go round the wrong way (mirrored order); give them as near-right, "
            "near-left, far-left, far-right as seen from the near side"
        )


def check_corners(corners: F64, image_size: tuple[int, int]) -> None:
    """Validate 4 or 8 pixel corners against the image size ``(width, height)``."""
    w, h = image_size
    if corners.shape not in ((4, 2), (8, 2)):
        raise CornerError(f"need 4 or 8 corners, got {corners.shape[0]}")
    for i, (x, y) in enumerate(corners):
        if not (0 <= x <= w - 1 and 0 <= y <= h - 1):
            half = "" if len(corners) == 4 else (" of the right half" if i < 4 else " of the left half")
            raise CornerError(
                f"corner {i % 4 + 1} ({CORNER_NAMES[i % 4]}{half}) at ({x:g}, {y:g}) is outside the "
                f"{w}x{h} image; corners are pixel positions inside the image (0..{w - 1}, 0..{h - 1})"
            )
    if len(corners) == 4:
        check_quad(corners, "corners")
        return
    check_quad(corners[:4], "right half's corners (1-4)")
    check_quad(corners[4:], "left half's corners (5-8)")
    # the left half must lie on the left of the right half, seen from the near side
    dims = BoardDimensions()
    h_right = homography_for(dims, corners[:4], "right")
    centre_left = np.mean(corners[4:], axis=0)
    x_board = image_to_board(h_right, centre_left[None])[0, 0]
    if x_board > dims.bar_width / 2:
        raise CornerError(
            "the left half's corners (5-8) lie right of the right half's (1-4); give the right half's "
            "four corners first, then the left half's"
        )


def homography_for(dims: BoardDimensions, quad_px: F64, half: Half | None) -> F64:
    """Homography board-plane (x, y cm) -> image pixels from 4 corners (``half=None``: whole board)."""
    if half is None:
        src = dims.corners(4)[:, :2]
    else:
        src = dims.corners(8)[:4, :2] if half == "right" else dims.corners(8)[4:, :2]
    hmat = cv2.getPerspectiveTransform(src.astype(np.float32), quad_px.astype(np.float32))
    return np.asarray(hmat / hmat[2, 2], dtype=np.float64)


def half_homographies(dims: BoardDimensions, corners: F64) -> dict[Half, F64]:
    """One homography per half; with 4 corners both halves share the whole-board homography."""
    if len(corners) == 4:
        whole = homography_for(dims, corners, None)
        return {"right": whole, "left": whole.copy()}
    return {"right": homography_for(dims, corners[:4], "right"), "left": homography_for(dims, corners[4:], "left")}


def board_to_image(hmat: F64, xy: npt.ArrayLike) -> F64:
    """Apply a board -> image homography to ``N x 2`` board points (cm)."""
    pts = np.asarray(xy, dtype=np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, hmat).reshape(-1, 2), dtype=np.float64)


def image_to_board(hmat: F64, uv: npt.ArrayLike) -> F64:
    """Inverse of :func:`board_to_image`: image pixels -> board plane (cm)."""
    pts = np.asarray(uv, dtype=np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, np.linalg.inv(hmat)).reshape(-1, 2), dtype=np.float64)


def corners_to_list(corners: F64) -> list[list[float]]:
    return [[round(float(x), 3), round(float(y), 3)] for x, y in corners]


def as_corner_array(values: Sequence[Sequence[float]]) -> F64:
    return np.asarray(values, dtype=np.float64).reshape(-1, 2)
