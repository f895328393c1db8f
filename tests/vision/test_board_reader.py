"""The board reader on bundled held-out simulator frames (tests/data/sim-sample), and bad input.

The frames are the first view of the first four scenes of the held-out set (seed 502, board styles
never trained on). The reader must agree with their labels as well as the models do on the whole
held-out set (models/checkers.md, models/cube.md), not perfectly: the thresholds below sit under
the measured held-out figures, so a broken strip geometry, a model trained on mirrored strips or a
wrong colour order fails them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from rules.referee.tablestate import TableState
from vision import checkers, cube
from vision.board_reader import BoardReader
from vision.errors import ModelMissingError, VisionError
from vision.observation import TableObservation

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "sim-sample"
TALL = ROOT / "tests" / "data" / "tall-sample"
sys.path.insert(0, str(ROOT))

from models.board_data import strip_counts  # noqa: E402

needs_models = pytest.mark.skipif(not (checkers.DEFAULT_MODEL.is_file() and cube.DEFAULT_MODEL.is_file()),
                                  reason="board models not built (models/train_checkers.py, models/train_cube.py)")


def _frames(folder: Path = SAMPLE) -> list[tuple[np.ndarray, dict, CalibrationProfile]]:
    out = []
    for js in sorted(folder.glob("*.json")):
        lab = json.loads(js.read_text(encoding="utf-8"))
        img = cv2.imread(str(js.with_suffix(".jpg")), cv2.IMREAD_COLOR)
        assert img is not None, js
        out.append((img, lab, CalibrationProfile.from_corners(lab["board"]["corners8_px"], (1280, 720))))
    return out


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader()


@pytest.fixture(scope="module")
def readings(reader: BoardReader) -> list:
    return [(lab, reader.read(img, prof), prof) for img, lab, prof in _frames()]


def test_the_sample_is_there() -> None:
    assert len(list(SAMPLE.glob("*.json"))) == 4


@needs_models
def test_points_agree_with_the_labels(readings) -> None:
    right = total = 0
    for lab, reading, _ in readings:
        truth = strip_counts(lab)[:24]
        pred = np.array(reading.point_counts())
        right += int(np.all(pred == truth, axis=1).sum())
        total += 24
    # held out, 93.8% of points are right (models/checkers.md); 90% leaves room for four frames
    assert right / total >= 0.90, f"{right}/{total} points right"


@needs_models
def test_tall_stacks_are_counted(reader: BoardReader) -> None:
    """Decision 0723: four held-out frames with stacks of 8 to 15 (tests/data/tall-sample). The model
    reads 95% of such boards exactly right (a render of 300, models/checkers.md); the session-3
    model read 67% of them, and 2 of these 4 (a 12-stack read 8, a bar of 3 read 7)."""
    boards = tall_right = tall = 0
    for img, lab, prof in _frames(TALL):
        reading = reader.read(img, prof)
        truth, pred = strip_counts(lab), reading.strip_counts()
        boards += int(np.all(pred == truth))
        high = truth[:24].max(axis=1) >= 6
        tall += int(high.sum())
        tall_right += int(np.all(pred[:24][high] == truth[:24][high], axis=1).sum())
    assert tall == 10
    assert tall_right >= 9, f"{tall_right}/{tall} points holding 6 or more read right"
    assert boards >= 3, f"{boards}/4 tall-stack boards exactly right"


@needs_models
def test_counts_hold_fifteen_of_each_colour_and_raw_counts_are_kept(readings) -> None:
    """Decision 0460: the counts are conditioned on 15 checkers per colour; the raw ones stay readable."""
    for _, reading, _ in readings:
        assert reading.totals is not None
        counts = reading.strip_counts()
        raw = reading.raw_strip_counts()
        for colour in (0, 1):
            if reading.totals[colour].applied:
                assert int(counts[:, colour].sum()) == 15
            else:
                assert counts[:, colour].tolist() == raw[:, colour].tolist()
        np.testing.assert_allclose(reading.point_p.sum(axis=2), 1.0, atol=1e-9)
        assert raw.tolist() == np.stack([reading.strips.light_p.argmax(1), reading.strips.dark_p.argmax(1)], 1).tolist()


@needs_models
def test_the_true_board_scores_better_than_a_changed_one(readings) -> None:
    """The observation ranks the true counts above the same board with one checker moved."""
    for lab, reading, prof in readings:
        truth = strip_counts(lab)[:24]
        obs = reading.observation(profile=prof)
        assert isinstance(obs, TableObservation)
        TableState.from_json(obs.to_table_state())  # the referee's schema accepts it
        light, dark = truth[:, 0].tolist(), truth[:, 1].tolist()
        bar = (lab["table_state"]["bar"]["light"], lab["table_state"]["bar"]["dark"])
        off = (lab["table_state"]["off"]["light"], lab["table_state"]["off"]["dark"])
        true_ll = obs.log_likelihood_physical(light, dark, bar, off)
        i = int(np.argmax(truth[:, 0]))  # the tallest light stack loses one checker to the next point
        moved = list(light)
        moved[i] -= 1
        moved[(i + 1) % 24] += 1
        assert true_ll > obs.log_likelihood_physical(moved, dark, bar, off)


@needs_models
def test_cube_zone_and_value(readings) -> None:
    # held out (models/cube.md) the face is right for 67% of the cubes present and the zone for
    # 77% of frames; these thresholds are what the model achieves on four frames, not the target
    # of issue 5
    zone_right = value_right = present = 0
    for lab, reading, _ in readings:
        cube_t = lab["table_state"].get("cube")
        zone_right += int(reading.cube.zone == (cube_t["zone"] if cube_t else "absent"))
        if cube_t:
            present += 1
            value_right += int(reading.cube.value == cube_t["value"])
    assert present == 3
    assert value_right >= 2, f"cube face right for {value_right} of the 3 cubes"
    assert zone_right >= 1, "cube zone right in none of the 4 sample frames"


@needs_models
def test_json_has_the_recognize_layout(readings) -> None:
    out = readings[0][1].to_json()
    assert [p["point"] for p in out["points"]] == list(range(1, 25))
    assert set(out) == {"points", "bar", "off", "cube"}
    assert set(out["cube"]) == {"value", "zone", "confidence"}
    assert readings[0][1].point_p.shape == (24, 2, 16)
    assert np.allclose(readings[0][1].bar_p.sum(axis=1), 1.0)


@needs_models
def test_bad_frames_are_refused_with_what_to_do(reader: BoardReader) -> None:
    img, _, prof = _frames()[0]
    with pytest.raises(VisionError, match="calibrate this camera resolution again"):
        reader.read(cv2.resize(img, (640, 360)), prof)
    with pytest.raises(VisionError, match="8-bit colour image"):
        reader.read(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), prof)


def test_missing_models_say_how_to_rebuild_them(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"train_checkers\.py"):
        BoardReader(checker_model=tmp_path / "none.onnx")
    if checkers.DEFAULT_MODEL.is_file():
        with pytest.raises(ModelMissingError, match=r"train_cube\.py"):
            BoardReader(cube_model=tmp_path / "none.onnx")


def test_training_labels_account_for_all_thirty_checkers() -> None:
    """models/board_data.strip_counts: every checker is in exactly one strip, the bar and tray
    strips split by the side of the board it lies on."""
    for _, lab, _ in _frames():
        counts = strip_counts(lab)
        assert counts.shape == (28, 2)
        assert counts[:, 0].sum() == 15 and counts[:, 1].sum() == 15
        ts = lab["table_state"]
        assert tuple(counts[24] + counts[25]) == (ts["bar"]["light"], ts["bar"]["dark"])
        assert tuple(counts[26] + counts[27]) == (ts["off"]["light"], ts["off"]["dark"])


@needs_models
@pytest.mark.xfail(strict=True, reason="not solved: the bar behind the cube is read as seen (session 10: a "
                   "prior there found this checker but put others wrongly on the bar in held-out frames)")
def test_a_checker_behind_the_cube_on_the_bar_is_not_moved_to_a_doubtful_point() -> None:
    """Seed 330 (held-out walnut-wood, 55 degrees), frame 1047: light hit dark's blot and put it on
    the bar, behind the cube from the camera. The far bar strip reads it 2% likely; the 15-checker
    check puts dark's 15th checker on point 10 instead (read 13% likely to hold one), and the
    referee sees a dark checker move in light's turn (an impossible move). Making the far bar strip
    half prior whenever the cube is on the bar found it, but on 150 held-out frames (seed 502) put a
    checker wrongly on the bar in 5 more frames (bar wrong 7.3% -> 10.7%): what the cube hides has
    to come from the geometry (camera, cube, slot), which is not done."""
    from server.pipeline import profile_from_sim_camera

    data = Path(__file__).parents[1] / "data" / "vision"
    image = cv2.imread(str(data / "hit-checker-behind-the-cube.jpg"))
    profile = profile_from_sim_camera(json.loads((data / "hit-checker-behind-the-cube.camera.json").read_text()))
    reading = BoardReader().read(image, profile)
    assert reading.cube is not None and reading.cube.zone == "centre"
    assert reading.bar_counts() == (0, 1)
    assert reading.point_counts()[9] == (0, 0)


def test_the_tray_calibration_spreads_tall_counts_only_when_the_reader_is_overconfident_there() -> None:
    """models/board_data.fit_tray_share: on trays read sure but often wrong from 6 checkers up it
    chooses to spread those counts; on trays read right it keeps the network's distributions."""
    from models.board_data import fit_tray_share, tray_share_nll

    rng = np.random.default_rng(5)
    truth = rng.integers(0, 15, size=2000)
    read = truth.copy()
    tall = truth >= 6
    read[tall] = np.clip(truth[tall] + rng.integers(-3, 4, size=int(tall.sum())), 6, 15)  # tall trays misread
    p = np.full((len(truth), 16), 1e-6)
    p[np.arange(len(truth)), read] = 1.0
    p /= p.sum(axis=1, keepdims=True)
    start, share, nll = fit_tray_share(p, truth)
    assert share > 0.3 and start in (5, 6)
    assert nll < tray_share_nll(p, truth, start, 0.0) / 2
    start, share, nll = fit_tray_share(np.where(p > 0.5, 1.0, 1e-6) / (1 + 15e-6), np.where(tall, read, truth))
    assert share == 0.0  # every tray read right: nothing to spread
