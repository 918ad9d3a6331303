"""Shared helpers of ``actions`` and ``units``: JSON shape checks (raising :class:`InvalidAction`)
and small pure state edits (players, supply, workers, pass tiles)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import Event, IllegalAction, InvalidAction
from service.i18n import Phrase, phrase, phrase_n

from . import data, words
from .ships import CATEGORY, Placement
from .state import Exec, Player, State, Turn

Result = tuple[State, list[Event]]

# --------------------------------------------------------------------------------------------
# Shape checks (InvalidAction)


def _type(action: Mapping[str, Any]) -> str:
    return str(action.get("type"))


def bad(msg: str) -> InvalidAction:
    """The refusal of JSON that is not a Nauticus action (``msg`` a phrase)."""
    return InvalidAction("bad-action", msg)


def need_fields(
    action: Mapping[str, Any], required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> None:
    keys = set(action)
    missing = required - keys
    if missing:
        raise bad(phrase_n("{type}: missing field {names}", "{type}: missing fields {names}", len(missing),
                           type=_type(action), names=", ".join(repr(n) for n in sorted(missing))))
    extra = keys - required - optional
    if extra:
        raise bad(phrase_n("{type}: unknown field {names}", "{type}: unknown fields {names}", len(extra),
                           type=_type(action), names=", ".join(repr(n) for n in sorted(extra))))


def int_field(action: Mapping[str, Any], key: str, low: int = 0) -> int:
    v = action[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise bad(phrase("{type}: {field} must be an integer >= {low}", type=_type(action), field=repr(key), low=low))
    return v


def item_field(action: Mapping[str, Any]) -> str:
    item = action["item"]
    if not isinstance(item, str) or item not in CATEGORY:
        raise bad(phrase("{type}: unknown tile {value}; tiles are {known}", type=_type(action), value=repr(item),
                         known=", ".join(sorted(CATEGORY))))
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
        raise bad(phrase("{type}: 'to' must be 'warehouse', 'new-ship' or 'ship'", type=_type(action)))
    ship = int_field(action, "ship") if "ship" in action else None
    if ship is None:
        raise bad(phrase("{type}: 'ship' is required with to='ship'", type=_type(action)))
    if "end" in action and "hull" not in action:
        need_fields(action, {"type", "item", "to", "ship", "end"})
        if action["end"] not in ("front", "back"):
            raise bad(phrase("{type}: 'end' must be 'front' or 'back'", type=_type(action)))
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


def name(seat: int) -> Phrase:
    """A seat by its colour (a phrase)."""
    return words.seat_name(seat)


def flip(p: Player) -> tuple[Player, int | None]:
    """Flip the most negative pass tile still showing its number (spec §5.10, §10.14)."""
    for i, f in enumerate(p.flipped):
        if not f:
            return p._replace(flipped=(*p.flipped[:i], True, *p.flipped[i + 1 :])), data.PASS_TILES[i]
    return p, None


def running_turn(state: State, seat: int) -> Turn:
    """The running turn, or IllegalAction when the game is not in the middle of a turn."""
    if state.step != "turn" or state.turn is None:
        raise IllegalAction("not-in-turn",
                            phrase("no action is being executed now: choose an action first (rule §4.2)"))
    t = state.turn
    if t.rewards is not None:
        raise IllegalAction(
            "reward-pending", phrase("a completed ship interrupts the action: take its rewards first (rule §6)")
        )
    if t.free_item is not None:
        raise IllegalAction("bonus-pending", phrase("take the free item for buying all four kinds first (rule §5.1)"))
    return t


def need_workers(e: Exec, p: Player, n: int) -> None:
    if e.blue + p.workers < n:
        raise IllegalAction(
            "no-workers",
            phrase_n("that needs {n} worker but only {blue} blue and {own} own are available (rule §5.0: every unit"
                     " costs one worker)", "that needs {n} workers but only {blue} blue and {own} own are available"
                     " (rule §5.0: every unit costs one worker)", n, blue=e.blue, own=p.workers),
        )


def need_action(e: Exec, wanted: set[str] | frozenset[str], what: str) -> None:
    """IllegalAction unless the running action is one of ``wanted`` (``what`` names them, a phrase)."""
    if e.action not in wanted:
        raise IllegalAction(
            "wrong-action",
            phrase("you are executing {the_action}, not {what} (rule §4.2)", the_action=words.action(e.action), what=what),
        )
