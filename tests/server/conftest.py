"""Fixtures of the server tests: the recorded stream with an illegal move, an app on a fresh database."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import Settings, create_app
from server.process import ServerProcess, free_port

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "server"
TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def load_stream(name: str = "scenario.jsonl") -> tuple[dict[str, Any], list[dict[str, Any]]]:
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


class Server(ServerProcess):
    """``gammonwatch serve`` with the tests' token (``Server(db, *args)``)."""

    def __init__(self, db: Path, *args: str) -> None:
        super().__init__(db, *args, token=TOKEN)


def _pg_bin() -> Path | None:
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / "initdb").exists() and (base / "pg_ctl").exists():
            return base
    return None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throw-away PostgreSQL server on a Unix socket, or a skip saying why there is none."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgres]')")
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server binaries (Debian package 'postgresql') to start a test server")
    # not under pytest's tmp folder: it is private to root, and the server may have to run as 'postgres'
    root = Path(tempfile.mkdtemp(prefix="gw-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    user = []
    if os.geteuid() == 0:  # initdb refuses to run as root: run the test server as the 'postgres' user
        if shutil.which("runuser") is None or subprocess.call(["id", "postgres"], stdout=subprocess.DEVNULL) != 0:
            pytest.skip("running as root and there is no 'postgres' user to run a PostgreSQL test server")
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
        user = ["runuser", "-u", "postgres", "--"]
    subprocess.run([*user, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "gw"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([*user, str(bin_dir / "pg_ctl"), "-D", str(data), "-o", f"-k {sock} -c listen_addresses=''",
                    "-l", str(root / "log"), "-w", "start"], check=True, stdout=subprocess.DEVNULL)
    try:
        subprocess.run([*user, str(bin_dir / "createdb"), "-h", str(sock), "-U", "gw", "gwtest"], check=True)
        yield f"postgresql://gw@/gwtest?host={sock}"
    finally:
        subprocess.run([*user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fresh_postgres(postgres_url: str) -> str:
    """The URL of a new, empty database on the throw-away PostgreSQL server."""
    import uuid

    import psycopg

    name = f"gw_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres_url.replace("/gwtest?", f"/{name}?")


@pytest.fixture
def port() -> int:
    """A free TCP port on 127.0.0.1."""
    return free_port()


@pytest.fixture
def server_process() -> type[Server]:
    """The class that runs ``gammonwatch serve`` in a subprocess (``Server(db, *args)``)."""
    return Server


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
