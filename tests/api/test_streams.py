"""Event streams over real HTTP, read with a real SSE client (httpx-sse): every event in order,
resuming with Last-Event-ID without a gap or a duplicate, a seat's hidden events only on its own
signed stream, and the refusals as problem+json before any stream begins."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from tests.conftest import Player
from tests.helpers.matches import claim_all, create

TIMEOUT = httpx.Timeout(30.0)


def race(client: Any, players: list[Player], target: int = 5) -> str:
    made = create(client, [{"invite": "p0@example.org"}, {"invite": "p1@example.org"}], target=target)
    return claim_all(client, made, players)


def step(client: Any, players: list[Player], mid: str) -> dict[str, Any]:
    """One move of a harbour race: roll until the haul is 3 or more, then bank."""
    view = client.get(f"/v1/matches/{mid}").get_json()
    seat = view["active_seats"][0]
    action = "bank" if view["board"]["haul"] >= 3 else "roll"
    r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, view["ply"], [{"type": action}]))
    assert r.status_code == 201, r.get_json()
    return dict(r.get_json())


def read(url: str, until: Any, headers: dict[str, str] | None = None, params: dict[str, str] | None = None,
         out: list[tuple[str, str, Any]] | None = None) -> list[tuple[str, str, Any]]:
    """Read events (id, type, data) until ``until(event)`` is true for one, then hang up."""
    got = [] if out is None else out
    with httpx.Client(timeout=TIMEOUT) as http, connect_sse(http, "GET", url, headers=dict(headers or {}), params=params) as source:
        assert source.response.status_code == 200, source.response.read()
        assert source.response.headers["content-type"].startswith("text/event-stream")
        for sse in source.iter_sse():
            if not sse.data:  # the opening block: only a retry hint, no event (an EventSource dispatches none)
                assert sse.retry == 3000
                continue
            got.append((sse.id, sse.event, sse.json()))
            if until(got[-1]):
                break
    return got


def reader(url: str, until: Any, **kwargs: Any) -> tuple[threading.Thread, list[tuple[str, str, Any]]]:
    out: list[tuple[str, str, Any]] = []
    thread = threading.Thread(target=read, args=(url, until), kwargs={**kwargs, "out": out}, daemon=True)
    thread.start()
    return thread, out


def is_finished(e: tuple[str, str, Any]) -> bool:
    return e[1] == "finished"


def test_a_match_stream_carries_every_event_in_order(served: str, client: Any, players: list[Player]) -> None:
    mid = race(client, players)
    thread, got = reader(f"{served}/v1/matches/{mid}/events", is_finished)
    while client.get(f"/v1/matches/{mid}").get_json()["status"] != "finished":
        step(client, players, mid)
    thread.join(60)
    assert not thread.is_alive() and got
    log = client.get(f"/v1/matches/{mid}/log").get_json()["entries"]
    n = len(log)
    assert [e[0] for e in got] == [str(p) for p in range(n + 1)] + [str(n)]
    assert [e[1] for e in got] == ["started"] + ["move"] * n + ["finished"]
    assert [e[2]["head"] for e in got[1:-1]] == [entry["hash"] for entry in log]
    assert [e[2]["actions"] for e in got[1:-1]] == [entry["envelope"]["actions"] for entry in log]
    assert all(e[2]["id"] == f"{mid}.{e[0]}" for e in got[:-1]) and got[-1][2]["outcome"]


@pytest.mark.parametrize("how", ["header", "query"])
def test_a_reconnect_with_last_event_id_misses_nothing_and_repeats_nothing(served: str, client: Any,
                                                                           players: list[Player], how: str) -> None:
    # The server's seed throws the dice: a bank under step()'s policy is at most 8 (a 2, then a 6),
    # so a race to 30 cannot end within the five moves made before the reconnect, whatever the seed
    # (a race to 8 could, in three, and then the moves "while nobody listens" had no match to move).
    mid = race(client, players, target=30)
    for _ in range(3):
        step(client, players, mid)
    first = read(f"{served}/v1/matches/{mid}/events", lambda e: e[0] == "2")  # hang up in the middle
    for _ in range(2):  # moves made while nobody listens
        step(client, players, mid)
    resume = {"headers": {"Last-Event-ID": first[-1][0]}} if how == "header" else {"params": {"last_event_id": first[-1][0]}}
    thread, rest = reader(f"{served}/v1/matches/{mid}/events", is_finished, **resume)
    while client.get(f"/v1/matches/{mid}").get_json()["status"] != "finished":
        step(client, players, mid)
    thread.join(60)
    n = len(client.get(f"/v1/matches/{mid}/log").get_json()["entries"])
    ids = [e[0] for e in first + rest]
    assert ids == [str(p) for p in range(n + 1)] + [str(n)]
    # everything sent, the match over: the stream says so with 204 (an EventSource stops retrying)
    r = httpx.get(f"{served}/v1/matches/{mid}/events", headers={"Last-Event-ID": str(n)}, timeout=TIMEOUT)
    assert r.status_code == 204


def test_the_header_wins_over_the_query_when_an_event_source_reconnects(served: str, client: Any,
                                                                        players: list[Player]) -> None:
    """An EventSource reconnects to the URL it was given (?last_event_id= of its first connect)
    and sends the newer id in the header: the header is the one that counts."""
    mid = race(client, players, target=30)  # not over within these moves, whatever the dice (see above)
    for _ in range(3):
        step(client, players, mid)
    got = read(f"{served}/v1/matches/{mid}/events", lambda e: e[0] == "3", headers={"Last-Event-ID": "2"},
               params={"last_event_id": "0"})
    assert [e[0] for e in got] == ["3"]


def _ophir(client: Any, players: list[Player]) -> str:
    made = create(client, [{"invite": "p0@example.org"}, {"invite": "p1@example.org"}], game="ophir")
    return claim_all(client, made, players)


def _ophir_moves(client: Any, players: list[Player], mid: str, n: int) -> None:
    for _ in range(n):
        view = client.get(f"/v1/matches/{mid}").get_json()
        seat = view["active_seats"][0]
        path = f"/v1/matches/{mid}/seats/{seat}/view"
        mine = client.get(path, headers=players[seat].auth("GET", path)).get_json()
        env = players[seat].envelope(mid, seat, view["ply"], [mine["legal_actions"][0]["action"]])
        assert client.post(f"/v1/matches/{mid}/moves", json=env).status_code == 201


def test_a_seat_stream_carries_its_hidden_events_and_never_another_seats(served: str, client: Any,
                                                                         players: list[Player]) -> None:
    mid = _ophir(client, players)
    _ophir_moves(client, players, mid, 3)
    path = f"/v1/matches/{mid}/events"
    streams: dict[int | None, list[tuple[str, str, Any]]] = {None: read(served + path, lambda e: e[0] == "3")}
    for seat in (0, 1):
        headers = players[seat].auth("GET", path, f"seat={seat}")
        streams[seat] = read(served + path, lambda e: e[0] == "3", headers=headers, params={"seat": str(seat)})
    hidden_seen: dict[int | None, int] = {}
    for viewer, got in streams.items():
        assert [e[0] for e in got] == ["0", "1", "2", "3"]
        hidden = [ev for e in got for ev in e[2]["events"] if "visible_to" in ev]
        assert all(viewer is not None and viewer in ev["visible_to"] for ev in hidden), (viewer, hidden)
        hidden_seen[viewer] = len(hidden)
    # Ophir deals the specialists to the first player in secret: exactly one seat sees them
    assert hidden_seen[None] == 0 and hidden_seen[0] + hidden_seen[1] >= 1
    dealt = {seat for seat in (0, 1) for ev in streams[seat][0][2]["events"] if ev["type"] == "specialists-dealt"}
    assert len(dealt) == 1


def test_refusals_are_problems_before_any_stream(client: Any, players: list[Player]) -> None:
    mid = race(client, players)
    step(client, players, mid)
    path = f"/v1/matches/{mid}/events"
    cases = [
        (client.get("/v1/matches/nosuchmatch1/events"), 404, "unknown-match"),
        (client.get(path, headers={"Last-Event-ID": "abc"}), 400, "bad-last-event-id"),
        (client.get(path, headers={"Last-Event-ID": "9"}), 400, "bad-last-event-id"),
        (client.get(path, headers={"Last-Event-ID": "+1"}), 400, "bad-last-event-id"),
        (client.get(f"{path}?last_event_id=1&last_event_id=2"), 400, "bad-query"),
        (client.get(f"{path}?seat=0"), 401, "missing-signature"),
        (client.get(f"{path}?seat=1", headers=players[0].auth("GET", path, "seat=1")), 403, "not-your-seat"),
        (client.get(f"{path}?seat=7", headers=players[0].auth("GET", path, "seat=7")), 404, "unknown-seat"),
        (client.get(f"{path}?seat=0", headers=players[0].auth("GET", path, "seat=1")), 401, "bad-signature"),
        (client.get("/v1/me/events"), 401, "missing-signature"),
        (client.get("/v1/me/events", headers={"Last-Event-ID": "nope", **players[0].auth("GET", "/v1/me/events")}),
         400, "bad-last-event-id"),
    ]
    replayed = players[0].auth("GET", path, "seat=0")
    first = client.get(f"{path}?seat=0", headers=replayed)
    assert first.status_code == 200
    first.close()
    cases.append((client.get(f"{path}?seat=0", headers=replayed), 401, "replayed-request"))
    for r, status, code in cases:
        assert r.status_code == status and r.headers["Content-Type"] == "application/problem+json", (code, r.data)
        assert r.get_json()["code"] == code and r.get_json()["detail"]


def test_a_waiting_match_has_no_event_to_resume_after(client: Any) -> None:
    made = create(client, [{"invite": "p0@example.org"}, {"invite": "p1@example.org"}])
    r = client.get(f"/v1/matches/{made['id']}/events", headers={"Last-Event-ID": "0"})
    assert r.status_code == 400 and r.get_json()["code"] == "bad-last-event-id"


def test_heartbeats_and_the_retry_hint_on_the_wire(settings: Any, service: Any, players: list[Player]) -> None:
    """Read the raw bytes (an SSE client hides comments): a retry hint first, then ``: keepalive``
    while nothing happens."""
    from werkzeug.serving import make_server

    from service.api import create_app
    from service.play.outward.streams import Timing

    app = create_app(settings, service, TESTING=True, PORTOLAN_STREAM_TIMING=Timing(heartbeat_s=0.2, recheck_s=0.1))
    mid = race(app.test_client(), players)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        lines: list[str] = []
        with httpx.stream("GET", f"http://127.0.0.1:{server.port}/v1/matches/{mid}/events", timeout=TIMEOUT) as r:
            assert r.headers["cache-control"] == "no-cache"
            for line in r.iter_lines():
                lines.append(line)
                if lines.count(": keepalive") >= 2:
                    break
    finally:
        server.shutdown()
        thread.join(10)
    assert lines[0] == "retry: 3000"
    assert "event: started" in lines and lines.index("event: started") < lines.index(": keepalive")


def _dispatch(settings: Any) -> None:
    """Run the outbox consumers (the worker's dispatcher) until they have caught up."""
    from workers.worker import dispatcher

    dispatcher(settings).drain()


def _handle_everything_again(settings: Any, service: Any) -> int:
    """Hand every outbox entry to the inboxes handler once more, as a redelivery would (a
    consumer that died before its ack): a new consumer group reads the outboxes from the start."""
    from service.delivery import inboxes
    from service.delivery.outbox import Dispatcher

    return Dispatcher(service, settings, groups={"inboxes-again": inboxes.handle}).drain()


def test_the_me_stream_carries_the_events_of_two_matches(served: str, client: Any, service: Any, settings: Any,
                                                         players: list[Player]) -> None:
    ana, bea, cid = players[0], players[1], players[2]
    one = race(client, [ana, bea], target=40)
    two = race(client, [cid, ana], target=40)  # Ana holds seat 1 here
    for _ in range(3):
        step(client, [ana, bea], one)
        step(client, [cid, ana], two)
    _dispatch(settings)
    assert _handle_everything_again(settings, service) > 0  # at-least-once: each entry handled twice
    path = "/v1/me/events"
    last_moves: set[str] = set()

    def both_done(e: tuple[str, str, Any]) -> bool:  # the inbox holds the matches' events in outbox order
        if e[1] == "move" and e[2]["ply"] == 3:
            last_moves.add(e[2]["match"])
        return last_moves == {one, two}

    got = read(served + path, both_done, headers=ana.auth("GET", path))
    ids = [e[2]["id"] for e in got]
    assert len(ids) == len(set(ids)), ids  # each event once, though each entry was handled twice
    for mid in (one, two):
        mine = [e for e in got if e[2]["match"] == mid]
        assert [e[2]["ply"] for e in mine if e[1] in ("started", "move")] == [0, 1, 2, 3], [(e[1], e[2]["match"], e[2]["ply"]) for e in got]
    assert {e[1] for e in got} >= {"started", "move", "your-turn"}
    turns = [e[2] for e in got if e[1] == "your-turn"]
    assert all((t["match"], t["seat"]) in ((one, 0), (two, 1)) for t in turns)
    # resume after the third event: exactly the rest
    rest = read(served + path, lambda e: e[0] == got[-1][0], headers={"Last-Event-ID": got[2][0], **ana.auth("GET", path)})
    assert [e[0] for e in rest] == [e[0] for e in got[3:]]
    # Bea's stream has match one only
    hers = read(served + path, lambda e: e[2]["ply"] == 3 and e[1] == "move", headers=bea.auth("GET", path))
    assert {e[2]["match"] for e in hers} == {one}


def test_a_process_keeps_at_most_its_stream_slots_open(settings: Any, service: Any, players: list[Player]) -> None:
    """``PORTOLAN_STREAMS`` bounds the open streams of a process: one more is 503 with
    Retry-After (a problem, not a hang), and a closed stream gives its slot back, even one
    closed before its first byte was read."""
    import dataclasses

    from service.api import create_app

    app = create_app(dataclasses.replace(settings, streams=1), service, TESTING=True)
    client = app.test_client()
    mid = race(client, players)
    path = f"/v1/matches/{mid}/events"
    first = client.get(path, buffered=False)
    assert first.status_code == 200
    refused = client.get(path)
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    assert refused.get_json()["code"] == "too-many-streams"
    first.close()  # never read: the slot still comes back
    second = client.get(path, buffered=False)
    assert second.status_code == 200
    second.close()
