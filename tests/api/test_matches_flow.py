"""A match of the fixture game over HTTP: create, claim, view, move, log, errors."""

from __future__ import annotations

from typing import Any

from tests.conftest import Player
from tests.helpers.matches import create, started


def test_create_claim_and_start(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"bot": "random"}])
    assert len(made["commitment"]) == 64 and set(made["invites"]) == {"0"}
    view = client.get(f"/v1/matches/{made['id']}").get_json()
    assert view["status"] == "waiting" and view["open_seats"] == [0]
    r = client.post(f"/v1/matches/{made['id']}/seats/0/claim", json={
        "token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana"})
    assert r.status_code == 200 and r.get_json()["status"] == "active"
    view = client.get(f"/v1/matches/{made['id']}").get_json()
    assert view["status"] == "active" and view["open_seats"] == [] and view["board"]["target"] == 12


def test_move_view_log_and_etag(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    mine = client.get(path, headers=players[seat].auth("GET", path)).get_json()
    assert mine["legal_actions"] == [{"action": {"type": "roll"}, "text": "roll the die"}]
    r = client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}]))
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["ply"] == 1 and body["events"][0]["type"] == "rolled"
    r1 = client.get(f"/v1/matches/{mid}")
    assert r1.headers["ETag"] == '"1-active"'
    assert client.get(f"/v1/matches/{mid}", headers={"If-None-Match": '"1-active"'}).status_code == 304
    log = client.get(f"/v1/matches/{mid}/log?from=0").get_json()
    assert [e["ply"] for e in log["entries"]] == [0] and log["entries"][0]["signature"]
    assert log["head"] == log["entries"][0]["hash"] == body["head"]


def test_resubmitting_an_accepted_envelope_returns_the_original(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    payload = players[seat].envelope(mid, seat, 0, [{"type": "roll"}])
    first = client.post(f"/v1/matches/{mid}/moves", json=payload).get_json()
    again = client.post(f"/v1/matches/{mid}/moves", json=payload)
    assert again.status_code == 200
    body = again.get_json()
    assert body["replayed"] is True and body["head"] == first["head"] and body["accepted_ply"] == 0
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == 1


def test_lobby_lists_open_seats_and_filters(client: Any, players: list[Player]) -> None:
    waiting = create(client, [{"invite": "a@example.org"}, {"bot": "random"}])
    mid, _ = started(client, players)
    rows = client.get("/v1/matches?status=waiting").get_json()["matches"]
    assert [r["id"] for r in rows] == [waiting["id"]] and rows[0]["open_seats"] == [0]
    everything = client.get("/v1/matches").get_json()["matches"]
    assert [r["id"] for r in everything] == [mid, waiting["id"]]
    assert client.get("/v1/matches?game=el-nada").get_json()["matches"] == []
    assert client.get("/v1/matches?status=sleeping").status_code == 400
    assert client.get("/v1/matches?limit=0").status_code == 400


def test_ids_and_tokens_are_safe_on_a_command_line(client: Any) -> None:
    for i in range(30):
        made = create(client, [{"invite": f"a{i}@example.org"}, {"bot": "random"}])
        for text in (made["id"], *made["invites"].values()):
            assert text[0] not in "-_" and text.isalnum()


def test_a_move_answer_without_the_view(client: Any, players: list[Player]) -> None:
    """``?view=none`` or ``Prefer: return=minimal``: ply and receipt without the view, and a
    later GET shows the move; a bad ``view`` is refused before anything is applied."""
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    bad = client.post(f"/v1/matches/{mid}/moves?view=some", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}]))
    assert bad.status_code == 400 and bad.get_json()["code"] == "bad-query"
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == 0
    r = client.post(f"/v1/matches/{mid}/moves?view=none", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}]))
    assert r.status_code == 201 and "Preference-Applied" not in r.headers
    body = r.get_json()
    assert "view" not in body and body["ply"] == 1 and body["receipt"] and body["events"]
    match = client.get(f"/v1/matches/{mid}").get_json()
    assert match["ply"] == 1
    seat = match["active_seats"][0]
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    action = client.get(path, headers=players[seat].auth("GET", path)).get_json()["legal_actions"][0]["action"]
    env = players[seat].envelope(mid, seat, 1, [action])
    r = client.post(f"/v1/matches/{mid}/moves", json=env, headers={"Prefer": "return=minimal"})
    assert r.status_code == 201 and r.headers["Preference-Applied"] == "return=minimal" and "view" not in r.get_json()
    again = client.post(f"/v1/matches/{mid}/moves", json=env, headers={"Prefer": "return=minimal"})
    assert again.status_code == 200 and again.get_json()["replayed"] is True and "view" not in again.get_json()
    full = client.post(f"/v1/matches/{mid}/moves?view=full", json=env, headers={"Prefer": "return=minimal"})
    assert full.status_code == 200 and "view" in full.get_json()  # the query wins
