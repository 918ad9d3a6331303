"""El Capitán's words for people, said through the catalogs (issue 29; docs/i18n.md): colours, seat
names, cards, loans and the actions described on their own.

Each word is a :class:`service.i18n.Phrase`: its English text is exactly what the game always wrote
(stored records and tests hold it), and :func:`service.i18n.render` gives it in the reader's language
from the ``el_capitan`` catalog, with the Hungarian rulebook's words (glossary
``service/i18n/glossary/el_capitan.toml``). The events' sentences are in :mod:`.events`, the menu
labels in :mod:`.labels`, the refusals in :mod:`.validate`, the text board in :mod:`.view`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.i18n import Phrase, phrase, phrase_in, phrase_n

from .data import ALL_CITIES, CARDS, COLOURS
from .state import main_colour

__all__ = ["card", "colour", "describe_action", "loan", "player", "seat_name"]

# The colours' words, written out so that extraction sees each message (an edition may rename a
# colour: a name not listed here is shown as it is).
_COLOURS: dict[str, Phrase] = {
    "red": phrase_in("piece colour", "red"),
    "yellow": phrase_in("piece colour", "yellow"),
    "green": phrase_in("piece colour", "green"),
    "blue": phrase_in("piece colour", "blue"),
    "white": phrase_in("piece colour", "white"),
}
_PLAYERS: dict[str, Phrase] = {
    "red": phrase_in("player", "Red"),
    "yellow": phrase_in("player", "Yellow"),
    "green": phrase_in("player", "Green"),
    "blue": phrase_in("player", "Blue"),
    "white": phrase_in("player", "White"),
}


def colour(name: str) -> str:
    """A piece colour in words ("red"), the colour's own name when the catalog does not know it."""
    return _COLOURS.get(name, name)


def seat_name(colour_name: str) -> str:
    """A player called by their colour ("Red")."""
    return _PLAYERS.get(colour_name, colour_name.capitalize())


def player(players: int, seat: int) -> str:
    """The name of ``seat`` at a table of ``players``: its main colour ("Red")."""
    return seat_name(COLOURS[main_colour(players, seat)])


def card(cid: str) -> Phrase:
    """A sailing card in words: "card D04 (Napoli, 2 seals)", "card C12 (Tunis-Napoli)"."""
    c = CARDS[cid]
    if c.kind == "destination":
        return phrase("card {id} ({city}, {reach})", id=cid, city=ALL_CITIES[c.city].name,
                      reach=phrase_n("{n} seal", "{n} seals", c.seals))
    return phrase("card {id} ({a}-{b})", id=cid, a=ALL_CITIES[c.a].name, b=ALL_CITIES[c.b].name)


def loan(amount: int, extended: bool) -> Phrase:
    """A loan card in words: "10-Florin loan", "extended 16-Florin loan"."""
    if extended:
        return phrase("extended {amount}-Florin loan", amount=amount)
    return phrase("{amount}-Florin loan", amount=amount)




def _warehouse(kind: str, a: Mapping[str, Any]) -> Phrase:
    """A warehouse build or re-opening described on its own (the colour and site only when given)."""
    if kind == "build-warehouse":
        if "colour" in a and "site" in a:
            return phrase("build a {colour} warehouse where your ship lies on site {site}",
                          colour=colour(str(a["colour"])), site=a["site"])
        if "colour" in a:
            return phrase("build a {colour} warehouse where your ship lies", colour=colour(str(a["colour"])))
        if "site" in a:
            return phrase("build a warehouse where your ship lies on site {site}", site=a["site"])
        return phrase("build a warehouse where your ship lies")
    if "colour" in a and "site" in a:
        return phrase("re-open a {colour} warehouse where your ship lies on site {site}",
                      colour=colour(str(a["colour"])), site=a["site"])
    if "colour" in a:
        return phrase("re-open a {colour} warehouse where your ship lies", colour=colour(str(a["colour"])))
    if "site" in a:
        return phrase("re-open a warehouse where your ship lies on site {site}", site=a["site"])
    return phrase("re-open a warehouse where your ship lies")


def describe_action(a: Mapping[str, Any]) -> str:
    """Plain words for an action ("build a warehouse where your ship lies on site 2"), as a Phrase."""
    kind = a.get("type")
    city = ALL_CITIES[a["to"]].name if a.get("to") in ALL_CITIES else str(a.get("to", ""))
    if kind == "buy-card" and a.get("card") in CARDS:
        return phrase("buy {card}", card=card(a["card"]))
    if kind == "sail" and a.get("card") in CARDS:
        return phrase("sail to {city} with {card}", city=city, card=card(a["card"]))
    if kind in ("build-warehouse", "reopen"):
        return _warehouse(str(kind), a)
    if kind == "build-fortress":
        return phrase("build a fortress on fortress space {space}", space=a.get("space"))
    if kind == "move-pirate":
        return _pirate(a, city)
    if kind == "take-loan":
        return phrase("take a {amount}-Florin loan", amount=a.get("amount"))
    if kind == "pass":
        return phrase("pass")
    if kind == "end-turn":
        return phrase("end the turn")
    if kind == "settle-loan" and a.get("choice") == "repay":
        return phrase("repay the loan now being settled")
    if kind == "settle-loan" and a.get("choice") == "extend":
        return phrase("extend the loan now being settled")
    if kind == "settle-loan":
        return f"{a.get('choice')} the loan now being settled"  # not an action of the game: its JSON's words
    if kind == "choose-start-player":
        return phrase("make the player in seat {seat} the start player of the next phase", seat=a.get("seat"))
    return str(dict(a))


def _pirate(a: Mapping[str, Any], city: str) -> str:
    """A pirate move described on its own: a stop of a voyage by cards, or a move ending on a harbour space."""
    means = a.get("means")
    if means == "card" and a.get("card") in CARDS:
        if "harbour" not in a:
            return phrase("sail the pirate ship on to {city} with {card}, a stop on its voyage (it must sail on "
                          "with another card)", city=city, card=card(a["card"]))
        return phrase("move the pirate ship to {city}, harbour space {harbour}, with {card}", city=city,
                      harbour=a.get("harbour"), card=card(a["card"]))
    if means == "free":
        return phrase("move the pirate ship to {city}, harbour space {harbour}, free of charge (collecting "
                      "protection money)", city=city, harbour=a.get("harbour"))
    if means == "money":
        return phrase("move the pirate ship to {city}, harbour space {harbour}, paying 2 per step", city=city,
                      harbour=a.get("harbour"))
    return f"move the pirate ship to {city}, harbour space {a.get('harbour')}, "  # not an action of the game
