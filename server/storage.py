"""The event log: every table state, alert and monitor action, appended in order.

One table, ``events``, holds everything the server was told or decided. Live state is never stored
on its own: it is rebuilt on start-up by replaying the log through the referee (see
:mod:`server.live`), so the log is the single source of truth and a crash loses nothing that was
acknowledged.

SQLite (WAL mode) is the default; PostgreSQL is chosen by a URL (``GAMMONWATCH_DB=postgresql://...``)
and goes through the same :class:`EventLog` code. Only a thin :class:`_Backend` differs: the DDL
of the sequence column and the parameter marker. psycopg is the optional extra ``[postgres]``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The kinds of event the log holds. ``state``, ``action`` and the table/match events are inputs
#: (replayed on start-up); ``alert`` events are outputs of the referee, kept for the audit trail and
#: the JSON-lines export, and regenerated (not re-read) on replay.
EVENT_KINDS = ("table", "match", "state", "alert", "action")


class StorageError(RuntimeError):
    """The event log cannot be opened or written; the message names the database and the fix."""


@dataclass(frozen=True)
class Event:
    """One row of the log."""

    seq: int
    ts: float
    table_id: str
    kind: str
    payload: dict[str, Any]

    def to_json(self) -> str:
        """One JSON line, as in the ``events.jsonl`` export."""
        return json.dumps(
            {"seq": self.seq, "ts": self.ts, "table_id": self.table_id, "kind": self.kind, "payload": self.payload},
            separators=(",", ":"),
            sort_keys=True,
        )


class _Backend:
    """What differs between the databases: connecting, the DDL, the parameter marker and how an INSERT
    returns its new sequence number. Everything else is shared (one connection behind a lock, so
    the export's reads may run in a worker thread while the event loop appends)."""

    placeholder = "?"
    description = ""
    returning = ""
    _conn: Any

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def _new_key(self, cursor: Any) -> int | None:
        return int(cursor.lastrowid) if cursor.lastrowid is not None else None

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int | None:
        """Run one INSERT (its own transaction) and return the new row's sequence number."""
        with self._lock:
            return self._new_key(self._conn.execute(sql + self.returning, params))

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._conn.execute(sql, params).fetchall())

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _SQLite(_Backend):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.description = f"SQLite database {path}"
        if path != ":memory:":
            parent = Path(path).expanduser().resolve().parent
            if not parent.is_dir():
                raise StorageError(f"cannot open {self.description}: folder {parent} does not exist; create it or pass --db")
        try:
            # autocommit mode: each INSERT is its own transaction, durable once execute() returns
            self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a killed process (not a power cut); see decision 0501
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=5000")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS events ("
                "seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, table_id TEXT NOT NULL,"
                " kind TEXT NOT NULL, payload TEXT NOT NULL)"
            )
        except sqlite3.DatabaseError as exc:
            raise StorageError(
                f"cannot open {self.description}: {exc}; is it a gammonwatch database? Pass another --db path"
            ) from exc


class _Postgres(_Backend):
    placeholder = "%s"
    returning = " RETURNING seq"

    def __init__(self, url: str) -> None:
        super().__init__()
        self.description = f"PostgreSQL database {url.split('@')[-1]}"  # no password in messages
        try:
            import psycopg
        except ModuleNotFoundError as exc:
            raise StorageError(
                "GAMMONWATCH_DB is a postgresql:// URL but psycopg is not installed; "
                "install the extra: pip install -e '.[postgres]'"
            ) from exc
        try:
            self._conn = psycopg.connect(url, autocommit=True)
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS events ("
                "seq BIGSERIAL PRIMARY KEY, ts DOUBLE PRECISION NOT NULL, table_id TEXT NOT NULL,"
                " kind TEXT NOT NULL, payload TEXT NOT NULL)"
            )
        except psycopg.Error as exc:
            raise StorageError(f"cannot open {self.description}: {exc}".strip()) from exc

    def _new_key(self, cursor: Any) -> int | None:
        row = cursor.fetchone()
        return int(row[0]) if row else None


def sqlite_path(url: str) -> str | None:
    """The file path of an SQLite URL or plain path, or None when ``url`` is a PostgreSQL URL."""
    if url.startswith(("postgresql://", "postgres://")):
        return None
    return url.removeprefix("sqlite:///").removeprefix("sqlite://") or ":memory:"


class EventLog:
    """Append-only event log over SQLite or PostgreSQL.

    >>> log = EventLog.open(":memory:")
    >>> log.append("t1", "table", {"name": "Feature 1"})
    1
    >>> [e.kind for e in log.read()]
    ['table']
    """

    def __init__(self, backend: _Backend) -> None:
        self._db = backend

    @classmethod
    def open(cls, url: str) -> EventLog:
        """Open (creating if needed) the log at ``url``: a path, ``sqlite:///path`` or ``postgresql://...``."""
        path = sqlite_path(url)
        return cls(_SQLite(path) if path is not None else _Postgres(url))

    @property
    def description(self) -> str:
        return self._db.description

    def append(self, table_id: str, kind: str, payload: dict[str, Any], ts: float | None = None) -> int:
        """Append one event and return its sequence number; durable when this returns."""
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {kind!r}; expected one of {', '.join(EVENT_KINDS)}")
        p = self._db.placeholder
        text = json.dumps(payload, separators=(",", ":"), sort_keys=True)
        seq = self._db.execute(
            f"INSERT INTO events (ts, table_id, kind, payload) VALUES ({p}, {p}, {p}, {p})",
            (time.time() if ts is None else ts, table_id, kind, text),
        )
        if seq is None:  # pragma: no cover - both backends return the new key
            raise StorageError(f"{self.description}: INSERT returned no sequence number")
        return seq

    def read(self, table_id: str | None = None, after: int = 0, batch: int = 2000) -> Iterator[Event]:
        """Events in order, optionally of one table and after a sequence number; streamed in batches."""
        p = self._db.placeholder
        while True:
            if table_id is None:
                rows = self._db.query(
                    f"SELECT seq, ts, table_id, kind, payload FROM events WHERE seq > {p} ORDER BY seq LIMIT {int(batch)}",
                    (after,),
                )
            else:
                rows = self._db.query(
                    f"SELECT seq, ts, table_id, kind, payload FROM events WHERE table_id = {p} AND seq > {p}"
                    f" ORDER BY seq LIMIT {int(batch)}",
                    (table_id, after),
                )
            for seq, ts, tid, kind, payload in rows:
                yield Event(int(seq), float(ts), str(tid), str(kind), json.loads(payload))
            if len(rows) < batch:
                return
            after = int(rows[-1][0])

    def count(self) -> int:
        rows = self._db.query("SELECT COUNT(*) FROM events")
        return int(rows[0][0])

    def close(self) -> None:
        self._db.close()
