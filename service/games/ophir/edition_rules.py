"""What an edition of Ophir must hold beyond its schema (docs/editions.md lists these rules).

The schema bounds each number alone (dice with at least one side, at least one demand stand and
one extra specialist); these are the rules between numbers that the rules code relies on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import pairwise
from typing import Any

PLAYERS = range(2, 5)
"""The player counts Ophir is played with (the game's ``players``)."""


def check(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Each (field, rule) the edition's ``data`` breaks; nothing for a playable one."""
    yield from _map(data)
    market = data["market"]
    stands, modifiers = market["demand_stands"], len(market["price_modifiers"])
    if stands > modifiers:
        yield "data.market.demand_stands", f"is {stands}; each demand stand takes a price modifier ({modifiers})"
    if market["remove_from_A"] > len(market["deck_A"]):
        yield ("data.market.remove_from_A", f"is {market['remove_from_A']}; deck A has only {len(market['deck_A'])} cards")
    left = len(market["deck_A"]) - market["remove_from_A"] + len(market["deck_B"])
    if left < stands + 1:
        yield ("data.market", f"{left} cards after the removal cannot fill {stands} demand stands and show a future "
               "demand (the deck is too small)")
    most = max(PLAYERS)
    if most + data["draft"]["extra_cards"] > len(data["specialists"]):
        yield ("data.draft.extra_cards", f"is {data['draft']['extra_cards']}; {most} players and the extra cards "
               f"need more than the {len(data['specialists'])} specialists")
    cargo = data["cargo"]
    holds = [cargo["base_holds"], *cargo["holds_after_upgrade"]]
    if any(a >= b for a, b in pairwise(holds)):
        yield ("data.cargo.holds_after_upgrade", f"{holds[1:]} after a base of {holds[0]}: each upgrade must give "
               "more holds than before")
    for size in ("good_size", "metal_size"):
        if cargo[size] > cargo["base_holds"]:
            yield (f"data.cargo.{size}", f"is {cargo[size]}; a ship of {cargo['base_holds']} holds (the base) could "
                   "never carry it")
    if cargo["max_upgrades"] > len(cargo["holds_after_upgrade"]):
        yield ("data.cargo.max_upgrades", f"is {cargo['max_upgrades']}; holds_after_upgrade lists only "
               f"{len(cargo['holds_after_upgrade'])} upgrades")
    favor = data["favor"]
    if favor["min"] > favor["max"]:
        yield "data.favor.min", f"is {favor['min']}, above the favour track's max {favor['max']}"
    for i, s in enumerate(data["specialists"]):
        if not favor["min"] <= s["starting_favor"] <= favor["max"]:
            yield (f"data.specialists[{i}].starting_favor", f"is {s['starting_favor']}; favour is from "
                   f"{favor['min']} to {favor['max']}")
    dice = data["dice"]
    for name in ("lowest", "player_start", "rival_start"):
        if not 1 <= dice[name] <= dice["sides"] or dice[name] < dice["lowest"]:
            yield f"data.dice.{name}", f"is {dice[name]}; a die shows {dice['lowest']} to {dice['sides']}"
    for n in PLAYERS:
        if not any(n in t["players"] for t in data["temple_tiers"]):
            yield "data.temple_tiers", f"no temple tier is used with {n} players: the temple could never be built"


def _map(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """The map: distinct edge ids and hex places, and barriers that always leave a legal place."""
    ids = [e["id"] for e in data["edges"]]
    for i, eid in enumerate(ids):
        if eid in ids[:i]:
            yield f"data.edges[{i}].id", f"edge {eid} is numbered twice"
    places = [(h["q"], h["r"]) for h in data["hexes"]]
    for i, place in enumerate(places):
        if place in places[:i]:
            yield f"data.hexes[{i}]", f"two hexes at q={place[0]}, r={place[1]}"
    # a barrier touches at most two outer hexes and two may not share one (rule §2.3): with this
    # many, the barrier phase can always be finished whatever was placed first
    outer = len(data["hexes"]) - 1
    most = 1 + (outer - 1) // 2
    if data["barriers"]["count"] > most:
        yield ("data.barriers.count", f"is {data['barriers']['count']}; with {outer} outer hexes at most {most} barriers "
               "can always be placed")
