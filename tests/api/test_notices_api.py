"""``GET/PUT /v1/me/notices``: an address's notice preference, set only by a key holding a seat
that mails that address; every refusal changes nothing."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from service.config import Settings
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from tests.conftest import Player, create_match, signed_headers

PATH = "/v1/me/notices"


def claimed(client: Any, players: list[Player]) -> str:
    """A match whose seat 0 Ana claimed with ana@example.org (seat 1 stays open)."""
    made = create_match(client, {"game": "harbour-race", "seats": [{"invite": "ana@example.org"},
                                                                   {"invite": "bea@example.org"}]}).get_json()
    r = client.post(f"/v1/matches/{made['id']}/seats/0/claim", json={
        "token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana", "email": "Ana@Example.org"})
    assert r.status_code == 200
    return str(made["id"])


def put(client: Any, player: Player, body: Any) -> Any:
    raw = json.dumps(body).encode()
    return client.put(PATH, data=raw, content_type="application/json",
                      headers=signed_headers(player.private_key, "PUT", PATH, raw))


def get(client: Any, player: Player, email: str) -> Any:
    query = urlencode({"email": email})
    return client.get(f"{PATH}?{query}", headers=signed_headers(player.private_key, "GET", PATH, b"", query))


def test_the_seat_holder_sets_and_reads_the_preference(client: Any, players: list[Player], settings: Settings) -> None:
    claimed(client, players)
    r = get(client, players[0], "Ana@example.org")
    assert r.status_code == 200 and r.get_json() == {"email": "Ana@example.org", "notices": "every"}
    r = put(client, players[0], {"email": "Ana@example.org", "notices": "digest"})
    assert r.status_code == 200 and r.get_json()["notices"] == "digest"
    assert get(client, players[0], "Ana@example.org").get_json()["notices"] == "digest"
    # the store the jobs read says so too, however the address's case is spelled
    prefs = NoticePreferences(connect(settings.redis_url), settings.namespace)
    assert prefs.get("ana@EXAMPLE.org") == "digest"
    assert put(client, players[0], {"email": "Ana@example.org", "notices": "off"}).get_json()["notices"] == "off"
    assert prefs.get("Ana@example.org") == "off"


def test_another_key_is_refused_and_changes_nothing(client: Any, players: list[Player], settings: Settings) -> None:
    claimed(client, players)
    prefs = NoticePreferences(connect(settings.redis_url), settings.namespace)
    r = put(client, players[1], {"email": "Ana@example.org", "notices": "off"})
    assert r.status_code == 403 and r.get_json()["code"] == "not-your-address"
    assert "Ana@example.org" in r.get_json()["detail"]
    assert get(client, players[1], "Ana@example.org").status_code == 403
    assert prefs.get("Ana@example.org") == "every"
    # an address the key's seat does not have is refused too, even for the seat holder
    assert put(client, players[0], {"email": "bea@example.org", "notices": "off"}).status_code == 403
    assert prefs.get("bea@example.org") == "every"


def test_a_bad_value_or_body_is_400_and_changes_nothing(client: Any, players: list[Player], settings: Settings) -> None:
    claimed(client, players)
    prefs = NoticePreferences(connect(settings.redis_url), settings.namespace)
    r = put(client, players[0], {"email": "Ana@example.org", "notices": "sometimes"})
    assert r.status_code == 400 and "every, digest, off" in r.get_data(as_text=True)
    assert put(client, players[0], {"email": "not an address", "notices": "off"}).get_json()["code"] == "bad-email"
    assert put(client, players[0], {"notices": "off"}).status_code == 400
    assert put(client, players[0], {"email": "Ana@example.org", "notices": "off", "more": 1}).status_code == 400
    assert client.get(PATH, headers=signed_headers(players[0].private_key, "GET", PATH)).get_json()["code"] == "bad-query"
    assert prefs.get("Ana@example.org") == "every"


def test_an_unsigned_or_replayed_request_is_401(client: Any, players: list[Player]) -> None:
    claimed(client, players)
    raw = json.dumps({"email": "Ana@example.org", "notices": "off"}).encode()
    assert client.put(PATH, data=raw, content_type="application/json").status_code == 401
    headers = signed_headers(players[0].private_key, "PUT", PATH, raw)
    assert client.put(PATH, data=raw, content_type="application/json", headers=headers).status_code == 200
    again = client.put(PATH, data=raw, content_type="application/json", headers=headers)
    assert again.status_code == 401 and again.get_json()["code"] == "replayed-request"
