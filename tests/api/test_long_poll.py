"""Long-polls (``?wait=N`` with ``If-None-Match``): they answer as soon as the match changes, and
they cannot hold every request thread of a process (the second outside test of issue 9)."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

from service.api import create_app
from service.config import Settings
from service.play.matches import Matches
from tests.conftest import Player
from tests.helpers.matches import started


def _poller(app: Any, path: str, etag: str, out: list[Any]) -> threading.Thread:
    def poll() -> None:
        t0 = time.monotonic()
        r = app.test_client().get(path, headers={"If-None-Match": etag})
        out.append((r.status_code, time.monotonic() - t0, r.get_json()))
    thread = threading.Thread(target=poll)
    thread.start()
    return thread


def test_a_long_poll_answers_when_a_move_lands(app: Any, players: list[Player]) -> None:
    client = app.test_client()
    mid, view = started(client, players)
    etag = client.get(f"/v1/matches/{mid}").headers["ETag"]
    got: list[Any] = []
    thread = _poller(app, f"/v1/matches/{mid}?wait=10", etag, got)
    time.sleep(0.5)
    seat = view["active_seats"][0]
    assert client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}])).status_code == 201
    thread.join(timeout=15)
    [(status, took, body)] = got
    assert status == 200 and body["ply"] == 1 and took < 5


def test_long_polls_cannot_hold_every_request_thread(settings: Settings, service: Matches,
                                                     players: list[Player]) -> None:
    """Anyone may long-poll any match for 30 s; a few dozen such requests held every thread of a
    gunicorn process. Waiting now takes one of ``PORTOLAN_LONG_POLLS`` slots; with none free the
    long-poll is answered at once (304, as with wait=0)."""
    app = create_app(dataclasses.replace(settings, long_polls=1), service, TESTING=True)
    client = app.test_client()
    mid, _ = started(client, players)
    etag = client.get(f"/v1/matches/{mid}").headers["ETag"]
    first: list[Any] = []
    holder = _poller(app, f"/v1/matches/{mid}?wait=3", etag, first)
    time.sleep(0.5)  # the first long-poll holds the only slot
    t0 = time.monotonic()
    r = client.get(f"/v1/matches/{mid}?wait=3", headers={"If-None-Match": etag})
    assert r.status_code == 304 and r.headers["ETag"] == etag
    assert time.monotonic() - t0 < 1.5  # answered at once, not after 3 s
    holder.join(timeout=10)
    assert first and first[0][0] == 304 and first[0][1] >= 2.5  # the slot holder did wait
    # the slot is free again: the next long-poll waits
    t0 = time.monotonic()
    assert client.get(f"/v1/matches/{mid}?wait=1", headers={"If-None-Match": etag}).status_code == 304
    assert time.monotonic() - t0 >= 0.9


def test_the_long_poll_slots_come_from_the_environment() -> None:
    assert Settings.from_env({"PORTOLAN_LONG_POLLS": "16"}).long_polls == 16
    assert Settings.from_env({}).long_polls == 4
