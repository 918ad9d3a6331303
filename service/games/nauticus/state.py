"""The Nauticus game state: immutable named tuples, and their canonical JSON form.

Everything is a ``NamedTuple`` (immutable, cheap to copy with ``_replace``, compared by value), so
``apply`` builds new states and never touches its input. The whole state is public except the
order of action tiles not yet laid, and tiles are laid in the same step that shuffles them, so the
state holds no hidden information at all (spec §10.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from service.games.undo import Undo, trail_from_json, trail_to_json


class Hull(NamedTuple):
    """One hull piece in a shipyard, with what sits on and under it (spec §5.2-5.5)."""

    piece: str
    """``single``, ``bow``, ``middle`` or ``stern``."""
    mast: str | None = None
    """A mast tile id (``mast-a`` .. ``mast-d``, ``mast-crown``) or None."""
    sail: str | None = None
    good: str | None = None
    """A good loaded under this piece (``coffee`` ...), or None."""


Ship = tuple[Hull, ...]
"""A ship: its hull pieces from front (bow) to back (stern)."""


class Player(NamedTuple):
    thaler: int
    workers: int
    vp: int
    warehouse: tuple[str, ...]
    """Tile ids in the warehouse, kept sorted (a multiset: spaces can be rearranged freely)."""
    ships: tuple[Ship, ...]
    delivered: tuple[int, ...]
    """Delivered goods per type, in ``data.GOODS`` order."""
    flipped: tuple[bool, ...]
    """Pass tiles turned to their crown side, in ``data.PASS_TILES`` order (-3, -2, -1)."""
    extra: bool
    """Still holds the once-per-game extra-action tile (spec §7)."""


class Exec(NamedTuple):
    """One execution of an action by one player: their normal turn, or their extra action."""

    action: str
    space: int
    """Action space whose price row applies; -1 for the extra action (fixed base price)."""
    blue: int
    """Blue wheel workers still unused in this execution (spec §5.0)."""
    units: int
    """Workers spent on this execution so far (a turn with 0 units is a pass)."""
    bought: tuple[str, ...]
    """Item types bought so far in this execution: a repeat costs the repeat price (spec §5.1)."""
    crown_vp: int
    """VP already scored by Score crowns in this execution, against the per-use cap (spec §5.9)."""


class Rewards(NamedTuple):
    """A completed ship's rewards still to take (spec §6): one per mast, each option at most twice."""

    ship: int
    left: int
    taken: tuple[int, ...]
    """How often each option of ``data.REWARDS`` was taken for this ship."""


class Turn(NamedTuple):
    """The turn of the seat now acting in the current action phase."""

    seat: int
    normal: Exec
    extra: Exec | None
    """The extra action while it runs."""
    extra_used: bool
    """The extra action was used in this turn (before or after the normal action)."""
    closing: bool
    """The normal action is over (executed or passed): the turn ends when the extra action does."""
    rewards: Rewards | None
    free_item: str | None
    """Pending buy-all-four bonus item: the paid action whose items may be chosen (spec §5.1)."""


class State(NamedTuple):
    players: tuple[Player, ...]
    supply: tuple[int, ...]
    """Tiles left in each open stack, in ``data.STACKS`` order."""
    round: int
    phase: int
    """Action phase within the round, 1..7."""
    game_phase: int
    """Action phases counted from 1 across the whole game."""
    anchor: int
    """Action space the wheel's anchor segment points at this round."""
    layout: tuple[str, ...]
    """The action tile lying on each of the 8 spaces."""
    face_down: tuple[bool, ...]
    """Spaces whose action was already chosen this round."""
    anchor_tile: int
    """Space of this round's first chosen action (the anchor tile), -1 before it is chosen."""
    step: str
    """``choose`` (chooser picks a tile), ``bonus`` (chooser picks a bonus tile), ``turn`` or ``over``."""
    chooser: int
    space: int
    """Space of the current phase's action, -1 while choosing."""
    turns_taken: int
    """Players who finished their turn in the current phase."""
    bonus: str | None
    """Pending board-bonus tile kind (``mast``, ``sail`` or ``good``) during step ``bonus``."""
    turn: Turn | None
    undo: Undo = None
    """What the acting seat may take back this turn (:mod:`service.games.undo`); never in a view."""


# --------------------------------------------------------------------------------------------
# Canonical JSON


def _exec_json(e: Exec | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {
        "action": e.action,
        "space": e.space,
        "blue": e.blue,
        "units": e.units,
        "bought": list(e.bought),
        "crown_vp": e.crown_vp,
    }


def _exec_load(d: Mapping[str, Any] | None) -> Exec | None:
    if d is None:
        return None
    return Exec(d["action"], d["space"], d["blue"], d["units"], tuple(d["bought"]), d["crown_vp"])


def ship_json(ship: Ship) -> list[dict[str, Any]]:
    return [{"piece": h.piece, "mast": h.mast, "sail": h.sail, "good": h.good} for h in ship]


def player_json(p: Player) -> dict[str, Any]:
    return {
        "thaler": p.thaler,
        "workers": p.workers,
        "vp": p.vp,
        "warehouse": list(p.warehouse),
        "ships": [ship_json(s) for s in p.ships],
        "delivered": list(p.delivered),
        "flipped": list(p.flipped),
        "extra": p.extra,
    }


def dump_state(s: State) -> dict[str, Any]:
    """The whole state as canonical JSON (plain dicts, lists, ints, strings, bools, None)."""
    t = s.turn
    turn: dict[str, Any] | None = None
    if t is not None:
        turn = {
            "seat": t.seat,
            "normal": _exec_json(t.normal),
            "extra": _exec_json(t.extra),
            "extra_used": t.extra_used,
            "closing": t.closing,
            "rewards": None
            if t.rewards is None
            else {"ship": t.rewards.ship, "left": t.rewards.left, "taken": list(t.rewards.taken)},
            "free_item": t.free_item,
        }
    return {
        "players": [player_json(p) for p in s.players],
        "supply": list(s.supply),
        "round": s.round,
        "phase": s.phase,
        "game_phase": s.game_phase,
        "anchor": s.anchor,
        "layout": list(s.layout),
        "face_down": list(s.face_down),
        "anchor_tile": s.anchor_tile,
        "step": s.step,
        "chooser": s.chooser,
        "space": s.space,
        "turns_taken": s.turns_taken,
        "bonus": s.bonus,
        "turn": turn,
        # absent rather than null: states dumped before undo existed stay byte-identical
        **({"undo": trail_to_json(s.undo, dump_state)} if s.undo is not None else {}),
    }


def load_state(d: Mapping[str, Any]) -> State:
    """Inverse of :func:`dump_state`."""
    players = tuple(
        Player(
            p["thaler"],
            p["workers"],
            p["vp"],
            tuple(p["warehouse"]),
            tuple(tuple(Hull(h["piece"], h["mast"], h["sail"], h["good"]) for h in ship) for ship in p["ships"]),
            tuple(p["delivered"]),
            tuple(p["flipped"]),
            p["extra"],
        )
        for p in d["players"]
    )
    t = d["turn"]
    turn: Turn | None = None
    if t is not None:
        normal = _exec_load(t["normal"])
        assert normal is not None
        r = t["rewards"]
        turn = Turn(
            t["seat"],
            normal,
            _exec_load(t["extra"]),
            t["extra_used"],
            t["closing"],
            None if r is None else Rewards(r["ship"], r["left"], tuple(r["taken"])),
            t["free_item"],
        )
    return State(
        players,
        tuple(d["supply"]),
        d["round"],
        d["phase"],
        d["game_phase"],
        d["anchor"],
        tuple(d["layout"]),
        tuple(d["face_down"]),
        d["anchor_tile"],
        d["step"],
        d["chooser"],
        d["space"],
        d["turns_taken"],
        d["bonus"],
        turn,
        trail_from_json(d.get("undo"), load_state),
    )
