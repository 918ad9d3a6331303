"""Legal action generation (spec §4-§7), kept apart from applying actions (``actions.py``).

Every action listed here is fully specified and applies without error; ``actions.apply`` checks
the same conditions itself, since it is the server's only check.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Final

from service.games.base import Action

from . import data
from .ships import SIZE, crowns, has_room, is_complete, is_loaded, placements, warehouse_used
from .state import Exec, Player, State, Turn

ITEM_POS: Final[dict[str, int]] = {i: items.index(i) for items in data.ACTION_ITEMS.values() for i in items}
"""Position of each item's picture on its paid tile: the index into a space's price row."""

BONUS_TILES: Final[dict[str, tuple[str, ...]]] = {
    "mast": data.NORMAL_MASTS,
    "sail": data.NORMAL_SAILS,
    "good": data.GOODS,
}
"""Board bonus tiles of choice: a normal mast, a normal sail or a good (never a crowned piece)."""

GOODS_COMBOS: Final[tuple[tuple[str, ...], ...]] = tuple(combinations(data.GOODS, data.REWARD_AMOUNT["goods"]))

_PASS: Final[Action] = {"type": "pass"}
_DONE: Final[Action] = {"type": "done"}


def current(turn: Turn) -> Exec:
    """The execution now running in a turn: the extra action while it runs, else the normal one."""
    return turn.extra if turn.extra is not None else turn.normal


def price(e: Exec, item: str) -> int:
    """Thaler for one ``item`` in execution ``e`` (spec §5.1, §7): printed price for the first of a
    type, the repeat price for further ones, the fixed base price in the extra action."""
    if item in e.bought:
        return data.REPEAT_PRICE
    if e.space < 0:
        return data.EXTRA_BASE_PRICE
    return data.PRICE_ROWS[e.space][ITEM_POS[item]]


def stock(state: State, tile: str) -> int:
    return state.supply[data.STACK_INDEX[tile]]


def active_seat(state: State) -> int | None:
    """The one seat that must act now, or None once the game is over."""
    if state.step == "turn":
        assert state.turn is not None
        return state.turn.seat
    if state.step == "over":
        return None
    return state.chooser


def bonus_choices(state: State, player: Player, kind: str) -> list[str]:
    """Board-bonus tiles the chooser can take: in stock and fitting the warehouse (spec §10.5-10.6)."""
    return [t for t in BONUS_TILES[kind] if stock(state, t) > 0 and has_room(player.warehouse, t)]


def free_item_choices(state: State, player: Player, action: str) -> list[str]:
    """Buy-all-four bonus items: any item of the tile, in stock and fitting the warehouse (§10.7)."""
    return [t for t in data.ACTION_ITEMS[action] if stock(state, t) > 0 and has_room(player.warehouse, t)]


def reward_available(state: State, player: Player, reward: str, goods: tuple[str, ...] = ()) -> bool:
    """Whether a completed-ship reward can be supplied now (spec §10.5-10.6); ignores the per-ship limit."""
    if reward == "crown-mast":
        return stock(state, data.CROWN_MAST) > 0 and has_room(player.warehouse, data.CROWN_MAST)
    if reward == "crown-sail":
        return stock(state, data.CROWN_SAIL) > 0 and has_room(player.warehouse, data.CROWN_SAIL)
    if reward == "goods":
        return all(stock(state, g) > 0 for g in goods) and (
            warehouse_used(player.warehouse) + len(goods) * data.OTHER_SIZE <= data.WAREHOUSE_CAPACITY
        )
    return True


def where_json(where: tuple[str, int, str | int]) -> dict[str, Any]:
    """JSON fields of a shipyard placement (see ``ships.Placement``)."""
    how, k, pos = where
    if how == "new":
        return {"to": "new-ship"}
    if how == "end":
        return {"to": "ship", "ship": k, "end": pos}
    return {"to": "ship", "ship": k, "hull": pos}


def crown_workers_max(crown_count: int, remaining: int) -> int:
    """Most workers worth committing to Score crowns: ceil(remaining cap / crowns) (spec §10.13)."""
    return -(-remaining // crown_count)


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every legal atomic action of ``seat`` now; ``[]`` when another seat (or nobody) must act."""
    if seat != active_seat(state):
        return []
    player = state.players[seat]
    if state.step == "choose":
        return [{"type": "choose-action", "action": a} for s, a in enumerate(state.layout) if not state.face_down[s]]
    if state.step == "bonus":
        assert state.bonus is not None
        return [{"type": "take-bonus", "item": t} for t in bonus_choices(state, player, state.bonus)]
    turn = state.turn
    assert turn is not None
    if turn.rewards is not None:
        return _reward_actions(state, player, turn)
    if turn.free_item is not None:
        return [{"type": "take-bonus", "item": t} for t in free_item_choices(state, player, turn.free_item)]
    e = current(turn)
    out = _unit_actions(state, player, e)
    if turn.extra is not None:
        out.append(_DONE)
        return out
    out.append(_PASS if e.units == 0 else _DONE)
    if player.extra and not turn.extra_used:
        for a in data.ACTIONS:
            out.append({"type": "extra-action", "action": a, "pass_first": False})
            if e.units == 0:
                out.append({"type": "extra-action", "action": a, "pass_first": True})
    return out


def _reward_actions(state: State, player: Player, turn: Turn) -> list[Action]:
    assert turn.rewards is not None
    out: list[Action] = []
    for r, taken in zip(data.REWARDS, turn.rewards.taken, strict=True):
        if taken >= data.REWARD_MAX_SAME:
            continue
        if r == "goods":
            for combo in GOODS_COMBOS:
                if reward_available(state, player, r, combo):
                    out.append({"type": "take-reward", "reward": r, "goods": list(combo)})
        elif reward_available(state, player, r):
            out.append({"type": "take-reward", "reward": r})
    return out


def _unit_actions(state: State, player: Player, e: Exec) -> list[Action]:
    """One unit of the running action, for every legal choice (spec §5)."""
    avail = e.blue + player.workers
    if avail <= 0:
        return []
    a = e.action
    out: list[Action] = []
    if a in data.PAID_ACTIONS:
        room_left = data.WAREHOUSE_CAPACITY - warehouse_used(player.warehouse)
        for item in data.ACTION_ITEMS[a]:
            if stock(state, item) <= 0:
                continue
            cost = price(e, item)
            if cost > player.thaler:
                continue
            if cost > 0:  # golden rule: only tiles paid for in thaler go straight to the shipyard
                for where in placements(player.ships, item):
                    out.append({"type": "buy", "item": item, **where_json(where)})
            if SIZE[item] <= room_left:
                out.append({"type": "buy", "item": item, "to": "warehouse"})
    elif a == "transfer":
        for item in sorted(set(player.warehouse)):
            for where in placements(player.ships, item):
                out.append({"type": "transfer", "item": item, **where_json(where)})
    elif a == "deliver":
        for k, ship in enumerate(player.ships):
            if len(ship) <= avail and is_complete(ship) and is_loaded(ship):
                out.append({"type": "deliver", "ship": k})
    elif a == "money":
        out.extend({"type": "take-money", "workers": n} for n in range(1, avail + 1))
    else:  # crowns
        c = crowns(player.ships, player.warehouse, player.flipped)
        remaining = data.CROWN_CAP - e.crown_vp
        if c > 0 and remaining > 0:
            top = min(avail, crown_workers_max(c, remaining))
            out.extend({"type": "score-crowns", "workers": n} for n in range(1, top + 1))
    return out
