"""`gammonwatch serve` as a real uvicorn process: kill -9 mid-match and restart lose nothing; --replay resumes."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "server"


def observe(srv: Any) -> dict[str, Any]:
    """Everything a monitor or a transcriber can read about table t1."""
    view = srv.get("/api/tables/t1/view")
    return {
        "view": view,
        "alerts": srv.get("/api/tables/t1/alerts"),
        "mat": srv.get("/api/tables/t1/transcript.mat"),
        "events": srv.get("/api/tables/t1/events.jsonl"),
    }


def test_kill_9_mid_match_and_restart_leave_state_and_transcript_exactly_as_before(tmp_path, server_process, stream):
    Server = server_process
    setup, states = stream
    db = tmp_path / "events.db"
    srv = Server(db)
    try:
        assert srv.post("/api/tables", {"id": "t1", "name": "Feature table 1"}).status_code == 201
        body = {"players": setup["players"], "length": setup["length"], "end_signal": "clock", "clock": {"mode": "timed"}}
        assert srv.post("/api/tables/t1/matches", body).status_code == 201
        half = 40
        for s in states[:half]:
            assert srv.post("/api/tables/t1/states", s).status_code == 200
        illegal = next(a for a in srv.get("/api/tables/t1/alerts") if a["code"] == "ILLEGAL_MOVE")
        assert srv.post(f"/api/tables/t1/alerts/{illegal['id']}/decision", {"decision": "acknowledge"}).status_code == 200
        before = observe(srv)
    finally:
        srv.kill()
    assert srv.proc.returncode == -signal.SIGKILL
    again = Server(db)
    try:
        after = observe(again)
        assert after == before
        assert after["view"]["match"]["states"] == half
        for s in states[half:]:  # the match goes on
            assert again.post("/api/tables/t1/states", s).status_code == 200
        assert again.get("/api/tables/t1/view")["match"]["states"] == len(states)
    finally:
        again.kill()


def test_replay_killed_mid_stream_resumes_and_ends_as_an_uninterrupted_run(tmp_path, server_process, stream):
    Server = server_process
    _, states = stream
    args = ["--replay", str(DATA / "scenario.jsonl"), "--speed", "25"]
    whole = Server(tmp_path / "whole.db", "--replay", str(DATA / "scenario.jsonl"), "--speed", "0")
    try:
        _wait_states(whole, len(states))
        expected = observe(whole)
    finally:
        whole.kill()
    db = tmp_path / "events.db"
    first = Server(db, *args)
    try:
        _wait_states(first, 15)
    finally:
        first.kill()
    second = Server(db, *args)
    try:
        _wait_states(second, len(states))
        got = observe(second)
    finally:
        second.kill()
    assert got["mat"] == expected["mat"]
    assert [(a["code"], a["frame"]) for a in got["alerts"]] == [(a["code"], a["frame"]) for a in expected["alerts"]]
    assert got["view"]["referee"] == expected["view"]["referee"]
    assert got["view"]["seen"] == expected["view"]["seen"]
    kinds = [json.loads(x)["kind"] for x in got["events"].splitlines()]
    assert kinds.count("state") == len(states) and kinds.count("match") == 1  # nothing fed twice


def _wait_states(srv: Any, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if srv.get("/api/tables/t1/view")["match"]["states"] >= n:
                return
        except httpx.HTTPStatusError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"table t1 did not reach {n} states in {timeout} s")


@pytest.mark.parametrize("spec", ["camera:0", "video:match.mp4", "rtsp://10.0.0.5/stream", "images:frames/"])
def test_live_sources_say_they_are_not_available_yet(spec):
    from server.serve import main

    assert main(["--source", spec, "--calibration", "board.json"]) == 2


def test_a_live_source_without_calibration_names_the_fix(capsys):
    from server.serve import main

    assert main(["--source", "camera:0"]) == 2
    err = capsys.readouterr().err
    assert "--calibration" in err and "gammonwatch calibrate board" in err


def test_a_bad_replay_file_is_named_with_its_line(tmp_path, capsys):
    from server.serve import main

    bad = tmp_path / "states.jsonl"
    bad.write_text('{"type": "table_state"}\nnot json\n')
    assert main(["--replay", str(bad)]) == 2
    assert f"{bad} line 2: not JSON" in capsys.readouterr().err
    bad.write_text('{"type": "table_state"}\n{"type": "chess_move"}\n')
    assert main(["--replay", str(bad)]) == 2
    assert f"{bad} line 2: must be table_state, match_setup, announce or monitor; got 'chess_move'" in capsys.readouterr().err
    assert main(["--replay", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_an_unusable_database_stops_the_server_with_the_fix(tmp_path, capsys):
    from server.serve import main

    assert main(["--db", str(tmp_path / "no" / "such" / "folder" / "x.db")]) == 2
    assert "does not exist; create it or pass --db" in capsys.readouterr().err
