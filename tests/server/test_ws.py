"""WebSocket feed: a snapshot, then every update in order; lagging clients cut off; delayed broadcast feeds."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.app import Settings, create_app


def test_snapshot_then_every_update_in_order_with_the_alert(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup)
    with client.websocket_connect("/ws/tables/t1") as ws:
        snap = ws.receive_json()
        assert snap["type"] == "snapshot" and snap["view"]["match"]["players"] == ["Ann", "Bob"]
        assert {a["code"] for a in snap["alerts"]} >= {"MATCH_START", "GAME_START"}
        seq = snap["seq"]
        frames, codes = [], []
        for s in states:
            r = client.post("/api/tables/t1/states", json=s, headers=auth)
            n_alerts = len(r.json()["alerts"])
            for _ in range(n_alerts + 1):  # each alert, then the view
                msg = ws.receive_json()
                assert msg["seq"] == seq + 1
                seq = msg["seq"]
                if msg["type"] == "alert":
                    codes.append(msg["alert"]["code"])
                else:
                    assert msg["type"] == "view"
                    frames.append(msg["view"]["seen"]["frame"])
        assert frames == [s["frame"] for s in states]
        assert "ILLEGAL_MOVE" in codes
        alert_id = next(a for a in client.get("/api/tables/t1/alerts").json() if a["code"] == "ILLEGAL_MOVE")["id"]
        client.post(f"/api/tables/t1/alerts/{alert_id}/decision", json={"decision": "require_correction"}, headers=auth)
        status = ws.receive_json()
        assert status["type"] == "alert_status" and status["alert"]["status"] == "correction_required"


def test_a_client_that_falls_behind_is_closed_with_4008_and_can_resync(db, stream, auth, start_table):
    setup, states = stream
    with TestClient(create_app(Settings(db=db, token="test-token-0123456789", queue_size=1))) as c:
        start_table(c, setup)
        with c.websocket_connect("/ws/tables/t1") as ws:
            ws.receive_json()
            burst = next(i for i, s in enumerate(states) if s["frame"] == 390)  # the illegal move: alert + view
            for s in states[: burst + 1]:
                c.post("/api/tables/t1/states", json=s, headers=auth)
            with pytest.raises(WebSocketDisconnect) as exc:
                while True:
                    ws.receive_json()
            assert exc.value.code == 4008 and "lagged" in exc.value.reason
        with c.websocket_connect("/ws/tables/t1") as ws:  # a reconnect starts from a complete snapshot
            snap = ws.receive_json()
            assert snap["view"]["match"]["states"] == burst + 1
            assert "ILLEGAL_MOVE" in [a["code"] for a in snap["alerts"]]


def test_delayed_feed_holds_messages_back_and_filters_kinds(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup)
    with client.websocket_connect("/ws/tables/t1?delay=0.6&kinds=view") as ws:
        snap = ws.receive_json()
        assert snap["delay"] == 0.6
        posted = time.time()
        client.post("/api/tables/t1/states", json=states[0], headers=auth)
        msg = ws.receive_json()
        assert msg["type"] == "view" and msg["view"]["seen"]["frame"] == states[0]["frame"]
        assert time.time() - posted >= 0.55


def test_bad_websocket_requests_are_closed_with_a_reason(client, stream, start_table):
    start_table(client, stream[0])
    for url, code in [("/ws/tables/nope", 4404), ("/ws/tables/t1?delay=9999", 4400), ("/ws/tables/t1?kinds=secrets", 4400),
                      ("/ws/tables/t1?delay=5", 4400), ("/ws/tables/t1?delay=5&kinds=view,alert", 4400)]:
        with client.websocket_connect(url) as ws, pytest.raises(WebSocketDisconnect) as exc:
            ws.receive_json()
        assert exc.value.code == code, url


def test_a_delayed_feed_never_shows_the_live_state_early(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup)  # the table is younger than the delay
    for s in states[:5]:
        client.post("/api/tables/t1/states", json=s, headers=auth)
    with client.websocket_connect("/ws/tables/t1?delay=30&kinds=view,table") as ws:
        snap = ws.receive_json()
        assert snap["view"]["match"]["states"] == 0  # the view as it was when the match started
