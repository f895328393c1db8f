"""The die box refiner (decision 0716): its target encoding, the boxes it makes on held-out simulator
frames, and seed 322's die showing 1 that the locator boxed on its front face."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from server.pipeline import profile_from_sim_camera
from vision.dice import SETTLED_ZOOMS, up_directions
from vision.die_box import DEFAULT_MODEL, MAX_SHIFT, DieBoxRefiner, apply, encode
from vision.errors import ModelMissingError

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "tests" / "data" / "sim-sample"
DATA = ROOT / "tests" / "data" / "vision"

needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"{DEFAULT_MODEL} not built yet")


def centre(b) -> np.ndarray:
    return np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])


@pytest.mark.parametrize("up", [None, (0.0, -1.0), (0.6, -0.8), (-0.28, -0.96), (1.0, 0.0)])
def test_the_target_gives_back_the_true_box(up) -> None:
    box = (100.0, 200.0, 124.0, 230.0)
    truth = (104.0, 190.0, 130.0, 218.0)
    got = apply(box, encode(box, truth, up), up)
    assert np.allclose(got, truth, atol=1e-9)


def test_the_target_is_along_the_crops_axes() -> None:
    """A die whose true box lies above the box along the world's vertical: a negative offset down the
    crop whatever the up direction in the image."""
    box = (100.0, 100.0, 120.0, 120.0)
    for up in ((0.0, -1.0), (0.6, -0.8), (1.0, 0.0)):
        truth = (100.0 + 5 * up[0], 100.0 + 5 * up[1], 120.0 + 5 * up[0], 120.0 + 5 * up[1])
        dx, dy, lw, lh = encode(box, truth, up)
        assert dx == pytest.approx(0.0, abs=1e-12) and dy == pytest.approx(-0.25) and lw == lh == 0.0


def test_a_move_larger_than_allowed_is_clipped() -> None:
    box = (100.0, 100.0, 120.0, 120.0)
    got = apply(box, (3.0, 0.0, 2.0, -2.0), None)
    assert centre(got)[0] == pytest.approx(110.0 + MAX_SHIFT * 20.0)
    assert got[2] - got[0] < 20.0 * 1.6 and got[3] - got[1] > 20.0 / 1.6


def test_a_missing_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match="train_die_box.py"):
        DieBoxRefiner(tmp_path / "die_box.onnx")


@needs_model
def test_one_up_direction_per_box() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(ValueError, match="one per box"):
        DieBoxRefiner().refine(image, [(10, 10, 30, 30)], ups=[(0.0, -1.0), (0.0, -1.0)])


@needs_model
def test_boxes_moved_off_held_out_dice_come_back() -> None:
    """The six dice of the sim-sample frames 000000-000006 (seed 502, styles never trained on; flat,
    off the board, leaning, on a checker), each box moved by 0.3 of its side four ways: every refined
    box's centre is within 0.06 of a side of the label's (measured: 0.003-0.039). Frame 000009's two
    dice touch (one lies on the other), and there the refiner can take the other die: not asserted."""
    refiner = DieBoxRefiner()
    errors = []
    for label in sorted(SIM.glob("*.json"))[:3]:
        lab = json.loads(label.read_text())
        image = cv2.imread(str(label.with_suffix(".jpg")))
        profile = CalibrationProfile.from_corners(lab["board"]["corners4_px"], (1280, 720))
        for die in (o for o in lab["objects"] if o["kind"] == "die"):
            b = np.array(die["box_xyxy"])
            side = max(b[2] - b[0], b[3] - b[1])
            for dx, dy in ((0.3, 0.0), (-0.3, 0.0), (0.0, 0.3), (0.0, -0.3)):
                moved = b + np.array([dx, dy, dx, dy]) * side
                got = refiner.refine(image, [moved], up_directions(profile, [moved]))[0]
                errors.append(float(np.hypot(*(centre(got) - centre(b))) / side))
    assert len(errors) == 24
    assert max(errors) <= 0.06


@needs_model
def test_a_die_boxed_on_its_front_face_is_read_from_its_own_box() -> None:
    """Seed 322 (held out, navy-leather, a low camera), frame 5617: a 1 at rest whose box the locator
    put 9 px low on a 25 px die, on the face in front showing 4; the readers read 4 (0.93) from it
    and the turn's roll was taken wrong. The refined box is within 3 px of the truth's centre and the
    recognizer reads 1. Near miss: the readers on the locator's box still read 4."""
    from vision.recognizer import FrameRecognizer

    image = cv2.imread(str(DATA / "die-one-boxed-low.jpg"))
    profile = profile_from_sim_camera(json.loads((DATA / "die-one-boxed-low.camera.json").read_text()))
    rec = FrameRecognizer(profile)
    truth = np.array([336.53, 370.49])
    boxes = rec.locate_dice(image)
    near = [b for b in boxes if np.hypot(*(centre(b) - truth)) < 14]
    assert len(near) == 1
    box = near[0]
    assert centre(box)[1] - truth[1] > 7  # the locator's box is low
    plain = rec.die_reader.read(image, [box], ups=up_directions(profile, [box]), zooms=SETTLED_ZOOMS, profile=profile)
    assert int(plain.value[0]) == 4
    refined = rec.refiner.refine(image, [box], up_directions(profile, [box]))[0]
    assert np.hypot(*(centre(refined) - truth)) <= 3.0
    observed, _ = rec.read_dice(image, [box])
    assert int(np.argmax(observed[0].value_p)) + 1 == 1
    assert observed[0].box_xyxy == tuple(box)  # the observation keeps the locator's box
