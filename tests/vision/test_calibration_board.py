"""Board localisation: corners -> homographies -> profile, and every bad input stops clearly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.board import (
    BoardDimensions,
    board_to_image,
    check_corners,
    half_homographies,
    image_to_board,
    parse_corners,
)
from calibration.cli import main as calibrate_main
from calibration.errors import CornerError, ProfileError
from calibration.intrinsics import Intrinsics
from calibration.profile import CalibrationProfile, own_to_physical

SIZE = (1280, 720)
# a plausible oblique view: near edge lower in the image and wider than the far edge
FOUR = np.array([[1100.0, 650.0], [180.0, 650.0], [300.0, 120.0], [980.0, 120.0]])


def test_homography_round_trip_board_to_image_and_back() -> None:
    dims = BoardDimensions()
    hs = half_homographies(dims, FOUR)
    board_pts = np.array([[0.0, 0.0], [10.5, -7.25], [-20.0, 18.0], [24.0, -20.0]])
    back = image_to_board(hs["right"], board_to_image(hs["right"], board_pts))
    assert np.allclose(back, board_pts, atol=1e-6)


def test_four_corners_map_exactly_to_the_board_corners() -> None:
    dims = BoardDimensions()
    hs = half_homographies(dims, FOUR)
    assert np.allclose(board_to_image(hs["right"], dims.corners(4)[:, :2]), FOUR, atol=1e-6)
    assert np.allclose(hs["right"], hs["left"])


def test_eight_corners_give_one_homography_per_half(board_view) -> None:
    eight = board_view.true_corners(8)
    profile = CalibrationProfile.from_corners(eight, SIZE)
    dims = profile.dims
    for half, pts in (("right", dims.corners(8)[:4, :2]), ("left", dims.corners(8)[4:, :2])):
        assert np.allclose(board_to_image(profile.homographies[half], pts), eight[:4] if half == "right" else eight[4:],
                           atol=1e-4)
    # both halves agree with the true camera homography in the middle of each half
    mid = np.array([[12.0, 3.0], [-12.0, -3.0]])
    truth = board_to_image(board_view.h, mid)
    got = profile.project(np.column_stack([mid, np.zeros(2)]))
    assert np.abs(got - truth).max() < 1e-3


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1,2,3", "give 8"),
        ("a,b,c,d,e,f,g,h", "not a list of numbers"),
        ("1,2,3,4,5,6,7,8,9,10", "got 10 numbers"),
    ],
)
def test_malformed_corner_text_says_what_to_give(text: str, fragment: str) -> None:
    with pytest.raises(CornerError, match=fragment):
        parse_corners(text)


def test_corner_outside_the_image_is_named() -> None:
    bad = FOUR.copy()
    bad[2] = [1500.0, 120.0]
    with pytest.raises(CornerError, match=r"corner 3 \(far-left\).*outside the 1280x720 image"):
        check_corners(bad, SIZE)


def test_mirrored_order_is_rejected() -> None:
    mirrored = FOUR[[1, 0, 3, 2]]  # near-left, near-right, ... : goes round the other way
    with pytest.raises(CornerError, match="wrong way"):
        check_corners(mirrored, SIZE)


def test_self_intersecting_order_is_rejected() -> None:
    crossed = FOUR[[0, 2, 1, 3]]
    with pytest.raises(CornerError, match="cross over"):
        check_corners(crossed, SIZE)


def test_degenerate_corners_are_rejected() -> None:
    with pytest.raises(CornerError, match="almost no area"):
        check_corners(np.array([[100.0, 100.0], [101.0, 100.0], [101.0, 101.0], [100.0, 101.0]]), SIZE)


def test_eight_corners_with_halves_swapped_are_rejected(board_view) -> None:
    eight = board_view.true_corners(8)
    swapped = np.vstack([eight[4:], eight[:4]])
    with pytest.raises(CornerError, match="right half's four corners first"):
        check_corners(swapped, SIZE)


def test_profile_json_round_trip(tmp_path: Path) -> None:
    profile = CalibrationProfile.from_corners(FOUR, SIZE).with_orientation("far-left")
    path = tmp_path / "p.json"
    profile.save(path)
    again = CalibrationProfile.load(path)
    assert np.allclose(again.corners, profile.corners)
    assert again.orientation.light_home == "far-left" and again.orientation.dark_home == "near-left"
    data = json.loads(path.read_text())
    assert data["format"] == "gammonwatch-calibration" and data["version"] == 1
    assert set(data["board"]["homographies"]) == {"right", "left"}


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "not readable JSON"),
        ('{"format": "something-else"}', "not a gammonwatch calibration profile"),
        ('{"format": "gammonwatch-calibration", "version": 99}', "version 99"),
        ('{"format": "gammonwatch-calibration", "version": 1, "image_size": [1280, 720]}', "malformed"),
        ('{"format": "gammonwatch-calibration", "version": 1, "image_size": [1280, 720], '
         '"board": {"corners_px": [[1, 1], [2, 2], [3, 3], [9000, 4]]}}', "outside"),
    ],
)
def test_malformed_profile_says_how_to_recreate_it(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ProfileError, match=fragment) as info:
        CalibrationProfile.load(path)
    assert "gammonwatch calibrate board" in str(info.value)


def test_pose_from_corners_and_intrinsics_finds_the_camera(board_view) -> None:
    intr = Intrinsics(board_view.k, np.zeros(5), SIZE)
    profile = CalibrationProfile.from_corners(board_view.true_corners(8), SIZE, intrinsics=intr)
    assert profile.pose is not None
    assert np.allclose(profile.pose.camera_centre, board_view.camera, atol=0.05)
    assert profile.pose.reprojection_px < 0.01
    # with a pose, raised points (a checker on the bar top) project like the true camera does
    import cv2

    pt = np.array([[0.0, 5.0, 2.5]])
    truth, _ = cv2.projectPoints(pt, board_view.rvec, board_view.tvec, board_view.k, np.zeros(5))
    assert np.allclose(profile.project(pt), truth.reshape(-1, 2), atol=0.05)


@pytest.mark.parametrize("camera", [(0.0, -45.0, 70.0), (-8.0, -35.0, 80.0), (0.0, -10.0, 90.0)])
def test_automatic_detection_finds_the_eight_corners(board_view_factory, camera) -> None:
    from calibration.detect import find_board_corners

    view = board_view_factory(camera)
    found = find_board_corners(view.image)
    assert found.shape == (8, 2)
    assert np.abs(found - view.true_corners(8)).max() < 3.0


@pytest.mark.parametrize("case", range(4))
def test_automatic_detection_on_recoloured_boards_of_other_sizes(case: int, recoloured_board_maker) -> None:
    """Boards of other sizes and colours, dim backgrounds, a light gradient and noise (fixed seeds)."""
    from calibration.detect import find_board_corners

    img, truth = recoloured_board_maker(case)
    found = find_board_corners(img)
    assert found.shape == (8, 2)
    assert np.abs(found - truth).max() < 5.0


def test_automatic_detection_on_a_blank_image_says_to_give_corners() -> None:
    from calibration.detect import find_board_corners

    with pytest.raises(CornerError, match="--corners"):
        find_board_corners(np.full((720, 1280, 3), 128, np.uint8))


def test_own_numbering_maps_to_physical_points() -> None:
    # light home near-right: own = physical; dark home far-right: own p is physical 25 - p
    assert [own_to_physical("near-right", p) for p in (1, 6, 13, 24)] == [1, 6, 13, 24]
    assert [own_to_physical("far-right", p) for p in (1, 6, 24)] == [24, 19, 1]
    # home far-left: own 1 is the far-left corner point 13, own 24 is near-left 12
    assert [own_to_physical("far-left", p) for p in (1, 6, 7, 12, 13, 24)] == [13, 18, 19, 24, 1, 12]
    # home near-left: own 1 is the near-left corner point 12, own 13 is far-right 24
    assert [own_to_physical("near-left", p) for p in (1, 6, 7, 12, 13, 24)] == [12, 7, 6, 1, 24, 13]
    for home in ("near-right", "near-left", "far-left", "far-right"):
        assert sorted(own_to_physical(home, p) for p in range(1, 25)) == list(range(1, 25))


# ---- the command line ---------------------------------------------------------------------------


def test_cli_board_with_corners_writes_a_profile(tmp_path: Path, board_view, capsys) -> None:
    import cv2

    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), board_view.image)
    out = tmp_path / "profile.json"
    corners = ",".join(f"{v:.2f}" for v in board_view.true_corners(4).ravel())
    assert calibrate_main(["board", str(img), "--corners", corners, "--out", str(out)]) == 0
    profile = CalibrationProfile.load(out)
    assert profile.method == "manual" and len(profile.corners) == 4
    assert "near-right" in capsys.readouterr().out


def test_cli_board_without_corners_detects_them(tmp_path: Path, board_view, capsys) -> None:
    import cv2

    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), board_view.image)
    out = tmp_path / "profile.json"
    assert calibrate_main(["board", str(img), "--out", str(out)]) == 0
    profile = CalibrationProfile.load(out)
    assert profile.method == "auto" and len(profile.corners) == 8
    assert np.abs(profile.corners - board_view.true_corners(8)).max() < 3.0
    assert "calibrate overlay" in capsys.readouterr().out  # the user is told how to check them


def test_cli_board_rejects_a_file_that_is_not_an_image(tmp_path: Path, capsys) -> None:
    notimg = tmp_path / "notes.png"
    notimg.write_text("hello, not a picture")
    out = tmp_path / "profile.json"
    assert calibrate_main(["board", str(notimg), "--corners", "1,1,2,2,3,3,4,4", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "notes.png" in err and "not a readable image" in err
    assert not out.exists()


def test_cli_board_with_corners_outside_keeps_an_existing_profile(tmp_path: Path, board_view, capsys) -> None:
    import cv2

    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), board_view.image)
    out = tmp_path / "profile.json"
    out.write_text("precious")
    assert calibrate_main(["board", str(img), "--corners", "5000,650,180,650,300,120,980,120", "--out", str(out)]) == 2
    assert "outside the 1280x720 image" in capsys.readouterr().err
    assert out.read_text() == "precious"


def test_cli_overlay_draws_the_profile_and_checks_the_size(tmp_path: Path, board_view, capsys) -> None:
    import cv2

    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), board_view.image)
    profile = tmp_path / "profile.json"
    CalibrationProfile.from_corners(board_view.true_corners(8), SIZE).save(profile)
    out = tmp_path / "check.png"
    assert calibrate_main(["overlay", str(img), str(profile), "--out", str(out)]) == 0
    drawn = cv2.imread(str(out))
    assert drawn.shape == board_view.image.shape and np.any(drawn != board_view.image)
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(board_view.image, (640, 360)))
    assert calibrate_main(["overlay", str(small), str(profile), "--out", str(out)]) == 2
    assert "made for 1280x720" in capsys.readouterr().err


def test_a_camera_too_far_for_the_dice_is_told_so() -> None:
    """Session 10's full-match renders misread a fifth of the rolls where the far dice were 13.5 px
    wide and read them well from 16 px: setting the camera up, one is told when the farthest dice
    will be smaller than 15 px. Near miss: the same board filling the frame is not warned about."""
    from calibration.profile import READABLE_DIE_PX, die_size_warning, smallest_die_px

    def board(width_px: float) -> CalibrationProfile:
        x0, y0 = 640 - width_px / 2, 360 - width_px * 0.33
        x1, y1 = 640 + width_px / 2, 360 + width_px * 0.33
        return CalibrationProfile.from_corners([[x1, y1], [x0, y1], [x0, y0], [x1, y0]], (1280, 720))

    small, large = board(400.0), board(1000.0)
    assert smallest_die_px(small) < READABLE_DIE_PX <= smallest_die_px(large)
    warning = die_size_warning(small)
    assert warning is not None and "px" in warning and "closer" in warning
    assert die_size_warning(large) is None


@pytest.mark.parametrize("trays", [1, 2])
def test_board_sizes_of_a_simulated_table_match_the_simulator(trays):
    """BoardDimensions.from_sim_table is the profile's board as the simulator built it, with one
    bear-off tray or two (the seven end-to-end runs have two: the pipeline once took 28.7 cm for a
    24.6 cm half, and every camera pose it solved was off)."""
    from dataclasses import replace

    from sim.table import TableSpec

    spec = replace(TableSpec(width=74.36, depth=51.11, rail=2.16, bar=4.5, tray=6.06), trays=trays)
    dims = BoardDimensions.from_sim_table(spec.to_json())
    assert dims.half_width == pytest.approx(spec.half_w)
    assert dims.play_depth == pytest.approx(spec.play_d)
    assert dims.bar_width == pytest.approx(spec.bar)
    assert dims.checker_diameter == pytest.approx(spec.checker_d)
    # the right half's outer edge lies where the simulator puts it
    assert dims.half_rect("right")[1] == pytest.approx(spec.half_rect("right")[1])
