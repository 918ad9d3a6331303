"""Requests that race each other on one match (the second outside test of issue 9): two keys
claiming one seat, a claim against an abort, an abort against the last claim. Whatever the
interleaving, exactly one side wins, the other gets a clear 4xx, and the match is in one
consistent state (never started and aborted, never a seat with two keys)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from service.play.matches import Matches
from tests.conftest import CREATOR, Player, signed_headers
from tests.helpers.matches import create, released_together

ROUNDS = 8


def _at_once(app: Any, calls: list[Callable[[Any], Any]]) -> list[Any]:
    """Run every call from its own thread and client, released together; the responses in order."""
    clients = [app.test_client() for _ in calls]
    return released_together([lambda call=call, c=c: call(c) for call, c in zip(calls, clients, strict=True)])


def _claim(mid: str, seat: int, token: str, player: Player) -> Callable[[Any], Any]:
    return lambda c: c.post(f"/v1/matches/{mid}/seats/{seat}/claim",
                            json={"token": token, "public_key": player.public_key, "name": player.name})


def _abort(mid: str) -> Callable[[Any], Any]:
    path = f"/v1/matches/{mid}/abort"
    return lambda c: c.post(path, data=b"", headers=signed_headers(CREATOR, "POST", path))


def test_two_keys_claiming_one_seat_at_once(app: Any, service: Matches, players: list[Player]) -> None:
    client = app.test_client()
    for _ in range(ROUNDS):
        made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
        mid, token = made["id"], made["invites"]["0"]
        answers = _at_once(app, [_claim(mid, 0, token, players[0]), _claim(mid, 0, token, players[1])])
        codes = sorted(r.status_code for r in answers)
        assert codes == [200, 409], [r.get_json() for r in answers]
        loser = next(r for r in answers if r.status_code == 409)
        assert loser.get_json()["code"] == "seat-taken"
        winner = players[answers.index(next(r for r in answers if r.status_code == 200))]
        row = service.store.meta(mid).seats[0]
        assert row.claimed and row.public_key == winner.public_key
        loser_key = players[1 - players.index(winner)].public_key
        assert (mid, 0) not in service.store.seats_of_key(loser_key)


def test_the_last_claim_racing_an_abort(app: Any, service: Matches, players: list[Player]) -> None:
    client = app.test_client()
    for _ in range(ROUNDS):
        made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
        mid = made["id"]
        assert _claim(mid, 0, made["invites"]["0"], players[0])(client).status_code == 200
        claim, abort = _at_once(app, [_claim(mid, 1, made["invites"]["1"], players[1]), _abort(mid)])
        meta = service.store.meta(mid)
        assert claim.status_code < 500 and abort.status_code < 500, (claim.get_json(), abort.get_json())
        if abort.status_code == 200:  # the abort came first: the claim is refused, or stands on an aborted match
            assert meta.status == "aborted" and service.store.state(mid) is None
            assert claim.status_code == 409 or claim.get_json()["status"] == "aborted", claim.get_json()
        else:  # the claim (and the start) came first
            assert abort.status_code == 409 and abort.get_json()["code"] == "match-not-waiting"
            assert meta.status == "active" and service.store.state(mid)["ply"] == 0 and meta.head
            assert claim.get_json()["status"] == "active"
        # either way the match answers consistently to everyone
        shown = client.get(f"/v1/matches/{mid}").get_json()
        assert shown["status"] == meta.status
        assert json.dumps(shown)  # a whole view, no 500


def test_a_claim_of_an_open_seat_racing_an_abort(app: Any, service: Matches, players: list[Player]) -> None:
    client = app.test_client()
    for _ in range(ROUNDS):
        made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}, {"invite": "c@example.org"}])
        mid = made["id"]
        claim, abort = _at_once(app, [_claim(mid, 0, made["invites"]["0"], players[0]), _abort(mid)])
        assert abort.status_code == 200, abort.get_json()  # the match cannot have started: two seats stay open
        assert claim.status_code in (200, 409), claim.get_json()
        assert service.store.meta(mid).status == "aborted"
