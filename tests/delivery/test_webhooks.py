"""Webhooks end to end: the API registers them, the outbox handler queues deliveries, a real RQ
worker POSTs them to a real HTTP receiver in this process, which checks every signature with the
algorithm docs/webhooks.md documents (PyNaCl, the server key from GET /v1/server-key)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from service.delivery.webhooks import Delivery, DeliveryFailed, body_of, outbox_handler, signature
from service.play.matches import Matches
from service.play.outward.webhooks import player_owner
from service.runtime import build_webhooks
from tests.conftest import CREATOR, CREATOR_KEY, Player, signed_post, worker_burst
from tests.helpers.hooks import Entry, Receiver, server_key, signed_get, start_match, verify

DOCS = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


# -- the signature ----------------------------------------------------------------------------

def test_the_documented_test_vector_holds() -> None:
    text = DOCS.read_text().split("### Test vector", 1)[1]
    rows = {}
    for line in text.splitlines():
        if line.startswith("| ") and "`" in line:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 2:
                rows[cells[0].strip("`")] = cells[1].split("`")[1]
    private = rows["server private key (seed, base64url)"]
    from service.proof import signing

    assert signing.public_key_of(private) == rows["server public key (base64url)"]
    body = rows["body"].encode()
    assert body == body_of(json.loads(body))  # the server's own serialisation of that event
    assert f"{rows['webhook-id']}.{rows['webhook-timestamp']}.".encode() + body == rows["signed bytes"].encode()
    sig = signature(private, rows["webhook-id"], int(rows["webhook-timestamp"]), body)
    assert sig == rows["webhook-signature"]
    headers = {"webhook-id": rows["webhook-id"], "webhook-timestamp": rows["webhook-timestamp"], "webhook-signature": sig}
    assert verify(rows["server public key (base64url)"], headers, body)
    # a tampered body, id or timestamp does not verify
    assert not verify(rows["server public key (base64url)"], headers, body.replace(b'"ply":1', b'"ply":2'))
    assert not verify(rows["server public key (base64url)"], {**headers, "webhook-id": "k3x9wq2mzt7p.2"}, body)
    assert not verify(rows["server public key (base64url)"], {**headers, "webhook-timestamp": "1764466001"}, body)


# -- a player's hook ----------------------------------------------------------------------------

def test_a_players_hook_gets_its_seats_view_and_your_turn_signed(hs: Settings, hs_app: Any, receiver: Receiver,
                                                                 players: list[Player]) -> None:
    client = hs_app.test_client()
    m: Matches = hs_app.extensions["portolan"]
    r = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=players[0].private_key)
    assert r.status_code == 201, r.get_json()
    hook = r.get_json()
    assert hook["scope"] == "player" and hook["disabled"] is False and r.headers["Location"].startswith("/v1/me/webhooks/")
    listed = signed_get(client, "/v1/me/webhooks", players[0].private_key).get_json()["webhooks"]
    assert [h["id"] for h in listed] == [hook["id"]]
    assert signed_get(client, "/v1/me/webhooks", players[1].private_key).get_json()["webhooks"] == []

    mid = start_match(m, players)
    handle = outbox_handler(hs)
    handle(m, Entry("started", mid, 0))
    handle(m, Entry("started", mid, 0))  # at-least-once: the same entry twice
    worker_burst(hs)
    pub = server_key(client)
    assert receiver.got and all(verify(pub, r.headers, r.body) for r in receiver.got)
    types = sorted(r.event["type"] for r in receiver.ok())
    first = m.meta(mid).active[0]
    assert types == (["started", "your-turn"] if first == 0 else ["started"])
    started = next(r for r in receiver.ok() if r.event["type"] == "started")
    assert started.headers["webhook-id"] == f"{mid}.0@0" and started.event["match"] == mid

    # a move: the hook hears it as seat 0 sees it
    view = m.view(mid, first)
    action = view["legal_actions"][0]["action"]
    mover = players[first]
    result = m.submit(mid, mover.envelope(mid, first, 0, [action])["envelope"],
                      mover.envelope(mid, first, 0, [action])["signature"])
    after = m.meta(mid)
    handle(m, Entry("moved", mid, result["ply"], {"seat": first, "before": [first], "after": after.active,
                                                 "status": after.status}))
    worker_burst(hs)
    moves = [r for r in receiver.ok() if r.event["type"] == "move"]
    assert len(moves) == 1 and verify(pub, moves[0].headers, moves[0].body)
    assert moves[0].event["seat"] == first and moves[0].event["ply"] == 1
    assert moves[0].headers["webhook-id"] == f"{mid}.1@0"


def test_a_tampered_delivery_does_not_verify(hs: Settings, hs_app: Any, receiver: Receiver,
                                             players: list[Player]) -> None:
    client = hs_app.test_client()
    hook = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=players[0].private_key).get_json()
    assert signed_post(client, f"/v1/me/webhooks/{hook['id']}/ping", None, private_key=players[0].private_key,
                       data=b"").status_code == 202
    worker_burst(hs)
    [got] = receiver.got
    pub = server_key(client)
    assert verify(pub, got.headers, got.body)
    assert got.event["type"] == "ping" and got.event["hook"] == hook["id"]
    assert not verify(pub, got.headers, got.body.replace(b'"ping"', b'"move"'))
    assert not verify(pub, got.headers, got.body + b" ")
    assert not verify(server_key(client).replace(pub[0], "B" if pub[0] != "B" else "C", 1), got.headers, got.body)


# -- retries, the log, switching off ---------------------------------------------------------------

def test_a_receiver_that_fails_twice_gets_the_event_once_it_recovers(hs: Settings, hs_app: Any,
                                                                     receiver: Receiver) -> None:
    client = hs_app.test_client()
    made = signed_post(client, "/v1/matches", {"game": "harbour-race", "seats": [{"bot": "random"}, {"invite": "x@example.org"}]})
    mid = made.get_json()["id"]
    base = f"/v1/matches/{mid}/webhooks"
    hook = signed_post(client, base, {"url": receiver.url, "description": "scoreboard"}).get_json()
    assert hook["scope"] == "match" and hook["match"] == mid
    receiver.plan = [500, 503]
    assert signed_post(client, f"{base}/{hook['id']}/ping", None, data=b"").status_code == 202
    worker_burst(hs)
    assert [r.status for r in receiver.got] == [500, 503, 200]
    assert len({r.headers["webhook-id"] for r in receiver.got}) == 1  # one message, three attempts
    assert verify(server_key(client), receiver.got[-1].headers, receiver.got[-1].body)
    log = signed_get(client, f"{base}/{hook['id']}/deliveries", CREATOR).get_json()
    assert [(d["status"], d["ok"], d["attempt"]) for d in log["deliveries"]] == [(200, True, 3), (503, False, 2),
                                                                              (500, False, 1)]
    assert all(d["latency_ms"] >= 0 and d["event"] == receiver.got[0].event["id"] for d in log["deliveries"])
    assert log["deliveries"][1]["error"] == "answered 503"
    assert log["webhook"]["failures"] == 0 and log["webhook"]["disabled"] is False
    # the same job again (at-least-once) is not sent twice: the success is marked
    worker_burst(hs)
    assert len(receiver.ok()) == 1


def test_a_dead_receiver_is_switched_off_and_its_owner_told(hs: Settings, hs_app: Any, receiver: Receiver,
                                                           players: list[Player]) -> None:
    client = hs_app.test_client()
    m: Matches = hs_app.extensions["portolan"]
    mid = start_match(m, players)  # seat 0 gave an email when claiming: the notice goes there
    owner_key = players[0].private_key
    hook = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=owner_key).get_json()
    receiver.plan = [500] * 20
    handle = outbox_handler(hs)
    handle(m, Entry("started", mid, 0))
    worker_burst(hs)
    # disable_after=4: the fourth consecutive failed attempt switched it off; nothing after that
    assert len(receiver.got) == 4 and not receiver.ok()
    [listed] = signed_get(client, "/v1/me/webhooks", owner_key).get_json()["webhooks"]
    assert listed["disabled"] is True and listed["failures"] == 4 and "answered 500" in listed["disabled_reason"]
    mails = list(Path(hs.outbox_dir).glob("hookoff-*.eml"))
    assert len(mails) == 1
    text = mails[0].read_text()
    assert "p0@example.org" in text and hook["id"] in text and "portolan webhook ping" in text
    # a switched-off hook gets no events ...
    handle(m, Entry("started", mid, 0))
    worker_burst(hs)
    assert len(receiver.got) == 4
    # ... but a ping, and a ping that gets through switches it back on
    receiver.plan = []
    signed_post(client, f"/v1/me/webhooks/{hook['id']}/ping", None, private_key=owner_key, data=b"")
    worker_burst(hs)
    [back] = signed_get(client, "/v1/me/webhooks", owner_key).get_json()["webhooks"]
    assert back["disabled"] is False and back["failures"] == 0


def test_a_slow_receiver_times_out_and_is_logged(hs: Settings, hs_app: Any, receiver: Receiver,
                                                 players: list[Player]) -> None:
    client = hs_app.test_client()
    hook = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=players[0].private_key).get_json()
    receiver.delay_s = 2.5  # the timeout is 1 s
    hooks = build_webhooks(hs, hs_app.extensions["portolan"])
    owner = player_owner(players[0].public_key)
    delivery = Delivery(hooks, hs_app.extensions["portolan"].server_key, dataclasses.replace(hs, webhook_disable_after=99))
    with pytest.raises(DeliveryFailed, match="timed out"):
        delivery.run(owner, hook["id"], "m.1", {"id": "m.1", "type": "move"})
    [attempt] = hooks.store.deliveries(owner, hook["id"])
    assert attempt["ok"] is False and attempt["status"] is None and "timed out" in attempt["error"]


def test_a_matchs_hook_hears_the_public_events(hs: Settings, hs_app: Any, receiver: Receiver,
                                               players: list[Player]) -> None:
    client = hs_app.test_client()
    m: Matches = hs_app.extensions["portolan"]
    made = m.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                    creator_key=CREATOR_KEY)
    mid = made["id"]
    assert signed_post(client, f"/v1/matches/{mid}/webhooks", {"url": receiver.url}).status_code == 201
    for i in range(2):
        m.claim(mid, i, made["invites"][str(i)], players[i].public_key, players[i].name, "")
    outbox_handler(hs)(m, Entry("started", mid, 0))
    worker_burst(hs)
    [got] = receiver.ok()
    assert got.event["type"] == "started" and got.headers["webhook-id"] == f"{mid}.0"
    assert verify(server_key(client), got.headers, got.body)


# -- the whole way: commit -> outbox -> dispatcher -> RQ -> receiver --------------------------------

def test_a_bot_match_played_by_the_worker_reaches_the_matchs_hook_move_by_move(hs: Settings, hs_app: Any,
                                                                             receiver: Receiver) -> None:
    client = hs_app.test_client()
    made = signed_post(client, "/v1/matches", {"game": "harbour-race", "options": {"target": 5},
                                               "seats": [{"bot": "random"}, {"bot": "random"}]})
    mid = made.get_json()["id"]
    assert signed_post(client, f"/v1/matches/{mid}/webhooks", {"url": receiver.url}).status_code == 201
    worker_burst(hs)  # the dispatcher drains the outbox, the bots play it out, the hooks are delivered
    m: Matches = hs_app.extensions["portolan"]
    meta = m.meta(mid)
    assert meta.status == "finished"
    got = receiver.ok()
    pub = server_key(client)
    assert got and all(verify(pub, r.headers, r.body) for r in got)
    assert len({r.headers["webhook-id"] for r in got}) == len(got)  # each event once
    by_type: dict[str, list[dict[str, Any]]] = {}
    for r in got:
        by_type.setdefault(r.event["type"], []).append(r.event)
    assert set(by_type) == {"started", "move", "finished"} and len(by_type["finished"]) == 1
    assert sorted(e["ply"] for e in by_type["move"]) == list(range(1, meta.ply + 1))
    assert by_type["finished"][0]["outcome"] == meta.outcome




def test_webhook_workers_can_run_apart_from_the_bots_and_notices(hs: Settings, hs_app: Any,
                                                                 receiver: Receiver, players: list[Player]) -> None:
    from workers.worker import run

    client = hs_app.test_client()
    hook = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=players[0].private_key).get_json()
    signed_post(client, f"/v1/me/webhooks/{hook['id']}/ping", None, private_key=players[0].private_key, data=b"")
    run(hs, burst=True, kinds=("bots", "notices"))
    assert receiver.got == []  # not theirs
    run(hs, burst=True, kinds=("webhooks",))
    assert [r.event["type"] for r in receiver.ok()] == ["ping"]
    with pytest.raises(ValueError, match="queues are some of"):
        run(hs, burst=True, kinds=("hooks",))
