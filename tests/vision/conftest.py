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


def recoloured_board(case: int, size: tuple[int, int] = (1280, 720)) -> tuple[np.ndarray, np.ndarray]:
    """A board of other sizes and colours, a dim background, a light gradient and noise (seed
    ``100 + case``): the image and its true 8 corners."""
    from calibration.board import board_to_image

    rng = np.random.default_rng(100 + case)
    dims = BoardDimensions(half_width=rng.uniform(19, 26), play_depth=rng.uniform(36, 46), bar_width=rng.uniform(3, 6))
    tex, tex_to_board = board_texture(dims)
    tex = np.clip(tex * rng.uniform(0.6, 1.3, 3), 0, 255).astype(np.uint8)
    rvec, tvec = look_at_pose((rng.uniform(-10, 10), rng.uniform(-55, -10), rng.uniform(65, 95)), (0.0, 0.0, 0.0))
    img = plane_view(tex, tex_to_board, K_720P, rvec, tvec, size, background=int(rng.integers(40, 200)))
    img = np.clip(img * np.linspace(0.75, 1.15, size[0])[None, :, None] + rng.normal(0, 4, img.shape), 0, 255)
    truth = board_to_image(plane_homography(K_720P, rvec, tvec), dims.corners(8)[:, :2])
    return img.astype(np.uint8), np.asarray(truth, dtype=np.float64)


@pytest.fixture(scope="session")
def recoloured_board_maker():  # noqa: ANN201 - returns recoloured_board
    return recoloured_board
