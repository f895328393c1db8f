"""The die-value reader (ONNX) on real held-out photos and synthetic dice, and its failure modes."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.dice import CROP_SIZE, DEFAULT_MODEL, DieReader, crop_die, to_tensor
from vision.errors import ModelMissingError
from vision.eval_cli import main as eval_main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "real-dice-sample"

needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"{DEFAULT_MODEL} not built yet")


def test_a_missing_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"train_die_reader\.py"):
        DieReader(tmp_path / "nope.onnx")


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
    """Regression floor at the model card's figure (0.935), rounded down."""
    assert held_out_accuracy >= 0.93


@pytest.mark.xfail(reason="issue 5 target (95% on real dice) not reached yet: 93.5% held out; see models/die_reader.md",
                   strict=True)
def test_held_out_real_photos_meet_the_issue_target(held_out_accuracy: float) -> None:
    assert held_out_accuracy >= 0.95
