"""GET /metrics counts what happened, and log lines are JSON carrying match, seat and ply (issue 15)."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from service.config import Settings
from service.delivery.mail import Mail, deliver
from service.observe import logs
from tests.conftest import Player
from tests.helpers.matches import started


def scrape(client: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics`` by name and labels (parsed by prometheus_client's own parser)."""
    r = client.get("/metrics")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(r.data.decode()) for s in family.samples}


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_moves_are_counted_by_result_and_refusal_code(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    before = scrape(client)
    seat = view["active_seats"][0]
    env = players[seat].envelope(mid, seat, 0, [{"type": "roll"}])
    assert client.post(f"/v1/matches/{mid}/moves", json=env).status_code == 201
    assert client.post(f"/v1/matches/{mid}/moves", json=env).status_code == 200  # the same again
    stale = players[seat].envelope(mid, seat, 0, [{"type": "roll"}], nonce="other")
    assert client.post(f"/v1/matches/{mid}/moves", json=stale).status_code == 409
    assert client.post(f"/v1/matches/{mid}/moves", json={"envelope": []}).status_code == 400
    after = scrape(client)
    for labels, n in ((("accepted", ""), 1), (("replayed", ""), 1), (("refused", "stale-ply"), 1),
                      (("refused", "malformed-request"), 1)):
        result, code = labels
        got = value(after, "portolan_moves_total", result=result, code=code)
        assert got - value(before, "portolan_moves_total", result=result, code=code) == n, labels
    # requests are labelled by their route, never by a match id
    route = "/v1/matches/<match_id>/moves"
    assert value(after, "portolan_http_request_seconds_count", route=route, method="POST") >= 4
    assert not any(mid in str(key) for key in after)
    assert value(after, "portolan_queue_depth", queue="notices") >= 0
    assert ("portolan_outbox_backlog", (("group", "jobs"),)) in after


def test_metrics_can_be_switched_off(settings: Settings, service: Any) -> None:
    from dataclasses import replace

    from service.api import create_app

    off = create_app(replace(settings, metrics=False), service, TESTING=True).test_client()
    assert off.get("/metrics").status_code == 404


def test_open_streams_are_a_gauge(client: Any, players: list[Player]) -> None:
    mid, _ = started(client, players)
    base = value(scrape(client), "portolan_stream_connections")
    response = client.get(f"/v1/matches/{mid}/events", buffered=False)
    first = next(response.response)
    assert b"connected" in first
    assert value(scrape(client), "portolan_stream_connections") == base + 1
    response.close()
    assert value(scrape(client), "portolan_stream_connections") == base


def test_mail_sent_is_counted(settings: Settings, client: Any) -> None:
    before = value(scrape(client), "portolan_notices_total", kind="invite", result="sent")
    deliver(settings, Mail(to="a@example.org", subject="Hello", text="hi", html="<p>hi</p>", key="invite:abc:0"))
    assert value(scrape(client), "portolan_notices_total", kind="invite", result="sent") == before + 1


def test_a_move_logs_one_json_line_with_match_seat_and_ply(client: Any, players: list[Player]) -> None:
    out = io.StringIO()
    logs.configure("json", level="DEBUG", stream=out)
    try:
        mid, view = started(client, players)
        seat = view["active_seats"][0]
        env = players[seat].envelope(mid, seat, 0, [{"type": "roll"}])
        assert client.post(f"/v1/matches/{mid}/moves", json=env).status_code == 201
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        moved = [line for line in lines if line.get("event") == "move accepted"]
        assert len(moved) == 1, lines
        assert moved[0]["match"] == mid and moved[0]["seat"] == seat and moved[0]["ply"] == 0
        assert moved[0]["new_ply"] == 1 and moved[0]["level"] == "debug" and moved[0]["logger"] == "portolan.moves"
        # the request's context ends with it
        logging.getLogger("portolan.test").warning("after the request")
        last = json.loads(out.getvalue().splitlines()[-1])
        assert last["event"] == "after the request" and "match" not in last
    finally:
        logs.configure("json", level="INFO")


def test_metrics_answer_when_redis_does_not(settings: Settings) -> None:
    """An outage is when the metrics matter: the scrape answers, saying Redis is down."""
    import dataclasses

    from service.api import create_app
    from service.play.matches import Matches
    from service.proof import signing
    from service.storage.connection import connect
    from service.storage.embedded import free_port
    from service.storage.store import Store

    dead = dataclasses.replace(settings, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    store = Store(connect(dead.redis_url), dead.namespace)
    c = create_app(dead, Matches(store=store, server_key=signing.generate_private_key()), TESTING=True).test_client()
    r = c.get("/metrics")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = scrape(c)
    assert value(samples, "portolan_redis_up") == 0
    assert not any(name == "portolan_queue_depth" for name, _ in samples)


def test_a_backlog_counts_what_a_group_has_not_handled(client: Any, service: Any, players: list[Player]) -> None:
    """Entries read but not acknowledged count on every Redis (lag, unread ones, on Redis 7 only)."""
    started(client, players)  # a creation and a start: outbox entries
    service.store.ensure_group("jobs")
    read = service.store.read_outbox("jobs", "test-consumer", count=100)
    assert read
    samples = scrape(client)
    assert value(samples, "portolan_redis_up") == 1
    assert value(samples, "portolan_outbox_backlog", group="jobs") >= len(read)
    for record in read:
        service.store.ack_outbox("jobs", record)
    assert value(scrape(client), "portolan_outbox_backlog", group="jobs") == 0  # all read, all acknowledged
