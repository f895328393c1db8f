"""Monitor corrections over HTTP (issue 6): undo the last completed turn, score with Crawford (RG19 4.2.3, 4.4.7)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from server.app import Settings, create_app

TOKEN = "test-token-0123456789"


def _feed(c: TestClient, states: list[dict[str, Any]], auth: dict[str, str]) -> None:
    for s in states:
        r = c.post("/api/tables/t1/states", json=s, headers=auth)
        assert r.status_code == 200, r.text


def _last_line(mat: str) -> str:
    return [line for line in mat.splitlines() if line.strip()][-1]


def test_undo_takes_back_completed_turns_and_survives_a_restart(db: str, stream: tuple[dict[str, Any], list[dict[str, Any]]],
                                                                 auth: dict[str, str], start_table: Any) -> None:
    setup, states = stream
    with TestClient(create_app(Settings(db=db, token=TOKEN))) as c:
        start_table(c, setup)
        _feed(c, states, auth)  # ends with Bob's 21: 11/9 9/8, Ann to roll
        mat = c.get("/api/tables/t1/transcript.mat").text
        assert _last_line(mat).split() == ["7)", "21:", "11/9", "24/23", "21:", "11/9", "9/8"]
        before = c.get("/api/tables/t1/view").json()["referee"]
        assert before["phase"] == "pre_roll" and before["turn"] == 0
        r = c.post("/api/tables/t1/corrections/undo", json={"note": "Bob's 2-1 was misread"}, headers=auth)
        assert r.status_code == 200, r.text
        ref = r.json()["view"]["referee"]
        # Bob replays his 2-1 from the position after the roll (RG19 4.2.3.2)
        assert ref["phase"] == "moving" and ref["turn"] == 1 and ref["dice"] == [2, 1]
        assert ref["transcript_rev"] == before["transcript_rev"] - 1
        mat = c.get("/api/tables/t1/transcript.mat").text
        assert _last_line(mat).split() == ["7)", "21:", "11/9", "24/23"]
        # Ann's 2-1, then Bob's 4-1; then the take (a cube action) stops undo
        for _ in range(2):
            assert c.post("/api/tables/t1/corrections/undo", json={}, headers=auth).status_code == 200
        ref = c.get("/api/tables/t1/view").json()["referee"]
        assert ref["turn"] == 1 and ref["dice"] == [4, 1] and ref["cube"]["value"] == 2
        r = c.post("/api/tables/t1/corrections/undo", json={}, headers=auth)
        assert r.status_code == 422 and "cube action" in r.json()["detail"]
        view, alerts = c.get("/api/tables/t1/view").json(), c.get("/api/tables/t1/alerts").json()
        mat = c.get("/api/tables/t1/transcript.mat").text
        assert "41: 11/7 8/7" not in mat and "Takes" in mat
    # the decisions are in the event log: a restart rebuilds the same state
    with TestClient(create_app(Settings(db=db, token=TOKEN))) as c:
        assert c.get("/api/tables/t1/view").json() == view
        assert c.get("/api/tables/t1/alerts").json() == alerts
        assert c.get("/api/tables/t1/transcript.mat").text == mat


def test_score_correction_sets_crawford_from_the_score_or_the_monitor(client: TestClient,
                                                                     stream: tuple[dict[str, Any], list[dict[str, Any]]],
                                                                     auth: dict[str, str], start_table: Any) -> None:
    setup, states = stream
    start_table(client, setup)  # a 3-point match
    _feed(client, states[:20], auth)
    ref = client.post("/api/tables/t1/corrections/score", json={"score": [2, 0]}, headers=auth).json()["view"]["referee"]
    assert ref["score"] == [2, 0] and ref["crawford"] and not ref["post_crawford"]  # Ann 1-away (RG19 4.4.7)
    r = client.post("/api/tables/t1/corrections/score", json={"score": [2, 0], "crawford": False}, headers=auth)
    ref = r.json()["view"]["referee"]
    assert not ref["crawford"] and ref["post_crawford"]
    ref = client.post("/api/tables/t1/corrections/score", json={"score": [1, 0]}, headers=auth).json()["view"]["referee"]
    assert not ref["crawford"] and not ref["post_crawford"]
    r = client.post("/api/tables/t1/corrections/score", json={"score": [1, 0], "crawford": True}, headers=auth)
    assert r.status_code == 422 and "1 point from winning" in r.json()["detail"]
    r = client.post("/api/tables/t1/corrections/score", json={"score": [1, 0], "crawford": "maybe"}, headers=auth)
    assert r.status_code == 422
