"""Synthetic camera views with known geometry, for self-tests and benchmarks (not for training).

- :func:`plane_view`: a flat texture of known physical size seen by a pinhole camera with a known
  pose (the homography ``K [r1 r2 t]``), e.g. a ChArUco board for intrinsics tests;
- :func:`board_texture`: a plain top view of a backgammon board (rails, two halves with 24 points,
  bar, tray) in the board frame of :mod:`calibration.board`.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import F64, BoardDimensions

U8 = npt.NDArray[np.uint8]


def look_at_pose(camera_centre: npt.ArrayLike, target: npt.ArrayLike, up: npt.ArrayLike = (0, 1, 0)) -> tuple[F64, F64]:
    """(rvec, tvec) of a camera at ``camera_centre`` looking at ``target`` (world -> camera)."""
    c = np.asarray(camera_centre, dtype=np.float64)
    z = np.asarray(target, dtype=np.float64) - c
    z /= np.linalg.norm(z)
    x = np.cross(z, np.asarray(up, dtype=np.float64))
    if np.linalg.norm(x) < 1e-9:
        x = np.cross(z, np.array([1.0, 0, 0]))
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    r = np.vstack([x, y, z])
    rvec, _ = cv2.Rodrigues(r)
    return np.asarray(rvec, dtype=np.float64).ravel(), np.asarray(-r @ c, dtype=np.float64)


def plane_homography(k: F64, rvec: F64, tvec: F64) -> F64:
    """Homography plane (x, y, z = 0) -> image for a pinhole camera without distortion."""
    r, _ = cv2.Rodrigues(rvec)
    h = k @ np.column_stack([r[:, 0], r[:, 1], tvec.reshape(3)])
    return np.asarray(h / h[2, 2], dtype=np.float64)


def plane_view(texture: U8, texture_to_plane: F64, k: F64, rvec: F64, tvec: F64, size: tuple[int, int],
               background: int = 90) -> U8:
    """Render ``texture`` (pixels; ``texture_to_plane`` maps its pixels to plane units) into a camera image."""
    h = plane_homography(k, rvec, tvec) @ texture_to_plane
    img = np.full((size[1], size[0], 3) if texture.ndim == 3 else (size[1], size[0]), background, np.uint8)
    warped = cv2.warpPerspective(texture, h, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full(texture.shape[:2], 255, np.uint8), h, size, flags=cv2.INTER_LINEAR)
    sel = mask > 127
    img[sel] = warped[sel]
    return img


def board_texture(dims: BoardDimensions, px_per_cm: float = 12.0) -> tuple[U8, F64]:
    """A top view of the board (BGR) and the map texture pixels -> board frame (cm).

    The picture covers the rails around both halves and the tray; near side at the bottom.
    """
    r = dims.rail_width
    x_min = -dims.bar_width / 2 - dims.half_width - r
    x_max = dims.bar_width / 2 + dims.half_width + r
    if dims.tray_width > 0:
        if dims.tray_side == "right":
            x_max += dims.tray_width + r
        else:
            x_min -= dims.tray_width + r
    y_min, y_max = -dims.play_depth / 2 - r, dims.play_depth / 2 + r
    wpx, hpx = int(round((x_max - x_min) * px_per_cm)), int(round((y_max - y_min) * px_per_cm))
    img = np.empty((hpx, wpx, 3), np.uint8)
    img[:] = (30, 60, 110)  # wooden rails (BGR)

    def to_px(x: float, y: float) -> tuple[int, int]:
        return int(round((x - x_min) * px_per_cm)), int(round((y_max - y) * px_per_cm))

    for half in ("right", "left"):
        x0, x1, y0, y1 = dims.half_rect(half)
        cv2.rectangle(img, to_px(x0, y1), to_px(x1, y0), (90, 150, 70), -1)  # green felt
    for point in range(1, 25):
        pw = dims.point_width
        b = dims.bar_width / 2
        if point <= 6:
            xc = b + dims.half_width - (point - 0.5) * pw
        elif point <= 12:
            xc = -b - (point - 6 - 0.5) * pw
        elif point <= 18:
            xc = -b - dims.half_width + (point - 12 - 0.5) * pw
        else:
            xc = b + (point - 18 - 0.5) * pw
        s = -1 if point <= 12 else 1
        edge = s * dims.play_depth / 2
        tip = edge - s * dims.point_length_frac * dims.play_depth
        tri = np.array([to_px(xc - pw / 2 + 0.05, edge), to_px(xc + pw / 2 - 0.05, edge), to_px(xc, tip)], np.int32)
        colour = (220, 230, 235) if point % 2 else (40, 40, 160)
        cv2.fillPoly(img, [tri], colour, cv2.LINE_AA)
    if dims.tray_width > 0:
        tx0 = dims.bar_width / 2 + dims.half_width + r if dims.tray_side == "right" else x_min + r
        cv2.rectangle(img, to_px(tx0, dims.play_depth / 2), to_px(tx0 + dims.tray_width, -dims.play_depth / 2),
                      (60, 90, 140), -1)
    texture_to_board = np.array([[1 / px_per_cm, 0, x_min], [0, -1 / px_per_cm, y_max], [0, 0, 1]], dtype=np.float64)
    return img, texture_to_board
