"""What an edition of El Capitán must hold beyond its schema (docs/editions.md lists these rules).

The schema bounds each number alone (phases, display sizes, loan amounts and copies at least 1);
these are the rules between numbers that the rules code relies on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def check(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Each (field, rule) the edition's ``data`` breaks; nothing for a playable one."""
    rules = data["rules"]
    fees = data["pirate_protection_fee_per_building_by_phase"]
    if rules["phases"] > len(fees):
        yield ("data.rules.phases", f"is {rules['phases']}; the pirate's protection fee is given for {len(fees)} "
               "phases only")
    # each phase hands every colour its supply from the colour's pool: the pool must last all phases
    # (a pool run dry or negative left players with no pieces, or minus some, and the phase never ended)
    pool, supply = data["pieces_per_colour"], data["per_phase_supply"]
    for piece, pooled in (("warehouses", "warehouses"), ("fortresses", "fortresses"),
                          ("two_player_neutral_warehouses", "warehouses")):
        if supply[piece] * rules["phases"] > pool[pooled]:
            yield (f"data.per_phase_supply.{piece}", f"is {supply[piece]}; over {rules['phases']} phases that is more "
                   f"than the {pool[pooled]} {pooled} of a colour (pieces_per_colour)")
    colours = len(data["colours"])
    two = data["two_player_colours"]
    for side in ("main", "neutral"):
        for i, c in enumerate(two[side]):
            if c >= colours:
                yield f"data.two_player_colours.{side}[{i}]", f"is {c}; a colour is 0 to {colours - 1}"
    if set(two["main"]) & set(two["neutral"]):
        yield "data.two_player_colours", "a colour cannot be both a main and a neutral one"
    for kind, cards in (("destination", "destination_cards"), ("connection", "connection_cards")):
        shown = data["display"][kind]
        if shown > len(data[cards]):
            yield f"data.display.{kind}", f"is {shown}; there are only {len(data[cards])} {kind} cards"
    amounts = [loan["amount"] for loan in data["loans"]]
    for i, amount in enumerate(amounts):
        if amount in amounts[:i]:
            yield f"data.loans[{i}].amount", f"a loan of {amount} is listed twice"
    rows = data["grid"]["rows"]
    for group in ("cities", "expansion_cities"):
        for i, city in enumerate(data[group]):
            yield from _city(city, f"data.{group}[{i}]", rows, on_board=not city.get("off_board", False))


def _city(city: Mapping[str, Any], at: str, rows: int, on_board: bool) -> Iterator[tuple[str, str]]:
    """One city: a track with a value to pay, sites that are on its track, a place on the grid."""
    track = city["track"]
    if not any(track) and not city["hatched"]:
        yield f"{at}.track", "has no value above 0: a payday in this city would pay nothing, ever"
    for i, site in enumerate(city["dark"]):
        if not 1 <= site <= len(track):
            yield f"{at}.dark[{i}]", f"is {site}; a site of the track is 1 to {len(track)}"
    triangle = city.get("triangle")
    if triangle is not None and not 1 <= triangle <= len(track):
        yield f"{at}.triangle", f"is {triangle}; a site of the track is 1 to {len(track)}"
    if on_board and not 0 <= city["pos"][0] < rows:
        yield f"{at}.pos[0]", f"is {city['pos'][0]}; the grid's rows are 0 to {rows - 1}"
    start = city.get("pirate_start")
    if start is not None and not 1 <= start["harbour_index"] <= len(city["harbours"]):
        yield (f"{at}.pirate_start.harbour_index", f"is {start['harbour_index']}; the city's harbours are 1 to "
               f"{len(city['harbours'])}")
