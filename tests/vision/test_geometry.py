"""Board geometry: regions per point, bar and trays, and image <-> board mapping."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.board import BoardDimensions
from calibration.intrinsics import Intrinsics
from calibration.profile import CalibrationProfile
from vision.geometry import (
    bar_region,
    checker_slots,
    classify_board_xy,
    image_to_board,
    point_centre_x,
    point_regions,
    point_triangle,
    tray_regions,
)

SIZE = (1280, 720)


def inside(poly: np.ndarray, uv: np.ndarray) -> bool:
    contour = poly.astype(np.float32).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(contour, (float(u), float(v)), False) >= 0 for u, v in uv)


def test_points_run_as_issue_5_numbers_them() -> None:
    dims = BoardDimensions()
    xs = [point_centre_x(dims, p) for p in range(1, 25)]
    assert all(a > b for a, b in zip(xs[:12], xs[1:12], strict=False))  # 1..12 right to left
    assert all(a < b for a, b in zip(xs[12:], xs[13:], strict=False))  # 13..24 left to right
    assert xs[0] > 0 and xs[11] < 0 and xs[12] < 0 and xs[23] > 0
    assert point_triangle(dims, 1)[2, 1] > -dims.play_depth / 2  # near tips point away from the near rail


@pytest.mark.parametrize("with_pose", [False, True])
def test_every_checker_of_a_tall_stack_lies_in_its_point_region(board_view, with_pose: bool) -> None:
    intr = Intrinsics(board_view.k, np.zeros(5), SIZE) if with_pose else None
    profile = CalibrationProfile.from_corners(board_view.true_corners(8), SIZE, intrinsics=intr)
    regions = point_regions(profile)
    for point in (1, 6, 7, 12, 13, 18, 19, 24):
        slots = checker_slots(profile.dims, point, 9)  # a second layer over the first row
        centres = profile.project(slots)
        assert inside(regions[point], centres), point
        others = [q for q in regions if q != point]
        for q in others:
            assert not inside(regions[q], centres[:1]), (point, q)


def test_bar_and_trays_are_where_the_board_puts_them(board_view) -> None:
    profile = CalibrationProfile.from_corners(board_view.true_corners(8), SIZE)
    bar = bar_region(profile)
    mid_bar = profile.project(np.array([[0.0, 0.0, 0.0]]))
    assert inside(bar, mid_bar)
    trays = tray_regions(profile)
    light_tray_centre = profile.project(np.array([[profile.dims.bar_width / 2 + profile.dims.half_width
                                                  + profile.dims.rail_width + profile.dims.tray_width / 2, -10.0, 0.0]]))
    assert inside(trays["light"], light_tray_centre) and not inside(trays["dark"], light_tray_centre)


def test_image_pixels_map_back_to_points_bar_tray_and_off_board(board_view) -> None:
    profile = CalibrationProfile.from_corners(board_view.true_corners(8), SIZE)
    dims = profile.dims
    xy = np.array([[point_centre_x(dims, p), -15.0 if p <= 12 else 15.0] for p in range(1, 25)])
    uv = profile.project(np.column_stack([xy, np.zeros(24)]))
    back = image_to_board(profile, uv)
    assert np.allclose(back, xy, atol=1e-3)
    labels = classify_board_xy(dims, back)
    assert [p for _, _, p in labels] == list(range(1, 25))
    assert [h for _, h, _ in labels][:6] == ["right"] * 6 and [h for _, h, _ in labels][6:18] == ["left"] * 12
    assert classify_board_xy(dims, [[0.0, 3.0], [30.0, -5.0], [30.0, 5.0], [0.0, 40.0]]) == [
        ("bar", None, None), ("tray", "light", None), ("tray", "dark", None), ("off_board", None, None)]
