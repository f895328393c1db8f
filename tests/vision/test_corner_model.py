"""The trained board corner finder (decision 0728): how its points become the issue-5 corner order,
and the committed network on held-out simulator frames."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.board import BoardDimensions, board_to_image, signed_area
from calibration.corner_model import assign, from_cells, peaks, to_cells
from calibration.synthetic import look_at_pose, plane_homography

K = np.array([[900.0, 0.0, 640.0], [0.0, 900.0, 360.0], [0.0, 0.0, 1.0]])
OUTER, INNER = [0, 3, 5, 6], [1, 2, 4, 7]
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sim-sample"


def _view(camera: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The 8 true corners (issue-5 order) and the tray's centre of the default board seen from ``camera``."""
    dims = BoardDimensions()
    # an upright camera: its image's up points away from the seat it looks from
    rvec, tvec = look_at_pose(camera, (0.0, 0.0, 0.0), up=(0.0, 1.0 if camera[1] <= 0 else -1.0, 0.0))
    h = plane_homography(K, rvec, tvec)
    corners = board_to_image(h, dims.corners(8)[:, :2])
    tray_x = dims.bar_width / 2 + dims.half_width + dims.rail_width + dims.tray_width / 2
    tray = board_to_image(h, np.array([[tray_x, 0.0]]))[0]
    return np.asarray(corners), np.asarray(tray)


@pytest.mark.parametrize("camera", [(0.0, -45.0, 70.0), (5.0, 50.0, 75.0), (-10.0, -20.0, 90.0), (0.0, 40.0, 60.0)])
def test_assign_puts_shuffled_points_in_the_issue_order_from_either_seat(camera) -> None:
    corners, tray = _view(camera)
    rng = np.random.default_rng(7)
    outer = corners[OUTER][rng.permutation(4)]
    inner = corners[INNER][rng.permutation(4)]
    assert np.allclose(assign(outer, inner, tray), corners)
    # a camera above the board shows each half's corners turning the same way
    assert signed_area(corners[:4]) > 0 and signed_area(corners[4:]) > 0


def test_without_a_tray_the_near_side_is_the_lower_one() -> None:
    near, _ = _view((0.0, -45.0, 70.0))
    far, _ = _view((0.0, 45.0, 70.0))  # from the far seat: the board turned round in the image
    assert np.allclose(assign(near[OUTER], near[INNER], None), near)
    got = assign(far[OUTER], far[INNER], None)
    # the far seat's view without a tray reads as a near seat's: the same points, the other numbering
    assert not np.allclose(got, far)
    assert np.allclose(np.sort(got, axis=0), np.sort(far, axis=0))
    assert got[[0, 1, 4, 5], 1].mean() > got[[2, 3, 6, 7], 1].mean()


def test_points_that_make_no_board_are_refused() -> None:
    corners, tray = _view((0.0, -45.0, 70.0))
    outer = corners[OUTER].copy()
    outer[:, 0] = corners[INNER][:, 0].mean()  # all four "ends" on the bar line
    with pytest.raises(ValueError):
        assign(outer, corners[INNER], tray)


def test_peaks_find_equal_modes_and_cells_map_back_to_pixels() -> None:
    logits = np.full((30, 40), -20.0)
    spots = [(5, 7), (20, 30), (25, 3), (10, 35)]
    for y, x in spots:
        logits[y, x] = 0.0
    pts, mass = peaks(logits, 4)
    assert sorted(map(tuple, pts.round().astype(int))) == sorted((x, y) for y, x in spots)
    assert np.allclose(mass, 0.25, atol=1e-6)
    xy = np.array([[10.0, 3.5], [0.0, 0.0]])
    assert np.allclose(from_cells(to_cells(xy)), xy)


def test_the_committed_network_finds_the_corners_of_held_out_frames() -> None:
    """Seed 502's first four scenes (walnut-wood and navy-leather, never trained on)."""
    from calibration.corner_model import CornerModel
    from calibration.detect import find_board_corners
    from vision.images import read_image

    model = CornerModel()
    errors = []
    for label in sorted(SAMPLE.glob("*.json")):
        lab = json.loads(label.read_text())
        image = read_image(label.with_suffix(".jpg"))
        truth = np.asarray(lab["board"]["corners8_px"], dtype=np.float64)
        found = find_board_corners(image, model)
        assert found.shape == (8, 2)
        errors.append(float(np.linalg.norm(found - truth, axis=1).max()))
    assert max(errors) < 15.0, errors


@pytest.mark.parametrize("case", [5, 7])
def test_where_the_outline_detector_goes_astray_the_network_is_taken(case: int, recoloured_board_maker) -> None:
    """Two of the recoloured synthetic boards on which the classical detector's corners are hundreds of
    pixels off; the two disagree, and the network's corners, sure of all eight, are kept."""
    from calibration.detect import find_board_corners, find_board_corners_classical

    img, truth = recoloured_board_maker(case)
    assert np.abs(find_board_corners_classical(img) - truth).max() > 100.0
    assert np.abs(find_board_corners(img) - truth).max() < 15.0


def test_a_missing_model_says_how_to_rebuild_it_or_give_the_corners(tmp_path: Path) -> None:
    from calibration.corner_model import CornerModel
    from vision.errors import ModelMissingError

    with pytest.raises(ModelMissingError, match="train_board_corners.py.*--corners"):
        CornerModel(tmp_path / "board_corners.onnx")
