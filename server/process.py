"""``gammonwatch serve`` in a subprocess on a free loopback port: for tests, benchmarks and end-to-end checks.

    srv = ServerProcess("events.db", "--replay", "states.jsonl", token="secret")
    srv.get("/api/tables/t1/view"); srv.post("/api/tables/t1/states", state)
    srv.kill()          # SIGKILL, as a crash would

``get``/``post`` use httpx (the ``[dev]`` extra), imported only when called.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """Starts the server and waits until ``/api/health`` answers (or raises with its output)."""

    def __init__(self, db: str | Path, *args: str, token: str, timeout: float = 30.0, log_level: str = "warning") -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.token = token
        env = {**os.environ, "GAMMONWATCH_TOKEN": token}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main(sys.argv[1:]))",
             "serve", "--db", str(db), "--port", str(self.port), "--log-level", log_level, *args],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read() if self.proc.stdout else ""
                raise RuntimeError(f"gammonwatch serve exited early (code {self.proc.returncode}): {out}")
            try:
                with urllib.request.urlopen(self.base + "/api/health", timeout=1) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"gammonwatch serve did not answer /api/health within {timeout:.0f} s")

    def get(self, path: str) -> Any:
        """GET ``path``: decoded JSON, or the text for other content (``.jsonl``, ``.mat``)."""
        import httpx

        r = httpx.get(self.base + path, timeout=10)
        r.raise_for_status()
        return r.json() if "json" in r.headers.get("content-type", "") and not path.endswith(".jsonl") else r.text

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST JSON with the monitor token; returns the httpx response."""
        import httpx

        return httpx.post(self.base + path, json=body, headers={"Authorization": f"Bearer {self.token}"}, timeout=10)

    def kill(self) -> None:
        """SIGKILL, as a crash would (nothing is flushed or closed)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM: uvicorn shuts down cleanly."""
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=10)
