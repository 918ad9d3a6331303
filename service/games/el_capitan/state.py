"""The El Capitán state: plain frozen values, with their canonical JSON form.

A state never changes once built: :mod:`.moves` copies what it changes (a :class:`Draft` of
lists) and freezes the result. Colours are indices into ``data.COLOURS``; seats are 0-based.
With 3-5 players seat ``i`` plays colour ``i``; with 2 players each seat has a main and a neutral
colour (``data.TWO_PLAYER_MAIN`` / ``TWO_PLAYER_NEUTRAL``, rule §7).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

from service.games.undo import Undo, trail_from_json, trail_to_json

from .data import ALL_CITIES, TWO_PLAYER_MAIN, TWO_PLAYER_NEUTRAL, CityData

BANK = -1
"""Ship position: the bank harbour."""
OFF = -2
"""Ship position: off the board (before its first voyage, §5.2)."""
FREE = -1
"""Empty harbour space, site or fortress space."""
PIRATE = -2
"""Harbour space held by the pirate ship (§8.4)."""

TURN = "turn"
SETTLE = "settle"
CHOOSE_START = "choose-start"
OVER = "over"


class Player(NamedTuple):
    """One seat: money, ship, hand, loans and personal supply (all public, R-25)."""

    money: int
    ship: int
    """City index in ``State.city_ids``, ``BANK`` or ``OFF``."""
    berth: int
    """0-based harbour space of the ship in its city; -1 while passing through (no free space) or not in a city."""
    hand: tuple[str, ...]
    loans: tuple[tuple[int, bool], ...]
    """(amount, extended) per loan card held, in the order taken."""
    warehouses: int
    neutral: int
    """Neutral warehouses in supply (2-player game only, §7)."""
    fortresses: int
    bonus: int
    """Value of the proliferation bonus card held, 0 if none (§6.3)."""


class City(NamedTuple):
    """One city in play: its track, closed pool, harbour spaces and fortress spaces."""

    sites: tuple[int, ...]
    """Colour on each site 1..12 (index 0 = site 1), ``FREE`` if empty."""
    closed: tuple[int, ...]
    """Shut-down warehouses on the city picture, counted per colour (§5.6)."""
    harbours: tuple[int, ...]
    """Seat, ``FREE`` or ``PIRATE`` per harbour space in printed order."""
    forts: tuple[int, ...]
    """Colour per fortress space, ``FREE`` if empty."""
    shutdowns: int
    """How many shut-downs this city has had (the k-th vacates site k, §5.6)."""


class Turn(NamedTuple):
    """The acting seat's progress through its turn (§5.1).

    ``snapshot`` is the state at the turn start, kept while the steps before the mandatory action
    are tentative (R-1): a loan turn or a first-round pass goes back to it, because a loan turn
    contains nothing else (R-2).
    """

    origin: int
    """Where the ship was at the turn start (R-7: a voyage may not end there)."""
    sailed: bool
    acted: bool
    """The mandatory action (build, re-open, fortress) is done."""
    pirate_moved: bool
    """A pirate move (free or paid) was made this turn (R-21)."""
    free_pirate: bool
    """The free pirate move was made (no more sailing after it)."""
    snapshot: State | None
    pirate_transit: int = -1
    """City index where the pirate stops over during a paid move by several cards, -1 if it is not under way
    (§8.4: the pirate sails card by card; a stop takes no harbour space and bumps nobody, so the pirate's piece
    stays on its space until the voyage's final leg; meanwhile the turn has no other step)."""
    undone: bool = False
    """This turn was already undone once from a dead end (R-1). A second dead end in the same turn is a real
    first-round pass (R-4): without this an undo could return the turn to its start for ever, since nothing
    has changed there (the progress ruling in ``moves.do_pass``)."""


class State(NamedTuple):
    """The whole game."""

    players: tuple[Player, ...]
    city_ids: tuple[str, ...]
    """Cities in play: the nine base cities then the chosen expansion tiles (Porto, Lisboa, Canarias order)."""
    cities: tuple[City, ...]
    dest_deck: tuple[str, ...]
    dest_display: tuple[str, ...]
    dest_discard: tuple[str, ...]
    conn_deck: tuple[str, ...]
    conn_display: tuple[str, ...]
    conn_discard: tuple[str, ...]
    pool_warehouses: tuple[int, ...]
    """Common pool per colour (pieces not yet handed out)."""
    pool_fortresses: tuple[int, ...]
    removed: tuple[int, ...]
    """Warehouses removed from the game in Porto, per colour (§8.2)."""
    bonus_left: tuple[int, ...]
    phase: int
    """1..3."""
    round: int
    """1-based round within the phase."""
    seat: int
    """The seat to act (turn, loan settlement or start-player choice)."""
    start: int
    """This phase's start player (El Capitan token)."""
    ending: bool
    """The phase-end trigger fired; the phase ends with the current round (§6.1)."""
    stage: str
    turn: Turn
    settle_pos: int
    """Loan settlement: how many seats (from the start player) have finished."""
    settle_loan: int
    """Loan settlement: index of the acting seat's next loan card to settle."""
    settle_count: int
    """Loan settlement: loans the acting seat held when its settlement began (later forced ones wait, R-15)."""
    pirate: int
    """City index of the pirate ship, -1 without Islas Canarias."""
    undo: Undo = None
    """What the acting seat may take back this turn (:mod:`service.games.undo`); never in a view."""

    @property
    def n(self) -> int:
        return len(self.players)


_R = TypeVar("_R", "Player", "City", "Turn", "State")


_INDEX: dict[type, dict[str, int]] = {
    cls: {f: i for i, f in enumerate(cls._fields)} for cls in (Player, City, Turn, State)
}


def replace(obj: _R, **changes: Any) -> _R:
    """A copy of a state record with some fields changed (the records are immutable named tuples).

    Faster than ``NamedTuple._replace`` on the hot path: one list copy and a tuple build."""
    cls = type(obj)
    vals = list(obj)
    idx = _INDEX[cls]
    for k, v in changes.items():
        vals[idx[k]] = v
    return tuple.__new__(cls, vals)


def city_data(state: State, index: int) -> CityData:
    """The static data of the ``index``-th city in play."""
    return ALL_CITIES[state.city_ids[index]]


def main_colour(players: int, seat: int) -> int:
    """The seat's (main) colour."""
    return TWO_PLAYER_MAIN[seat] if players == 2 else seat


def neutral_colour(seat: int) -> int:
    """The seat's neutral colour in the 2-player game (§7)."""
    return TWO_PLAYER_NEUTRAL[seat]


def colour_owner(players: int, colour: int) -> int:
    """The seat that owns warehouses of ``colour`` (R-18: the neutral colour belongs to its chooser), -1 if unused."""
    if players == 2:
        if colour in TWO_PLAYER_MAIN:
            return TWO_PLAYER_MAIN.index(colour)
        if colour in TWO_PLAYER_NEUTRAL:
            return TWO_PLAYER_NEUTRAL.index(colour)
        return -1
    return colour if colour < players else -1


def is_main(players: int, colour: int) -> bool:
    """Whether ``colour`` is some seat's main colour (always true with 3-5 players)."""
    return colour in TWO_PLAYER_MAIN if players == 2 else colour < players


def seat_colours(players: int, seat: int) -> tuple[int, ...]:
    """All colours a seat builds with."""
    if players == 2:
        return (TWO_PLAYER_MAIN[seat], TWO_PLAYER_NEUTRAL[seat])
    return (seat,)


# ---------------------------------------------------------------------------------------------
# Canonical JSON


def dump_state(state: State) -> dict[str, Any]:
    """Canonical JSON of a state (hidden parts included)."""
    out: dict[str, Any] = {}
    for fname in State._fields:
        v = getattr(state, fname)
        if fname == "players":
            out["players"] = [_dump_flat(p) for p in v]
        elif fname == "cities":
            out["cities"] = [_dump_flat(c) for c in v]
        elif fname == "turn":
            t = _dump_flat(v)
            t["snapshot"] = None if v.snapshot is None else dump_state(v.snapshot)
            out["turn"] = t
        elif fname == "undo":
            if v is not None:  # absent rather than null: states dumped before undo existed stay byte-identical
                out["undo"] = trail_to_json(v, dump_state)
        else:
            out[fname] = list(v) if isinstance(v, tuple) else v
    return out


def _dump_flat(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for fname in obj._fields:
        v = getattr(obj, fname)
        if fname == "loans":
            out[fname] = [[a, e] for a, e in v]
        elif isinstance(v, tuple):
            out[fname] = list(v)
        else:
            out[fname] = v
    return out


def load_state(data: Mapping[str, Any]) -> State:
    """Inverse of :func:`dump_state`."""
    kw: dict[str, Any] = {}
    for fname in State._fields:
        if fname == "undo":
            kw["undo"] = trail_from_json(data.get("undo"), load_state)
            continue
        v = data[fname]
        if fname == "players":
            kw["players"] = tuple(
                Player(**{**p, "hand": tuple(p["hand"]), "loans": tuple((a, bool(e)) for a, e in p["loans"])}) for p in v
            )
        elif fname == "cities":
            kw["cities"] = tuple(
                City(tuple(c["sites"]), tuple(c["closed"]), tuple(c["harbours"]), tuple(c["forts"]), c["shutdowns"])
                for c in v
            )
        elif fname == "turn":
            snap = v["snapshot"]
            kw["turn"] = Turn(**{**v, "snapshot": None if snap is None else load_state(snap)})
        else:
            kw[fname] = tuple(v) if isinstance(v, list) else v
    return State(**kw)


__all__ = [
    "BANK",
    "CHOOSE_START",
    "FREE",
    "OFF",
    "OVER",
    "PIRATE",
    "SETTLE",
    "TURN",
    "City",
    "Player",
    "State",
    "Turn",
    "city_data",
    "colour_owner",
    "dump_state",
    "is_main",
    "load_state",
    "main_colour",
    "neutral_colour",
    "replace",
    "seat_colours",
]
