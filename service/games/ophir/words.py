"""Ophir's words as phrases of the ``ophir`` catalog (issue 29, docs/i18n.md): goods, colours,
specialists, hexes, amounts and lists.

The rules core says its words before anyone knows who reads them, so every noun here is a
:class:`~service.i18n.Phrase`: a ``str`` holding the English text the messages always had, rendered
in the reader's language later. The catalog ids are literal strings (extraction finds them by
name); an edition that rewords a name (a specialist's, a hex's) keeps its own word as a plain
string, since the catalog cannot know it.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.i18n import Phrase, phrase, phrase_in, phrase_n

from .data import HEX_NAMES, RIVAL_COLOUR, SEAT_COLOURS, SPECIALIST_BY_ID

__all__ = [
    "amount", "coins", "colour", "favor", "good", "goods_count", "hex_kind", "hex_name", "joined", "kind_word",
    "one_good", "phase_word", "rival_name", "seat_name", "specialist_name", "vp",
]

_COLOURS: dict[str, Phrase] = {
    "Yellow": phrase_in("seat colour", "Yellow"),
    "Green": phrase_in("seat colour", "Green"),
    "Blue": phrase_in("seat colour", "Blue"),
    "Red": phrase_in("seat colour", "Red"),
    "Grey": phrase_in("seat colour", "Grey"),
}

_GOODS: dict[str, Phrase] = {
    "wood": phrase_in("good", "wood"),
    "cloth": phrase_in("good", "cloth"),
    "stone": phrase_in("good", "stone"),
    "gems": phrase_in("good", "gems"),
    "gold": phrase_in("good", "gold"),
    "silver": phrase_in("good", "silver"),
}

_KINDS: dict[str, Phrase] = {
    "temple": phrase_in("map token", "temple"),
    "market": phrase_in("map token", "market"),
    "metals": phrase_in("map token", "metals"),
}

_HEX_OF_KIND: dict[str, Phrase] = {
    "temple": phrase("the temple hex"),
    "market": phrase("the market hex"),
    "metals": phrase("the metals hex"),
    "wood": phrase("the wood hex"),
    "cloth": phrase("the cloth hex"),
    "stone": phrase("the stone hex"),
    "gems": phrase("the gems hex"),
}

_HEX_NAMES: dict[str, Phrase] = {
    "center": phrase_in("hex", "center"),
    "top right": phrase_in("hex", "top right"),
    "right": phrase_in("hex", "right"),
    "bottom right": phrase_in("hex", "bottom right"),
    "bottom left": phrase_in("hex", "bottom left"),
    "left": phrase_in("hex", "left"),
    "top left": phrase_in("hex", "top left"),
}

_SPECIALISTS: dict[str, Phrase] = {
    "Advisor": phrase_in("specialist", "Advisor"),
    "Ambassador": phrase_in("specialist", "Ambassador"),
    "Chancellor": phrase_in("specialist", "Chancellor"),
    "Harbormaster": phrase_in("specialist", "Harbormaster"),
    "Moneychanger": phrase_in("specialist", "Moneychanger"),
    "Navigator": phrase_in("specialist", "Navigator"),
    "Priest": phrase_in("specialist", "Priest"),
    "Temple Guard": phrase_in("specialist", "Temple Guard"),
}

_PHASES: dict[str, Phrase] = {
    "barriers": phrase_in("phase", "barriers"),
    "draft": phrase_in("phase", "draft"),
    "play": phrase_in("phase", "play"),
    "over": phrase_in("phase", "over"),
}


def colour(name: str) -> str:
    """A colour as the box names it ("Yellow"), in the reader's language."""
    return _COLOURS.get(name, name)


def seat_name(seat: int) -> str:
    """A seat by its colour, the way every event and view names it."""
    return colour(SEAT_COLOURS[seat])


def rival_name() -> str:
    """The rival ship's colour (the 2-player game's neutral ship)."""
    return colour(RIVAL_COLOUR)


def good(name: str) -> str:
    """A good or metal by its name ("wood", "gems", "gold")."""
    return _GOODS.get(name, name)


def kind_word(kind: str) -> str:
    """A map token ("temple", "market", "metals" or a good) as a word."""
    return _KINDS.get(kind) or good(kind)


def hex_kind(kind: str) -> str:
    """The hex holding a map token, with its article: "the temple hex", "the wood hex"."""
    return _HEX_OF_KIND.get(kind) or phrase("the {kind} hex", kind=kind)


def hex_name(hex_id: str) -> str:
    """Where a hex lies ("top right"), from its id."""
    name = HEX_NAMES.get(hex_id, hex_id)
    return _HEX_NAMES.get(name, name)


def specialist_name(specialist: str) -> str:
    """A specialist as the card names it ("Temple Guard"), from its id; the id itself if no such card."""
    spec = SPECIALIST_BY_ID.get(specialist)
    if spec is None:
        return specialist
    return _SPECIALISTS.get(spec.name, spec.name)


def phase_word(phase: str) -> str:
    """A phase of the match (barriers, draft, play, over)."""
    return _PHASES.get(phase, phase)


def coins(n: int) -> Phrase:
    """"1 coin", "3 coins"."""
    return phrase_n("{n} coin", "{n} coins", n)


def favor(n: int) -> Phrase:
    """"2 favor"."""
    return phrase_n("{n} favor", "{n} favor", n)


def vp(n: int) -> Phrase:
    """"5 VP"."""
    return phrase_n("{n} VP", "{n} VP", n)


def amount(n: int, pay: str) -> Phrase:
    """A price in coins or favor: "1 coin", "3 coins", "5 favor"."""
    return coins(n) if pay == "coins" else favor(n)


def goods_count(n: int, name: str) -> str:
    """A number of goods: "1 gem", "2 gems", "1 wood", "3 stone" (the box calls the good "gems")."""
    if name == "gems":
        return phrase_n("{n} gem", "{n} gems", n)
    if name == "wood":
        return phrase_n("{n} wood", "{n} wood", n)
    if name == "cloth":
        return phrase_n("{n} cloth", "{n} cloth", n)
    if name == "stone":
        return phrase_n("{n} stone", "{n} stone", n)
    if name == "gold":
        return phrase_n("{n} gold", "{n} gold", n)
    if name == "silver":
        return phrase_n("{n} silver", "{n} silver", n)
    return f"{n} {name}"


def one_good(name: str) -> str:
    """One good: "one gem", "one wood"."""
    if name == "gems":
        return phrase("one gem")
    return phrase("one {item}", item=good(name))


def joined(items: Sequence[str], how: str = ", ") -> str:
    """Words in a row: ``how`` is ", " (a comma), " and ", " + " or "+" (goods on a card).

    Each join is a phrase of its own, so a list of phrases stays a phrase and reads in the
    reader's language ("wood and stone" is "fa és kő"); ``""`` for no items."""
    if not items:
        return ""
    out = items[0]
    for item in items[1:]:
        if how == " and ":
            out = phrase("{first} and {second}", first=out, second=item)
        elif how == " + ":
            out = phrase("{first} + {second}", first=out, second=item)
        elif how == "+":
            out = phrase("{first}+{second}", first=out, second=item)
        else:
            out = phrase("{first}, {second}", first=out, second=item)
    return out


def goods_list(names: Sequence[str], how: str = ", ") -> str:
    """Goods by name, joined (see :func:`joined`)."""
    return joined([good(n) for n in names], how)
