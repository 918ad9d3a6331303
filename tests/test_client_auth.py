"""The SDK signs requests the way the server checks them, over real HTTP (issue 9, finding 3):
one place builds the header (``Client._auth``), each request gets a fresh nonce, the query and
the body are the bytes actually sent, and a move POST is signed so that a retry of an accepted
move still gets the seat's private answer."""

from __future__ import annotations

import pytest
import requests

from service.play.matches import Matches
from service.tools.client import ApiError, Client
from tests.conftest import CREATOR_KEY, Player


def test_sdk_signed_reads_moves_and_retries(served: str, service: Matches, players: list[Player]) -> None:
    made = service.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], creator_key=CREATOR_KEY)
    mid = made["id"]
    for i in range(2):
        service.claim(mid, i, made["invites"][str(i)], players[i].public_key, players[i].name, "")
    seat = service.meta(mid).active[0]
    me = Client(served, private_key=players[seat].private_key)

    view = me.view(mid, seat)
    assert view["legal_actions"] and me.view(mid, seat)["legal_actions"]  # two reads, two nonces
    assert [t["match"] for t in me.my_turns()] == [mid]

    first = me.move(mid, seat, players[seat].private_key, [{"type": "roll"}], ply=0, nonce="once")
    assert first["replayed"] is False
    again = me.move(mid, seat, players[seat].private_key, [{"type": "roll"}], ply=0, nonce="once")
    assert again["replayed"] is True and "legal_actions" in again["view"]  # signed retry: the seat's answer

    # the same header twice: the second is a replay
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    headers = me._auth("GET", path)
    assert requests.get(served + path, headers=headers, timeout=10).status_code == 200
    r = requests.get(served + path, headers=headers, timeout=10)
    assert r.status_code == 401 and r.json()["code"] == "replayed-request"

    # a query the signature does not cover
    r = requests.get(served + path + "?x=1", headers=me._auth("GET", path), timeout=10)
    assert r.status_code == 401 and r.json()["code"] == "bad-signature"
    r = requests.get(served + path + "?x=1", headers=me._auth("GET", path, "x=1"), timeout=10)
    assert r.status_code == 200

    with pytest.raises(ValueError, match="private key"):
        Client(served)._auth("GET", path)
    stranger = Client(served, private_key=Player("Eve").private_key)
    with pytest.raises(ApiError) as err:
        stranger.view(mid, seat)
    assert err.value.status == 403 and err.value.code == "not-your-seat"
