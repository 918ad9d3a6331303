"""The hosted games' editions as the tests change them (a document that no longer matches its digest)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service import games
from service.games import edition_check
from service.games.base import Game


def _tracks(data: dict[str, Any]) -> None:
    # every base city's printed track: the values the issue says were never found
    for k, city in enumerate(data["cities"]):
        city["track"] = [v + 1 + k % 3 for v in city["track"]]


def _prices(data: dict[str, Any]) -> None:
    data["action_spaces"]["price_rows"] = [[v + 1 for v in row] for row in data["action_spaces"]["price_rows"]]


def _vp_cards(data: dict[str, Any]) -> None:
    for deck in ("deck_A", "deck_B"):
        for card in data["market"][deck]:
            card["favor_vp"] += 2
    # and the metals' worth, which every whole match meets (a temple is completed by donations, and
    # a match the market ends leaves metals in holds): a random match may never pay favour for a
    # card's VP, and then the card change alone leaves the outcome as it was
    for metal in ("gold", "silver"):
        data["donation_vp"][metal] += 1
        data["leftover_vp"][metal] += 1


CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {"el-capitan": _tracks, "nauticus": _prices, "ophir": _vp_cards}


GAMES = ["el-capitan", "nauticus", "ophir"]


def game(game_id: str) -> Game[Any]:
    g = games.get(game_id)
    assert g is not None
    return g


def changed_document(game_id: str, edition_id: str = "box") -> dict[str, Any]:
    """An edition of ``game_id`` from its template, with the issue's numbers changed."""
    doc = edition_check.template(game(game_id))
    doc["edition"] = edition_id
    CHANGES[game_id](doc["data"])
    return doc
