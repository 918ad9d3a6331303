"""Nauticus's words as :class:`service.i18n.Phrase` s (issue 29; docs/i18n.md): tiles, crests, action tiles,
seat colours, places in the shipyard, counts and lists, read later in the reader's language.

Every phrase's English text is exactly what the game wrote before it spoke through the catalogs (events
are stored with it, tests compare it). Names that come from ``data.json`` (crests, action tiles) are
looked up by their English text: an edition that renames one keeps its own name, untranslated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.i18n import Phrase, phrase, phrase_in, phrase_n

from . import data

Words = Phrase | str
"""A phrase, or a plain string where the game has no translation (a name from an edition)."""

SEATS: tuple[Phrase, ...] = (
    phrase_in("player colour", "Red"),
    phrase_in("player colour", "Yellow"),
    phrase_in("player colour", "Green"),
    phrase_in("player colour", "Blue"),
)
"""Seat colours (the rulebook does not name the player colours; these are the server's)."""


def seat_name(seat: int) -> Phrase:
    """A seat by its colour."""
    return SEATS[seat]


_ITEMS: dict[str, Phrase] = {
    p: p
    for p in (
        phrase("single hull"), phrase("bow"), phrase("middle piece"), phrase("stern"),
        phrase("light-green anchor mast"), phrase("red whale mast"), phrase("brown ship's wheel mast"),
        phrase("fourth crest mast"), phrase("crowned mast"),
        phrase("light-green anchor sail"), phrase("red whale sail"), phrase("brown ship's wheel sail"),
        phrase("fourth crest sail"), phrase("crowned sail"),
        phrase("coffee"), phrase("grain"), phrase("salt"), phrase("fish"),
    )
}
# the same tiles as the object of a verb ("buy a bow"): languages with cases say them differently
_ITEMS_OBJECT: dict[str, Phrase] = {
    p: p
    for p in (
        phrase_in("tile, object", "single hull"), phrase_in("tile, object", "bow"),
        phrase_in("tile, object", "middle piece"), phrase_in("tile, object", "stern"),
        phrase_in("tile, object", "light-green anchor mast"), phrase_in("tile, object", "red whale mast"),
        phrase_in("tile, object", "brown ship's wheel mast"), phrase_in("tile, object", "fourth crest mast"),
        phrase_in("tile, object", "crowned mast"),
        phrase_in("tile, object", "light-green anchor sail"), phrase_in("tile, object", "red whale sail"),
        phrase_in("tile, object", "brown ship's wheel sail"), phrase_in("tile, object", "fourth crest sail"),
        phrase_in("tile, object", "crowned sail"),
        phrase_in("tile, object", "coffee"), phrase_in("tile, object", "grain"),
        phrase_in("tile, object", "salt"), phrase_in("tile, object", "fish"),
    )
}
_HULL_IDS: dict[str, Phrase] = {
    p: p for p in (phrase_in("hull piece", "single"), phrase_in("hull piece", "bow"),
                   phrase_in("hull piece", "middle"), phrase_in("hull piece", "stern"))
}
_CRESTS: dict[str, Phrase] = {
    p: p for p in (phrase_in("crest", "light-green anchor"), phrase_in("crest", "red whale"),
                   phrase_in("crest", "brown ship's wheel"), phrase_in("crest", "fourth crest"))
}
_ACTIONS: dict[str, Phrase] = {
    p: p
    for p in (
        phrase_in("action tile", "Buy hull"), phrase_in("action tile", "Buy mast"),
        phrase_in("action tile", "Buy sail"), phrase_in("action tile", "Buy goods"),
        phrase_in("action tile", "Transfer (warehouse to shipyard)"), phrase_in("action tile", "Deliver goods"),
        phrase_in("action tile", "Take money"), phrase_in("action tile", "Score crowns"),
        phrase_in("action tile", "Transfer"),
    )
}
_KINDS: dict[str, Phrase] = {
    p: p for p in (phrase_in("tile kind", "hull"), phrase_in("tile kind", "mast"), phrase_in("tile kind", "sail"),
                   phrase_in("tile kind", "good"))
}
_BONUS_TILES: dict[str, Phrase] = {
    "mast": phrase("normal mast"), "sail": phrase("normal sail"), "good": phrase_in("bonus tile", "good")
}
"""A space's tile bonus in words ("1 normal mast of your choice")."""
_BONUS_CHOICES: dict[str, Phrase] = {
    "mast": phrase("1 normal mast of choice"), "sail": phrase("1 normal sail of choice"),
    "good": phrase("1 good of choice"),
}
_STEPS: dict[str, Phrase] = {
    p: p for p in (phrase_in("game step", "choose"), phrase_in("game step", "bonus"),
                   phrase_in("game step", "turn"), phrase_in("game step", "over"))
}


def item(tile: str) -> Words:
    """A tile as players call it ("red whale mast"; :func:`data.item_name` in English)."""
    english = data.item_name(tile)
    return _ITEMS.get(english, english)


def item_object(tile: str) -> Words:
    """A tile as the object of a verb ("buy a {item}")."""
    english = data.item_name(tile)
    return _ITEMS_OBJECT.get(english, english)


def hull_id(piece: str) -> Words:
    """A hull piece by its short name ("single", "bow"), as ship lines and placement refusals print it."""
    return _HULL_IDS.get(piece, piece)


def crest(letter: str) -> Words:
    """A crest by its name ("red whale")."""
    english = data.CRESTS.get(letter, letter)
    return _CRESTS.get(english, english)


def action(tile: str) -> Words:
    """An action tile by its name ("Buy hull")."""
    english = data.ACTION_NAMES.get(tile, tile)
    return _ACTIONS.get(english, english)


def action_named(english: str) -> Words:
    """An action by an English name the code writes ("Transfer", "Score crowns")."""
    return _ACTIONS.get(english, english)


def kind(name: str) -> Words:
    """A kind of tile: hull, mast, sail or good."""
    return _KINDS.get(name, name)


def bonus_tile(name: str) -> Words:
    """The tile a space's bonus gives ("normal mast")."""
    return _BONUS_TILES.get(name, name)


def step(name: str) -> Words:
    """The step of a game ("choose", "turn"), as the text board's heading shows it."""
    return _STEPS.get(name, name)


def ship(k: Any) -> Phrase:
    """"ship 3" where a sentence names a ship with its article (Hungarian "a 3. hajó", "az 5. hajó").

    Which article a number takes depends on how it is read (egy, öt: "az"): the number picks one of two
    messages with the same English, and each language words both as it needs."""
    number = str(k)
    if number == "1" or number.startswith("5"):
        return phrase_in("ship, number read with a vowel first", "ship {k}", k=k)
    return phrase("ship {k}", k=k)


def workers(n: int) -> Phrase:
    """"1 worker", "3 workers"."""
    return phrase_n("{n} worker", "{n} workers", n)


def blue_workers(n: int) -> Phrase:
    """"1 blue worker", "3 blue workers"."""
    return phrase_n("{n} blue worker", "{n} blue workers", n)


def units(n: int) -> Phrase:
    """"1 unit", "3 units": the steps of an action done in a turn."""
    return phrase_n("{n} unit", "{n} units", n)


def crowns(n: int) -> Phrase:
    """"1 crown", "3 crowns"."""
    return phrase_n("{n} crown", "{n} crowns", n)


def vp(n: int) -> Phrase:
    """"2 VP"."""
    return phrase_n("{n} VP", "{n} VP", n)


def thaler(n: int) -> Phrase:
    """"4 thaler"."""
    return phrase_n("{n} thaler", "{n} thaler", n)


def joined(parts: Sequence[Words], how: str = ", ") -> Words:
    """Words joined as ``how.join(parts)`` would, each part kept as a phrase: ``", "``, ``" + "`` or ``" and "``."""
    if not parts:
        return ""
    out = parts[0]
    for part in parts[1:]:
        if how == " and ":
            out = phrase("{a} and {b}", a=out, b=part)
        elif how == " + ":
            out = phrase("{a} + {b}", a=out, b=part)
        else:
            out = phrase("{a}, {b}", a=out, b=part)
    return out


def gains(bonus: Mapping[str, Any]) -> list[Phrase]:
    """The workers, VP and thaler of a space's bonus, each counted."""
    out: list[Phrase] = []
    if "workers" in bonus:
        out.append(workers(bonus["workers"]))
    if "vp" in bonus:
        out.append(vp(bonus["vp"]))
    if "thaler" in bonus:
        out.append(thaler(bonus["thaler"]))
    return out


def bonus_text(b: Mapping[str, Any]) -> Words:
    """A space's bonus in words: "2 workers", "1 worker + 1 VP", "1 normal mast of choice"."""
    bits: list[Words] = list(gains(b))
    if "tile" in b:
        bits.append(_BONUS_CHOICES.get(b["tile"]) or phrase("1 {tile} of choice", tile=bonus_tile(b["tile"])))
    return joined(bits, " + ")


def where_to(action: Mapping[str, Any]) -> Phrase:
    """Where a buy or transfer puts its tile, as a menu says it ("at the front of ship 0")."""
    to = action.get("to")
    if to == "warehouse":
        return phrase("to the warehouse")
    if to == "new-ship":
        return phrase("as a new ship")
    if "end" in action:
        end = action["end"]
        if end == "front":
            return phrase("at the front of {the_ship}", the_ship=ship(action.get("ship")))
        if end == "back":
            return phrase("at the back of {the_ship}", the_ship=ship(action.get("ship")))
        return phrase("at the {end} of {the_ship}", end=end, the_ship=ship(action.get("ship")))
    if action.get("item") in data.GOODS:  # a good goes under its hull piece: some languages say so
        return phrase_in("a good's place", "on hull piece {hull} of {the_ship}", hull=action.get("hull"),
                         the_ship=ship(action.get("ship")))
    return phrase("on hull piece {hull} of {the_ship}", hull=action.get("hull"), the_ship=ship(action.get("ship")))


def place(where: Sequence[Any] | None, tile: str = "") -> Phrase:
    """Where a tile went, as an event tells it ("the front of ship 0"); ``where`` is a placement
    (``ships.Placement``: ``("new", -1, "")``, ``("end", k, "front")``, ``("hull", k, 2)``) or None
    for the warehouse; ``tile`` the tile placed."""
    if where is None:
        return phrase_in("place", "the warehouse")
    how, k, pos = where
    if how == "new":
        return phrase_in("place", "a new ship")
    if how == "end":
        if pos == "front":
            return phrase_in("place", "the front of {the_ship}", the_ship=ship(k))
        if pos == "back":
            return phrase_in("place", "the back of {the_ship}", the_ship=ship(k))
        return phrase_in("place", "the {end} of {the_ship}", end=pos, the_ship=ship(k))
    if tile in data.GOODS:
        return phrase_in("a good's place", "hull piece {hull} of {the_ship}", hull=pos, the_ship=ship(k))
    return phrase_in("place", "hull piece {hull} of {the_ship}", hull=pos, the_ship=ship(k))


def placement_json(where: Sequence[Any] | None) -> dict[str, Any]:
    """A placement as an event's ``place`` field, so its words can be said again (:func:`place`)."""
    if where is None:
        return {"to": "warehouse"}
    how, k, pos = where
    if how == "new":
        return {"to": "new-ship"}
    return {"to": "ship", "ship": k, "end" if how == "end" else "hull": pos}


def placement_of(field: Any) -> tuple[bool, tuple[Any, ...] | None]:
    """Inverse of :func:`placement_json`: ``(known, placement)``; ``known`` is False for a field it cannot read."""
    if not isinstance(field, Mapping):
        return False, None
    to = field.get("to")
    if to == "warehouse":
        return True, None
    if to == "new-ship":
        return True, ("new", -1, "")
    if to == "ship" and "end" in field:
        return True, ("end", field.get("ship"), field["end"])
    if to == "ship" and "hull" in field:
        return True, ("hull", field.get("ship"), field["hull"])
    return False, None
