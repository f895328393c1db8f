"""The die-value reader (ONNX) on real held-out photos, held-out simulator frames and synthetic dice; the
crop turned to the world's vertical; failure modes."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from vision.dice import (
    CALIBRATED_MODEL,
    CROP_SIZE,
    DEFAULT_MODEL,
    SETTLED_ZOOMS,
    TOP_MODEL,
    DieReader,
    DieReaders,
    crop_die,
    to_tensor,
    up_directions,
)
from vision.errors import ModelMissingError
from vision.eval_cli import main as eval_main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "real-dice-sample"
SIM = ROOT / "tests" / "data" / "sim-sample"

needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"{DEFAULT_MODEL} not built yet")


def test_a_missing_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"train_die_reader\.py"):
        DieReader(tmp_path / "nope.onnx")
    with pytest.raises(ModelMissingError, match=r"--out models/die_reader_calibrated\.onnx"):
        DieReader(tmp_path / CALIBRATED_MODEL.name)
    with pytest.raises(ModelMissingError, match=r"--crop top --out models/die_reader_top\.onnx"):
        DieReader(tmp_path / TOP_MODEL.name)


def test_a_corrupt_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx graph")
    with pytest.raises(ModelMissingError, match="cannot be loaded"):
        DieReader(bad)


def test_crop_is_centred_on_the_box_with_a_margin() -> None:
    img = np.zeros((200, 300, 3), np.uint8)
    img[50:90, 100:140] = 255  # a 40 px white square
    crop = crop_die(img, (100, 50, 140, 90))
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    white = crop[..., 0] > 128
    rows, cols = np.flatnonzero(white.any(axis=1)), np.flatnonzero(white.any(axis=0))
    # the square fills 1 / 1.3 of the crop, centred
    assert abs((rows[0] + rows[-1]) / 2 - (CROP_SIZE - 1) / 2) <= 1
    assert abs((cols[-1] - cols[0] + 1) - CROP_SIZE / 1.3) <= 2
    with pytest.raises(ValueError, match="empty"):
        crop_die(img, (10, 10, 10, 20))


def test_crop_turned_to_an_up_direction() -> None:
    img = np.zeros((200, 300, 3), np.uint8)
    img[60:100, 100:140] = 120  # the die's box
    img[75:85, 130:138] = 255  # a mark on its right side
    box = (100, 60, 140, 100)
    upright = crop_die(img, box)
    # "up" along the image's up: the same crop as the upright one, up to interpolation
    same = crop_die(img, box, up=(0.0, -2.0))
    assert np.abs(same.astype(int) - upright.astype(int)).mean() < 3
    # "up" along the image's +x: the mark on the right comes to the top of the crop
    turned = crop_die(img, box, up=(1.0, 0.0))
    rows, cols = np.nonzero(turned[..., 0] > 200)
    assert rows.mean() < CROP_SIZE * 0.4 and abs(cols.mean() - (CROP_SIZE - 1) / 2) < 3


def sim_dice(label: Path) -> tuple[dict, list[dict]]:
    lab = json.loads(label.read_text())
    return lab, [o for o in lab["objects"] if o["kind"] == "die" and o["box_xyxy"] is not None]


def true_vertical(lab: dict, die: dict) -> np.ndarray:
    cam = lab["camera"]
    p = np.array(die["pose"]["position_cm"])
    uv, _ = cv2.projectPoints(np.array([p, p + [0, 0, 2.0]]), np.array(cam["rvec"]), np.array(cam["t_cm"]),
                              np.array(cam["K"]), np.array(cam["dist"]))
    d = uv.reshape(2, 2)[1] - uv.reshape(2, 2)[0]
    return d / np.linalg.norm(d)


def test_the_vertical_from_four_corners_follows_the_camera() -> None:
    """Without intrinsics the vertical comes from the homography and an assumed focal length; on the
    sample frames (elevations 62-77 degrees) it is within 25 degrees of the true camera's."""
    for label in sorted(SIM.glob("*.json")):
        lab, dice = sim_dice(label)
        profile = CalibrationProfile.from_corners(lab["board"]["corners4_px"], (1280, 720))
        ups = up_directions(profile, [d["box_xyxy"] for d in dice])
        assert ups.shape == (len(dice), 2)
        for d, u in zip(dice, ups, strict=True):
            angle = np.degrees(np.arccos(np.clip(float(u @ true_vertical(lab, d)), -1, 1)))
            assert angle < 25, (label.name, d["id"], angle)


@pytest.mark.skipif(not CALIBRATED_MODEL.is_file(), reason=f"{CALIBRATED_MODEL} not built yet")
def test_reads_the_dice_of_held_out_simulator_frames() -> None:
    """The eight dice of the four board-test sample frames (seed and styles never trained on; flat,
    off the board, leaning, on a checker, on the other die), crops turned to the vertical: every die
    that shows its value is read right. Two show none (``vision.eval_cli.die_shows_value``): the die
    under the other one (000009), its top face covered, and the die of 000003 leaning past 30 degrees;
    both rolls are void anyway (RG19 4.1.4.3)."""
    from vision.eval_cli import die_shows_value

    reader = DieReader(CALIBRATED_MODEL)
    showing = showing_right = right = total = 0
    for label in sorted(SIM.glob("*.json")):
        lab, dice = sim_dice(label)
        image = cv2.imread(str(label.with_suffix(".jpg")))
        profile = CalibrationProfile.from_corners(lab["board"]["corners4_px"], (1280, 720))
        boxes = [d["box_xyxy"] for d in dice]
        got = reader.read(image, boxes, ups=up_directions(profile, boxes))
        for v, d in zip(got.value, dice, strict=True):
            shows = die_shows_value(d, lab["objects"]) is not False
            showing += shows
            showing_right += shows and int(v) == d["value"]
            right += int(v) == d["value"]
        total += len(dice)
    assert total == 8 and showing == 6
    # measured (session 21): all 6, and the leaning die too (7 of 8; the covered die read 6, a guess);
    # held out at large the readers read about 97% of the dice showing their value (models/die_reader.md)
    assert showing_right == 6
    assert right >= 7


@pytest.mark.skipif(not CALIBRATED_MODEL.is_file(), reason=f"{CALIBRATED_MODEL} not built yet")
def test_a_settled_die_is_read_from_two_box_sizes_combined() -> None:
    """SETTLED_ZOOMS: each die is read from its box and from the box enlarged 1.2 times; the result
    is the normalised geometric mean of the two looks, and one look is the plain reading."""
    reader = DieReader(CALIBRATED_MODEL)
    label = sorted(SIM.glob("*.json"))[0]
    lab, dice = sim_dice(label)
    image = cv2.imread(str(label.with_suffix(".jpg")))
    profile = CalibrationProfile.from_corners(lab["board"]["corners4_px"], (1280, 720))
    boxes = [d["box_xyxy"] for d in dice]
    ups = up_directions(profile, boxes)
    plain = reader.read(image, boxes, ups=ups)
    wide_boxes = [((b[0] + b[2]) / 2 - (b[2] - b[0]) * 0.6, (b[1] + b[3]) / 2 - (b[3] - b[1]) * 0.6,
                   (b[0] + b[2]) / 2 + (b[2] - b[0]) * 0.6, (b[1] + b[3]) / 2 + (b[3] - b[1]) * 0.6) for b in boxes]
    wide = reader.read(image, wide_boxes, ups=ups)
    both = reader.read(image, boxes, ups=ups, zooms=SETTLED_ZOOMS)
    assert SETTLED_ZOOMS == (1.0, 1.2)
    want = np.sqrt(plain.probabilities * wide.probabilities)
    want /= want.sum(axis=1, keepdims=True)
    assert np.allclose(both.probabilities, want, atol=1e-4)
    assert np.array_equal(reader.read(image, boxes, ups=ups, zooms=(1.0,)).probabilities, plain.probabilities)
    with pytest.raises(ValueError, match="at least one zoom"):
        reader.read(image, boxes, ups=ups, zooms=())


def test_one_up_direction_per_box(tmp_path: Path) -> None:
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"{DEFAULT_MODEL} not built yet")
    with pytest.raises(ValueError, match="one per box"):
        DieReader().read(np.zeros((100, 100, 3), np.uint8), [(10, 10, 30, 30)], ups=[(0, -1), (1, 0)])


def test_network_input_is_standardised_per_crop() -> None:
    crops = np.random.default_rng(0).integers(0, 256, (3, CROP_SIZE, CROP_SIZE, 3), dtype=np.uint8)
    x = to_tensor(crops)
    assert x.shape == (3, 3, CROP_SIZE, CROP_SIZE)
    assert np.allclose(x.mean(axis=(1, 2, 3)), 0, atol=1e-4)
    with pytest.raises(ValueError, match="48x48x3"):
        to_tensor(np.zeros((1, 10, 10, 3), np.uint8))


@needs_model
def test_reads_real_held_out_dice_from_their_boxes(capsys) -> None:
    assert eval_main(["dice", str(SAMPLE)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    m = re.fullmatch(r"accuracy: (\d\.\d{3}) \(n=(\d+)\)", lines[-1])
    assert m, lines[-1]
    assert int(m.group(2)) == 85
    assert float(m.group(1)) >= 0.9


@needs_model
def test_reads_fresh_synthetic_dice() -> None:
    sys.path.insert(0, str(ROOT / "models"))
    try:
        from synth_dice import render_sample
    finally:
        sys.path.remove(str(ROOT / "models"))
    rng = np.random.default_rng(123)  # fixed: the same 120 dice every run, not the training seed
    samples = [render_sample(rng, i % 6 + 1) for i in range(120)]
    reader = DieReader()
    readings = reader.read_crops([crop_die(img, box) for img, box in samples])
    truth = np.arange(120) % 6 + 1
    assert (readings.value == truth).mean() >= 0.95
    assert readings.probabilities.shape == (120, 6)
    assert np.allclose(readings.probabilities.sum(axis=1), 1, atol=1e-5)


def test_eval_names_a_malformed_label(tmp_path: Path, capsys) -> None:
    shutil.copy(SAMPLE / "IMG_20191208_111304.jpg", tmp_path)
    label = json.loads((SAMPLE / "IMG_20191208_111304.json").read_text())
    label["dice"][1]["value"] = 9
    (tmp_path / "IMG_20191208_111304.json").write_text(json.dumps(label))
    assert eval_main(["dice", str(tmp_path), "--model", str(DEFAULT_MODEL)]) == 2
    err = capsys.readouterr().err
    assert "dice[1]" in err and "1-6" in err


def test_eval_on_a_folder_without_labels_says_what_it_needs(tmp_path: Path, capsys) -> None:
    assert eval_main(["dice", str(tmp_path)]) == 2
    assert "no NAME.json label files" in capsys.readouterr().err


SHARED_DICE = ROOT / ".." / "shared" / "data" / "real-dice" / "photos"


@pytest.fixture(scope="module")
def held_out_accuracy(tmp_path_factory: pytest.TempPathFactory) -> float:
    """Accuracy on the 50 real photos the model never saw (models/die_reader.split.json)."""
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"{DEFAULT_MODEL} not built yet")
    if not SHARED_DICE.is_dir():
        pytest.skip("../shared/data/real-dice is not on this machine")
    from vision.eval_cli import eval_dice

    folder = tmp_path_factory.mktemp("heldout")
    split = json.loads((ROOT / "models" / "die_reader.split.json").read_text())
    for name in split["heldout"]:
        for ext in (".jpg", ".json"):
            (folder / (name + ext)).symlink_to((SHARED_DICE / (name + ext)).resolve())
    correct, total = eval_dice(folder, DEFAULT_MODEL)
    assert total == 367
    return correct / total


def test_held_out_real_photos_keep_the_measured_accuracy(held_out_accuracy: float) -> None:
    """Regression floor at the model card's figure (0.962, session 16's width-2 reader), rounded down."""
    assert held_out_accuracy >= 0.955


def test_held_out_real_photos_meet_the_issue_target(held_out_accuracy: float) -> None:
    """Issue 5: at least 95% of real dice read right given their boxes (the 50 photos never trained on)."""
    assert held_out_accuracy >= 0.95


@pytest.mark.skipif(not (CALIBRATED_MODEL.is_file() and TOP_MODEL.is_file()), reason="die readers not built yet")
def test_two_readers_looking_two_ways_are_read_as_one() -> None:
    """Decision 0711: the top-face reader needs the calibration (its crops are the top face's plane seen
    from above) and ignores the vertical; DieReaders combines the readers by the normalised geometric
    mean of their probabilities. On the sample frames (measured) the top-face reader alone reads 3 of the
    4 flat dice (000009's 1 read 3 at 0.5), the two together all 8 dice."""
    top = DieReader(TOP_MODEL)
    up = DieReader(CALIBRATED_MODEL)
    assert (top.crop_kind, up.crop_kind) == ("top", "up")
    both = DieReaders([up, top])
    flat_right = both_right = 0
    for label in sorted(SIM.glob("*.json")):
        lab, dice = sim_dice(label)
        image = cv2.imread(str(label.with_suffix(".jpg")))
        profile = CalibrationProfile.from_corners(lab["board"]["corners4_px"], (1280, 720))
        boxes = [d["box_xyxy"] for d in dice]
        ups = up_directions(profile, boxes)
        with pytest.raises(ValueError, match="give the calibration profile"):
            top.read(image, boxes, ups=ups)
        a = up.read(image, boxes, ups=ups, profile=profile)
        b = top.read(image, boxes, ups=ups, profile=profile)
        assert np.array_equal(a.probabilities, up.read(image, boxes, ups=ups).probabilities)  # the profile is not its input
        assert np.array_equal(b.probabilities, top.read(image, boxes, profile=profile).probabilities)  # nor the vertical this one's
        got = both.read(image, boxes, ups=ups, profile=profile, zooms=SETTLED_ZOOMS)
        want = np.sqrt(up.read(image, boxes, ups=ups, zooms=SETTLED_ZOOMS).probabilities
                       * top.read(image, boxes, profile=profile, zooms=SETTLED_ZOOMS).probabilities)
        assert np.allclose(got.probabilities, want / want.sum(axis=1, keepdims=True), atol=1e-4)
        flat_right += sum(int(v) == d["value"] for v, d in zip(b.value, dice, strict=True) if d["reason"] == "flat_board")
        both_right += sum(int(v) == d["value"] for v, d in zip(got.value, dice, strict=True))
    assert flat_right >= 3 and both_right == 8
    assert np.array_equal(DieReaders([up]).read(image, boxes, ups=ups).probabilities, up.read(image, boxes, ups=ups).probabilities)
    with pytest.raises(ValueError, match="at least one"):
        DieReaders([])
