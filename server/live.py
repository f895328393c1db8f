"""Live tables: the server's state, kept by replaying the event log through the referee.

:class:`Live` is the Python API the pipeline calls (issue "End to end"): create a table, start a
match, then :meth:`Live.ingest` each table state as the vision tracker produces it. From another
thread use :meth:`Live.feeder` (a thread-safe handle). Every input is appended to the event log
*before* it is applied (write-ahead), then applied to the table's referee, then published to the
WebSocket subscribers; the referee's alerts are logged too. On start-up :meth:`Live.restore`
replays the inputs of the log through fresh referees, which rebuilds exactly the same state,
alerts and transcript (the referee is deterministic).

All methods except :meth:`Feeder.put` must run on the event loop's thread (they touch asyncio
queues); none of them awaits, so each input is applied atomically.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from rules.referee.tablestate import TableState, TableStateError
from server.engine import Engine, EngineError, EngineFactory
from server.hub import Hub
from server.models import MAX_STATE_BYTES, MatchCreate, TableCreate
from server.storage import Event, EventLog

log = logging.getLogger("gammonwatch.server")

ALERT_OPEN = "open"
ALERT_LOGGED = "logged"
ALERTING = frozenset({"VIOL", "IRREG", "WARN"})
"""Severities a monitor must look at (``rules.referee.alerts.Severity.is_alert``); EVENT and INFO are logged."""
DECISION_STATUS = {
    "acknowledge": "acknowledged",
    "let_stand": "let_stand",
    "require_correction": "correction_required",
}


class StageTimer(Protocol):
    def add(self, stage: str, ms: float) -> None: ...


class NotFound(LookupError):
    """A table, match or alert id that does not exist."""


class Conflict(ValueError):
    """A request that is well-formed but impossible now (e.g. a state for a table with no match)."""


@dataclass
class FrameInfo:
    """The latest camera frame of a table (not logged: frames are evidence clips, not events)."""

    frame_id: int
    jpeg: bytes
    width: int
    height: int
    detections: list[dict[str, Any]]

    def meta(self) -> dict[str, Any]:
        """What the pages get (the JPEG itself is fetched from ``/api/tables/{id}/frame.jpg``)."""
        return {"frame_id": self.frame_id, "width": self.width, "height": self.height, "detections": self.detections}


@dataclass
class MatchRecord:
    id: str
    table_id: str
    config: dict[str, Any]
    started: float
    engine: Engine
    alerts: dict[str, dict[str, Any]] = field(default_factory=dict)
    states: int = 0
    last_state: dict[str, Any] | None = None
    last_state_ts: float | None = None

    def info(self) -> dict[str, Any]:
        return {"id": self.id, "table_id": self.table_id, "started": self.started, "states": self.states, **self.config}

    def open_alerts(self) -> int:
        """Alerts still waiting for the monitor's decision."""
        return sum(1 for a in self.alerts.values() if a["status"] == ALERT_OPEN)


@dataclass
class TableRecord:
    id: str
    name: str
    source: str | None
    created: float
    match: MatchRecord | None = None
    frame: FrameInfo | None = None
    pipeline: dict[str, Any] | None = None
    """The live pipeline's status (source state, frames, drops, per-stage timings); not logged."""

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "source": self.source,
            "created": self.created,
            "match_id": self.match.id if self.match else None,
            "has_camera": self.frame is not None,
            "open_alerts": self.match.open_alerts() if self.match else 0,
        }


class Live:
    """All tables and matches; see the module docstring."""

    def __init__(self, log_: EventLog, hub: Hub, engine_factory: EngineFactory) -> None:
        self.log = log_
        self.engine_factory = engine_factory
        self.hub = hub
        self.tables: dict[str, TableRecord] = {}
        self.matches: dict[str, MatchRecord] = {}
        self._replaying = False
        self.restored_events = 0
        self.stage_times: dict[str, StageTimer] = {}
        """Per table: where the referee and push times go (a ``server.pipeline.StageTimes``, set by the pipeline's feed)."""
        self.replay_errors: list[str] = []
        """Events of the log that could not be replayed at start-up (shown by /api/health)."""

    # ----------------------------------------------------------------------------- start-up
    def restore(self) -> int:
        """Rebuild every table, match, alert and transcript from the event log; returns events read."""
        self._replaying = True
        n = 0
        try:
            for event in self.log.read():
                try:
                    self._apply_logged(event)
                except Exception as exc:  # noqa: BLE001 - one bad event must not keep the server down
                    # (e.g. a referee bug fixed since, or an older schema): report it, keep the rest
                    self.replay_errors.append(f"event {event.seq} ({event.kind}, table {event.table_id}): {exc!r}")
                    log.error("event log: event %d could not be replayed: %r", event.seq, exc)
                n += 1
        finally:
            self._replaying = False
        self.restored_events = n
        return n

    def _apply_logged(self, e: Event) -> None:
        p = e.payload
        if e.kind == "table":
            self._create_table(e.table_id, p["name"], p.get("source"), e.ts)
        elif e.kind == "match":
            self._start_match(e.table_id, p["match_id"], p["config"], e.ts)
        elif e.kind == "state":
            self._apply_state(e.table_id, TableState.from_json(p["state"]), p["state"], e.ts)
        elif e.kind == "action":
            self._apply_action(e.table_id, p, e.ts)
        # "alert" events are outputs: the referee regenerates them on replay.

    # ----------------------------------------------------------------------------- tables
    def table(self, table_id: str) -> TableRecord:
        t = self.tables.get(table_id)
        if t is None:
            raise NotFound(f"no table {table_id!r}; GET /api/tables lists them")
        return t

    def match(self, match_id: str) -> MatchRecord:
        m = self.matches.get(match_id)
        if m is None:
            raise NotFound(f"no match {match_id!r}; GET /api/matches lists them")
        return m

    def create_table(self, body: TableCreate) -> TableRecord:
        table_id = body.id or _new_id("t", self.tables)
        if table_id in self.tables:
            raise Conflict(f"table {table_id!r} exists already; choose another id or omit it")
        now = time.time()
        self.log.append(table_id, "table", {"name": body.name, "source": body.source}, now)
        t = self._create_table(table_id, body.name, body.source, now)
        self.hub.publish(table_id, "table", {"table": t.info()})
        return t

    def _create_table(self, table_id: str, name: str, source: str | None, ts: float) -> TableRecord:
        t = TableRecord(table_id, name, source, ts)
        self.tables[table_id] = t
        return t

    # ----------------------------------------------------------------------------- matches
    def start_match(self, table_id: str, body: MatchCreate) -> MatchRecord:
        """Start a new match on a table (the previous one, if any, stays downloadable)."""
        self.table(table_id)
        config = body.model_dump(mode="json")
        self.engine_factory.check_config(config)  # raises EngineError before anything is logged
        match_id = _new_id("m", self.matches)
        now = time.time()
        self.log.append(table_id, "match", {"match_id": match_id, "config": config}, now)
        m = self._start_match(table_id, match_id, config, now)
        self.hub.publish(table_id, "table", {"table": self.tables[table_id].info(), "match": m.info()})
        self._publish_view(self.tables[table_id])
        return m

    def _start_match(self, table_id: str, match_id: str, config: dict[str, Any], ts: float) -> MatchRecord:
        m = MatchRecord(match_id, table_id, config, ts, self.engine_factory(config))
        self.matches[match_id] = m
        t = self.tables[table_id]
        t.match = m
        self._record_alerts(t, m, m.engine.start(), ts)
        return m

    def _current(self, table_id: str) -> tuple[TableRecord, MatchRecord]:
        t = self.table(table_id)
        if t.match is None:
            raise Conflict(f"table {table_id!r} has no match; start one with POST /api/tables/{table_id}/matches")
        return t, t.match

    # ----------------------------------------------------------------------------- table states
    def ingest(self, table_id: str, state: dict[str, Any] | str | bytes) -> list[dict[str, Any]]:
        """Feed one table state (JSON text or a decoded object); returns the alerts it raised.

        Raises :class:`TableStateError` (a ``ValueError``) naming the field and the reason when the
        state breaks the schema; nothing is logged or changed then.
        """
        t, _ = self._current(table_id)
        if isinstance(state, str | bytes):
            if len(state) > MAX_STATE_BYTES:
                raise TableStateError("$", f"table state of {len(state)} bytes; at most {MAX_STATE_BYTES} are accepted")
            try:
                state = json.loads(state)
            except json.JSONDecodeError as exc:
                raise TableStateError("$", f"not JSON: {exc}") from None
        parsed = TableState.from_json(state)
        raw = parsed.to_json()  # canonical form: what is logged is exactly what is replayed
        now = time.time()
        self.log.append(table_id, "state", {"state": raw}, now)
        return self._apply_state(table_id, parsed, raw, now)

    def _apply_state(self, table_id: str, parsed: TableState, raw: dict[str, Any], ts: float) -> list[dict[str, Any]]:
        t, m = self._current(table_id)
        m.states += 1
        m.last_state = raw
        m.last_state_ts = ts
        timer = None if self._replaying else self.stage_times.get(table_id)
        t0 = time.perf_counter()
        alerts = m.engine.feed(parsed)
        t1 = time.perf_counter()
        added = self._record_alerts(t, m, alerts, ts)
        self._publish_view(t)
        if timer is not None:
            timer.add("referee", (t1 - t0) * 1e3)
            timer.add("push", (time.perf_counter() - t1) * 1e3)
        return added

    def _record_alerts(self, t: TableRecord, m: MatchRecord, alerts: list[dict[str, Any]], ts: float) -> list[dict[str, Any]]:
        added = []
        for a in alerts:
            alert_id = f"{m.id}-{a['id']}"  # the referee numbers its alerts 1, 2, ... per match
            record = {**a, "id": alert_id, "ref_id": a["id"], "match_id": m.id, "ts": ts,
                      "status": ALERT_OPEN if a["severity"] in ALERTING else ALERT_LOGGED, "decisions": []}
            m.alerts[alert_id] = record
            added.append(record)
            if not self._replaying:
                self.log.append(t.id, "alert", {"alert": record}, ts)
                self.hub.publish(t.id, "alert", {"alert": record})
        return added

    # ----------------------------------------------------------------------------- monitor actions
    def act(self, table_id: str, action: dict[str, Any]) -> dict[str, Any]:
        """Apply a monitor action (already validated by the REST layer); logged first, then applied.

        ``action["action"]`` is one of ``decide``, ``set_position``, ``undo``, ``cube``, ``score``,
        ``announce`` (a resignation or forfeit the camera cannot see).
        Returns what changed: ``{"alert": ...}`` for a decision, else ``{"view": ...}``.
        """
        _, m = self._current(table_id)
        action = {**action, "match_id": m.id}
        self._check_action(m, action)
        now = time.time()
        self.log.append(table_id, "action", action, now)
        return self._apply_action(table_id, action, now)

    def _check_action(self, m: MatchRecord, action: dict[str, Any]) -> None:
        """Everything that could make an action fail is checked before it is logged."""
        if action["action"] == "decide":
            alert = m.alerts.get(action["alert_id"])
            if alert is None:
                raise NotFound(f"no alert {action['alert_id']!r} in match {m.id}; GET .../alerts lists them")
        else:
            m.engine.check_action(action)

    def _apply_action(self, table_id: str, action: dict[str, Any], ts: float) -> dict[str, Any]:
        t, m = self._current(table_id)
        if action.get("match_id") != m.id:  # an action logged for an earlier match (cannot happen live)
            log.warning("event log: action for match %s while %s is current; skipped", action.get("match_id"), m.id)
            return {}
        kind = action["action"]
        if kind == "decide":
            alert = m.alerts[action["alert_id"]]
            alert["status"] = DECISION_STATUS[action["decision"]]
            alert["decisions"].append({"decision": action["decision"], "note": action.get("note", ""), "ts": ts})
            new_alerts = m.engine.decide(alert, action["decision"])
            if not self._replaying:
                self.hub.publish(t.id, "alert_status", {"alert": alert})
            self._record_alerts(t, m, new_alerts, ts)
            self._publish_view(t)
            return {"alert": alert}
        new_alerts = m.engine.apply_action(action)
        self._record_alerts(t, m, new_alerts, ts)
        view = self._publish_view(t)
        return {"view": view}

    # ----------------------------------------------------------------------------- camera frames
    def set_frame(self, table_id: str, frame: FrameInfo) -> None:
        """Show a camera frame with its detections on the monitor page (latest only; not logged)."""
        t = self.table(table_id)
        t.frame = frame
        self.hub.publish(table_id, "frame", {"frame": frame.meta()})

    def set_pipeline(self, table_id: str, status: dict[str, Any]) -> None:
        """The live pipeline's status for the pages (latest only; not logged)."""
        t = self.table(table_id)
        t.pipeline = status
        self.hub.publish(table_id, "pipeline", {"pipeline": status})

    # ----------------------------------------------------------------------------- views
    def view(self, table_id: str) -> dict[str, Any]:
        """What the pages draw: the table as seen, the match as the referee follows it."""
        t = self.table(table_id)
        m = t.match
        out: dict[str, Any] = {"table": t.info(), "match": None, "seen": None, "referee": None}
        if m is not None:
            out["match"] = m.info()
            out["seen"] = m.last_state
            out["seen_ts"] = m.last_state_ts
            out["referee"] = m.engine.view()
            out["open_alerts"] = m.open_alerts()
        return out

    def _publish_view(self, t: TableRecord) -> dict[str, Any] | None:
        if self._replaying:
            return None
        view = self.view(t.id)
        self.hub.publish(t.id, "view", {"view": view})
        return view

    def alerts(self, table_id: str) -> list[dict[str, Any]]:
        t = self.table(table_id)
        return list(t.match.alerts.values()) if t.match else []

    def snapshot(self, table_id: str) -> dict[str, Any]:
        """What a new WebSocket subscriber starts from: the view, the alerts and the latest camera frame."""
        frame = self.table(table_id).frame
        return {"view": self.view(table_id), "alerts": self.alerts(table_id),
                "frame": None if frame is None else frame.meta(), "pipeline": self.table(table_id).pipeline}

    def transcript(self, match_id: str) -> str:
        return self.match(match_id).engine.transcript_mat()

    def feeder(self, table_id: str, loop: asyncio.AbstractEventLoop | None = None) -> Feeder:
        """A thread-safe handle that feeds table states of one table from any thread."""
        self.table(table_id)
        return Feeder(self, table_id, loop or asyncio.get_running_loop())


class Feeder:
    """Feeds table states into :class:`Live` from another thread (e.g. the vision pipeline's)."""

    def __init__(self, live: Live, table_id: str, loop: asyncio.AbstractEventLoop) -> None:
        self._live = live
        self._table_id = table_id
        self._loop = loop

    def put(self, state: dict[str, Any] | str, on_error: Callable[[Exception], None] | None = None) -> None:
        """Queue one table state; returns at once. Errors go to ``on_error`` (default: logged)."""

        def run() -> None:
            try:
                self._live.ingest(self._table_id, state)
            except (ValueError, LookupError, EngineError) as exc:
                (on_error or (lambda e: log.error("table %s: state rejected: %s", self._table_id, e)))(exc)

        self._loop.call_soon_threadsafe(run)

    def put_frame(self, frame: FrameInfo) -> None:
        self._loop.call_soon_threadsafe(self._live.set_frame, self._table_id, frame)


def _new_id(prefix: str, existing: dict[str, Any]) -> str:
    """The next free id of the form ``t1``, ``t2`` ... (ids are logged, so replay never calls this)."""
    n = len(existing) + 1
    while f"{prefix}{n}" in existing:
        n += 1
    return f"{prefix}{n}"
