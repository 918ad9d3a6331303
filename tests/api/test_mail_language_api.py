"""``PUT /v1/me/language``: the language of an address's mail (issue 29), set only by a key holding a
seat that mails that address, as ``/v1/me/notices``; every refusal changes nothing."""

from __future__ import annotations

import json
from typing import Any

from service.config import Settings
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from tests.conftest import Player, create_match, signed_headers

PATH = "/v1/me/language"


def claimed(client: Any, players: list[Player]) -> str:
    """A match whose seat 0 Ana claimed with ana@example.org (seat 1 stays open)."""
    made = create_match(client, {"game": "harbour-race", "seats": [{"invite": "ana@example.org"},
                                                                   {"invite": "bea@example.org"}]}).get_json()
    r = client.post(f"/v1/matches/{made['id']}/seats/0/claim", json={
        "token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana", "email": "ana@example.org"})
    assert r.status_code == 200
    return str(made["id"])


def put(client: Any, player: Player, body: Any) -> Any:
    raw = json.dumps(body).encode()
    return client.put(PATH, data=raw, content_type="application/json",
                      headers=signed_headers(player.private_key, "PUT", PATH, raw))


def test_the_seat_holder_sets_the_mail_language_by_code_or_name(client: Any, players: list[Player],
                                                                 settings: Settings) -> None:
    claimed(client, players)
    prefs = NoticePreferences(connect(settings.redis_url), settings.namespace)
    assert prefs.language("ana@example.org") == "en"
    r = put(client, players[0], {"email": "Ana@example.org", "language": "magyar"})
    assert r.status_code == 200 and r.get_json() == {"email": "Ana@example.org", "language": "hu"}
    assert prefs.language("ANA@example.org") == "hu"
    assert put(client, players[0], {"email": "ana@example.org", "language": "en"}).get_json()["language"] == "en"
    assert prefs.chosen_language("ana@example.org") == "en"


def test_refusals_change_nothing(client: Any, players: list[Player], settings: Settings) -> None:
    claimed(client, players)
    prefs = NoticePreferences(connect(settings.redis_url), settings.namespace)
    r = put(client, players[0], {"email": "ana@example.org", "language": "klingon"})
    assert r.status_code == 400 and r.get_json()["code"] == "unknown-language"
    r = put(client, players[1], {"email": "ana@example.org", "language": "hu"})  # Bea holds no seat of Ana's
    assert r.status_code == 403 and r.get_json()["code"] == "not-your-address"
    r = client.put(PATH, json={"email": "ana@example.org", "language": "hu"})  # unsigned
    assert r.status_code == 401
    assert prefs.chosen_language("ana@example.org") is None
