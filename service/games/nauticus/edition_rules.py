"""What an edition of Nauticus must hold beyond its schema (docs/editions.md lists these rules).

The schema bounds each number alone (rounds and phases at least 1, the thaler per VP a divisor at
least 1); these are the rules between numbers that the rules code relies on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def check(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Each (field, rule) the edition's ``data`` breaks; nothing for a playable one."""
    tiles = [k for k in data["action_tiles"] if not k.startswith("_")]
    if data["action_phases_per_round"] > len(tiles):
        yield ("data.action_phases_per_round", f"is {data['action_phases_per_round']}; a round has at most one phase per "
               f"action tile ({len(tiles)}), each phase takes one")
    rows = len(data["action_spaces"]["price_rows"])
    for i, row in enumerate(data["wheel"]["segments_clockwise_from_anchor"]):
        if row >= rows:
            yield (f"data.wheel.segments_clockwise_from_anchor[{i}]", f"is {row}; a segment names a price row, "
                   f"0 to {rows - 1}")
    spaces = len(data["action_spaces"]["bonuses"])
    if data["wheel"]["initial_anchor_space"] >= spaces:
        yield ("data.wheel.initial_anchor_space", f"is {data['wheel']['initial_anchor_space']}; the anchor starts on "
               f"an action space, 0 to {spaces - 1}")
    house = data["warehouse"]
    for size in ("mast_size", "other_size"):
        if house[size] > house["capacity"]:
            yield (f"data.warehouse.{size}", f"is {house[size]}; a tile must fit in a warehouse of capacity "
                   f"{house['capacity']}")
