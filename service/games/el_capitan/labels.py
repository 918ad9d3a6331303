"""The labels of El Capitán's legal actions in a player's menu: plain words with the price.

:func:`.words.describe_action` words an action on its own (a logged move); a menu knows the position,
so its label also says what the action costs ("buy card D10 (Napoli, 3 seals) for 5", "build a blue
warehouse in Napoli for 4") and names the player a start-player choice makes. Every label is a
:class:`service.i18n.Phrase` (issue 29): English as it always read, any language by the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.i18n import Phrase, phrase

from .data import ALL_CITIES, CARDS, LOANS, PIRATE_STEP_COST
from .rules import distance
from .state import BANK, OFF, State, city_data
from .words import colour, player


def _build(a: Mapping[str, Any], city: str, cost: int) -> Phrase:
    """A warehouse build with its price; the colour and the site only when the action gives them."""
    if "colour" in a and "site" in a:
        return phrase("build a {colour} warehouse in {city} on site {site} for {cost}", colour=colour(str(a["colour"])),
                      city=city, site=a["site"], cost=cost)
    if "colour" in a:
        return phrase("build a {colour} warehouse in {city} for {cost}", colour=colour(str(a["colour"])), city=city,
                      cost=cost)
    if "site" in a:
        return phrase("build a warehouse in {city} on site {site} for {cost}", city=city, site=a["site"], cost=cost)
    return phrase("build a warehouse in {city} for {cost}", city=city, cost=cost)


def _settle(a: Mapping[str, Any], amount: int, extended: bool) -> Phrase:
    """Repaying or extending the loan being settled, with what it costs now or later."""
    front, back = LOANS.get(amount, (0, 0))
    if a.get("choice") == "repay":
        if extended:
            return phrase("repay your extended {amount}-Florin loan for {cost}", amount=amount, cost=back)
        return phrase("repay your {amount}-Florin loan for {cost}", amount=amount, cost=front)
    if extended:
        return phrase("extend your extended {amount}-Florin loan ({due} is due after the next payday)", amount=amount,
                      due=back)
    return phrase("extend your {amount}-Florin loan ({due} is due after the next payday)", amount=amount, due=back)


def label(state: State, seat: int, a: Mapping[str, Any], plain: str) -> str:
    """The menu label of legal action ``a`` of ``seat``; ``plain`` is its stateless description."""
    kind = a.get("type")
    player_ = state.players[seat]
    if kind == "buy-card" and a.get("card") in CARDS:
        return phrase("{action} for {cost}", action=plain, cost=CARDS[a["card"]].cost)
    here = city_data(state, player_.ship) if player_.ship not in (BANK, OFF) and player_.ship >= 0 else None
    if kind == "build-warehouse" and here is not None:
        return _build(a, here.name, here.harbours[player_.berth])
    if kind == "reopen" and here is not None:
        if "colour" in a:
            return phrase("re-open your shut-down {colour} warehouse in {city} (free)", colour=colour(str(a["colour"])),
                          city=here.name)
        return phrase("re-open your shut-down warehouse in {city} (free)", city=here.name)
    if kind == "build-fortress" and here is not None and isinstance(a.get("space"), int):
        return phrase("build a fortress in {city} on fortress space {space} for {cost}", city=here.name,
                      space=a["space"], cost=here.fortresses[a["space"] - 1])
    if kind == "move-pirate" and a.get("means") == "money" and a.get("to") in ALL_CITIES and state.pirate >= 0:
        cost = PIRATE_STEP_COST * distance(city_data(state, state.pirate), ALL_CITIES[a["to"]])
        return phrase("move the pirate ship to {city}, harbour space {harbour}, for {cost}",
                      city=ALL_CITIES[a["to"]].name, harbour=a.get("harbour"), cost=cost)
    if kind == "take-loan" and a.get("amount") in LOANS:
        return phrase("{action} (repay {due} after the next payday)", action=plain, due=LOANS[a["amount"]][0])
    if kind == "settle-loan" and isinstance(a.get("loan"), int) and 0 <= a["loan"] < len(player_.loans):
        amount, extended = player_.loans[a["loan"]]
        return _settle(a, amount, extended)
    if kind == "choose-start-player" and isinstance(a.get("seat"), int) and 0 <= a["seat"] < state.n:
        if a["seat"] == seat:
            return phrase("make yourself the start player of the next phase")
        return phrase("make {player} the start player of the next phase", player=player(state.n, a["seat"]))
    return plain
