"""Shared helpers of ``actions`` and ``units``: JSON shape checks (raising :class:`InvalidAction`)
and small pure state edits (players, supply, workers, pass tiles)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import Event, IllegalAction, InvalidAction
from service.games.words import count

from . import data
from .flow import SEAT_NAMES
from .ships import CATEGORY, Placement
from .state import Exec, Player, State, Turn

Result = tuple[State, list[Event]]

# --------------------------------------------------------------------------------------------
# Shape checks (InvalidAction)


def _fields(names: set[str] | frozenset[str]) -> str:
    """Field names for a message: "field 'x'" or "fields 'x', 'y'"."""
    quoted = ", ".join(repr(n) for n in sorted(names))
    return f"field {quoted}" if len(names) == 1 else f"fields {quoted}"


def bad(msg: str) -> InvalidAction:
    return InvalidAction("bad-action", msg)


def need_fields(
    action: Mapping[str, Any], required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> None:
    keys = set(action)
    missing = required - keys
    if missing:
        raise bad(f"{action.get('type')}: missing {_fields(missing)}")
    extra = keys - required - optional
    if extra:
        raise bad(f"{action.get('type')}: unknown {_fields(extra)}")


def int_field(action: Mapping[str, Any], key: str, low: int = 0) -> int:
    v = action[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise bad(f"{action.get('type')}: '{key}' must be an integer >= {low}")
    return v


def item_field(action: Mapping[str, Any]) -> str:
    item = action["item"]
    if not isinstance(item, str) or item not in CATEGORY:
        raise bad(f"{action.get('type')}: unknown tile {item!r}; tiles are {', '.join(sorted(CATEGORY))}")
    return item


def target_field(action: Mapping[str, Any]) -> Placement | None:
    """The placement of a buy/transfer: None for the warehouse."""
    to = action["to"]
    if to == "warehouse":
        need_fields(action, {"type", "item", "to"})
        return None
    if to == "new-ship":
        need_fields(action, {"type", "item", "to"})
        return ("new", -1, "")
    if to != "ship":
        raise bad(f"{action.get('type')}: 'to' must be 'warehouse', 'new-ship' or 'ship'")
    ship = int_field(action, "ship") if "ship" in action else None
    if ship is None:
        raise bad(f"{action.get('type')}: 'ship' is required with to='ship'")
    if "end" in action and "hull" not in action:
        need_fields(action, {"type", "item", "to", "ship", "end"})
        if action["end"] not in ("front", "back"):
            raise bad(f"{action.get('type')}: 'end' must be 'front' or 'back'")
        return ("end", ship, str(action["end"]))
    need_fields(action, {"type", "item", "to", "ship", "hull"})
    return ("hull", ship, int_field(action, "hull"))


# --------------------------------------------------------------------------------------------
# Small helpers


def set_player(state: State, seat: int, p: Player) -> State:
    players = state.players
    return state._replace(players=(*players[:seat], p, *players[seat + 1 :]))


def take_from_supply(state: State, tile: str) -> tuple[int, ...]:
    i = data.STACK_INDEX[tile]
    s = state.supply
    return (*s[:i], s[i] - 1, *s[i + 1 :])


def spend_workers(e: Exec, p: Player, n: int) -> tuple[Exec, Player]:
    """Pay ``n`` workers for units: the wheel's blue workers first, then own (spec §5.0)."""
    blue = min(e.blue, n)
    return e._replace(blue=e.blue - blue, units=e.units + n), p._replace(workers=p.workers - (n - blue))


def with_exec(turn: Turn, e: Exec) -> Turn:
    return turn._replace(extra=e) if turn.extra is not None else turn._replace(normal=e)


def name(seat: int) -> str:
    return SEAT_NAMES[seat]


def flip(p: Player) -> tuple[Player, int | None]:
    """Flip the most negative pass tile still showing its number (spec §5.10, §10.14)."""
    for i, f in enumerate(p.flipped):
        if not f:
            return p._replace(flipped=(*p.flipped[:i], True, *p.flipped[i + 1 :])), data.PASS_TILES[i]
    return p, None


def running_turn(state: State, seat: int) -> Turn:
    """The running turn, or IllegalAction when the game is not in the middle of a turn."""
    if state.step != "turn" or state.turn is None:
        raise IllegalAction("not-in-turn", "no action is being executed now: choose an action first (rule §4.2)")
    t = state.turn
    if t.rewards is not None:
        raise IllegalAction(
            "reward-pending", "a completed ship interrupts the action: take its rewards first (rule §6)"
        )
    if t.free_item is not None:
        raise IllegalAction("bonus-pending", "take the free item for buying all four kinds first (rule §5.1)")
    return t


def need_workers(e: Exec, p: Player, n: int) -> None:
    if e.blue + p.workers < n:
        raise IllegalAction(
            "no-workers",
            f"that needs {count(n, 'worker')} but only {e.blue} blue and {p.workers} own are available"
            " (rule §5.0: every unit costs one worker)",
        )


def need_action(e: Exec, wanted: set[str] | frozenset[str], what: str) -> None:
    if e.action not in wanted:
        raise IllegalAction(
            "wrong-action",
            f"you are executing {data.ACTION_NAMES[e.action]}, not {what} (rule §4.2)",
        )
