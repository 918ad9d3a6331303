"""Matches over the API through the Flask test client: create, claim, start, look, and the refusal checks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tests.conftest import CREATOR, Player, create_match


def create(client: Any, seats: list[dict[str, str]], game: str = "harbour-race", creator: str = CREATOR,
           **options: Any) -> dict[str, Any]:
    """Create a match through the API, signed by ``creator`` (a private key)."""
    r = create_match(client, {"game": game, "seats": seats, "options": options}, creator)
    assert r.status_code == 201, r.get_json()
    return dict(r.get_json())


def started(client: Any, players: list[Player], n: int = 2) -> tuple[str, dict[str, Any]]:
    made = create(client, [{"invite": f"p{i}@example.org"} for i in range(n)])
    mid = made["id"]
    for i in range(n):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name,
            "email": f"p{i}@example.org"})
        assert r.status_code == 200, r.get_json()
    return mid, client.get(f"/v1/matches/{mid}").get_json()


def snapshot(client: Any, mid: str) -> tuple[Any, Any]:
    view = client.get(f"/v1/matches/{mid}").get_json()
    log = client.get(f"/v1/matches/{mid}/log").get_json()
    return view, log


def assert_problem(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.get_data(as_text=True)
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["code"] == code and body["status"] == status and body["detail"]
    return dict(body)


def claimed(client: Any, players: list[Player], game: str = "harbour-race", n: int = 2) -> str:
    made = create(client, [{"invite": f"p{i}@example.org"} for i in range(n)], game=game)
    mid = made["id"]
    for i in range(n):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": made["invites"][str(i)], "public_key": players[i].public_key, "name": players[i].name})
        assert r.status_code == 200, r.get_json()
    return str(mid)


def first_legal(client: Any, mid: str, players: list[Player]) -> tuple[int, dict[str, Any], int]:
    shown = client.get(f"/v1/matches/{mid}").get_json()
    seat = shown["active_seats"][0]
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    mine = client.get(path, headers=players[seat].auth("GET", path)).get_json()
    return seat, mine["legal_actions"][0]["action"], shown["ply"]


def released_together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run every call from its own thread, released together by a barrier; the answers in order."""
    answers: list[Any] = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i: int) -> None:
        barrier.wait()
        answers[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def claim_all(client: Any, made: dict[str, Any], players: list[Player]) -> str:
    mid: str = made["id"]
    for i, token in sorted(made["invites"].items()):
        r = client.post(f"/v1/matches/{mid}/seats/{i}/claim", json={
            "token": token, "public_key": players[int(i)].public_key, "name": players[int(i)].name,
            "email": f"p{i}@example.org"})
        assert r.status_code == 200, r.get_json()
    return mid
