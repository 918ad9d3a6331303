"""Bad input gets a clear error and changes nothing: every refusal, with its status and code."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from service.proof import signing
from tests.conftest import Player, create_match, signed_post
from tests.helpers.matches import assert_problem, create, snapshot, started


def test_malformed_json_is_400(client: Any) -> None:
    r = signed_post(client, "/v1/matches", data=b"{not json")
    assert_problem(r, 400, "malformed-json")
    r = create_match(client, {"game": "harbour-race", "seats": [{"invite": "nope"}]})
    assert_problem(r, 400, "malformed-request")
    r = create_match(client, {"game": "harbour-race", "seats": [{"bot": "random"}] * 9})
    assert_problem(r, 400, "malformed-request")


def test_unknown_game_options_and_counts(client: Any) -> None:
    assert_problem(create_match(client, {"game": "chess", "seats": [{"bot": "random"}] * 2}), 404, "unknown-game")
    body = assert_problem(create_match(client, {"game": "harbour-race", "seats": [{"bot": "random"}]}),
                          400, "bad-player-count")
    assert "2 to 4 players" in body["detail"]
    r = create_match(client, {"game": "harbour-race", "seats": [{"bot": "random"}] * 2, "options": {"target": 1}})
    assert_problem(r, 400, "bad-options")
    r = create_match(client, {"game": "harbour-race", "seats": [{"bot": "genius"}] * 2})
    assert_problem(r, 400, "unknown-bot")


def test_unknown_match_is_404(client: Any, players: list[Player]) -> None:
    assert_problem(client.get("/v1/matches/nope"), 404, "unknown-match")
    assert_problem(client.get("/v1/matches/nope/log"), 404, "unknown-match")
    assert_problem(client.post("/v1/matches/nope/moves", json=players[0].envelope("nope", 0, 0, [{"type": "roll"}])),
                   404, "unknown-match")
    assert_problem(client.get("/v1/nothing-here"), 404, "not-found")


def test_claim_refusals(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    mid = made["id"]
    url = f"/v1/matches/{mid}/seats/0/claim"
    good = {"token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana"}
    assert_problem(client.post(url, json={**good, "token": made["invites"]["1"]}), 401, "bad-invite-token")
    assert_problem(client.post(url, json={**good, "public_key": "not+a/key!" * 5}), 400, "bad-public-key")
    assert client.post(url, json=good).status_code == 200
    assert client.post(url, json=good).status_code == 200  # the same claim again is idempotent
    assert_problem(client.post(url, json={**good, "public_key": players[1].public_key}), 409, "seat-taken")
    assert_problem(client.post(f"/v1/matches/{mid}/seats/7/claim", json=good), 404, "unknown-seat")


def test_move_refusals_change_nothing(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    other = 1 - seat
    before = snapshot(client, mid)
    url = f"/v1/matches/{mid}/moves"
    me = players[seat]

    forged = me.envelope(mid, seat, 0, [{"type": "roll"}])
    forged["envelope"]["nonce"] = "changed after signing"
    assert_problem(client.post(url, json=forged), 401, "bad-signature")

    stranger = Player("Eve")
    assert_problem(client.post(url, json=stranger.envelope(mid, seat, 0, [{"type": "roll"}])), 401, "bad-signature")

    by_other_key = players[other].envelope(mid, seat, 0, [{"type": "roll"}])
    assert_problem(client.post(url, json=by_other_key), 403, "not-your-seat")

    body = assert_problem(client.post(url, json=me.envelope(mid, seat, 5, [{"type": "roll"}])), 409, "stale-ply")
    assert body["current_ply"] == 0
    assert_problem(client.post(url, json=players[other].envelope(mid, other, 0, [{"type": "roll"}])), 409, "not-your-turn")

    body = assert_problem(client.post(url, json=me.envelope(mid, seat, 0, [{"type": "bank"}])), 422, "illegal-action")
    assert body["rule_code"] == "empty-haul" and "rule" in body["detail"]
    assert_problem(client.post(url, json=me.envelope(mid, seat, 0, [{"type": "fly"}])), 400, "invalid-action")
    # all-or-nothing: a legal first action followed by a refused one applies neither (if the roll
    # shows a 1 the turn passes and the second action is refused as not-your-turn instead)
    r = client.post(url, json=me.envelope(mid, seat, 0, [{"type": "roll"}, {"type": "fly"}]))
    assert (r.status_code, r.get_json()["code"]) in ((400, "invalid-action"), (409, "not-your-turn"))
    assert r.get_json()["action_index"] == 1

    assert_problem(client.post(url, data=b"[]", content_type="application/json"), 400, "malformed-json")
    assert_problem(client.post(url, json={"envelope": {"match": mid}, "signature": "x"}), 400, "bad-envelope")
    assert snapshot(client, mid) == before


def test_a_move_for_another_match_is_refused(client: Any, players: list[Player]) -> None:
    mid_a, view_a = started(client, players)
    mid_b, _ = started(client, players)
    seat = view_a["active_seats"][0]
    before = snapshot(client, mid_b)
    signed_for_a = players[seat].envelope(mid_a, seat, 0, [{"type": "roll"}])
    assert_problem(client.post(f"/v1/matches/{mid_b}/moves", json=signed_for_a), 400, "match-mismatch")
    tampered = json.loads(json.dumps(signed_for_a))
    tampered["envelope"]["match"] = mid_b
    r = client.post(f"/v1/matches/{mid_b}/moves", json=tampered)
    assert r.status_code in (401, 403)
    assert snapshot(client, mid_b) == before


def test_an_envelope_replayed_at_a_later_ply(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    url = f"/v1/matches/{mid}/moves"
    first = players[seat].envelope(mid, seat, 0, [{"type": "roll"}])
    assert client.post(url, json=first).status_code == 201
    # re-sent unchanged: the original result, not a second roll
    again = client.post(url, json=first)
    assert again.status_code == 200 and again.get_json()["replayed"] is True
    # moved to the current ply by editing it: the signature no longer holds
    moved = json.loads(json.dumps(first))
    moved["envelope"]["ply"] = 1
    assert_problem(client.post(url, json=moved), 401, "bad-signature")
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == 1


def test_seat_view_needs_the_seats_signature(client: Any, players: list[Player]) -> None:
    mid, _ = started(client, players)
    path = f"/v1/matches/{mid}/seats/0/view"
    assert_problem(client.get(path), 401, "missing-signature")
    assert_problem(client.get(path, headers=players[1].auth("GET", path)), 403, "not-your-seat")
    assert_problem(client.get(path, headers=players[0].auth("GET", "/v1/other")), 401, "bad-signature")
    stale = {"Authorization": signing.authorization(players[0].private_key, "GET", path, ts=1)}
    assert_problem(client.get(path, headers=stale), 401, "stale-signature")
    assert client.get(path, headers=players[0].auth("GET", path)).status_code == 200


def test_abort_only_by_creator_while_waiting(client: Any, players: list[Player]) -> None:
    creator = players[3]
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], creator=creator.private_key)
    assert made["creator_key"] == creator.public_key and "creator_token" not in made
    assert client.get(f"/v1/matches/{made['id']}").get_json()["creator_key"] == creator.public_key
    url = f"/v1/matches/{made['id']}/abort"
    body = assert_problem(client.post(url), 401, "missing-signature")
    assert "aborting a match needs a signed request" in body["detail"]
    assert_problem(client.post(url, headers={"Authorization": "Bearer anything"}), 401, "missing-signature")
    assert_problem(client.post(url, headers=players[0].auth("POST", f"/v1/matches/{made['id']}/other")), 401,
                   "bad-signature")
    # a seat holder, or anyone else with a key, is not the creator
    body = assert_problem(client.post(url, headers=players[0].auth("POST", url)), 403, "not-the-creator")
    assert "only the match's creator may abort it" in body["detail"]
    assert client.get(f"/v1/matches/{made['id']}").get_json()["status"] == "waiting"
    r = client.post(url, headers=creator.auth("POST", url))
    assert r.status_code == 200 and r.get_json()["status"] == "aborted"
    claim = {"token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana"}
    assert_problem(client.post(f"/v1/matches/{made['id']}/seats/0/claim", json=claim), 409, "match-not-waiting")


@pytest.mark.parametrize("threads", [20])
def test_racing_the_same_ply_exactly_one_wins(app: Any, players: list[Player], threads: int) -> None:
    client = app.test_client()
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    payloads = [players[seat].envelope(mid, seat, 0, [{"type": "roll"}], nonce=f"n{i}") for i in range(threads)]
    statuses: list[int] = []
    barrier = threading.Barrier(threads)
    lock = threading.Lock()

    def submit(p: dict[str, Any]) -> None:
        c = app.test_client()
        barrier.wait()
        r = c.post(f"/v1/matches/{mid}/moves", json=p)
        with lock:
            statuses.append(r.status_code)

    workers = [threading.Thread(target=submit, args=(p,)) for p in payloads]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert sorted(statuses) == [201] + [409] * (threads - 1)
    log = client.get(f"/v1/matches/{mid}/log").get_json()["entries"]
    assert [e["ply"] for e in log] == [0]
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == 1


def test_a_process_with_an_old_copy_of_the_match_still_refuses_a_stale_move(settings: Any, players: list[Player]) -> None:
    """Two API processes: one moves the match on, the other (which made the ply before) must
    not accept a second move at that ply from its held copy."""
    from service.api import create_app
    from service.runtime import build

    a = create_app(settings, build(settings), TESTING=True).test_client()
    b = create_app(settings, build(settings), TESTING=True).test_client()
    mid, view = started(a, players)
    seat = view["active_seats"][0]
    url = f"/v1/matches/{mid}/moves"
    first = a.post(url, json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}], nonce="a")).get_json()
    assert first["ply"] == 1
    nxt = first["view"]["active_seats"][0]
    # process b makes ply 1 -> 2; process a still holds ply 1 as its latest
    assert b.post(url, json=players[nxt].envelope(mid, nxt, 1, [{"type": "roll"}], nonce="b")).status_code == 201
    r = a.post(url, json=players[nxt].envelope(mid, nxt, 1, [{"type": "roll"}], nonce="c"))
    assert r.status_code == 409 and r.get_json()["code"] == "stale-ply" and r.get_json()["current_ply"] == 2
    # a refused action against the held copy is judged again against the fresh meta: the move is
    # stale before it is anything else, exactly as in a process that held no copy
    r = a.post(url, json=players[nxt].envelope(mid, nxt, 1, [{"type": "fly"}], nonce="d"))
    assert r.status_code == 409 and r.get_json()["code"] == "stale-ply"
    log = a.get(f"/v1/matches/{mid}/log").get_json()["entries"]
    assert [e["ply"] for e in log] == [0, 1]


def test_an_accepted_move_enqueues_nothing_and_announces_itself_in_the_outbox(
        client: Any, service: Any, settings: Any, players: list[Player]) -> None:
    """The request path sends nothing (no RQ job): the commit's outbox entry is the only way
    out, so a broken queue can never fail a move, nor a crash after the commit lose its notices."""
    from rq import Queue

    mid, view = started(client, players)
    seat = view["active_seats"][0]
    r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}]))
    assert r.status_code == 201 and r.get_json()["ply"] == 1
    for kind in ("notices", "bots"):
        assert Queue(settings.queue_name(kind), connection=service.store.r).count == 0
    entries = [f for key in service.store.outbox_keys() for _, f in service.store.r.xrange(key)]
    assert [(f[b"kind"], f[b"match"].decode(), int(f[b"ply"])) for f in entries][-1] == (b"moved", mid, 1)


def test_redis_down_is_503_not_500(settings: Any) -> None:
    import dataclasses

    from service.api import create_app
    from service.play.matches import Matches
    from service.storage.connection import connect
    from service.storage.embedded import free_port
    from service.storage.store import Store

    dead = dataclasses.replace(settings, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    store = Store(connect(dead.redis_url), dead.namespace)
    app = create_app(dead, Matches(store=store, server_key=signing.generate_private_key()), TESTING=True)
    c = app.test_client()
    r = c.get("/v1/matches/abcdefghijkm")
    assert_problem(r, 503, "storage-unavailable")
    assert r.headers["Retry-After"] == "5"
    assert c.get("/healthz").status_code == 503
