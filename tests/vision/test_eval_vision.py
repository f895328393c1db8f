"""``gammonwatch eval vision`` on the bundled simulator sample (tests/data/sim-sample, 4 held-out frames).

The figures must come from the recognizer's output and the labels: they are recomputed here from
the board reader directly, they move when a label is changed, and a broken label stops the run
with a message naming the file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from vision import checkers, cube
from vision.board_reader import BoardReader
from vision.errors import VisionError
from vision.eval_cli import TruthDie, main, match_dice, parse_sim_label

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "sim-sample"

needs_models = pytest.mark.skipif(not (checkers.DEFAULT_MODEL.is_file() and cube.DEFAULT_MODEL.is_file()),
                                  reason="board models not built (models/train_checkers.py, models/train_cube.py)")


def _run(tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str, str]:
    out = tmp_path / "figures.json"
    rc = main(["vision", str(folder), "--json", str(out), "--quiet"])
    cap = capsys.readouterr()
    return rc, (json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}), cap.out, cap.err


def _board_truth_and_reading(folder: Path) -> list[tuple[list[tuple[int, int]], list[tuple[int, int]]]]:
    reader = BoardReader()
    out = []
    for js in sorted(folder.glob("*.json")):
        lab = json.loads(js.read_text(encoding="utf-8"))
        truth = [(0, 0)] * 24
        for e in lab["table_state"]["points"]:
            truth[e["point"] - 1] = (e["light"], e["dark"])
        image = np.asarray(cv2.imread(str(js.with_suffix(".jpg")), cv2.IMREAD_COLOR), dtype=np.uint8)
        reading = reader.read(image, CalibrationProfile.from_corners(lab["board"]["corners8_px"], (1280, 720)))
        out.append((truth, reading.point_counts()))
    return out


@needs_models
def test_report_figures_are_computed_from_labels_and_readings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, fig, out, _ = _run(tmp_path, SAMPLE, capsys)
    assert rc == 0
    assert fig["frames"] == 4
    pairs = _board_truth_and_reading(SAMPLE)
    wrong = sum(t != p for truth, pred in pairs for t, p in zip(truth, pred, strict=True))
    assert fig["checkers"]["point_error_rate"] == pytest.approx(wrong / 96, abs=1e-5)
    # the split the tracker sees: frames without a hand over the table
    quiet = [k for k, js in enumerate(sorted(SAMPLE.glob("*.json"))) if not parse_sim_label(js).hands]
    assert fig["checkers"]["frames_without_hands"] == len(quiet)
    if quiet:
        wrong_q = sum(t != p for k in quiet for t, p in zip(*pairs[k], strict=True))
        assert fig["checkers"]["point_error_rate_without_hands"] == pytest.approx(wrong_q / (24 * len(quiet)), abs=1e-5)
    labelled = sum(len(parse_sim_label(js).dice) for js in sorted(SAMPLE.glob("*.json")))
    assert fig["dice"]["labelled"] == labelled == 8
    assert 0 <= fig["dice"]["matched"] <= min(fig["dice"]["labelled"], fig["dice"]["found"])
    assert sum(sum(row.values()) for row in fig["cube"]["zone_confusion"].values()) == 4
    assert sum(sum(row.values()) for row in fig["dice"]["reason_confusion"].values()) == fig["dice"]["matched"]
    d = fig["dice"]
    assert d["valid_dice"] + d["invalid_dice"] + d["under_other_die"] == d["matched"]
    assert fig["time"]["ms_per_frame_median"] > 0
    for text in ("per-point count error", "boards exactly right", "die value right", "invalid dice caught",
                 "cube", "ms per frame"):
        assert text in out


@needs_models
def test_figures_follow_a_changed_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "frames"
    shutil.copytree(SAMPLE, folder)
    rc, before, _, _ = _run(tmp_path, folder, capsys)
    assert rc == 0
    # relabel one point the reader gets right: exactly one more wrong point out of 96
    truth, pred = _board_truth_and_reading(folder)[0]
    i = next(k for k in range(24) if truth[k] == pred[k])
    js = sorted(folder.glob("*.json"))[0]
    lab = json.loads(js.read_text(encoding="utf-8"))
    entry = next(e for e in lab["table_state"]["points"] if e["point"] == i + 1)
    entry["dark"] = entry["dark"] + 3
    lab["table_state"].pop("cube", None)  # and the cube now "absent"
    js.write_text(json.dumps(lab), encoding="utf-8")
    rc, after, _, _ = _run(tmp_path, folder, capsys)
    assert rc == 0
    assert after["checkers"]["point_error_rate"] == pytest.approx(before["checkers"]["point_error_rate"] + 1 / 96,
                                                                  abs=1e-5)
    assert "absent" in after["cube"]["zone_confusion"]
    assert after["cube"]["zone_confusion"] != before["cube"]["zone_confusion"]


def test_corrupted_label_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "frames"
    shutil.copytree(SAMPLE, folder)
    bad = folder / "000003.json"
    bad.write_text(bad.read_text(encoding="utf-8")[:500], encoding="utf-8")
    rc, fig, _, err = _run(tmp_path, folder, capsys)
    assert rc == 2 and fig == {}
    assert "000003.json" in err and "not a readable JSON label" in err


def test_label_without_board_corners_is_named(tmp_path: Path) -> None:
    lab = json.loads((SAMPLE / "000000.json").read_text(encoding="utf-8"))
    del lab["board"]["corners8_px"]
    path = tmp_path / "000000.json"
    path.write_text(json.dumps(lab), encoding="utf-8")
    with pytest.raises(VisionError, match=r"000000\.json.*corners8_px"):
        parse_sim_label(path)


def test_empty_dataset_says_how_to_make_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["vision", str(tmp_path)])
    assert rc == 2
    assert "sim frames" in capsys.readouterr().err


def test_dice_matched_by_centre_nearest_first() -> None:
    truth = [TruthDie(3, True, "flat_board", (100.0, 100.0), 20.0), TruthDie(5, False, "cocked", (130.0, 100.0), 20.0)]
    # the first found die is nearer the second labelled one; the far one matches nothing
    pairs = match_dice(truth, [(127.0, 101.0), (104.0, 98.0), (300.0, 300.0)])
    assert sorted(pairs) == [(0, 1), (1, 0)]
    assert match_dice(truth, [(100.0, 117.0)]) == []  # 17 px > 0.8 x 20 px


@needs_models
def test_in_view_figures_leave_out_what_the_frame_hides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The report's second figures count only dice and cubes at least IN_VIEW in view (a cube behind
    the near rail shows a sliver of one face): relabelled as mostly hidden, they leave those figures."""
    from vision.eval_cli import IN_VIEW

    folder = tmp_path / "frames"
    shutil.copytree(SAMPLE, folder)
    rc, before, out, _ = _run(tmp_path, folder, capsys)
    assert rc == 0 and "in view" in out
    labels = {js: json.loads(js.read_text(encoding="utf-8")) for js in sorted(folder.glob("*.json"))}
    quiet_with_cube = sum(1 for lab in labels.values() if not lab["look"].get("hands") and lab["table_state"].get("cube"))
    assert before["cube"]["frames_without_hands_cube_in_view"] == quiet_with_cube == 3
    assert 0 < before["dice"]["in_view_matched"] <= before["dice"]["matched"]
    for js, lab in labels.items():
        for o in lab["objects"]:
            if o["kind"] in ("die", "cube"):
                o["visible_frac"] = IN_VIEW / 2
        js.write_text(json.dumps(lab), encoding="utf-8")
    rc, after, _, _ = _run(tmp_path, folder, capsys)
    assert rc == 0
    assert after["cube"]["frames_without_hands_cube_in_view"] == 0
    assert after["cube"]["value_and_zone_right_without_hands_in_view"] is None
    assert after["dice"]["in_view_matched"] == 0
    assert after["dice"]["matched"] == before["dice"]["matched"]
    assert after["cube"]["value_and_zone_right"] == before["cube"]["value_and_zone_right"]


def _die(value: int, tilt: float, xy: tuple[float, float], supports: list[str]) -> dict[str, Any]:
    return {"kind": "die", "value": value, "size_cm": 1.6, "pose": {"position_cm": [xy[0], xy[1], 0.8]},
            "physical": {"tilt_deg": tilt, "supports": supports}}


def test_a_die_shows_its_value_only_near_flat_and_uncovered() -> None:
    """The value of a die cocked at 45 degrees is a guess between two faces, and a die with the other
    die resting on it hides its top face: neither shows its value (the report's third die figure)."""
    from vision.eval_cli import SHOWS_VALUE_TILT_DEG, die_shows_value

    flat, other = _die(3, 0.0, (0.0, 0.0), ["surface"]), _die(5, 0.0, (10.0, 0.0), ["surface"])
    assert die_shows_value(flat, [flat, other]) is True
    cocked = _die(3, SHOWS_VALUE_TILT_DEG + 15, (0.0, 0.0), ["surface", "checker"])
    assert die_shows_value(cocked, [cocked, other]) is False
    assert die_shows_value(_die(3, SHOWS_VALUE_TILT_DEG - 5, (0.0, 0.0), ["surface"]), [other]) is True
    on_top = _die(5, 0.0, (0.3, -0.2), ["die"])
    assert die_shows_value(flat, [flat, on_top]) is False   # under the other die
    assert die_shows_value(on_top, [flat, on_top]) is True  # the die on top shows its face (and is invalid)
    assert die_shows_value(flat, [flat, _die(5, 0.0, (6.0, 0.0), ["die"])]) is True  # on a die elsewhere
    assert die_shows_value({"kind": "die", "value": 2}, []) is None  # a label without the physics


def test_the_die_under_the_other_is_flagged() -> None:
    """Sample frame 000009 has a die resting on the other (A1.5): the lower die's label is valid and flat,
    but its roll is void, so the report counts it in neither the valid nor the invalid dice (next test:
    take the die off the other in the label and the lower die is a valid die again)."""
    under = {js.name: [t.under_die for t in parse_sim_label(js).dice] for js in sorted(SAMPLE.glob("*.json"))}
    assert under == {"000000.json": [False, False], "000003.json": [False, False], "000006.json": [False, False],
                     "000009.json": [False, True]}


@needs_models
def test_the_report_counts_the_die_under_the_other_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "frames"
    shutil.copytree(SAMPLE, folder)
    rc, before, out, _ = _run(tmp_path, folder, capsys)
    assert rc == 0 and "dice under the other die" in out
    js = folder / "000009.json"
    lab = json.loads(js.read_text(encoding="utf-8"))
    top = next(o for o in lab["objects"] if o.get("kind") == "die" and o["id"] == 0)
    top["physical"]["supports"] = ["surface"]
    js.write_text(json.dumps(lab), encoding="utf-8")
    assert [t.under_die for t in parse_sim_label(js).dice] == [False, False]
    rc, after, _, _ = _run(tmp_path, folder, capsys)
    assert rc == 0
    b, a = before["dice"], after["dice"]
    assert b["under_other_die"] == 1 and a["under_other_die"] == 0  # the stack is found (one box)
    assert a["valid_dice"] == b["valid_dice"] + b["under_other_die"]
    assert a["invalid_dice"] == b["invalid_dice"]
