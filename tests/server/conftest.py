"""Fixtures of the server tests: the recorded stream with an illegal move, an app on a fresh database."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from server.app import Settings, create_app

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``gammonwatch serve ...`` in a subprocess, waited for until /api/health answers."""

    def __init__(self, db: Path, *args: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "GAMMONWATCH_TOKEN": TOKEN}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main(sys.argv[1:]))",
             "serve", "--db", str(db), "--port", str(self.port), "--log-level", "warning", *args],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited early: {self.proc.stdout.read() if self.proc.stdout else ''}")
            try:
                if httpx.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.kill()
        raise AssertionError("server did not answer /api/health within 30 s")

    def get(self, path: str) -> Any:
        r = httpx.get(self.base + path, timeout=10)
        r.raise_for_status()
        return r.json() if "json" in r.headers.get("content-type", "") and not path.endswith(".jsonl") else r.text

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return httpx.post(self.base + path, json=body, headers=AUTH, timeout=10)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)


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
