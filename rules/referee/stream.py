"""Reading a table-state stream (JSON lines) and running the referee over it.

A stream is one JSON object per line, each with a ``type``:

- ``match_setup`` (optional, first): :class:`rules.referee.setup.MatchSetup` (``schemas/match_setup.schema.json``);
- ``table_state``: :class:`rules.referee.tablestate.TableState` (``schemas/table_state.schema.json``);
- ``announce``: a spoken act an operator entered, e.g. ``{"type": "announce", "act": "resign",
  "player": "dark", "kind": "gammon", "frame": 812}``;
- ``monitor``: a monitor decision, e.g. ``{"type": "monitor", "action": "let_stand", "alert": 17}``
  (see :meth:`rules.referee.machine.Referee.decide`).

A line that is not JSON or breaks the schema is reported (``INPUT_REJECTED`` naming the line, the field
and the reason) and skipped; the referee keeps its state.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rules.referee.alerts import Alert
from rules.referee.machine import Referee
from rules.referee.profiles import Profile
from rules.referee.setup import MatchSetup
from rules.referee.tablestate import TableState, TableStateError


@dataclass(frozen=True)
class Record:
    line: int
    kind: str
    data: Any
    """A TableState, a MatchSetup, or the raw dict of an event."""


@dataclass(frozen=True)
class BadRecord:
    line: int
    frame: int | None
    field: str
    reason: str


def read_stream(lines: Iterable[str]) -> Iterator[Record | BadRecord]:
    """Parse the lines of a stream; never raises for bad content (yields :class:`BadRecord`)."""
    for lineno, text in enumerate(lines, start=1):
        text = text.strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield BadRecord(lineno, None, "$", f"not JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(obj, dict):
            yield BadRecord(lineno, None, "$", "each line must be a JSON object")
            continue
        kind = obj.get("type")
        frame = obj.get("frame") if isinstance(obj.get("frame"), int) else None
        try:
            if kind == "table_state":
                yield Record(lineno, kind, TableState.from_json(obj))
            elif kind == "match_setup":
                yield Record(lineno, kind, MatchSetup.from_json(obj))
            elif kind in ("announce", "monitor"):
                yield Record(lineno, kind, obj)
            else:
                yield BadRecord(lineno, frame, "type", f"must be table_state, match_setup, announce or monitor; got {kind!r}")
        except TableStateError as exc:
            yield BadRecord(lineno, frame, exc.field, exc.reason)


def run_stream(lines: Iterable[str], profile: Profile, setup: MatchSetup | None = None) -> tuple[Referee, Iterator[Alert]]:
    """A referee and a lazy iterator of every alert it raises over ``lines``.

    The set-up is the stream's ``match_setup`` line unless ``setup`` is given (command-line options).
    """
    records = read_stream(lines)
    first: Record | BadRecord | None = next(records, None)
    if setup is None and isinstance(first, Record) and first.kind == "match_setup":
        setup = first.data
        first = None
    elif isinstance(first, Record) and first.kind == "match_setup":
        first = None
    referee = Referee(setup or MatchSetup(), profile)

    def alerts() -> Iterator[Alert]:
        yield from referee.alerts
        pending = [] if first is None else [first]

        def all_records() -> Iterator[Record | BadRecord]:
            yield from pending
            yield from records

        for rec in all_records():
            if isinstance(rec, BadRecord):
                yield from referee.reject(rec.frame, f"line {rec.line}: {rec.field}", rec.reason)
            elif rec.kind == "table_state":
                yield from referee.feed(rec.data)
            elif rec.kind == "announce":
                try:
                    yield from referee.announce(rec.data)
                except (ValueError, KeyError) as exc:
                    yield from referee.reject(rec.data.get("frame"), f"line {rec.line}: announce", str(exc))
            elif rec.kind == "monitor":
                try:
                    yield from referee.decide(rec.data)
                except (ValueError, KeyError, TypeError) as exc:
                    yield from referee.reject(rec.data.get("frame"), f"line {rec.line}: monitor", str(exc))
            else:  # a second match_setup mid-stream
                yield from referee.reject(None, f"line {rec.line}: type", "match_setup must be the first line")

    return referee, alerts()
