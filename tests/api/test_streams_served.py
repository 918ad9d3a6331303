"""Event streams on the server model that ships (gunicorn's gevent worker, as `portolan dev` and
deploy/gunicorn.conf.py run it): many open streams hold no thread, so moves and /healthz are
answered while they wait, and every stream still gets every event in order."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
import requests
from httpx_sse import connect_sse

from tests.conftest import Player
from tests.helpers.matches import claim_all, create

pytestmark = pytest.mark.processes  # gunicorn with a gevent worker (gevent_served)

STREAMS = 300  # far more than any thread pool of one process would hold (gthread: 8)


def _follow(url: str, connected: threading.Semaphore, out: list[str], errors: list[str], source_address: str) -> None:
    try:
        # from many loopback addresses, as many clients are: one client may hold only
        # PORTOLAN_STREAMS_PER_CLIENT (20) streams of a process
        transport = httpx.HTTPTransport(local_address=source_address)
        with httpx.Client(timeout=httpx.Timeout(120.0), transport=transport) as http, \
                connect_sse(http, "GET", url) as source:
            for sse in source.iter_sse():
                if not sse.data:
                    continue
                out.append(sse.id)
                if sse.event == "started":
                    connected.release()
                if sse.event == "finished":
                    return
    except Exception as exc:  # reported by the test, not lost in a thread
        errors.append(repr(exc))
        connected.release()


def test_hundreds_of_open_streams_leave_moves_and_healthz_answering(gevent_served: str, client: Any,
                                                                     players: list[Player]) -> None:
    made = create(client, [{"invite": "p0@example.org"}, {"invite": "p1@example.org"}], target=5)
    mid = claim_all(client, made, players)
    url = f"{gevent_served}/v1/matches/{mid}/events"
    connected = threading.Semaphore(0)
    results: list[list[str]] = [[] for _ in range(STREAMS)]
    errors: list[str] = []
    threads = [threading.Thread(target=_follow, args=(url, connected, results[i], errors, f"127.0.3.{i % 50 + 1}"),
                                daemon=True) for i in range(STREAMS)]
    for t in threads:
        t.start()
    for _ in range(STREAMS):
        assert connected.acquire(timeout=120), "the streams did not all connect"
    assert not errors, errors[:3]
    http = requests.Session()
    moves = 0
    while True:
        # every stream is open and waiting on the one gevent worker: it still answers at once
        assert http.get(f"{gevent_served}/healthz", timeout=10).status_code == 200
        view = http.get(f"{gevent_served}/v1/matches/{mid}", timeout=10).json()
        if view["status"] == "finished":
            break
        seat = view["active_seats"][0]
        action = "bank" if view["board"]["haul"] >= 3 else "roll"
        r = http.post(f"{gevent_served}/v1/matches/{mid}/moves", timeout=10,
                      json=players[seat].envelope(mid, seat, view["ply"], [{"type": action}]))
        assert r.status_code == 201, r.text
        moves += 1
    for t in threads:
        t.join(120)
    assert not errors, errors[:3]
    expected = [str(p) for p in range(moves + 1)] + [str(moves)]
    assert all(got == expected for got in results), next(got for got in results if got != expected)
