"""``gammonwatch recognize`` (issue 5, "Command line") on the bundled held-out simulator frames.

The frames and labels are tests/data/sim-sample (see its README). The board counts must agree with
the labels as well as the board reader does (tests/vision/test_board_reader.py: 90% of points), and
the physical numbering must be the label's (a board read back to front agrees far less).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision import checkers, cube, dice, dice_validity
from vision.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "sim-sample"
sys.path.insert(0, str(ROOT))

from models.board_data import strip_counts  # noqa: E402

REASONS = {"flat_board", "on_checker", "cocked", "leaning", "in_gap", "off_board", "wrong_side", "on_die"}
ZONES = {"centre", "near", "far", "board", "absent"}

needs_models = pytest.mark.skipif(
    not all(p.is_file() for p in (checkers.DEFAULT_MODEL, cube.DEFAULT_MODEL, dice.DEFAULT_MODEL,
                                  dice_validity.DEFAULT_MODEL)),
    reason="vision models not built (models/train_*.py)")


def _corners(label: dict[str, Any], key: str = "corners8_px") -> str:
    return ",".join(f"{v:g}" for xy in label["board"][key] for v in xy)


def _labels() -> list[tuple[Path, dict[str, Any]]]:
    return [(js.with_suffix(".jpg"), json.loads(js.read_text(encoding="utf-8"))) for js in sorted(SAMPLE.glob("*.json"))]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def results() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    # capsys is function-scoped: the module fixture captures stdout itself
    out = []
    for image, lab in _labels():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main([str(image), "--corners", _corners(lab), "--json"])
        assert code == 0
        out.append((lab, json.loads(buf.getvalue())))
    return out


@needs_models
def test_json_has_the_issue_shape(results: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    for _, res in results:
        assert set(res) == {"points", "bar", "off", "dice", "cube"}
        assert [p["point"] for p in res["points"]] == list(range(1, 25))
        assert all(set(p) == {"point", "light", "dark"} for p in res["points"])
        assert set(res["bar"]) == set(res["off"]) == {"light", "dark"}
        assert set(res["cube"]) == {"value", "zone", "confidence"} and res["cube"]["zone"] in ZONES
        for d in res["dice"]:
            assert set(d) == {"value", "valid", "reason", "half", "center_px", "confidence"}
            assert 1 <= d["value"] <= 6 and d["reason"] in REASONS and d["half"] in ("left", "right")
            assert d["valid"] == (d["reason"] in ("flat_board", "on_checker"))
            assert len(d["center_px"]) == 2 and 0.0 <= d["confidence"] <= 1.0
    # the detector finds blobs on the surface of the first frame, so the dice entries are exercised
    assert results[0][1]["dice"]


@needs_models
def test_points_agree_with_the_labels_in_physical_numbering(results: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    right = mirrored = total = 0
    for lab, res in results:
        truth = strip_counts(lab)[:24]
        pred = np.array([(p["light"], p["dark"]) for p in res["points"]])
        right += int(np.all(pred == truth, axis=1).sum())
        mirrored += int(np.all(pred[::-1] == truth, axis=1).sum())
        total += 24
    # the board reader's threshold (tests/vision/test_board_reader.py)
    assert right / total >= 0.90, f"{right}/{total} points right"
    assert mirrored < right - 10, f"numbering reversed? {mirrored} vs {right} points right"


@needs_models
def test_four_corners_and_human_summary(capsys: pytest.CaptureFixture[str]) -> None:
    image, lab = _labels()[0]
    code, out, _ = _run(capsys, [str(image), "--corners", _corners(lab, "corners4_px")])
    assert code == 0
    assert out.splitlines()[0].startswith("points: ")
    res = json.loads(out.splitlines()[-1])
    assert [p["point"] for p in res["points"]] == list(range(1, 25))


def test_not_an_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "frame.jpg"
    bad.write_text("not a picture", encoding="utf-8")
    code, _, err = _run(capsys, [str(bad), "--corners", "1,1,2,2,3,3,4,4"])
    assert code == 2 and "not a readable image" in err and "give a JPEG or PNG" in err


def test_corners_outside_the_image(capsys: pytest.CaptureFixture[str]) -> None:
    image, _ = _labels()[0]
    code, _, err = _run(capsys, [str(image), "--corners", "1300,700,100,700,100,100,1200,100"])
    assert code == 2 and "outside the 1280x720 image" in err


def test_corners_in_the_wrong_order(capsys: pytest.CaptureFixture[str]) -> None:
    image, _ = _labels()[0]
    # near-left first: mirrored
    code, _, err = _run(capsys, [str(image), "--corners", "100,700,1200,700,1200,100,100,100"])
    assert code == 2 and "wrong way" in err and "near-right, near-left, far-left, far-right" in err
    code, _, err = _run(capsys, [str(image), "--corners", "1,2,3"])
    assert code == 2 and "give 8" in err


def test_missing_model_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    image, lab = _labels()[0]
    monkeypatch.setattr(checkers, "DEFAULT_MODEL", tmp_path / "checkers_strip.onnx")
    code, _, err = _run(capsys, [str(image), "--corners", _corners(lab)])
    assert code == 2 and "train_checkers.py" in err


def test_missing_intrinsics_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, lab = _labels()[0]
    code, _, err = _run(capsys, [str(image), "--corners", _corners(lab), "--intrinsics", str(tmp_path / "camera.json")])
    assert code == 2 and "gammonwatch calibrate intrinsics" in err
