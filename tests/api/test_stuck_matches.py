"""No match is left stuck by a failure between steps, and a stale move always gets 409 (issue 9,
finding 4): the claim/start seam and the meta/state seam, with the failure or the interleaving
forced deterministically, plus a race through the real API."""

from __future__ import annotations

import threading
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError

from service.api import create_app
from service.runtime import build
from tests.conftest import Player
from tests.helpers.matches import assert_problem, create, started


class FailingOnce:
    """The real store, except that the ``nth`` call of ``method`` raises a Redis error first."""

    def __init__(self, store: Any, method: str, nth: int) -> None:
        self._store, self._method, self._left = store, method, nth

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._store, name)
        if name != self._method:
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            self._left -= 1
            if self._left == 0:
                raise RedisConnectionError("injected: the connection dropped")
            return real(*args, **kwargs)

        return call


def test_a_failure_between_the_last_claim_and_the_start_is_finished_by_the_retry(settings: Any, players: list[Player]) -> None:
    service = build(settings)
    client = create_app(settings, service, TESTING=True).test_client()
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    mid = made["id"]

    def claim(seat: int) -> Any:
        return client.post(f"/v1/matches/{mid}/seats/{seat}/claim", json={
            "token": made["invites"][str(seat)], "public_key": players[seat].public_key, "name": players[seat].name})

    assert claim(0).status_code == 200
    # update_meta is called by the claim (1st) and then by the start (2nd): fail the start
    service.store = FailingOnce(service.store, "update_meta", 2)  # type: ignore[assignment]
    assert_problem(claim(1), 503, "storage-unavailable")
    stuck = client.get(f"/v1/matches/{mid}").get_json()
    assert stuck["status"] == "waiting" and stuck["open_seats"] == []  # the seam the finding describes
    retry = claim(1)
    assert retry.status_code == 200, retry.get_json()
    assert retry.get_json()["status"] == "active"
    view = client.get(f"/v1/matches/{mid}").get_json()
    assert view["status"] == "active" and view["head"] and view["active_seats"]
    # and the match plays
    seat = view["active_seats"][0]
    r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}]))
    assert r.status_code == 201, r.get_json()
    # the retried claim keeps answering the same, and a stranger's key still cannot take the seat
    assert claim(1).get_json()["status"] == "active"
    r = client.post(f"/v1/matches/{mid}/seats/1/claim", json={
        "token": made["invites"]["1"], "public_key": players[2].public_key, "name": "Cid"})
    assert_problem(r, 409, "seat-taken")


def test_a_failure_after_the_claim_is_stored_is_finished_by_the_retry_too(settings: Any, players: list[Player]) -> None:
    """The seat index write fails after the claim committed: the retry is not "seat-taken"."""
    service = build(settings)
    client = create_app(settings, service, TESTING=True).test_client()
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    mid = made["id"]
    body = {"token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana"}
    client.post(f"/v1/matches/{mid}/seats/1/claim", json={
        "token": made["invites"]["1"], "public_key": players[1].public_key, "name": "Bea"})
    service.store = FailingOnce(service.store, "index_seat", 1)  # type: ignore[assignment]
    assert_problem(client.post(f"/v1/matches/{mid}/seats/0/claim", json=body), 503, "storage-unavailable")
    r = client.post(f"/v1/matches/{mid}/seats/0/claim", json=body)
    assert r.status_code == 200 and r.get_json()["status"] == "active"
    assert service.store.seats_of_key(players[0].public_key) == [(mid, 0)]


def test_a_stored_match_whose_options_setup_refuses_is_aborted_not_left_waiting(client: Any, service: Any,
                                                                              players: list[Player]) -> None:
    """A match stored before options were checked at creation (planted here): the last claim
    answers 200 with the match aborted, never a 500 leaving it waiting with no open seat."""
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], game="el-capitan")
    mid = made["id"]
    service.store.update_meta(mid, lambda meta: meta.but(options={"expansions": [], "start_player": 4}))
    for seat in (0, 1):
        r = client.post(f"/v1/matches/{mid}/seats/{seat}/claim", json={
            "token": made["invites"][str(seat)], "public_key": players[seat].public_key, "name": players[seat].name})
        assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "aborted"
    assert client.get(f"/v1/matches/{mid}").get_json()["status"] == "aborted"


class StaleMetaOnce:
    """The real store, except that the next ``meta`` read returns an older copy: exactly what a
    request sees when a move lands between its read of the meta and its read of the state."""

    def __init__(self, store: Any, old_meta: dict[str, Any]) -> None:
        self._store, self._old = store, old_meta

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def meta(self, match_id: str) -> Any:
        if self._old is not None:
            old, self._old = self._old, None
            return old
        return self._store.meta(match_id)


def test_a_move_judged_after_the_state_moved_on_is_409_stale_ply(settings: Any, players: list[Player]) -> None:
    service = build(settings)
    client = create_app(settings, service, TESTING=True).test_client()
    mid, view = started(client, players)
    url = f"/v1/matches/{mid}/moves"
    # play until the turn passes, keeping the meta from just before the move that passed it
    ply, seat = 0, view["active_seats"][0]
    while True:
        old = service.store.meta(mid)
        haul = client.get(f"/v1/matches/{mid}").get_json()["board"]["haul"]
        action = "bank" if haul else "roll"
        r = client.post(url, json=players[seat].envelope(mid, seat, ply, [{"type": action}], nonce=f"p{ply}"))
        assert r.status_code == 201, r.get_json()
        ply = r.get_json()["ply"]
        if r.get_json()["view"]["active_seats"] != [seat]:
            break
    # the stored state is at `ply`, where `seat` need not act; the request reads the meta of ply-1,
    # where it had to act. Judged against the newer state it used to get "not-your-turn" (or a
    # rules 400/422); the move is stale before it is anything else.
    service.store = StaleMetaOnce(service.store, old)  # type: ignore[assignment]
    r = client.post(url, json=players[seat].envelope(mid, seat, ply - 1, [{"type": "roll"}], nonce="stale"))
    body = assert_problem(r, 409, "stale-ply")
    assert body["current_ply"] == ply
    assert [e["ply"] for e in client.get(f"/v1/matches/{mid}/log").get_json()["entries"]] == list(range(ply))


def test_a_view_read_across_a_move_shows_one_ply(settings: Any, players: list[Player]) -> None:
    """The same seam on a read: the view is the newer ply's meta and board, never a mix."""
    service = build(settings)
    client = create_app(settings, service, TESTING=True).test_client()
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    old = service.store.meta(mid)
    assert client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}])).status_code == 201
    fresh = build(settings)  # a process with nothing cached
    fresh.store = StaleMetaOnce(fresh.store, old)  # type: ignore[assignment]
    got = fresh.view(mid)
    assert got["ply"] == 1 and got["board"] == service.view(mid)["board"]


def _race(app: Any, url: str, payloads: list[dict[str, Any]]) -> list[tuple[int, Any]]:
    """POST every payload at once from its own thread; the answers as (status, body)."""
    answers: list[tuple[int, Any]] = []
    barrier = threading.Barrier(len(payloads))
    lock = threading.Lock()

    def submit(p: dict[str, Any]) -> None:
        c = app.test_client()
        barrier.wait()
        r = c.post(url, json=p)
        with lock:
            answers.append((r.status_code, r.get_json()))

    threads = [threading.Thread(target=submit, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_racing_movers_all_lose_with_409_stale_ply(app: Any, players: list[Player]) -> None:
    """Many rounds of four racers on the same ply: one wins, every loser gets 409 stale-ply
    (never not-your-turn, 400 or 422 from being judged against the winner's state)."""
    client = app.test_client()
    mid, view = started(client, players)
    seat, ply, racers = view["active_seats"][0], 0, 4
    for rnd in range(25):
        haul = client.get(f"/v1/matches/{mid}").get_json()["board"]["haul"]
        # alternate: a bank (the turn passes, so a loser judged late would not be the active seat)
        action = "bank" if haul and rnd % 2 else "roll"
        payloads = [players[seat].envelope(mid, seat, ply, [{"type": action}], nonce=f"r{rnd}-{i}") for i in range(racers)]
        answers = _race(app, f"/v1/matches/{mid}/moves", payloads)
        won = [body for status, body in answers if status == 201]
        lost = [(status, body["code"]) for status, body in answers if status != 201]
        assert len(won) == 1, answers
        # once the winner ends the match, a loser that reads after it is told that instead (still 409)
        codes = {"stale-ply"} if won[0]["status"] == "active" else {"stale-ply", "match-not-active"}
        assert len(lost) == racers - 1 and all(status == 409 and code in codes for status, code in lost), lost
        if won[0]["status"] != "active":
            break
        ply, seat = won[0]["ply"], won[0]["view"]["active_seats"][0]
