"""The per-process wake-up listener (service.storage.streams.Wakeups) on a real Redis: a publish
wakes the waiters of its topic only, and a listener left idle stops and starts again on demand."""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from service.storage.streams import Wakeups


def _publish_until_subscribed(client: redis.Redis, wakeups: Wakeups, channel: str, message: dict[str, str],
                              *waiters: Any) -> None:
    assert wakeups.subscribed.wait(10), "the listener did not subscribe"
    for w in waiters:  # the wake-up every waiter gets when the listener (re)subscribes
        w.wait(0)
    client.publish(channel, json.dumps(message))


def test_a_publish_wakes_the_waiters_of_its_match_only(redis_url: str, namespace: str) -> None:
    client = redis.Redis.from_url(redis_url)
    channel = f"{namespace}events"
    wakeups = Wakeups(client, channel)
    with wakeups.watch("m:one") as one, wakeups.watch("m:two") as two, wakeups.watch("i:key") as inbox:
        _publish_until_subscribed(client, wakeups, channel, {"match": "one", "ply": "1", "kind": "moved"},
                                  one, two, inbox)
        assert one.wait(10)
        assert not two.wait(0.3) and not inbox.wait(0)
        client.publish(channel, json.dumps({"inbox": "key"}))
        assert inbox.wait(10)
        client.publish(channel, "not json")  # ignored, the listener goes on
        client.publish(channel, json.dumps({"match": "two"}))
        assert two.wait(10)
    assert wakeups.waiting() == 0


def test_an_idle_listener_stops_and_the_next_watch_starts_it_again(redis_url: str, namespace: str) -> None:
    client = redis.Redis.from_url(redis_url)
    channel = f"{namespace}events"
    wakeups = Wakeups(client, channel, idle_s=0.2)
    with wakeups.watch("m:one") as one:
        _publish_until_subscribed(client, wakeups, channel, {"match": "one"})
        assert one.wait(10)
    deadline = time.monotonic() + 10
    while wakeups.subscribed.is_set():  # nobody waits: it unsubscribes and its thread ends
        assert time.monotonic() < deadline, "the idle listener did not stop"
        time.sleep(0.05)
    with wakeups.watch("m:one") as again:
        _publish_until_subscribed(client, wakeups, channel, {"match": "one"})
        assert again.wait(10)
