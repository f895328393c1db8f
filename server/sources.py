"""Where a table's states come from: the seam between ``gammonwatch serve`` and the pipeline.

A source is an async iterator of :class:`SourceItem`: a table state (a JSON object of
``schemas/table_state.schema.json``), optionally with a camera frame to show on the monitor page.
:func:`open_source` turns a ``--source`` spec into one.

- ``replay:STATES.jsonl`` (what ``--replay`` uses): a recorded table-state stream, played in real
  time by the states' ``t`` (seconds), scaled by ``speed``.
- ``camera:N``, ``video:PATH``, ``rtsp://...``, ``images:DIR``: the live pipeline (frame source ->
  vision -> tracker) belongs to the end-to-end work (issue 7) and is **not available yet**; they
  raise :class:`SourceUnavailable` with that message. To add them, implement a :class:`Source`
  that yields :class:`SourceItem` and return it from :func:`open_source`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rules.referee.stream import BadRecord, read_stream
from server.live import FrameInfo

log = logging.getLogger("gammonwatch.serve")

LIVE_PREFIXES = ("camera:", "video:", "rtsp://", "rtsps://", "images:")


class SourceUnavailable(RuntimeError):
    """A ``--source`` that this build cannot open; the message says why and what to use instead."""


class SourceError(ValueError):
    """A source that cannot be read (missing file, bad line); the message names the file and line."""


@dataclass(frozen=True)
class SourceItem:
    state: dict[str, Any] | None = None
    frame: FrameInfo | None = None
    announce: dict[str, Any] | None = None
    """A spoken act recorded in the stream (``{"type": "announce", "act": "resign", ...}``)."""


class Source(Protocol):
    description: str

    def items(self, skip_states: int = 0) -> AsyncIterator[SourceItem]: ...


class ReplaySource:
    """A recorded table-state stream (JSON lines), played in real time.

    Lines with ``"type": "table_state"`` are states; a ``"type": "match_setup"`` line (usually the
    first) sets up the match; ``"type": "announce"`` lines are spoken acts (resignations) and are
    applied where they stand; blank lines and lines starting with ``#`` are skipped. ``speed`` 2.0
    plays twice as fast; 0 plays as fast as possible.
    """

    def __init__(self, path: str | Path, speed: float = 1.0) -> None:
        self.path = Path(path)
        if speed < 0:
            raise SourceError(f"--speed must be >= 0 (0 = as fast as possible); got {speed}")
        self.speed = speed
        self.description = f"recorded stream {self.path}"
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such file; --replay needs a table-state stream (JSON lines)")
        self._lines = self._read()

    def _read(self) -> list[tuple[int, dict[str, Any]]]:
        """The stream's records, read by the referee's own reader (``rules.referee.read_stream``).

        A line that is not JSON or not a known record stops here with its line number; a table state
        that breaks the schema is skipped with a warning naming the line, field and reason (the
        referee would reject it too), so one bad frame does not stop a recording.
        """
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SourceError(f"{self.path}: cannot read it ({exc}); expected UTF-8 JSON lines") from exc
        lines = ["" if line.lstrip().startswith("#") else line for line in text.splitlines()]
        out: list[tuple[int, dict[str, Any]]] = []
        for rec in read_stream(lines):
            if isinstance(rec, BadRecord):
                if rec.field in ("$", "type"):
                    raise SourceError(f"{self.path} line {rec.line}: {rec.reason}; each line must be one "
                                      "table_state, match_setup or announce object")
                log.warning("%s line %d: table state skipped: %s: %s", self.path, rec.line, rec.field, rec.reason)
            elif rec.kind == "table_state":
                out.append((rec.line, rec.data.to_json()))
            elif rec.kind == "match_setup":
                out.append((rec.line, rec.data.to_json()))
            elif rec.kind == "announce":
                out.append((rec.line, rec.data))
            else:
                log.warning("%s line %d: a recorded monitor decision is not replayed; decide on the monitor page",
                            self.path, rec.line)
        return out

    @property
    def match_setup(self) -> dict[str, Any] | None:
        for _, obj in self._lines:
            if obj["type"] == "match_setup":
                return obj
        return None

    @property
    def state_count(self) -> int:
        return sum(1 for _, obj in self._lines if obj["type"] == "table_state")

    async def items(self, skip_states: int = 0) -> AsyncIterator[SourceItem]:
        """The records after the first ``skip_states`` states (already fed before a restart), paced by ``t``."""
        records = [obj for _, obj in self._lines if obj["type"] != "match_setup"]
        seen = 0
        for i, obj in enumerate(records):
            if seen == skip_states:
                records = records[i:]
                break
            seen += obj["type"] == "table_state"
        else:
            records = []
        start_wall = time.monotonic()
        start_t: float | None = None
        for obj in records:
            if obj["type"] == "announce":
                yield SourceItem(announce=obj)
                continue
            t = obj.get("t")
            if self.speed > 0 and isinstance(t, int | float):
                if start_t is None:
                    start_t = float(t)
                wait = (float(t) - start_t) / self.speed - (time.monotonic() - start_wall)
                if wait > 0:
                    await asyncio.sleep(wait)
            else:
                await asyncio.sleep(0)
            yield SourceItem(state=obj)


def open_source(spec: str, *, speed: float = 1.0, calibration: str | None = None) -> Source:
    """The source for a ``--source`` spec (``replay:PATH`` or a live spec, see the module docstring)."""
    if spec.startswith("replay:"):
        return ReplaySource(spec.removeprefix("replay:"), speed)
    if spec.startswith(LIVE_PREFIXES):
        raise SourceUnavailable(
            f"--source {spec}: live sources (camera:N, video:PATH, rtsp://..., images:DIR"
            f"{' with --calibration ' + calibration if calibration else ''}) are not available yet in this build: "
            "the frame source -> vision -> tracker pipeline is the end-to-end work's (issue 7). "
            "Use --replay STATES.jsonl to play a recorded table-state stream."
        )
    raise SourceError(
        f"--source {spec!r}: unknown kind; use camera:N, video:PATH, rtsp://..., images:DIR or replay:STATES.jsonl"
    )
