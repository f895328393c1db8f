"""Readings kept while a place's pixels do not change (vision.unchanged, decision 0747), and the board
reader that uses them for a fixed camera's frames (the live pipeline)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from vision import checkers, cube
from vision.board_reader import BoardReader
from vision.unchanged import CHANGE_DELTA, KeptReadings, changed_share

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "sim-sample"

needs_models = pytest.mark.skipif(not (checkers.DEFAULT_MODEL.is_file() and cube.DEFAULT_MODEL.is_file()),
                                  reason="board models not built (models/train_checkers.py, models/train_cube.py)")


def _patch(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 256, (96, 32, 3), dtype=np.uint8)


def test_changed_share_counts_cells_whose_mean_moved_beyond_delta_in_any_channel() -> None:
    a = np.zeros((10, 10, 3), dtype=np.uint8)
    b = a.copy()
    b[0:2, 0:2, 2] = CHANGE_DELTA + 1  # one 2 x 2 cell of 25, one channel
    b[4:6, 4:6, 0] = CHANGE_DELTA      # another, not beyond delta
    b[8, 8, 1] = 4 * CHANGE_DELTA      # one pixel of a cell: its mean stays at delta
    assert changed_share(a, b) == pytest.approx(1 / 25)
    assert changed_share(b, a) == pytest.approx(1 / 25)  # no uint8 wrap-around either way
    b[9, 9, 1] = 4 * CHANGE_DELTA      # two pixels of that cell: its mean moves beyond delta
    assert changed_share(a, b) == pytest.approx(2 / 25)


def test_a_place_is_read_until_kept_then_only_when_it_changes() -> None:
    rng = np.random.default_rng(1)
    kept = KeptReadings()
    strip = _patch(rng)
    assert kept.changed("p1", strip)  # never read
    kept.keep("p1", strip, "first")
    assert not kept.changed("p1", strip.copy())
    assert kept.output("p1") == "first"
    noisy = np.clip(strip + rng.normal(0.0, 8.0, strip.shape), 0, 255).astype(np.uint8)
    assert not kept.changed("p1", noisy)  # a camera's noise (8 levels): not a change
    speck = strip.copy()
    speck[0, 0] = 255 - speck[0, 0]  # one pixel (a hot pixel, a speck of dust)
    assert not kept.changed("p1", speck)
    checker = strip.copy()
    checker[40:52, :] = 255 - checker[40:52, :]  # a checker's worth: 384 pixels
    assert kept.changed("p1", checker)
    pip = strip.copy()
    pip[10:14, 10:14] = 255 - pip[10:14, 10:14]  # a pip's worth: 16 pixels
    assert kept.changed("p1", pip)
    assert kept.changed("p1", strip[:48])  # another shape
    assert kept.changed("p2", strip)  # another place
    assert (kept.reads, kept.reused) == (1, 1)  # one output given from the kept reading


def test_slow_drift_is_measured_from_the_pixels_last_read() -> None:
    kept = KeptReadings()
    base = np.full((96, 32, 3), 100, dtype=np.uint8)
    kept.keep(0, base, "read at 100")
    step = base.copy()
    for level in range(110, 200, 10):  # 10 levels a frame: never a change from the frame before
        step[:] = level
        if kept.changed(0, step):
            break
    assert level == 100 + 10 * (CHANGE_DELTA // 10 + 1)  # read once it moved beyond delta from the read


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="delta"):
        KeptReadings(delta=300)
    with pytest.raises(ValueError, match="share"):
        KeptReadings(share=1.0)


def _sample() -> tuple[np.ndarray, CalibrationProfile]:
    js = sorted(SAMPLE.glob("*.json"))[0]
    lab = json.loads(js.read_text(encoding="utf-8"))
    img = cv2.imread(str(js.with_suffix(".jpg")), cv2.IMREAD_COLOR)
    assert img is not None, js
    return img, CalibrationProfile.from_corners(lab["board"]["corners8_px"], (1280, 720))


@needs_models
def test_the_board_reader_reads_again_only_what_changed_and_reads_it_as_afresh() -> None:
    img, prof = _sample()
    fresh = BoardReader()
    live = BoardReader()
    live.keep_unchanged()
    assert live.checkers.kept is not None and live.cube is not None and live.cube.kept is not None
    first = live.read(img, prof)
    assert live.checkers.kept.reads == checkers.N_STRIPS and live.checkers.kept.reused == 0
    again = live.read(img.copy(), prof)
    assert live.checkers.kept.reads == checkers.N_STRIPS  # nothing read again
    assert live.checkers.kept.reused == checkers.N_STRIPS
    np.testing.assert_array_equal(again.point_p, first.point_p)
    assert again.cube is not None and first.cube is not None
    np.testing.assert_array_equal(again.cube.value_p, first.cube.value_p)
    np.testing.assert_array_equal(again.cube.zone_p, first.cube.zone_p)
    assert live.cube.kept.reads == len(cube.WINDOWS) + 1 and live.cube.kept.reused == len(cube.WINDOWS) + 1
    # a dark block inside point 6's strip (a hand, a checker moved): the strips are all read again (their
    # input is standardised over all of them), and read as a reader without kept readings reads them
    strip_tf = checkers.strip_transforms(prof)
    inner = np.array([[[10.0, 10.0]], [[22.0, 10.0]], [[22.0, 60.0]], [[10.0, 60.0]]], dtype=np.float64)
    quad = cv2.perspectiveTransform(inner, strip_tf[5]).reshape(-1, 2)
    changed = img.copy()
    cv2.fillConvexPoly(changed, np.round(quad).astype(np.int32), (20, 20, 20))
    before, now = checkers.cut_strips(img, strip_tf), checkers.cut_strips(changed, strip_tf)
    moved = [i for i in range(checkers.N_STRIPS) if changed_share(before[i], now[i]) > live.checkers.kept.share]
    assert 5 in moved and len(moved) <= 3  # point 6 and the neighbours whose strips reach into it
    reads = live.checkers.kept.reads
    after = live.read(changed, prof)
    assert live.checkers.kept.reads - reads == checkers.N_STRIPS
    ref = fresh.read(changed, prof)
    np.testing.assert_array_equal(after.strips.light_p, ref.strips.light_p)
    np.testing.assert_array_equal(after.strips.dark_p, ref.strips.dark_p)
    assert not np.allclose(after.strips.dark_p[5], first.strips.dark_p[5], atol=0.02) or \
        after.raw_point_counts()[5] != first.raw_point_counts()[5]  # point 6 was read anew, not kept
    # the cube's windows are standardised one by one: only those the block reaches are read again
    assert live.cube.kept.reads <= 2 * (len(cube.WINDOWS) + 1)
    live.keep_unchanged(False)
    assert live.checkers.kept is None and live.cube.kept is None


@needs_models
def test_a_new_camera_forgets_the_kept_readings() -> None:
    img, prof = _sample()
    live = BoardReader()
    live.keep_unchanged()
    live.read(img, prof)
    moved = CalibrationProfile.from_corners(prof.corners + 3.0, (1280, 720))
    live.read(img, moved)
    assert live.checkers.kept is not None
    assert live.checkers.kept.reads == 2 * checkers.N_STRIPS
