"""Camera intrinsics from synthetic ChArUco views rendered with a known camera."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.cli import main as calibrate_main
from calibration.errors import CalibrationError
from calibration.intrinsics import CharucoSpec, Intrinsics, calibrate, load_intrinsics
from calibration.synthetic import look_at_pose, plane_view

K_TRUE = np.array([[1000.0, 0.0, 650.0], [0.0, 1010.0, 350.0], [0.0, 0.0, 1.0]])


def charuco_views(spec: CharucoSpec, n: int, seed: int = 1) -> list[tuple[str, np.ndarray]]:
    px_per_square = 100
    tex = cv2.cvtColor(spec.image(px_per_square, 40), cv2.COLOR_GRAY2BGR)
    s = spec.square_mm / px_per_square
    tex_to_plane = np.array([[s, 0, -40 * s], [0, s, -40 * s], [0, 0, 1]])  # margin of 40 px
    centre = np.array([spec.squares_x * spec.square_mm / 2, spec.squares_y * spec.square_mm / 2, 0.0])
    rng = np.random.default_rng(seed)  # fixed seed: the same views every run
    views = []
    for i in range(n):
        cam = centre + np.array([rng.uniform(-150, 150), rng.uniform(-150, 150), -rng.uniform(350, 500)])
        rvec, tvec = look_at_pose(cam, centre + rng.uniform(-30, 30, 3) * [1, 1, 0], up=(0, -1, 0))
        views.append((f"view{i}.png", plane_view(tex, tex_to_plane, K_TRUE, rvec, tvec, (1280, 720), background=120)))
    return views


@pytest.fixture(scope="module")
def views() -> list[tuple[str, np.ndarray]]:
    return charuco_views(CharucoSpec(), 8)


def test_synthetic_charuco_views_recover_the_camera_matrix(views) -> None:
    intr, skipped = calibrate(views, CharucoSpec())
    assert skipped == []
    k = intr.camera_matrix
    assert abs(k[0, 0] - 1000.0) / 1000.0 < 0.01
    assert abs(k[1, 1] - 1010.0) / 1010.0 < 0.01
    assert abs(k[0, 2] - 650.0) < 6 and abs(k[1, 2] - 350.0) < 6
    assert intr.rms_px < 0.5


def test_views_without_the_board_are_skipped_and_named(views) -> None:
    blank = ("blank.png", np.full((720, 1280, 3), 200, np.uint8))
    _, skipped = calibrate([*views[:5], blank], CharucoSpec())
    assert skipped == ["blank.png"]


def test_wrong_board_spec_says_what_to_check(views) -> None:
    with pytest.raises(CalibrationError, match="--dictionary"):
        calibrate(views[:4], CharucoSpec(dictionary="DICT_4X4_50"))


def test_images_of_different_sizes_are_rejected(views) -> None:
    small = ("small.png", cv2.resize(views[1][1], (640, 360)))
    with pytest.raises(CalibrationError, match="small.png: 640x360"):
        calibrate([views[0], small], CharucoSpec())


def test_intrinsics_scale_with_the_resolution() -> None:
    intr = Intrinsics(K_TRUE.copy(), np.zeros(5), (1280, 720))
    half = intr.scaled_to((640, 360))
    assert half.camera_matrix[0, 0] == pytest.approx(500.0)
    with pytest.raises(CalibrationError, match="aspect"):
        intr.scaled_to((640, 480))


def test_cli_intrinsics_writes_a_file_the_board_command_reads(tmp_path: Path, views, capsys) -> None:
    paths = []
    for name, img in views[:6]:
        p = tmp_path / name
        cv2.imwrite(str(p), img)
        paths.append(str(p))
    out = tmp_path / "camera.json"
    assert calibrate_main(["intrinsics", *paths, "--out", str(out)]) == 0
    assert "RMS" in capsys.readouterr().out
    intr = load_intrinsics(out)
    assert abs(intr.camera_matrix[0, 0] - 1000.0) < 15
    assert json.loads(out.read_text())["charuco"]["squares_x"] == 7


def test_malformed_intrinsics_file_says_how_to_recreate(tmp_path: Path) -> None:
    bad = tmp_path / "camera.json"
    bad.write_text('{"camera_matrix": [[1, 0], [0, 1]], "dist_coeffs": [], "image_size": [10, 10]}')
    with pytest.raises(CalibrationError, match="gammonwatch calibrate intrinsics"):
        load_intrinsics(bad)


def test_cli_charuco_writes_a_board_the_detector_finds(tmp_path: Path) -> None:
    from calibration.intrinsics import detect_charuco

    out = tmp_path / "board.png"
    assert calibrate_main(["charuco", str(out), "--pixels-per-square", "80"]) == 0
    img = cv2.imread(str(out))
    found = detect_charuco(img, CharucoSpec())
    assert found is not None and len(found[0]) == (7 - 1) * (5 - 1)
