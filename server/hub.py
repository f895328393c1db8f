"""Pub/sub fan-out to WebSocket clients: one bounded ``asyncio.Queue`` per subscriber.

``publish`` never awaits: it encodes the message once and puts the same text into every
subscriber's queue with ``put_nowait``. Each WebSocket has its own sender task draining its own
queue, so a slow client only fills its own queue and never stalls the referee or other clients
(the design of encode/broadcaster, not the tutorial's ``ConnectionManager`` that awaits each
socket in turn).

Policy for a client that falls behind: when its queue is full, the subscriber is marked *lagged*,
its queue is emptied, and its sender closes the socket with code 4008 and the reason
"lagged". The pages reconnect at once and start again from a fresh snapshot. A client therefore
sees every message in order, or a clear break followed by a complete snapshot; never a silent gap
(decision 0502).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

#: WebSocket close code sent to a subscriber that fell too far behind (4000-4999: application use).
LAGGED_CLOSE_CODE = 4008


@dataclass(frozen=True)
class Message:
    """One published message: its kind, the table's sequence number, a timestamp and the JSON text."""

    kind: str
    seq: int
    ts: float
    text: str


@dataclass(eq=False)
class Subscriber:
    topic: str
    queue: asyncio.Queue[Message | None]
    kinds: frozenset[str] | None = None
    lagged: bool = False
    dropped: int = 0

    def wants(self, kind: str) -> bool:
        return self.kinds is None or kind in self.kinds


HISTORY_KINDS = frozenset({"view", "table"})
"""Kinds kept in the history for delayed (broadcast) feeds: what the overlay draws."""


@dataclass
class _Topic:
    seq: int = 0
    subscribers: set[Subscriber] = field(default_factory=set)
    history: deque[Message] = field(default_factory=lambda: deque(maxlen=5000))


class Hub:
    """Topics (one per table) with per-subscriber bounded queues and a short history for delayed feeds."""

    def __init__(self, queue_size: int = 512, history_seconds: float = 600.0) -> None:
        if queue_size < 1:
            raise ValueError(f"queue_size must be at least 1, got {queue_size}")
        self.queue_size = queue_size
        self.history_seconds = history_seconds
        self._topics: dict[str, _Topic] = {}

    def _topic(self, name: str) -> _Topic:
        topic = self._topics.get(name)
        if topic is None:
            topic = self._topics[name] = _Topic()
        return topic

    def seq(self, topic: str) -> int:
        """The sequence number of the last message published on ``topic`` (0 before the first)."""
        return self._topic(topic).seq

    def publish(self, topic: str, kind: str, body: dict[str, Any], ts: float | None = None) -> Message:
        """Send ``body`` (plus ``type``, ``seq``, ``ts`` and ``table_id``) to every subscriber of ``topic``."""
        t = self._topic(topic)
        t.seq += 1
        now = time.time() if ts is None else ts
        payload = {"type": kind, "table_id": topic, "seq": t.seq, "ts": now, **body}
        msg = Message(kind, t.seq, now, json.dumps(payload, separators=(",", ":")))
        if kind in HISTORY_KINDS:
            t.history.append(msg)
        horizon = now - self.history_seconds
        while t.history and t.history[0].ts < horizon:
            t.history.popleft()
        for sub in t.subscribers:
            if sub.lagged or not sub.wants(kind):
                continue
            try:
                sub.queue.put_nowait(msg)
            except asyncio.QueueFull:
                self._mark_lagged(sub)
        return msg

    @staticmethod
    def _mark_lagged(sub: Subscriber) -> None:
        sub.lagged = True
        sub.dropped = sub.queue.qsize()
        while not sub.queue.empty():
            sub.queue.get_nowait()
        sub.queue.put_nowait(None)  # wakes the sender, which closes the socket

    def subscribe(self, topic: str, kinds: frozenset[str] | None = None, extra_capacity: int = 0) -> Subscriber:
        """A new subscriber; messages published from now on are queued for it."""
        sub = Subscriber(topic, asyncio.Queue(maxsize=self.queue_size + extra_capacity), kinds)
        self._topic(topic).subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self._topic(sub.topic).subscribers.discard(sub)

    def history_since(self, topic: str, ts: float) -> list[Message]:
        """Messages of ``topic`` (of the :data:`HISTORY_KINDS`) published after ``ts``, still held in the history."""
        return [m for m in self._topic(topic).history if m.ts > ts]

    def last_before(self, topic: str, kind: str, ts: float) -> Message | None:
        """The last message of ``kind`` published at or before ``ts`` still in the history window."""
        found = None
        for m in self._topic(topic).history:
            if m.ts > ts:
                break
            if m.kind == kind:
                found = m
        return found

    def subscriber_count(self, topic: str | None = None) -> int:
        if topic is not None:
            return len(self._topic(topic).subscribers)
        return sum(len(t.subscribers) for t in self._topics.values())
