"""The event log: append order, durability across connections, SQLite WAL, errors that name the fix."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from server.storage import EventLog, StorageError, sqlite_path


def test_events_come_back_in_append_order_with_payloads(tmp_path: Path) -> None:
    log = EventLog.open(str(tmp_path / "a.db"))
    seqs = [log.append("t1", "state", {"n": i}) for i in range(5)]
    log.append("t2", "table", {"name": "other"})
    assert seqs == sorted(seqs) and len(set(seqs)) == 5
    assert [e.payload["n"] for e in log.read(table_id="t1")] == [0, 1, 2, 3, 4]
    assert [e.table_id for e in log.read()] == ["t1"] * 5 + ["t2"]
    assert [e.payload["n"] for e in log.read(table_id="t1", after=seqs[2])] == [3, 4]
    log.close()


def test_reading_in_batches_returns_every_event_once(tmp_path: Path) -> None:
    log = EventLog.open(str(tmp_path / "a.db"))
    for i in range(25):
        log.append("t1", "state", {"n": i})
    assert [e.payload["n"] for e in log.read(batch=4)] == list(range(25))


def test_sqlite_log_uses_wal_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    log = EventLog.open(f"sqlite:///{path}")
    log.append("t1", "action", {"action": "undo"})
    log.close()
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    again = EventLog.open(str(path))
    assert [e.payload for e in again.read()] == [{"action": "undo"}]


def test_unknown_event_kind_is_refused(tmp_path: Path) -> None:
    log = EventLog.open(str(tmp_path / "a.db"))
    with pytest.raises(ValueError, match="unknown event kind 'bogus'"):
        log.append("t1", "bogus", {})
    assert log.count() == 0


def test_missing_folder_is_named_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="does not exist; create it or pass --db"):
        EventLog.open(str(tmp_path / "nope" / "a.db"))


def test_a_file_that_is_not_a_database_is_reported_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my notes, not a database\n" * 100)
    with pytest.raises(StorageError, match="is it a gammonwatch database"):
        EventLog.open(str(path))
    assert path.read_text().startswith("my notes")


def test_postgres_url_is_recognised() -> None:
    assert sqlite_path("postgresql://u@h/db") is None
    assert sqlite_path("sqlite:///x/y.db") == "x/y.db"
    assert sqlite_path("plain.db") == "plain.db"


def test_postgres_backend_appends_and_reads_in_order(postgres_url: str) -> None:
    log = EventLog.open(postgres_url)
    base = log.count()
    seqs = [log.append("pg", "state", {"n": i}, ts=time.time()) for i in range(3)]
    assert seqs == sorted(seqs)
    assert [e.payload["n"] for e in log.read(table_id="pg")][-3:] == [0, 1, 2]
    assert log.count() == base + 3
    log.close()
