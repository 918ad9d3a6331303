"""Undo over the API (issue 16 item 3): a signed ``{"type": "undo"}`` move is accepted like any
step, the seat's view offers it only when possible, a refused undo changes nothing, and what the
next player is told happened since their last move leaves the undone steps out."""

from __future__ import annotations

from typing import Any

from service.delivery.letters import happened_since
from service.play.matches import Matches
from service.proof.verify import verify_record
from tests.conftest import CREATOR, Player, create_match


def el_capitan(client: Any, players: list[Player]) -> str:
    r = create_match(client, {"game": "el-capitan", "options": {"start_player": 0},
                              "seats": [{"invite": "a@example.org"}, {"invite": "b@example.org"}]}, CREATOR)
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    for i in range(2):
        r = client.post(f"/v1/matches/{made['id']}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200, r.get_json()
    return str(made["id"])


def legal(client: Any, player: Player, mid: str, seat: int) -> list[dict[str, Any]]:
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    return list(client.get(path, headers=player.auth("GET", path)).get_json()["legal_actions"])


def move(client: Any, player: Player, mid: str, ply: int, action: dict[str, Any]) -> Any:
    return client.post(f"/v1/matches/{mid}/moves", json=player.envelope(mid, 0, ply, [action], nonce=f"n{ply}"))


def test_an_undo_is_a_signed_move_and_the_undone_step_is_not_news(client: Any, service: Matches,
                                                                   players: list[Player]) -> None:
    mid = el_capitan(client, players)
    ana = players[0]
    offered = legal(client, ana, mid, 0)
    assert {"type": "undo"} not in [row["action"] for row in offered]
    r = move(client, ana, mid, 0, {"type": "undo"})
    assert r.status_code == 422 and "nothing to undo" in r.get_json()["detail"]
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == 0  # a refused undo changes nothing

    buy = next(row["action"] for row in offered if row["action"]["type"] == "buy-card")
    assert move(client, ana, mid, 0, buy).status_code == 201
    assert {"action": {"type": "undo"}, "text": "undo your last step"} in legal(client, ana, mid, 0)
    r = move(client, ana, mid, 1, {"type": "undo"})
    assert r.status_code == 201, r.get_json()
    assert [e["type"] for e in r.get_json()["events"]] == ["undone"]
    assert {"type": "undo"} not in [row["action"] for row in legal(client, ana, mid, 0)]

    # another purchase, and the turn played to its end: build where a voyage leads, else a loan
    other = next(row["action"] for row in legal(client, ana, mid, 0)
                 if row["action"]["type"] == "buy-card" and row["action"] != buy)
    assert move(client, ana, mid, 2, other).status_code == 201
    ply = 3
    prefer = ["build-warehouse", "build-fortress", "end-turn", "sail", "take-loan", "pass"]
    while client.get(f"/v1/matches/{mid}").get_json()["active_seats"] == [0]:
        rows = [row["action"] for row in legal(client, ana, mid, 0)]
        step = min((a for a in rows if a["type"] in prefer), key=lambda a: prefer.index(a["type"]))
        assert move(client, ana, mid, ply, step).status_code == 201
        ply += 1

    meta = client.get(f"/v1/matches/{mid}").get_json()
    assert meta["ply"] == ply and meta["active_seats"] == [1]
    news = happened_since(service, mid, 1, ply)
    assert any(other["card"] in line for line in news), news
    assert not any(buy["card"] in line or "took back" in line for line in news), news
    # the log keeps every step: append-only, each one signed
    log = client.get(f"/v1/matches/{mid}/log?from=0").get_json()
    assert [e["envelope"]["actions"][0]["type"] for e in log["entries"]][:3] == ["buy-card", "undo", "buy-card"]
    report = verify_record(service.record(mid))  # and the record, undo included, verifies
    assert report.ok, report.text()
