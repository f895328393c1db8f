"""scripts/inspect_e2e.py: an end-to-end run's states against the truth, frame by frame."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("inspect_e2e", ROOT / "scripts" / "inspect_e2e.py")
assert _spec is not None and _spec.loader is not None
inspect_e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(inspect_e2e)


def _state(frame: int, dark_on_2: int, bar_dark: int = 0) -> dict:
    points = [{"point": i, "light": 0, "dark": 0} for i in range(1, 25)]
    points[1]["dark"] = dark_on_2
    return {"type": "table_state", "version": 1, "frame": frame, "t": frame / 10, "points": points,
            "bar": {"light": 0, "dark": bar_dark}, "off": {"light": 0, "dark": 0},
            "dice": [{"id": 0, "value": 3, "state": "at_rest", "valid": True, "reason": "flat_board", "half": "left"}],
            "cube": {"value": 64, "zone": "centre", "confidence": 0.9}, "hands": [{"side": "far", "over": "bar"}]}


def test_states_are_compared_with_the_truth_and_alerts_shown_where_raised(tmp_path, capsys):
    (tmp_path / "truth.jsonl").write_text("\n".join(json.dumps(_state(f, 1)) for f in (10, 11, 12)) + "\n")
    con = sqlite3.connect(tmp_path / "vision.db")
    con.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, table_id TEXT NOT NULL, "
                "kind TEXT NOT NULL, payload TEXT NOT NULL)")
    rows = [("state", {"state": _state(10, 1)}), ("state", {"state": _state(11, 0, bar_dark=1)}),
            ("alert", {"alert": {"code": "MOVE_UNCONFIRMED", "severity": "WARN", "frame": 11, "message": "Please confirm."}}),
            ("alert", {"alert": {"code": "MOVE", "severity": "EVENT", "frame": 11, "message": "dark played."}}),
            ("state", {"state": _state(30, 1)})]
    con.executemany("INSERT INTO events (ts, table_id, kind, payload) VALUES (0, 't1', ?, ?)",
                    [(k, json.dumps(p)) for k, p in rows])
    con.commit()
    con.close()
    assert inspect_e2e.main([str(tmp_path), "10", "12"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("10: vision") and "differing (vision, truth)={}" in out[1]
    assert out[2].startswith("11: vision") and "bar=(0, 1)" in out[2] and "{2: ((0, 0), (0, 1))}" in out[3]
    assert out[4] == "   ALERT 11 MOVE_UNCONFIRMED WARN: Please confirm." and len(out) == 5  # no event, no frame 30
    assert inspect_e2e.main([str(tmp_path), "10", "12", "--all-alerts"]) == 0
    assert any("ALERT 11 MOVE EVENT" in line for line in capsys.readouterr().out.splitlines())


def test_a_folder_without_a_run_says_what_to_do(tmp_path, capsys):
    assert inspect_e2e.main([str(tmp_path), "0", "1"]) == 2
    assert "run scripts/eval_e2e.py --folders" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        inspect_e2e.main([str(tmp_path)])
