"""Fixtures of the server tests: the recorded stream with an illegal move, an app on a fresh database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import Settings, create_app

DATA = Path(__file__).resolve().parents[1] / "data" / "server"
TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def load_stream(name: str = "illegal.jsonl") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]
    setup = lines[0]
    assert setup["type"] == "match_setup"
    return setup, [x for x in lines[1:] if x["type"] == "table_state"]


def match_body(setup: dict[str, Any]) -> dict[str, Any]:
    return {
        "players": setup["players"],
        "length": setup["length"],
        "end_signal": setup.get("end_signal"),
        "clock": {"mode": "timed" if setup.get("clock") else "none"},
    }


@pytest.fixture
def stream() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return load_stream()


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "events.db")


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db=db, token=TOKEN))) as c:
        yield c


def _start_table(c: Any, setup: dict[str, Any], table_id: str = "t1") -> str:
    """Create table ``table_id`` and start the stream's match on it (``c``: TestClient or httpx.Client)."""
    r = c.post("/api/tables", json={"id": table_id, "name": "Feature table 1"}, headers=AUTH)
    assert r.status_code == 201, r.text
    r = c.post(f"/api/tables/{table_id}/matches", json=match_body(setup), headers=AUTH)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


@pytest.fixture
def start_table() -> Any:
    return _start_table


@pytest.fixture
def auth() -> dict[str, str]:
    return dict(AUTH)
