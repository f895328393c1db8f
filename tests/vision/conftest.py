"""Shared fixtures for the vision and calibration tests: synthetic views with known geometry."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.board import BoardDimensions
from calibration.synthetic import board_texture, look_at_pose, plane_homography, plane_view

K_720P = np.array([[900.0, 0.0, 640.0], [0.0, 900.0, 360.0], [0.0, 0.0, 1.0]])


class BoardView:
    """A rendered board seen by a known camera: the image, its true corners, its pose."""

    def __init__(self, camera: tuple[float, float, float], dims: BoardDimensions | None = None) -> None:
        self.dims = dims or BoardDimensions()
        self.k = K_720P.copy()
        self.rvec, self.tvec = look_at_pose(camera, (0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0))
        tex, tex_to_board = board_texture(self.dims)
        self.image = plane_view(tex, tex_to_board, self.k, self.rvec, self.tvec, (1280, 720))
        self.h = plane_homography(self.k, self.rvec, self.tvec)
        self.camera = np.array(camera, dtype=float)

    def true_corners(self, count: int) -> np.ndarray:
        from calibration.board import board_to_image

        return board_to_image(self.h, self.dims.corners(count)[:, :2])  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def board_view() -> BoardView:
    """The default board from 70 cm up, 45 cm back: a typical oblique view."""
    return BoardView((0.0, -45.0, 70.0))


@pytest.fixture(scope="session")
def board_view_factory() -> type[BoardView]:
    return BoardView
