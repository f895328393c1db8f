"""scripts/validity_rests.py: a validity model's verdicts on every rest of the dice of a rendered match."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("validity_rests", ROOT / "scripts" / "validity_rests.py")
assert _spec is not None and _spec.loader is not None
validity_rests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(validity_rests)

DATA = ROOT / "tests" / "data" / "vision"
FOUR = (443.09, 551.39)  # seed 358 frame 8960: light's 4 flat behind the near rail (decision 0742)
ONE = (550.46, 305.97)  # and his 1, flat in full view


def _die(xy: tuple[float, float], value: int, state: str = "at_rest", valid: bool = True,
         reason: str = "flat_board") -> dict:
    return {"value": value, "state": state, "valid": valid, "reason": reason, "center_px": list(xy)}


def _row(k: int, dice: list[dict]) -> dict:
    points = [{"point": i, "light": 0, "dark": 0} for i in range(1, 25)]
    return {"k": k, "t": k / 10, "image": "frames/000000.jpg", "truth": {"points": points, "dice": dice}}


def _folder(tmp_path: Path) -> Path:
    """30 frames of the two dice at rest, 5 in flight, then 4 at rest with the 1 labelled cocked."""
    (tmp_path / "frames").mkdir()
    shutil.copy(DATA / "four-behind-the-rail-seed358.jpg", tmp_path / "frames" / "000000.jpg")
    shutil.copy(DATA / "six-behind-the-rail-seed358.camera.json", tmp_path / "camera.json")
    rows = [_row(k, [_die(FOUR, 4), _die(ONE, 1)]) for k in range(30)]
    rows += [_row(k, [_die(FOUR, 4, "rolling"), _die(ONE, 1, "rolling")]) for k in range(30, 35)]
    rows += [_row(k, [_die(FOUR, 4), _die(ONE, 1, valid=False, reason="cocked")]) for k in range(35, 39)]
    (tmp_path / "index.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n{\"k\": 39, \"t\"")  # cut last line
    return tmp_path


def test_each_rest_is_judged_once_at_its_two_seconds_or_last_frame() -> None:
    rows = [_row(k, [_die(FOUR, 4), _die(ONE, 1)]) for k in range(30)]
    rows += [_row(30, [_die(FOUR, 4, "rolling"), _die(ONE, 1)])]
    rows += [_row(k, [_die(ONE, 4), _die(FOUR, 1)]) for k in range(31, 34)]
    rows += [_row(k, [_die(FOUR, 2), _die(ONE, 1)]) for k in range(34, 36)]  # moved back: a new rest
    assert [r["k"] for r in validity_rests.rests(rows, 10.0, 2.0)] == [20, 33, 35]
    assert [r["k"] for r in validity_rests.rests(rows, 10.0, 0.5)] == [5, 33, 35]
    assert validity_rests.rests([_row(0, [])], 10.0, 2.0) == []


def test_the_verdicts_are_listed_against_the_truth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    out = tmp_path / "rests.json"
    assert validity_rests.main([str(folder), "--json", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "4 dice at rest, 4 located"
    assert lines[1].endswith("valid called invalid 0/3, invalid let through 1/1")
    assert lines[2].startswith("   missed:") and "frame 38 cocked 1: flat_board" in lines[2] and len(lines) == 3
    items = json.loads(out.read_text())
    assert [d["frame"] for d in items] == [20, 20, 38, 38]
    assert all(d["verdicts"][0]["valid"] for d in items)


def test_bad_input_says_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validity_rests.main([str(tmp_path), "--models", str(tmp_path / "none.onnx")]) == 2
    assert "no such validity model" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="render the match with scripts/eval_e2e.py --render-only"):
        validity_rests.main([str(tmp_path)])
