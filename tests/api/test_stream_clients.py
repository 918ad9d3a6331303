"""Issue 28, item 11, in the default suite: who counts as one client (an address, a /64 on IPv6),
the per-client bound on open streams (429 past it, given back when a stream closes), and a
waiting stream that ends as soon as its client is found gone."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from service.api.clients import ClientStreams, client_network
from service.play.outward import streams
from tests.conftest import Player
from tests.helpers.matches import claim_all, create


@pytest.mark.parametrize(("address", "client"), [
    ("203.0.113.7", "203.0.113.7"),
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::ffff", "2001:db8:1:2::/64"),
    ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
    ("fe80::1%eth0", "fe80::/64"),
    ("::ffff:203.0.113.7", "203.0.113.7"),
    (None, "unknown"),
    ("unix-socket", "unix-socket"),
])
def test_a_client_is_its_address_or_its_ipv6_64(address: str | None, client: str) -> None:
    assert client_network(address) == client


def test_client_streams_are_bounded_per_client_and_given_back() -> None:
    held = ClientStreams(2)
    assert held.take("a") and held.take("a") and not held.take("a")
    assert held.take("b")  # another client is not held back by the first
    held.give_back("a")
    assert held.take("a") and held.held("a") == 2
    unbounded = ClientStreams(0)
    assert all(unbounded.take("a") for _ in range(100))


def _app(settings: Any, service: Any, **changes: Any) -> Any:
    from service.api import create_app

    return create_app(dataclasses.replace(settings, **changes), service, TESTING=True)


def test_past_its_streams_a_client_gets_a_429_problem_and_a_closed_stream_frees_one(
        settings: Any, service: Any, players: list[Player]) -> None:
    app = _app(settings, service, streams_per_client=2)
    client = app.test_client()
    mid = claim_all(client, create(client, [{"invite": "p0@example.org"}, {"invite": "p1@example.org"}]), players)
    path = f"/v1/matches/{mid}/events"
    here = {"REMOTE_ADDR": "2001:db8:5:6::1"}
    neighbour = {"REMOTE_ADDR": "2001:db8:5:6::99"}  # the same /64: the same client
    elsewhere = {"REMOTE_ADDR": "2001:db8:5:7::1"}
    first = client.get(path, buffered=False, environ_base=here)
    second = client.get(path, buffered=False, environ_base=neighbour)
    assert first.status_code == 200 and second.status_code == 200
    refused = client.get(path, environ_base=here)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.headers["Retry-After"] == "10"
    assert refused.get_json()["code"] == "too-many-streams-from-client"
    assert "2001:db8:5:6::/64" in refused.get_json()["detail"]
    other = client.get(path, buffered=False, environ_base=elsewhere)
    assert other.status_code == 200
    first.close()  # never read: its client's stream still comes back
    again = client.get(path, buffered=False, environ_base=here)
    assert again.status_code == 200
    for r in (second, other, again):
        r.close()
    assert app.extensions["portolan.client_streams"].held("2001:db8:5:6::/64") == 0


class _Wakeups:
    """No wake-up ever comes: only the re-check, the heartbeat and the hang-up look end a wait."""

    @contextmanager
    def watch(self, topic: str) -> Iterator[Any]:
        class Waiter:
            def wait(self, timeout: float) -> bool:
                time.sleep(max(0.0, timeout))
                return False

        yield Waiter()


class _Inbox:
    def read(self, public_key: str, after: str | None, count: int = 100) -> list[tuple[str, dict[str, Any]]]:
        return []

    def newest(self, public_key: str) -> str | None:
        return None

    def later(self, a: str, b: str) -> bool:
        return False


def test_a_waiting_stream_ends_within_hangup_s_of_its_client_going() -> None:
    hung_up = threading.Event()
    looks: list[float] = []

    def gone() -> bool:
        looks.append(time.monotonic())
        return hung_up.is_set()

    timing = streams.Timing(heartbeat_s=30, recheck_s=30, max_s=60, hangup_s=0.05)
    items = streams.follow_inbox(_Inbox(), _Wakeups(), "k", None, timing, gone=gone)
    threading.Timer(0.3, hung_up.set).start()
    started = time.monotonic()
    assert list(items) == []  # no heartbeat was due: it simply ended
    assert 0.3 <= time.monotonic() - started < 1.0
    assert len(looks) >= 4  # it looked every hangup_s while it waited


def test_without_a_way_to_look_a_stream_waits_as_before() -> None:
    timing = streams.Timing(heartbeat_s=0.2, recheck_s=0.2, max_s=0.5, hangup_s=0.01)
    started = time.monotonic()
    got = list(streams.follow_inbox(_Inbox(), _Wakeups(), "k", None, timing))
    assert None in got and 0.4 <= time.monotonic() - started < 1.5  # heartbeats, then its max_s
