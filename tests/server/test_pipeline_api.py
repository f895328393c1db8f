"""The Python API the end-to-end pipeline uses: a background job in the app's lifespan, fed from a thread."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import cv2
import numpy as np
from fastapi.testclient import TestClient

from server.app import Settings, create_app
from server.live import FrameInfo, Live
from server.models import MatchCreate, TableCreate
from server.sources import ReplaySource

TOKEN = "test-token-0123456789"


def test_a_vision_thread_feeds_states_and_frames_through_a_feeder(db, stream):
    setup, states = stream
    jpeg = cv2.imencode(".jpg", np.full((72, 128, 3), 90, np.uint8))[1].tobytes()
    errors: list[Exception] = []
    finished = threading.Event()

    async def pipeline(live: Live) -> None:
        live.create_table(TableCreate(id="cam1", name="Camera table", source="camera:0"))
        live.start_match("cam1", MatchCreate(players=setup["players"], length=setup["length"], end_signal="clock"))
        feeder = live.feeder("cam1")

        def vision_thread() -> None:  # what a capture + vision + tracker thread does
            for s in states:
                feeder.put(s, on_error=errors.append)
            feeder.put({"type": "table_state", "version": 1}, on_error=errors.append)  # broken: reported, not fatal
            feeder.put_frame(FrameInfo(states[-1]["frame"], jpeg, 128, 72,
                                       [{"box": [10, 10, 30, 30], "label": "die 4", "confidence": 0.97, "valid": True}]))
            finished.set()

        threading.Thread(target=vision_thread, daemon=True).start()
        await asyncio.sleep(0)

    with TestClient(create_app(Settings(db=db, token=TOKEN), background=[pipeline])) as c:
        assert finished.wait(10)
        deadline = time.monotonic() + 10
        while c.get("/api/tables/cam1/view").json()["table"]["has_camera"] is False and time.monotonic() < deadline:
            time.sleep(0.05)
        view = c.get("/api/tables/cam1/view").json()
        assert view["match"]["states"] == len(states)
        assert len(errors) == 1 and "frame: is required" in str(errors[0])
        r = c.get("/api/tables/cam1/frame.jpg")
        assert r.status_code == 200 and r.content == jpeg
        with c.websocket_connect("/ws/tables/cam1") as ws:
            snap = ws.receive_json()
            assert snap["type"] == "snapshot" and snap["frame"]["detections"][0]["label"] == "die 4"


def test_replay_source_paces_by_timestamps_and_resumes_after_skipped_states(tmp_path, stream):
    _, real = stream
    lines = [
        {"type": "match_setup", "version": 1, "length": 3},
        {**real[0], "t": 0.0, "frame": 1},
        {**real[0], "t": 0.4, "frame": 2},
        {"type": "announce", "act": "resign", "player": "dark"},
        {**real[0], "points": "broken", "t": 0.6, "frame": 99},  # skipped: breaks the schema
        {**real[0], "t": 0.8, "frame": 3},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n# a comment\n\n")
    src = ReplaySource(path, speed=2.0)
    assert src.match_setup is not None and src.match_setup["length"] == 3 and src.state_count == 3

    async def collect(skip: int) -> tuple[list[object], float]:
        t0 = time.monotonic()
        out = [item.state["frame"] if item.state else item.announce["act"] async for item in src.items(skip)]  # type: ignore[index]
        return out, time.monotonic() - t0

    got, took = asyncio.run(collect(0))
    assert got == [1, 2, "resign", 3] and 0.35 <= took < 1.5  # 0.8 s of play at speed 2
    assert asyncio.run(collect(2))[0] == ["resign", 3]
    assert asyncio.run(collect(3))[0] == []
