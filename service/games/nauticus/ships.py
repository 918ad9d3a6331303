"""Ships and warehouses: where a tile may go (spec §5.2-5.6, §6, §10.5, §10.9-10.10).

A ship is a tuple of :class:`Hull` pieces from front to back. A single-hull tile is a complete
hull of size 1 on its own. A multi-part ship has at most one bow (front end), one stern (back end)
and two middles; pieces attach only at an open end, so there are never gaps, nothing is inserted
once bow and stern are both present, and separate starts never merge.
"""

from __future__ import annotations

from typing import Final

from service.i18n import Phrase, phrase, phrase_in

from . import data, words
from .state import Hull, Ship

_ENDS: Final[dict[str, Phrase]] = {"front": phrase_in("end of a ship", "front"), "back": phrase_in("end of a ship", "back")}

Placement = tuple[str, int, str | int]
"""Where a tile goes in the shipyard: ``("new", -1, "")``, ``("end", ship, "front"|"back")`` for a
hull piece joining a ship, or ``("hull", ship, hull_index)`` for a mast, sail or good."""

CATEGORY: Final[dict[str, str]] = {
    **{p: "hull" for p in data.HULL_PIECES},
    **{m: "mast" for m in (*data.NORMAL_MASTS, data.CROWN_MAST)},
    **{s: "sail" for s in (*data.NORMAL_SAILS, data.CROWN_SAIL)},
    **{g: "good" for g in data.GOODS},
}
"""Every tile id by kind: hull, mast, sail or good."""

MAX_MIDDLES: Final[int] = 2
MAX_SIZE: Final[int] = 4


def crest_of(tile: str) -> str | None:
    """The crest of a normal mast or sail; None for a crowned one (a joker, spec §5.3)."""
    tail = tile[5:]
    return None if tail == "crown" else tail


def is_closed(ship: Ship) -> bool:
    """The hull is finished: a single-hull tile, or bow ... stern (its size is then fixed)."""
    first = ship[0].piece
    return first == "single" or (first == "bow" and ship[-1].piece == "stern")


def is_complete(ship: Ship) -> bool:
    """Complete ship (spec §6): closed hull, a mast on every piece and a sail on every mast."""
    if not is_closed(ship):
        return False
    return all(h.sail is not None for h in ship)  # a sail only ever sits on a mast


def is_loaded(ship: Ship) -> bool:
    """Every hull piece carries a good (spec §5.7)."""
    return all(h.good is not None for h in ship)


def ship_crest(ship: Ship) -> str | None:
    """The one crest shared by the ship's normal masts and sails (spec §5.3, §10.10), if any yet."""
    for h in ship:
        if h.mast is not None and not h.mast.endswith("crown"):
            return h.mast[5:]
        if h.sail is not None and not h.sail.endswith("crown"):
            return h.sail[5:]
    return None


def hull_ends(ship: Ship, piece: str) -> tuple[str, ...]:
    """The ends of ``ship`` where hull ``piece`` may attach (spec §5.2); empty if none."""
    first = ship[0].piece
    last = ship[-1].piece
    if first == "single" or piece == "single" or len(ship) >= MAX_SIZE:
        return ()
    front_open = first != "bow"
    back_open = last != "stern"
    if piece == "bow":
        return ("front",) if front_open else ()
    if piece == "stern":
        return ("back",) if back_open else ()
    # a middle: at most two per ship, at an open end
    if sum(1 for h in ship if h.piece == "middle") >= MAX_MIDDLES:
        return ()
    if front_open and back_open:
        return ("front", "back")
    if front_open:
        return ("front",)
    if back_open:
        return ("back",)
    return ()


def placements(ships: tuple[Ship, ...], tile: str) -> list[Placement]:
    """Every legal shipyard placement of ``tile`` among ``ships`` (the warehouse not included)."""
    kind = CATEGORY[tile]
    out: list[Placement] = []
    if kind == "hull":
        out.append(("new", -1, ""))
        if tile != "single":
            for k, ship in enumerate(ships):
                for end in hull_ends(ship, tile):
                    out.append(("end", k, end))
        return out
    crest = crest_of(tile) if kind != "good" else None
    for k, ship in enumerate(ships):
        if crest is not None:
            sc = ship_crest(ship)
            if sc is not None and sc != crest:
                continue
        for i, h in enumerate(ship):
            if kind == "mast":
                if h.mast is None:
                    out.append(("hull", k, i))
            elif kind == "sail":
                if h.mast is not None and h.sail is None:
                    out.append(("hull", k, i))
            elif h.good is None:
                out.append(("hull", k, i))
    return out


def place(ships: tuple[Ship, ...], tile: str, where: Placement) -> tuple[tuple[Ship, ...], int]:
    """The shipyard with ``tile`` placed at ``where`` (assumed legal), and the index of its ship."""
    how, k, pos = where
    if how == "new":
        return (*ships, (Hull(tile),)), len(ships)
    ship = ships[k]
    if how == "end":
        new_ship: Ship = (Hull(tile), *ship) if pos == "front" else (*ship, Hull(tile))
    else:
        assert isinstance(pos, int)
        h = ship[pos]
        kind = CATEGORY[tile]
        if kind == "mast":
            h = h._replace(mast=tile)
        elif kind == "sail":
            h = h._replace(sail=tile)
        else:
            h = h._replace(good=tile)
        new_ship = (*ship[:pos], h, *ship[pos + 1 :])
    return (*ships[:k], new_ship, *ships[k + 1 :]), k


def placement_error(ships: tuple[Ship, ...], tile: str, where: Placement) -> Phrase | None:
    """Why ``tile`` cannot go to ``where``, as a sentence citing the rule; None if it can."""
    how, k, pos = where
    kind = CATEGORY[tile]
    if how == "new":
        return None if kind == "hull" else phrase("only a hull piece can start a new ship, not a {kind} (rule §5.2)",
                                                  kind=words.kind(kind))
    if not 0 <= k < len(ships):
        return phrase("there is no ship {k} in your shipyard", k=k)
    ship = ships[k]
    if how == "end":
        if kind != "hull":
            return phrase("a {kind} goes on a hull piece, not at the end of a ship (rules §5.3-5.5)", kind=words.kind(kind))
        if pos not in hull_ends(ship, tile):
            return phrase("a {tile} cannot join {the_ship} at the {end}: pieces attach only at an open end, a ship has at most"
                          " one bow (front), one stern (back), two middles and four pieces, and a single hull stands"
                          " alone (rule §5.2)", tile=words.hull_id(tile), the_ship=words.ship(k),
                          end=_ENDS.get(str(pos), pos))
        return None
    assert isinstance(pos, int)
    if kind == "hull":
        return phrase("a hull piece joins a ship at its front or back end, or starts a new ship (rule §5.2)")
    if not 0 <= pos < len(ship):
        return phrase("{the_ship} has no hull piece {hull}", the_ship=words.ship(k), hull=pos)
    h = ship[pos]
    if kind == "good":
        return None if h.good is None else phrase("each hull piece carries exactly one good (rule §5.5)")
    if kind == "mast" and h.mast is not None:
        return phrase("that hull piece already has a mast (rule §5.3: one mast per hull piece)")
    if kind == "sail":
        if h.mast is None:
            return phrase("a sail goes on a mast (rule §5.4)")
        if h.sail is not None:
            return phrase("that mast already has a sail (rule §5.4: one sail per mast)")
    crest = crest_of(tile)
    sc = ship_crest(ship)
    if crest is not None and sc is not None and sc != crest:
        return phrase("{the_ship} shows the {crest} crest: all normal masts and sails of a ship share one crest, only"
                      " crowned ones fit any ship (rule §5.3)", the_ship=words.ship(k), crest=words.crest(sc))
    return None


SIZE: Final[dict[str, int]] = {t: data.tile_size(t) for t in CATEGORY}
"""Warehouse spaces per tile id (looked up on the hot path of legal action generation)."""


def warehouse_used(warehouse: tuple[str, ...]) -> int:
    """Warehouse spaces in use: a mast takes two, every other tile one (spec §5.6)."""
    return sum(map(SIZE.__getitem__, warehouse))


def has_room(warehouse: tuple[str, ...], tile: str, extra: int = 0) -> bool:
    """Whether ``tile`` (plus ``extra`` more spaces) still fits in the warehouse."""
    return warehouse_used(warehouse) + SIZE[tile] + extra <= data.WAREHOUSE_CAPACITY


def store(warehouse: tuple[str, ...], tile: str) -> tuple[str, ...]:
    return tuple(sorted((*warehouse, tile)))


def unstore(warehouse: tuple[str, ...], tile: str) -> tuple[str, ...]:
    i = warehouse.index(tile)
    return warehouse[:i] + warehouse[i + 1 :]


def crowns(ships: tuple[Ship, ...], warehouse: tuple[str, ...], flipped: tuple[bool, ...]) -> int:
    """Visible crowns (spec §5.9): crowned masts and sails owned anywhere, plus flipped pass tiles."""
    n = sum(1 for t in warehouse if t.endswith("crown"))
    for ship in ships:
        for h in ship:
            if h.mast is not None and h.mast.endswith("crown"):
                n += 1
            if h.sail is not None and h.sail.endswith("crown"):
                n += 1
    return n + sum(flipped)
