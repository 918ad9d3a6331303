"""Ophir's game state: plain frozen values, plus the small read-only helpers every rule needs.

The state holds everything, hidden parts included (the market deck order, the five removed A
cards, every seat's VP, the face-down map tokens before the reveal); :mod:`.view` removes what
a seat may not see. It never holds a seed: randomness arrives through ``apply``'s ``rng``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, TypeVar

from service.games.undo import Undo, trail_from_json

from .data import (
    BASIC,
    CUBES,
    HEXES,
    METAL_SIZE,
    SEAT_COLOURS,
    SPECIALIST_BY_ID,
    TIER_BY_ID,
    Tier,
)
from .words import colour

HEX_INDEX: dict[str, int] = {h: i for i, h in enumerate(HEXES)}

# Phases of a match.
BARRIERS = "barriers"
"""The starting player places the two barriers on face-down tokens (setup step 6)."""
DRAFT = "draft"
"""The specialist draft, in reverse turn order (setup step 10)."""
PLAY = "play"
"""Turns: navigation, then actions."""
OVER = "over"
"""The game has ended (spec §8)."""


@dataclass(frozen=True, slots=True)
class Options:
    """The rules options of a match (spec §10's configurable rulings)."""

    barriers: str = "chosen"
    end_on_empty_deck: str = "refill"
    chancellor_missing_only: bool = False
    moneychanger_sells_at_temple: bool = False
    priest_voluntary_only: bool = False


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's ship, board and specialist.

    ``hold`` counts cubes in :data:`~.data.CUBES` order (wood, cloth, stone, gems, gold, silver);
    ``vp`` is secret to everyone but its owner until the game ends.
    """

    specialist: str | None
    favor: int
    coins: int
    vp: int
    die: int
    hex: str | None
    hold: tuple[int, ...]
    capacity: int
    upgrades: int

    def used_space(self) -> int:
        """Hold spaces in use: a basic good takes one, a metal two (spec §4.4)."""
        h = self.hold
        return h[0] + h[1] + h[2] + h[3] + METAL_SIZE * (h[4] + h[5])

    def free_space(self) -> int:
        return self.capacity - self.used_space()

    def basic_goods(self) -> int:
        h = self.hold
        return h[0] + h[1] + h[2] + h[3]

    @property
    def specialty(self) -> str | None:
        return SPECIALIST_BY_ID[self.specialist].specialty if self.specialist else None


@dataclass(frozen=True, slots=True)
class Rival:
    """The neutral ship of a 2-player game (spec §7): a hex and a die, nothing else."""

    hex: str | None
    die: int


@dataclass(frozen=True, slots=True)
class Turn:
    """Where the active player is in their turn.

    Navigation: ``moves`` attempts made (successful or not), ``fails`` failed influence tests,
    ``moved`` whether a move succeeded, ``influence`` whether an influence move is declared
    (``influence_first`` if it was declared before the first move, which is what lets the
    Harbormaster act at both hexes, §10 item 5a), ``anchored``, ``nav_over`` once no move is
    left. Actions: the once-per-turn limits (§5.3, kept per turn for the Harbormaster too,
    §10 item 5b). Rival (§7): ``rival_step`` is -1 when the rival is not being moved, else how
    many hexes it has moved so far; ``rival_trade`` when the optional rival trade is pending.
    """

    start_hex: str
    moves: int = 0
    fails: int = 0
    moved: bool = False
    influence: bool = False
    influence_first: bool = False
    anchored: bool = False
    nav_over: bool = False
    rival_entered: bool = False
    rival_step: int = -1
    rival_origin: str | None = None
    rival_trade: bool = False
    gathered: bool = False
    traded: bool = False
    donated: bool = False
    upgraded: bool = False


@dataclass(frozen=True, slots=True)
class State:
    """A whole match of Ophir.

    Map: ``tokens[i]`` is the location token on ``HEXES[i]`` (face down until ``revealed``).
    Market: ``deck[0]`` is the face-up future demand, the rest are face down; ``demand`` holds
    the three current-demand stands left to right (``None`` only once the game has ended on an
    empty deck); ``modifiers[i]`` and ``merchant`` are fixed to the stands. Temple: ``tiers``
    used bottom to top, ``tier`` the index of the current one, ``temple`` the metals on it.
    """

    options: Options
    phase: str
    start_player: int
    active: int
    tokens: tuple[str, ...]
    revealed: bool
    barriers: tuple[int, ...]
    draft_pool: tuple[str, ...]
    draft_order: tuple[int, ...]
    returned_specialist: str | None
    deck: tuple[str, ...]
    removed: tuple[str, ...]
    demand: tuple[str | None, ...]
    discard: tuple[str, ...]
    modifiers: tuple[int, ...]
    merchant: int
    market_revealed: bool
    tiers: tuple[str, ...]
    tier: int
    temple: tuple[str, ...]
    supply: tuple[int, ...]
    seats: tuple[Player, ...]
    rival: Rival | None
    turn: Turn | None
    tiles: int
    turns_played: int
    end_reason: str | None
    undo: Undo = None
    """What the acting seat may take back this turn (:mod:`service.games.undo`); never in a view."""

    # -- read-only helpers -----------------------------------------------------------------

    @property
    def n(self) -> int:
        return len(self.seats)

    def hex_of(self, token: str) -> str:
        """The hex holding a location token ("temple", "market", "metals", a basic good)."""
        return HEXES[self.tokens.index(token)]

    def kind(self, hex_id: str) -> str:
        """The location token on a hex."""
        return self.tokens[HEX_INDEX[hex_id]]

    def current_tier(self) -> Tier | None:
        """The tier on top of the temple, or None once the last one is complete."""
        return TIER_BY_ID[self.tiers[self.tier]] if self.tier < len(self.tiers) else None

    def dice_at(self, hex_id: str, seat: int) -> list[tuple[int | None, int]]:
        """(owner, die) of every ship on ``hex_id`` except ``seat``'s; owner None is the rival."""
        out: list[tuple[int | None, int]] = [
            (i, p.die) for i, p in enumerate(self.seats) if i != seat and p.hex == hex_id
        ]
        if self.rival is not None and self.rival.hex == hex_id:
            out.append((None, self.rival.die))
        return out

    def ship_at(self, hex_id: str) -> bool:
        """Whether any ship (a player's or the rival's) is on ``hex_id``."""
        if self.rival is not None and self.rival.hex == hex_id:
            return True
        return any(p.hex == hex_id for p in self.seats)


def seat_name(seat: int) -> str:
    """The colour of a seat, used in event texts: a phrase of the catalog (:mod:`.words`), so it reads
    in its reader's language."""
    return colour(SEAT_COLOURS[seat])


def with_seat(state_seats: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    """The seats tuple with one player replaced (the input is left untouched)."""
    return (*state_seats[:seat], player, *state_seats[seat + 1 :])


def add_cubes(counts: tuple[int, ...], deltas: Mapping[str, int]) -> tuple[int, ...]:
    """Counts (hold or supply) with ``deltas`` added per cube name."""
    out = list(counts)
    for name, d in deltas.items():
        out[CUBES.index(name)] += d
    return tuple(out)


def basic_hold(hold: tuple[int, ...]) -> dict[str, int]:
    return {g: hold[i] for i, g in enumerate(BASIC) if hold[i]}


# -- fast copies ----------------------------------------------------------------------------------

T = TypeVar("T")
_COPIERS: dict[type, tuple[Callable[[Any], Any], frozenset[str]]] = {}
_new = object.__new__
_set = object.__setattr__


def _copier(cls: type) -> tuple[Callable[[Any], Any], frozenset[str]]:
    """A function that copies every slot of a ``cls`` into a new instance, and the field names.

    Generated once per class, as :mod:`dataclasses` generates ``__init__``: one straight line per
    field, no loop over names and no ``getattr``. A loop over the names was a third of every
    Ophir ``apply`` once undo added two copies a step (bench/engine.py: the generated copy is
    about twice as fast)."""
    names = tuple(f.name for f in fields(cls))
    body = "".join(f"    _set(new, {name!r}, obj.{name})\n" for name in names)
    scope: dict[str, Any] = {"_new": _new, "_set": _set, "cls": cls}
    exec(f"def copy(obj, _new=_new, _set=_set, cls=cls):\n    new = _new(cls)\n{body}    return new\n", scope)
    return scope["copy"], frozenset(names)


def replace(obj: T, **changes: Any) -> T:
    """Like :func:`dataclasses.replace` for this package's frozen slotted dataclasses, but several
    times faster: a generated copy of the slots (:func:`_copier`) instead of re-running
    ``__init__`` through the generic machinery, which was half of every ``apply``."""
    cls = type(obj)
    copier = _COPIERS.get(cls)
    if copier is None:
        copier = _COPIERS[cls] = _copier(cls)
    copy, known = copier
    if not changes.keys() <= known:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(set(changes) - known)}")
    new: T = copy(obj)
    for name, value in changes.items():
        _set(new, name, value)
    return new


# -- canonical JSON -----------------------------------------------------------------------------


def to_json(obj: Any) -> Any:
    """Dataclasses to dicts and tuples to lists, recursively: the canonical dump form."""
    if obj is None or isinstance(obj, int | str):
        return obj
    if isinstance(obj, tuple | list):
        return [to_json(x) for x in obj]
    names = _FIELDS.get(type(obj))
    if names is None:
        if not (is_dataclass(obj) and not isinstance(obj, type)):
            return obj
        names = _FIELDS[type(obj)] = tuple(f.name for f in fields(obj))
    return {name: to_json(getattr(obj, name)) for name in names}


_FIELDS: dict[type, tuple[str, ...]] = {}


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value)


def state_from_json(data: Mapping[str, Any]) -> State:
    """Inverse of :func:`to_json` for a :class:`State`."""
    d = dict(data)
    d["options"] = Options(**d["options"])
    d["seats"] = tuple(Player(**{**p, "hold": _tuple(p["hold"])}) for p in d["seats"])
    d["rival"] = Rival(**d["rival"]) if d["rival"] is not None else None
    d["turn"] = Turn(**d["turn"]) if d["turn"] is not None else None
    d["undo"] = trail_from_json(d.get("undo"), state_from_json)
    for name in ("tokens", "barriers", "draft_pool", "draft_order", "deck", "removed", "demand", "discard",
                 "modifiers", "tiers", "temple", "supply"):
        d[name] = _tuple(d[name])
    return State(**d)
