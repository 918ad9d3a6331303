"""Move previews over HTTP: the steps applied tentatively, never stored, never showing a die or a
hidden card, and refused exactly as the move would be.

The per-game tests play a real match with random legal steps. Before each move the queue is
previewed; then the same steps are sent as the move, and the preview is held to what the move
really did: when the preview showed every step, its board is the board the move produced, and the
move drew no die, caused no hidden event and turned up no card; when it stopped early, the move
did one of those at the step it stopped before.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from service.play.matches import Matches
from tests.conftest import Player, signed_post
from tests.helpers.board_stub import drawn_from, use_stub
from tests.helpers.matches import create, started


@pytest.fixture(autouse=True)
def _stub(monkeypatch: pytest.MonkeyPatch) -> None:
    use_stub(monkeypatch)


def ask(client: Any, player: Player, mid: str, seat: int, ply: Any, actions: Any) -> Any:
    return signed_post(client, f"/v1/matches/{mid}/seats/{seat}/preview", {"ply": ply, "actions": actions},
                       player.private_key)


def seat_view(client: Any, player: Player, mid: str, seat: int) -> dict[str, Any]:
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    r = client.get(path, headers=player.auth("GET", path))
    assert r.status_code == 200, r.get_json()
    return dict(r.get_json())


def test_a_roll_is_never_previewed(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    r = ask(client, players[seat], mid, seat, 0, [{"type": "roll"}])
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["applied"] == 0 and body["open"] is False and body["legal_actions"] == []
    assert "step 1 (roll the die) rolls the dice" in body["reason"]
    assert body["board"] == seat_view(client, players[seat], mid, seat)["board"] == drawn_from(body["svg"])
    assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == 0


def test_refusals_are_a_moves_and_change_nothing(client: Any, players: list[Player]) -> None:
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    me, other = players[seat], players[1 - seat]
    head = client.get(f"/v1/matches/{mid}/log").get_json()

    def refused(r: Any, status: int, code: str) -> dict[str, Any]:
        assert r.status_code == status and r.mimetype == "application/problem+json", r.get_data(as_text=True)
        body: dict[str, Any] = r.get_json()
        assert body["code"] == code, body
        return body

    assert refused(ask(client, me, mid, seat, 1, [{"type": "roll"}]), 409, "stale-ply")["current_ply"] == 0
    illegal = refused(ask(client, me, mid, seat, 0, [{"type": "bank"}]), 422, "illegal-action")
    assert illegal["action_index"] == 0 and illegal["detail"].startswith("action 0: there is nothing to bank")
    assert refused(ask(client, me, mid, seat, 0, [{"type": "fly"}]), 400, "invalid-action")["action_index"] == 0
    refused(ask(client, other, mid, seat, 0, [{"type": "roll"}]), 403, "not-your-seat")
    refused(ask(client, other, mid, 1 - seat, 0, [{"type": "roll"}]), 409, "not-your-turn")
    refused(ask(client, me, mid, seat, 0, [{"type": "roll"}] * 21), 400, "bad-preview")
    refused(ask(client, me, mid, seat, 0, []), 400, "bad-preview")
    refused(ask(client, me, mid, seat, 0, [7]), 400, "malformed-request")
    refused(ask(client, me, mid, seat, "0", [{"type": "roll"}]), 400, "malformed-request")
    path = f"/v1/matches/{mid}/seats/{seat}/preview"
    refused(client.post(path, json={"ply": 0, "actions": [{"type": "roll"}]}), 401, "missing-signature")
    assert client.get(f"/v1/matches/{mid}/log").get_json() == head


def test_a_waiting_match_has_nothing_to_preview(client: Any, players: list[Player]) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}])
    mid = made["id"]
    client.post(f"/v1/matches/{mid}/seats/0/claim", json={"token": made["invites"]["0"],
                                                         "public_key": players[0].public_key, "name": "Ana"})
    r = ask(client, players[0], mid, 0, 0, [{"type": "roll"}])
    assert r.status_code == 409 and r.get_json()["code"] == "match-not-active"


# --------------------------------------------------------------------------------------------
# Real games, played at random


def _el_capitan_cards(board: dict[str, Any]) -> set[str]:
    """Every card a seat can see: the displays, the discards and the hands."""
    seen = {*board["displays"]["destination"], *board["displays"]["connection"],
            *board["discards"]["destination"], *board["discards"]["connection"]}
    return seen | {c for p in board["players"] for c in p["hand"]}


def _ophir_cards(board: dict[str, Any]) -> set[str]:
    """Every market card a seat can see, and the map tokens once turned up."""
    market = board["market"]
    cards = [*market["demand"], market["future"], *market["discard"]]
    return {json.dumps(c, sort_keys=True) for c in cards if c} | \
        {str(h["token"]) for h in board["map"]["hexes"] if h["token"] is not None}


def _nothing(board: dict[str, Any]) -> set[str]:
    return set()


def _revealed(service: Matches, mid: str, ply: int, before: dict[str, Any], after: dict[str, Any],
              seen: Callable[[dict[str, Any]], set[str]]) -> bool:
    """Did the move at ``ply`` draw from the Rng, cause a hidden event or turn up a card?"""
    entry = service.store.log(mid, ply, ply)[0]
    hidden = any("visible_to" in e for e in entry["events"])
    return bool(entry["rng_draws"]) or hidden or not seen(after) <= seen(before)


PREFERRED = {"trade", "rival-trade"}
"""Ophir's steps that shift the market (a face-down card comes up, no die): picked when legal, so
that random play meets them within a short test."""


def choose(pick: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal action, one of :data:`PREFERRED` when there is one."""
    liked = [a for a in legal if a["action"]["type"] in PREFERRED]
    action: dict[str, Any] = pick.choice(liked or legal)["action"]
    return action


GAMES = {"el-capitan": ({}, _el_capitan_cards), "ophir": ({"barriers": "random"}, _ophir_cards),
         "nauticus": ({}, _nothing)}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_preview_shows_what_the_move_does_and_no_more(client: Any, service: Matches, players: list[Player],
                                                        game: str) -> None:
    options, seen = GAMES[game]
    made = create(client, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], game=game, **options)
    mid = made["id"]
    for i in range(2):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200, r.get_json()
    pick = random.Random(f"preview:{game}")
    shown = stopped = 0
    for _ in range(70):
        meta = client.get(f"/v1/matches/{mid}").get_json()
        if meta["status"] != "active":
            break
        seat, ply = meta["active_seats"][0], meta["ply"]
        me = players[seat]
        before = seat_view(client, me, mid, seat)
        queue = [choose(pick, before["legal_actions"])]
        while True:
            r = ask(client, me, mid, seat, ply, queue)
            assert r.status_code == 200, r.get_json()
            body = r.get_json()
            assert body["ply"] == ply and body["applied"] <= len(queue)
            if not body["open"] or len(queue) == 3 or pick.random() < 0.5:
                break
            queue.append(choose(pick, body["legal_actions"]))
        applied = body["applied"]
        assert client.get(f"/v1/matches/{mid}").get_json()["ply"] == ply  # a preview stores nothing
        assert drawn_from(body["svg"]) == body["board"]
        sent = players[seat].envelope(mid, seat, ply, queue[: applied + 1] if applied < len(queue) else queue,
                                      nonce=f"p{ply}")
        moved = client.post(f"/v1/matches/{mid}/moves", json=sent)
        if moved.status_code == 422 and applied:  # the step it stopped before was not legal after all
            sent = players[seat].envelope(mid, seat, ply, queue[:applied], nonce=f"q{ply}")
            moved = client.post(f"/v1/matches/{mid}/moves", json=sent)
        assert moved.status_code == 201, moved.get_json()
        after = moved.get_json()["view"]
        steps = len(sent["envelope"]["actions"])
        if applied == steps:
            shown += 1
            assert body["board"] == after["board"], f"ply {ply}: the preview showed another board than the move made"
            if body["open"]:
                assert body["legal_actions"] == after["legal_actions"]
            assert not _revealed(service, mid, ply, before["board"], after["board"], seen), \
                f"ply {ply}: the preview showed a step that rolled, drew or revealed"
        else:
            stopped += 1
            assert body["reason"] and not body["open"]
            assert _revealed(service, mid, ply, before["board"], after["board"], seen), \
                f"ply {ply}: the preview stopped at step {applied + 1} ({body['reason']}) but the move revealed nothing"
    assert shown > 5, "no step was ever previewed: the test proves nothing"
    if game != "nauticus":  # Nauticus hides nothing and rolls only at a round's end
        assert stopped > 0, "no preview ever stopped: the test proves nothing"
