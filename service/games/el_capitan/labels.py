"""The labels of El Capitán's legal actions in a player's menu: plain words with the price.

:func:`.game.describe_action` words an action on its own (a logged move); a menu knows the position,
so its label also says what the action costs ("buy card D10 (Napoli, 3 seals) for 5", "build a blue
warehouse in Napoli for 4") and names the player a start-player choice makes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .data import ALL_CITIES, CARDS, COLOURS, LOANS, PIRATE_STEP_COST
from .rules import distance
from .state import BANK, OFF, State, city_data, main_colour


def label(state: State, seat: int, a: Mapping[str, Any], plain: str) -> str:
    """The menu label of legal action ``a`` of ``seat``; ``plain`` is its stateless description."""
    kind = a.get("type")
    player = state.players[seat]
    if kind == "buy-card" and a.get("card") in CARDS:
        return f"{plain} for {CARDS[a['card']].cost}"
    here = city_data(state, player.ship) if player.ship not in (BANK, OFF) and player.ship >= 0 else None
    if kind == "build-warehouse" and here is not None:
        colour = f" {a['colour']}" if "colour" in a else ""
        site = f" on site {a['site']}" if "site" in a else ""
        return f"build a{colour} warehouse in {here.name}{site} for {here.harbours[player.berth]}"
    if kind == "reopen" and here is not None:
        colour = f" {a['colour']}" if "colour" in a else ""
        return f"re-open your shut-down{colour} warehouse in {here.name} (free)"
    if kind == "build-fortress" and here is not None and isinstance(a.get("space"), int):
        return f"build a fortress in {here.name} on fortress space {a['space']} for {here.fortresses[a['space'] - 1]}"
    if kind == "move-pirate" and a.get("means") == "money" and a.get("to") in ALL_CITIES and state.pirate >= 0:
        cost = PIRATE_STEP_COST * distance(city_data(state, state.pirate), ALL_CITIES[a["to"]])
        return f"move the pirate ship to {ALL_CITIES[a['to']].name}, harbour space {a.get('harbour')}, for {cost}"
    if kind == "take-loan" and a.get("amount") in LOANS:
        return f"{plain} (repay {LOANS[a['amount']][0]} after the next payday)"
    if kind == "settle-loan" and isinstance(a.get("loan"), int) and 0 <= a["loan"] < len(player.loans):
        amount, extended = player.loans[a["loan"]]
        front, back = LOANS.get(amount, (0, 0))
        loan = f"{'extended ' if extended else ''}{amount}-Florin loan"
        if a.get("choice") == "repay":
            return f"repay your {loan} for {back if extended else front}"
        return f"extend your {loan} ({back} is due after the next payday)"
    if kind == "choose-start-player" and isinstance(a.get("seat"), int) and 0 <= a["seat"] < state.n:
        who = "yourself" if a["seat"] == seat else COLOURS[main_colour(state.n, a["seat"])].capitalize()
        return f"make {who} the start player of the next phase"
    return plain
