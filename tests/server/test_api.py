"""REST API over the real referee: states in, alerts with citations out, decisions, corrections, exports."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rules import ids
from server.app import Settings, create_app
from server.storage import EventLog

ALERTING = {"VIOL", "IRREG", "WARN"}


def feed(client: TestClient, states: list[dict[str, Any]], auth: dict[str, str], table: str = "t1") -> list[dict[str, Any]]:
    raised = []
    for s in states:
        r = client.post(f"/api/tables/{table}/states", json=s, headers=auth)
        assert r.status_code == 200, r.text
        raised += r.json()["alerts"]
    return raised


def test_illegal_move_in_the_stream_raises_a_cited_alert_and_the_transcript_follows(client, stream, auth, start_table):
    setup, states = stream
    match_id = start_table(client, setup)
    raised = feed(client, states, auth)
    alerts = [a for a in raised if a["severity"] in ALERTING]
    assert [a["code"] for a in alerts] == ["ILLEGAL_MOVE", "ROLL_INVALID_COCKED"]
    assert alerts[1]["rules"] == ["RG19 4.1.4.3"] and alerts[1]["frame"] == 1368
    illegal = alerts[0]
    assert illegal["rules"][0] == "RG19 4.2.3.1(a)"
    assert illegal["player_name"] == "Ann" and illegal["frame"] == 390
    assert illegal["status"] == "open" and illegal["id"] == f"{match_id}-{illegal['ref_id']}"
    listed = client.get("/api/tables/t1/alerts").json()
    assert illegal["id"] in [a["id"] for a in listed]
    view = client.get("/api/tables/t1/view").json()
    assert view["match"]["states"] == len(states)
    assert view["seen"]["frame"] == states[-1]["frame"]
    ref = view["referee"]
    assert sum(ref["board"]["light"]) + ref["board"]["bar"]["light"] + ref["board"]["off"]["light"] == 15
    assert ref["position_id"] and ref["xgid"].startswith("XGID=") and len(ref["match_id"]) == 12
    mat = client.get(f"/api/matches/{match_id}/transcript.mat").text
    assert " 3 point match" in mat and "Ann : 0" in mat and "63: 24/18 18/15" in mat
    assert "64: 24/18 13/8" in mat  # the illegal move is recorded as played until corrected (RG19 4.2.3.1(a))
    assert "31: 8/5 6/5" in mat
    assert client.get("/api/tables/t1/transcript.mat").text == mat


def test_monitor_decision_is_recorded_logged_and_passed_to_the_referee(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup)
    raised = feed(client, states[:40], auth)
    illegal = next(a for a in raised if a["code"] == "ILLEGAL_MOVE")
    r = client.post(f"/api/tables/t1/alerts/{illegal['id']}/decision", json={"decision": "acknowledge", "note": "seen"}, headers=auth)
    assert r.status_code == 200, r.text
    assert r.json()["alert"]["status"] == "acknowledged"
    after = {a["id"]: a for a in client.get("/api/tables/t1/alerts").json()}
    assert after[illegal["id"]]["decisions"][0]["note"] == "seen"
    assert any(a["code"] == "MONITOR_DECISION" for a in after.values())  # the referee's own record of it
    lines = [json.loads(x) for x in client.get("/api/tables/t1/events.jsonl").text.splitlines()]
    kinds = [e["kind"] for e in lines]
    assert kinds[:2] == ["table", "match"] and kinds.count("state") == 40 and kinds.count("action") == 1
    assert [e["seq"] for e in lines] == sorted(e["seq"] for e in lines)
    missing = client.post("/api/tables/t1/alerts/m1-9999/decision", json={"decision": "acknowledge"}, headers=auth)
    assert missing.status_code == 404


def test_a_state_that_breaks_the_schema_names_the_field_and_nothing_is_logged(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup)
    before = len(client.get("/api/events.jsonl").text.splitlines())
    bad = json.loads(json.dumps(states[0]))
    bad["points"][3]["dark"] = 16
    r = client.post("/api/tables/t1/states", json=bad, headers=auth)
    assert r.status_code == 422
    assert r.json()["detail"] == {"field": "points[3].dark", "reason": "must be between 0 and 15; got 16"}
    assert len(client.get("/api/events.jsonl").text.splitlines()) == before


def test_limits_unknown_ids_and_impossible_requests_get_clear_4xx(client, stream, auth, start_table):
    setup, states = stream
    assert client.post("/api/tables/t1/states", json=states[0], headers=auth).status_code == 404
    client.post("/api/tables", json={"id": "t1", "name": "x"}, headers=auth)
    r = client.post("/api/tables/t1/states", json=states[0], headers=auth)
    assert r.status_code == 409 and "no match" in r.json()["detail"]
    assert client.post("/api/tables", json={"id": "t1", "name": "again"}, headers=auth).status_code == 409
    huge = {"type": "table_state", "pad": "x" * 300_000}
    assert client.post("/api/tables/t1/states", json=huge, headers=auth).status_code == 413
    big = {"type": "table_state", "pad": "x" * 70_000}  # under the request limit, over a table state's
    r = client.post("/api/tables/t1/states", json=big, headers=auth)
    assert r.status_code == 413 and "at most 65536" in r.json()["detail"]
    r = client.post("/api/tables/t1/matches", json={**_body(setup), "rules": "chess-960"}, headers=auth)
    assert r.status_code == 422 and "unknown rule set 'chess-960'" in r.json()["detail"]
    r = client.post("/api/tables/t1/matches", json={**_body(setup), "players": ["A" * 65, "B"]}, headers=auth)
    assert r.status_code == 422
    assert client.get("/api/matches/m99/transcript.mat").status_code == 404
    assert client.get("/api/tables/t1/frame.jpg").status_code == 404


def _body(setup: dict[str, Any]) -> dict[str, Any]:
    return {"players": setup["players"], "length": setup["length"]}


def test_corrections_set_position_cube_score_and_undo(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup)
    feed(client, states[:20], auth)
    # a gnubg Position ID with its Match ID: position, cube and score
    r = client.post("/api/tables/t1/corrections/position", json={"position_id": "4HPwATDgc/ABMA", "match_id": "cAkAAAAAAAAA"}, headers=auth)
    assert r.status_code == 200, r.text
    ref = r.json()["view"]["referee"]
    assert ref["position_id"] == "4HPwATDgc/ABMA" and ref["phase"] == "pre_roll"
    r = client.post("/api/tables/t1/corrections/cube", json={"value": 2, "owner": "second"}, headers=auth)
    assert r.json()["view"]["referee"]["cube"] == {"value": 2, "owner": 1, "offered_by": None}
    r = client.post("/api/tables/t1/corrections/score", json={"score": [1, 0]}, headers=auth)
    assert r.json()["view"]["referee"]["score"] == [1, 0]
    r = client.post("/api/tables/t1/corrections/score", json={"score": [3, 0]}, headers=auth)
    assert r.status_code == 422 and "ends a 3-point match" in r.json()["detail"]
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:3:10"
    r = client.post("/api/tables/t1/corrections/position", json={"xgid": xgid}, headers=auth)
    assert r.status_code == 200 and r.json()["view"]["referee"]["turn"] == ids.from_xgid(xgid)[0].turn
    r = client.post("/api/tables/t1/corrections/position", json={"position_id": "//////////////"}, headers=auth)
    assert r.status_code == 422 and "cannot set the position" in r.json()["detail"]
    r = client.post("/api/tables/t1/corrections/position", json={}, headers=auth)
    assert r.status_code == 422
    r = client.post("/api/tables/t1/corrections/undo", json={}, headers=auth)
    assert r.status_code == 422 and "nothing to undo" in r.json()["detail"]
    actions = [json.loads(x) for x in client.get("/api/tables/t1/events.jsonl").text.splitlines()]
    assert [e["payload"]["action"] for e in actions if e["kind"] == "action"] == ["set_position", "cube", "score", "set_position"]


MUTATING = [
    ("post", "/api/tables", {"name": "x"}),
    ("post", "/api/tables/t1/matches", {"players": ["A", "B"]}),
    ("post", "/api/tables/t1/states", {"type": "table_state"}),
    ("post", "/api/tables/t1/alerts/m1-1/decision", {"decision": "acknowledge"}),
    ("post", "/api/tables/t1/corrections/position", {"position_id": "4HPwATDgc/ABMA"}),
    ("post", "/api/tables/t1/corrections/undo", {}),
    ("post", "/api/tables/t1/corrections/cube", {"value": 2, "owner": "first"}),
    ("post", "/api/tables/t1/corrections/score", {"score": [1, 0]}),
]


@pytest.mark.parametrize(("method", "path", "body"), MUTATING, ids=[p for _, p, _ in MUTATING])
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"X-Gammonwatch-Token": "wrong"}], ids=["none", "bearer", "header"])
def test_monitor_actions_without_the_right_token_are_refused(client, stream, auth, start_table, method, path, body, headers):
    start_table(client, stream[0])
    before = client.get("/api/events.jsonl").text
    r = getattr(client, method)(path, json=body, headers=headers)
    assert r.status_code == 401
    assert "monitor token" in r.json()["detail"]
    assert client.get("/api/events.jsonl").text == before


def test_reading_is_public_and_the_alternative_token_header_works(client, stream, start_table):
    start_table(client, stream[0])
    for path in ["/api/health", "/api/tables", "/api/tables/t1", "/api/tables/t1/view", "/api/tables/t1/alerts",
                 "/api/matches", "/api/matches/m1", "/api/tables/t1/transcript.mat", "/api/tables/t1/events.jsonl",
                 "/monitor", "/overlay", "/openapi.json", "/docs", "/static/board.js"]:
        assert client.get(path).status_code == 200, path
    assert client.get("/api/auth").status_code == 401
    assert client.get("/api/auth", headers={"X-Gammonwatch-Token": "test-token-0123456789"}).status_code == 204


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_state_is_rebuilt_from_the_log_after_a_restart(request, backend, db, stream, auth, start_table):
    if backend == "postgresql":
        db = request.getfixturevalue("fresh_postgres")
    setup, states = stream
    with TestClient(create_app(Settings(db=db, token="test-token-0123456789"))) as c:
        start_table(c, setup)
        raised = feed(c, states[:45], auth)
        illegal = next(a for a in raised if a["code"] == "ILLEGAL_MOVE")
        c.post(f"/api/tables/t1/alerts/{illegal['id']}/decision", json={"decision": "let_stand"}, headers=auth)
        view, alerts = c.get("/api/tables/t1/view").json(), c.get("/api/tables/t1/alerts").json()
        mat = c.get("/api/tables/t1/transcript.mat").text
    with TestClient(create_app(Settings(db=db, token="test-token-0123456789"))) as c:
        assert c.get("/api/health").json()["events_replayed"] > 45
        assert c.get("/api/tables/t1/view").json() == view
        assert c.get("/api/tables/t1/alerts").json() == alerts
        assert c.get("/api/tables/t1/transcript.mat").text == mat
        feed(c, states[45:], auth)  # and play carries on from there
        assert c.get("/api/tables/t1/view").json()["match"]["states"] == len(states)


def test_a_resignation_entered_by_the_monitor_ends_the_game_in_the_transcript(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup)
    feed(client, states, auth)
    assert client.get("/api/tables/t1/view").json()["referee"]["cube"] == {"value": 2, "owner": 0, "offered_by": None}
    r = client.post("/api/tables/t1/announce", json={"act": "resign", "player": "dark", "kind": "single"}, headers=auth)
    assert r.status_code == 200, r.text
    ref = r.json()["view"]["referee"]
    assert ref["score"] == [2, 0] and ref["phase"] == "game_over"  # a single game at cube 2
    codes = [a["code"] for a in client.get("/api/tables/t1/alerts").json()]
    assert "RESIGNATION" in codes and "GAME_RESULT" in codes
    assert "Wins 2 points" in client.get("/api/tables/t1/transcript.mat").text
    bad = client.post("/api/tables/t1/announce", json={"act": "resign", "player": "blue"}, headers=auth)
    assert bad.status_code == 422
    before = client.get("/api/events.jsonl").text
    again = client.post("/api/tables/t1/announce", json={"act": "resign", "player": "dark"}, headers=auth)
    assert again.status_code == 422 and "no game in progress" in again.json()["detail"]  # the referee's own check
    assert client.get("/api/events.jsonl").text == before  # refused before it was logged


def test_several_tables_at_once_keep_their_own_matches_alerts_and_feeds(client, stream, auth, start_table):
    setup, states = stream
    start_table(client, setup, "t1")
    start_table(client, {**setup, "players": ["Cleo", "Dan"]}, "t2")
    illegal_at = next(i for i, s in enumerate(states) if s["frame"] == 390)
    with client.websocket_connect("/ws/tables/t2") as ws2:
        assert ws2.receive_json()["view"]["match"]["players"] == ["Cleo", "Dan"]
        feed(client, states[: illegal_at + 1], auth, "t1")
        feed(client, states[:3], auth, "t2")
        for _ in range(3):  # t2's feed carries t2's states only
            msg = ws2.receive_json()
            while msg["type"] != "view":
                msg = ws2.receive_json()
            assert msg["table_id"] == "t2"
        assert msg["view"]["match"]["states"] == 3
    tables = {t["id"]: t for t in client.get("/api/tables").json()}
    assert tables["t1"]["open_alerts"] == 1 and tables["t2"]["open_alerts"] == 0
    assert tables["t1"]["match_id"] != tables["t2"]["match_id"]
    assert client.get(f"/api/matches/{tables['t2']['match_id']}").json()["players"] == ["Cleo", "Dan"]
    assert "64: 24/18 13/8" in client.get("/api/tables/t1/transcript.mat").text
    assert "64: 24/18 13/8" not in client.get("/api/tables/t2/transcript.mat").text


def test_an_event_that_cannot_be_replayed_is_reported_and_the_rest_restored(db, stream, auth, start_table):
    setup, states = stream
    with TestClient(create_app(Settings(db=db, token="test-token-0123456789"))) as c:
        start_table(c, setup)
        feed(c, states[:10], auth)
    log = EventLog.open(db)  # e.g. written by an older version with another schema
    log.append("t1", "state", {"state": {"type": "table_state", "version": 99}})
    log.close()
    with TestClient(create_app(Settings(db=db, token="test-token-0123456789"))) as c:
        health = c.get("/api/health").json()
        assert len(health["replay_errors"]) == 1 and "TableStateError" in health["replay_errors"][0]
        assert c.get("/api/tables/t1/view").json()["match"]["states"] == 10


def test_matches_without_a_rule_set_get_the_servers_default(db, stream, auth):
    with TestClient(create_app(Settings(db=db, token="test-token-0123456789", rules="wbgf-2023"))) as c:
        c.post("/api/tables", json={"id": "t1", "name": "x"}, headers=auth)
        r = c.post("/api/tables/t1/matches", json={"players": ["A", "B"], "length": 5}, headers=auth)
        assert r.json()["rules"] == "wbgf-2023"
        assert c.get("/api/tables/t1/view").json()["referee"]["rules"] == "wbgf-2023"
        r = c.post("/api/tables/t1/matches", json={"players": ["A", "B"], "rules": "usbgf-2009"}, headers=auth)
        assert r.json()["rules"] == "usbgf-2009"
