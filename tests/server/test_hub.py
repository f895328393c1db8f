"""Pub/sub fan-out: one bounded queue per subscriber; a slow subscriber is cut off, never the others."""

from __future__ import annotations

import asyncio
import json

import pytest

from server.hub import Hub


def test_every_subscriber_gets_every_message_in_order() -> None:
    async def run() -> None:
        hub = Hub(queue_size=100)
        subs = [hub.subscribe("t1") for _ in range(5)]
        for i in range(50):
            hub.publish("t1", "view", {"i": i})
        for sub in subs:
            got = [json.loads(sub.queue.get_nowait().text) for _ in range(50)]  # type: ignore[union-attr]
            assert [m["i"] for m in got] == list(range(50))
            assert [m["seq"] for m in got] == list(range(1, 51))
            assert sub.queue.empty()

    asyncio.run(run())


def test_a_full_subscriber_is_marked_lagged_and_the_others_keep_receiving() -> None:
    async def run() -> None:
        hub = Hub(queue_size=10)
        slow = hub.subscribe("t1")
        fast = hub.subscribe("t1")
        for i in range(30):
            hub.publish("t1", "view", {"i": i})
            while not fast.queue.empty():  # the fast client drains as it goes
                fast.queue.get_nowait()
        assert slow.lagged and not fast.lagged
        assert slow.queue.get_nowait() is None  # the sender's signal to close the socket
        assert slow.queue.empty()
        hub.publish("t1", "view", {"i": 99})
        assert slow.queue.empty()  # nothing more is queued for a lagged subscriber
        assert json.loads(fast.queue.get_nowait().text)["i"] == 99  # type: ignore[union-attr]

    asyncio.run(run())


def test_topics_are_separate_and_kinds_filter() -> None:
    async def run() -> None:
        hub = Hub()
        a = hub.subscribe("t1", kinds=frozenset({"view"}))
        b = hub.subscribe("t2")
        hub.publish("t1", "alert", {})
        hub.publish("t1", "view", {})
        hub.publish("t2", "view", {})
        assert a.queue.qsize() == 1 and json.loads(a.queue.get_nowait().text)["type"] == "view"  # type: ignore[union-attr]
        assert b.queue.qsize() == 1 and json.loads(b.queue.get_nowait().text)["seq"] == 1  # type: ignore[union-attr]
        hub.unsubscribe(a)
        assert hub.subscriber_count("t1") == 0

    asyncio.run(run())


def test_history_gives_the_view_as_of_a_moment_for_delayed_feeds() -> None:
    hub = Hub(history_seconds=100)
    hub.publish("t1", "view", {"v": 1}, ts=10.0)
    hub.publish("t1", "alert", {}, ts=11.0)
    hub.publish("t1", "view", {"v": 2}, ts=20.0)
    base = hub.last_before("t1", "view", 15.0)
    assert base is not None and json.loads(base.text)["v"] == 1
    assert [m.seq for m in hub.history_since("t1", 15.0)] == [3]
    hub.publish("t1", "view", {"v": 3}, ts=200.0)  # older than 100 s is forgotten
    assert hub.last_before("t1", "view", 150.0) is None


def test_queue_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="queue_size"):
        Hub(queue_size=0)
