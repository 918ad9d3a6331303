"""Applying one atomic action (spec §4-§7): shape checks, rule checks, and the resulting state.

``apply`` is the server's only check, so it re-validates everything ``rules.legal_actions`` lists:
malformed JSON raises :class:`InvalidAction`, a real action the rules forbid now raises
:class:`IllegalAction` with a stable code and a sentence naming the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.games.base import Event, IllegalAction, InvalidAction, Rng

from . import data, flow
from .flow import SEAT_NAMES
from .rules import (
    active_seat,
    bonus_choices,
    crown_workers_max,
    current,
    free_item_choices,
    price,
    reward_available,
    stock,
)
from .ships import CATEGORY, Placement, crowns, has_room, is_complete, is_loaded, place, placement_error, store, unstore
from .state import Exec, Player, Rewards, State, Turn

Result = tuple[State, list[Event]]


# --------------------------------------------------------------------------------------------
# Shape checks (InvalidAction)


def _bad(msg: str) -> InvalidAction:
    return InvalidAction("bad-action", msg)


def _fields(action: Mapping[str, Any], required: set[str], optional: frozenset[str] | set[str] = frozenset()) -> None:
    keys = set(action)
    missing = required - keys
    if missing:
        raise _bad(f"{action.get('type')}: missing field(s) {sorted(missing)}")
    extra = keys - required - optional
    if extra:
        raise _bad(f"{action.get('type')}: unknown field(s) {sorted(extra)}")


def _int(action: Mapping[str, Any], key: str, low: int = 0) -> int:
    v = action[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise _bad(f"{action.get('type')}: '{key}' must be an integer >= {low}")
    return v


def _item(action: Mapping[str, Any]) -> str:
    item = action["item"]
    if not isinstance(item, str) or item not in CATEGORY:
        raise _bad(f"{action.get('type')}: unknown tile {item!r}; tiles are {sorted(CATEGORY)}")
    return item


def _target(action: Mapping[str, Any]) -> Placement | None:
    """The placement of a buy/transfer: None for the warehouse."""
    to = action["to"]
    if to == "warehouse":
        _fields(action, {"type", "item", "to"})
        return None
    if to == "new-ship":
        _fields(action, {"type", "item", "to"})
        return ("new", -1, "")
    if to != "ship":
        raise _bad(f"{action.get('type')}: 'to' must be 'warehouse', 'new-ship' or 'ship'")
    ship = _int(action, "ship") if "ship" in action else None
    if ship is None:
        raise _bad(f"{action.get('type')}: 'ship' is required with to='ship'")
    if "end" in action and "hull" not in action:
        _fields(action, {"type", "item", "to", "ship", "end"})
        if action["end"] not in ("front", "back"):
            raise _bad(f"{action.get('type')}: 'end' must be 'front' or 'back'")
        return ("end", ship, str(action["end"]))
    _fields(action, {"type", "item", "to", "ship", "hull"})
    return ("hull", ship, _int(action, "hull"))


# --------------------------------------------------------------------------------------------
# Small helpers


def _set_player(state: State, seat: int, p: Player) -> State:
    players = state.players
    return state._replace(players=(*players[:seat], p, *players[seat + 1 :]))


def _take_from_supply(state: State, tile: str) -> tuple[int, ...]:
    i = data.STACK_INDEX[tile]
    s = state.supply
    return (*s[:i], s[i] - 1, *s[i + 1 :])


def _spend_workers(e: Exec, p: Player, n: int) -> tuple[Exec, Player]:
    """Pay ``n`` workers for units: the wheel's blue workers first, then own (spec §5.0)."""
    blue = min(e.blue, n)
    return e._replace(blue=e.blue - blue, units=e.units + n), p._replace(workers=p.workers - (n - blue))


def _with_exec(turn: Turn, e: Exec) -> Turn:
    return turn._replace(extra=e) if turn.extra is not None else turn._replace(normal=e)


def _name(seat: int) -> str:
    return SEAT_NAMES[seat]


def _flip(p: Player) -> tuple[Player, int | None]:
    """Flip the most negative pass tile still showing its number (spec §5.10, §10.14)."""
    for i, f in enumerate(p.flipped):
        if not f:
            return p._replace(flipped=(*p.flipped[:i], True, *p.flipped[i + 1 :])), data.PASS_TILES[i]
    return p, None


def _turn_state(state: State, seat: int) -> Turn:
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


def _need_workers(e: Exec, p: Player, n: int) -> None:
    if e.blue + p.workers < n:
        raise IllegalAction(
            "no-workers",
            f"that needs {n} worker(s) but only {e.blue} blue and {p.workers} own are available"
            " (rule §5.0: every unit costs one worker)",
        )


def _need_action(e: Exec, wanted: set[str] | frozenset[str], what: str) -> None:
    if e.action not in wanted:
        raise IllegalAction(
            "wrong-action",
            f"you are executing {data.ACTION_NAMES[e.action]}, not {what} (rule §4.2)",
        )


# --------------------------------------------------------------------------------------------
# Choosing and bonuses


def _choose(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "action"})
    a = action["action"]
    if a not in data.ACTIONS:
        raise _bad(f"choose-action: unknown action {a!r}; actions are {list(data.ACTIONS)}")
    if state.step != "choose":
        raise IllegalAction("not-choosing", "the action of this phase was already chosen (rule §4.2)")
    space = state.layout.index(a)
    if state.face_down[space]:
        raise IllegalAction(
            "action-used", f"{data.ACTION_NAMES[a]} was already chosen this round (rule §4.2: its tile is face down)"
        )
    bonus = data.BONUSES[space]
    p = state.players[seat]
    p = p._replace(
        workers=p.workers + bonus.get("workers", 0),
        vp=p.vp + bonus.get("vp", 0),
        thaler=p.thaler + bonus.get("thaler", 0),
    )
    gained = ", ".join(f"{bonus[k]} {k}" for k in ("workers", "vp", "thaler") if k in bonus)
    events: list[Event] = [
        {
            "type": "action-chosen",
            "seat": seat,
            "action": a,
            "space": space,
            "text": f"{_name(seat)} chooses {data.ACTION_NAMES[a]} (space {space})"
            + (f" and takes the bonus: {gained}." if gained else "."),
        }
    ]
    state = _set_player(state, seat, p)._replace(
        space=space, anchor_tile=space if state.phase == 1 else state.anchor_tile
    )
    kind = bonus.get("tile")
    if kind is not None:
        if bonus_choices(state, p, kind):
            return state._replace(step="bonus", bonus=kind), events
        events.append(
            {
                "type": "bonus-forfeited",
                "seat": seat,
                "text": f"{_name(seat)} cannot take the bonus {kind}: none in stock or no warehouse room (rule §10.5).",
            }
        )
    return state._replace(step="turn", turn=flow.fresh_turn(state, seat)), events


def _take_bonus(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "item"})
    item = _item(action)
    p = state.players[seat]
    if state.step == "bonus":
        assert state.bonus is not None
        if item not in bonus_choices(state, p, state.bonus):
            raise IllegalAction(
                "bad-bonus",
                f"the bonus is a normal {state.bonus} of your choice, in stock and fitting your warehouse (rule §4.2)",
            )
        p = p._replace(warehouse=store(p.warehouse, item))
        state = _set_player(state, seat, p)._replace(supply=_take_from_supply(state, item), bonus=None, step="turn")
        state = state._replace(turn=flow.fresh_turn(state, seat))
        return state, [
            {
                "type": "bonus-taken",
                "seat": seat,
                "item": item,
                "text": f"{_name(seat)} takes a bonus {item} to the warehouse.",
            }
        ]
    t = state.turn
    if state.step != "turn" or t is None or t.rewards is not None or t.free_item is None:
        raise IllegalAction("nothing-to-take", "there is no bonus item to take now")
    if item not in free_item_choices(state, p, t.free_item):
        raise IllegalAction(
            "bad-bonus",
            f"the free item is one of {list(data.ACTION_ITEMS[t.free_item])}, in stock and fitting your warehouse"
            " (rule §5.1, golden rule)",
        )
    p = p._replace(warehouse=store(p.warehouse, item))
    state = _set_player(state, seat, p)._replace(supply=_take_from_supply(state, item), turn=t._replace(free_item=None))
    return state, [
        {
            "type": "bonus-taken",
            "seat": seat,
            "item": item,
            "text": f"{_name(seat)} takes a free {item} for buying all four kinds (to the warehouse).",
        }
    ]


# --------------------------------------------------------------------------------------------
# Units of the actions


def _placed(
    state: State, seat: int, p: Player, e: Exec, t: Turn, item: str, where: Placement | None, events: list[Event]
) -> State:
    """Put ``item`` in the warehouse or shipyard and open the reward prompt if a ship completes (§6)."""
    rewards = t.rewards
    if where is None:
        p = p._replace(warehouse=store(p.warehouse, item))
    else:
        before = p.ships[where[1]] if where[0] != "new" else None
        ships, k = place(p.ships, item, where)
        p = p._replace(ships=ships)
        ship = ships[k]
        if (before is None or not is_complete(before)) and is_complete(ship):
            rewards = Rewards(k, len(ship), (0,) * len(data.REWARDS))
            events.append(
                {
                    "type": "ship-completed",
                    "seat": seat,
                    "ship": k,
                    "size": len(ship),
                    "text": f"{_name(seat)} completes ship {k} (size {len(ship)}) and takes {len(ship)} reward(s).",
                }
            )
    return _set_player(state, seat, p)._replace(turn=_with_exec(t, e)._replace(rewards=rewards))


def _where_text(where: Placement | None) -> str:
    if where is None:
        return "the warehouse"
    how, k, pos = where
    if how == "new":
        return "a new ship"
    if how == "end":
        return f"the {pos} of ship {k}"
    return f"hull piece {pos} of ship {k}"


def _check_where(p: Player, item: str, where: Placement | None) -> None:
    if where is None:
        if not has_room(p.warehouse, item):
            raise IllegalAction(
                "warehouse-full",
                f"no room for a {item} in your warehouse (rule §5.6: {data.WAREHOUSE_CAPACITY} spaces, a mast takes 2)",
            )
        return
    err = placement_error(p.ships, item, where)
    if err is not None:
        raise IllegalAction("illegal-placement", err)


def _buy(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "item", "to"}, {"ship", "end", "hull"})
    item = _item(action)
    where = _target(action)
    t = _turn_state(state, seat)
    e = current(t)
    p = state.players[seat]
    _need_action(e, data.PAID_ACTIONS, "a purchase")
    if item not in data.ACTION_ITEMS[e.action]:
        raise IllegalAction(
            "wrong-item", f"{data.ACTION_NAMES[e.action]} sells only {list(data.ACTION_ITEMS[e.action])} (rule §5.1)"
        )
    if stock(state, item) <= 0:
        raise IllegalAction("sold-out", f"no {item} left in the supply (rule §1: limited supply)")
    cost = price(e, item)
    if cost > p.thaler:
        raise IllegalAction("cannot-afford", f"a {item} costs {cost} thaler and you have {p.thaler} (rule §5.1)")
    _need_workers(e, p, 1)
    if where is not None and cost == 0:
        raise IllegalAction(
            "golden-rule",
            f"the {item} costs 0 thaler, so it is free and must go to the warehouse (rule §5.0: golden rule)",
        )
    _check_where(p, item, where)
    first_four = e.action
    e, p = _spend_workers(e, p, 1)
    p = p._replace(thaler=p.thaler - cost)
    newly = item not in e.bought
    if newly:
        e = e._replace(bought=(*e.bought, item))
    events: list[Event] = [
        {
            "type": "bought",
            "seat": seat,
            "item": item,
            "thaler": cost,
            "text": f"{_name(seat)} buys a {item} for {cost} thaler and 1 worker, to {_where_text(where)}.",
        }
    ]
    state = state._replace(supply=_take_from_supply(state, item))
    state = _placed(state, seat, p, e, t, item, where, events)
    if newly and len(e.bought) == len(data.ACTION_ITEMS[first_four]):
        assert state.turn is not None
        state = state._replace(turn=state.turn._replace(free_item=first_four))
        events.append(
            {
                "type": "all-four",
                "seat": seat,
                "text": f"{_name(seat)} bought all four kinds and gets one free item (rule §5.1).",
            }
        )
    return state, events


def _transfer(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "item", "to"}, {"ship", "end", "hull"})
    item = _item(action)
    where = _target(action)
    t = _turn_state(state, seat)
    e = current(t)
    p = state.players[seat]
    _need_action(e, {"transfer"}, "Transfer")
    if where is None:
        raise IllegalAction(
            "transfer-to-shipyard", "a transfer moves a tile from the warehouse to the shipyard (rule §5.6)"
        )
    if item not in p.warehouse:
        raise IllegalAction("not-in-warehouse", f"there is no {item} in your warehouse (rule §5.6)")
    _need_workers(e, p, 1)
    _check_where(p, item, where)
    e, p = _spend_workers(e, p, 1)
    p = p._replace(warehouse=unstore(p.warehouse, item))
    events: list[Event] = [
        {
            "type": "transferred",
            "seat": seat,
            "item": item,
            "text": f"{_name(seat)} moves a {item} from the warehouse to {_where_text(where)}.",
        }
    ]
    return _placed(state, seat, p, e, t, item, where, events), events


def _deliver(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "ship"})
    k = _int(action, "ship")
    t = _turn_state(state, seat)
    e = current(t)
    p = state.players[seat]
    _need_action(e, {"deliver"}, "Deliver goods")
    if k >= len(p.ships):
        raise IllegalAction("no-such-ship", f"there is no ship {k} in your shipyard")
    ship = p.ships[k]
    if not is_complete(ship) or not is_loaded(ship):
        raise IllegalAction(
            "not-deliverable", "only a complete ship with a good under every hull piece can deliver (rule §5.7)"
        )
    _need_workers(e, p, len(ship))
    e, p = _spend_workers(e, p, len(ship))
    delivered = list(p.delivered)
    for h in ship:
        assert h.good is not None
        delivered[data.GOODS.index(h.good)] += 1
    emptied = tuple(h._replace(good=None) for h in ship)
    p = p._replace(ships=(*p.ships[:k], emptied, *p.ships[k + 1 :]), delivered=tuple(delivered))
    goods = [h.good for h in ship]
    state = _set_player(state, seat, p)._replace(turn=_with_exec(t, e))
    return state, [
        {
            "type": "delivered",
            "seat": seat,
            "ship": k,
            "goods": goods,
            "text": f"{_name(seat)} delivers ship {k}'s cargo ({', '.join(str(g) for g in goods)}).",
        }
    ]


def _take_money(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "workers"})
    n = _int(action, "workers", 1)
    t = _turn_state(state, seat)
    e = current(t)
    p = state.players[seat]
    _need_action(e, {"money"}, "Take money")
    _need_workers(e, p, n)
    e, p = _spend_workers(e, p, n)
    gain = n * data.THALER_PER_WORKER
    p = p._replace(thaler=p.thaler + gain)
    state = _set_player(state, seat, p)._replace(turn=_with_exec(t, e))
    return state, [
        {
            "type": "money-taken",
            "seat": seat,
            "workers": n,
            "thaler": gain,
            "text": f"{_name(seat)} takes {gain} thaler with {n} worker(s).",
        }
    ]


def _score_crowns(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "workers"})
    n = _int(action, "workers", 1)
    t = _turn_state(state, seat)
    e = current(t)
    p = state.players[seat]
    _need_action(e, {"crowns"}, "Score crowns")
    c = crowns(p.ships, p.warehouse, p.flipped)
    if c == 0:
        raise IllegalAction(
            "no-crowns", "you show no crowns, so scoring them gains nothing: pass instead (rule §10.13)"
        )
    remaining = data.CROWN_CAP - e.crown_vp
    if remaining <= 0 or n > crown_workers_max(c, remaining):
        raise IllegalAction(
            "crown-cap",
            f"Score crowns gives at most {data.CROWN_CAP} VP per use; with {c} crown(s) and {remaining} VP left under"
            f" the cap, at most {crown_workers_max(c, remaining) if remaining > 0 else 0} worker(s) count (rule §5.9)",
        )
    _need_workers(e, p, n)
    e, p = _spend_workers(e, p, n)
    gain = min(remaining, c * n)
    e = e._replace(crown_vp=e.crown_vp + gain)
    p = p._replace(vp=p.vp + gain)
    state = _set_player(state, seat, p)._replace(turn=_with_exec(t, e))
    return state, [
        {
            "type": "crowns-scored",
            "seat": seat,
            "crowns": c,
            "workers": n,
            "vp": gain,
            "text": f"{_name(seat)} scores {c} crown(s) x {n} worker(s) = {gain} VP.",
        }
    ]


# --------------------------------------------------------------------------------------------
# Rewards, passing, ending a turn, the extra action


def _take_reward(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    r = action.get("reward")
    if r not in data.REWARDS:
        raise _bad(f"take-reward: unknown reward {r!r}; rewards are {list(data.REWARDS)}")
    goods: tuple[str, ...] = ()
    if r == "goods":
        _fields(action, {"type", "reward", "goods"})
        raw = action["goods"]
        if not isinstance(raw, list) or not all(isinstance(g, str) and g in data.GOODS for g in raw):
            raise _bad(f"take-reward: 'goods' must be a list of goods from {list(data.GOODS)}")
        goods = tuple(raw)
    else:
        _fields(action, {"type", "reward"})
    t = state.turn
    if state.step != "turn" or t is None or t.rewards is None:
        raise IllegalAction("no-reward", "you have no completed ship whose rewards are due (rule §6)")
    i = data.REWARDS.index(r)
    if t.rewards.taken[i] >= data.REWARD_MAX_SAME:
        raise IllegalAction(
            "reward-limit", f"each reward may be taken at most {data.REWARD_MAX_SAME} times per ship (rule §6)"
        )
    amount = data.REWARD_AMOUNT[r]
    if r == "goods" and (len(goods) != amount or len(set(goods)) != amount):
        raise IllegalAction("reward-goods", f"the goods reward is {amount} different goods of your choice (rule §6)")
    p = state.players[seat]
    if not reward_available(state, p, r, goods):
        raise IllegalAction(
            "reward-unavailable", "that reward is out of stock or does not fit your warehouse (rules §10.5-10.6)"
        )
    supply = state.supply
    if r in ("crown-mast", "crown-sail"):
        tile = data.CROWN_MAST if r == "crown-mast" else data.CROWN_SAIL
        p = p._replace(warehouse=store(p.warehouse, tile))
        supply = _take_from_supply(state, tile)
        what = f"a {tile} to the warehouse"
    elif r == "goods":
        wh = p.warehouse
        for g in goods:
            wh = store(wh, g)
            supply = _take_from_supply(state._replace(supply=supply), g)
        p = p._replace(warehouse=wh)
        what = f"{' and '.join(goods)} to the warehouse"
    elif r == "thaler":
        p = p._replace(thaler=p.thaler + amount)
        what = f"{amount} thaler"
    elif r == "workers":
        p = p._replace(workers=p.workers + amount)
        what = f"{amount} workers"
    else:
        p = p._replace(vp=p.vp + amount)
        what = f"{amount} VP"
    taken = (*t.rewards.taken[:i], t.rewards.taken[i] + 1, *t.rewards.taken[i + 1 :])
    left = t.rewards.left - 1
    rewards = None if left == 0 else t.rewards._replace(left=left, taken=taken)
    state = _set_player(state, seat, p)._replace(supply=supply, turn=t._replace(rewards=rewards))
    return state, [
        {"type": "reward-taken", "seat": seat, "reward": r, "text": f"{_name(seat)} takes a ship reward: {what}."}
    ]


def _pass_turn(state: State, seat: int, rng: Rng, events: list[Event]) -> Result:
    """Pass on the current action (spec §5.10): flip a pass tile, then the turn ends."""
    p, value = _flip(state.players[seat])
    events.append(
        {
            "type": "passed",
            "seat": seat,
            "flipped": value,
            "text": f"{_name(seat)} passes"
            + (f" and flips the {value} pass tile to its crown." if value is not None else "."),
        }
    )
    state, more = flow.end_turn(_set_player(state, seat, p), rng)
    return state, events + more


def _pass(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type"})
    t = _turn_state(state, seat)
    if t.extra is not None:
        raise IllegalAction("in-extra-action", "finish your extra action with done first (rule §7)")
    if t.normal.units > 0:
        raise IllegalAction(
            "already-executed", "you executed this action, so end your turn with done, not pass (rule §5.10)"
        )
    return _pass_turn(state, seat, rng, [])


def _done(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type"})
    t = _turn_state(state, seat)
    if t.extra is not None:
        events: list[Event] = [
            {"type": "extra-action-done", "seat": seat, "text": f"{_name(seat)} ends the extra action."}
        ]
        if t.closing:
            state, more = flow.end_turn(state, rng)
            return state, events + more
        return state._replace(turn=t._replace(extra=None)), events
    if t.normal.units == 0:
        # spec §10.2: a done with zero units counts as a pass
        return _pass_turn(state, seat, rng, [])
    state, more = flow.end_turn(state, rng)
    return state, [{"type": "turn-done", "seat": seat, "text": f"{_name(seat)} ends the turn."}, *more]


def _extra_action(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    _fields(action, {"type", "action"}, {"pass_first"})
    a = action["action"]
    if a not in data.ACTIONS:
        raise _bad(f"extra-action: unknown action {a!r}; actions are {list(data.ACTIONS)}")
    pass_first = action.get("pass_first", False)
    if not isinstance(pass_first, bool):
        raise _bad("extra-action: 'pass_first' must be a boolean")
    t = _turn_state(state, seat)
    p = state.players[seat]
    if not p.extra or t.extra_used or t.extra is not None:
        raise IllegalAction("no-extra-action", "the extra-action tile is used once per game and is gone (rule §7)")
    events: list[Event] = []
    if pass_first:
        if t.normal.units > 0:
            raise IllegalAction("already-executed", "you executed this action, so you cannot pass on it (rule §5.10)")
        p, value = _flip(p)
        events.append(
            {
                "type": "passed",
                "seat": seat,
                "flipped": value,
                "text": f"{_name(seat)} passes"
                + (f" and flips the {value} pass tile to its crown." if value is not None else "."),
            }
        )
    p = p._replace(extra=False, workers=p.workers + data.EXTRA_WORKERS)
    closing = pass_first or t.normal.units > 0
    extra = Exec(a, -1, 0, 0, (), 0)  # no bonus, no blue workers (ruling, spec §13.3.2)
    events.append(
        {
            "type": "extra-action",
            "seat": seat,
            "action": a,
            "text": f"{_name(seat)} plays the extra-action tile: {data.EXTRA_WORKERS} workers, then"
            f" {data.ACTION_NAMES[a]}.",
        }
    )
    state = _set_player(state, seat, p)._replace(turn=t._replace(extra=extra, extra_used=True, closing=closing))
    return state, events


# --------------------------------------------------------------------------------------------
# Dispatch

HANDLERS: dict[str, Callable[[State, int, Mapping[str, Any], Rng], Result]] = {
    "choose-action": _choose,
    "take-bonus": _take_bonus,
    "buy": _buy,
    "transfer": _transfer,
    "deliver": _deliver,
    "take-money": _take_money,
    "score-crowns": _score_crowns,
    "take-reward": _take_reward,
    "pass": _pass,
    "done": _done,
    "extra-action": _extra_action,
}


def _settle(state: State, events: list[Event]) -> State:
    """Drop a buy-all-four bonus nobody can supply any more (spec §10.5-10.6): nothing to choose from."""
    t = state.turn
    if state.step == "turn" and t is not None and t.rewards is None and t.free_item is not None:
        p = state.players[t.seat]
        if not free_item_choices(state, p, t.free_item):
            events.append(
                {
                    "type": "bonus-forfeited",
                    "seat": t.seat,
                    "text": f"{_name(t.seat)} cannot take the free item: none in stock or no warehouse room"
                    " (rule §10.5).",
                }
            )
            return state._replace(turn=t._replace(free_item=None))
    return state


def apply(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Apply one action of ``seat`` (see the module docstring for the errors it raises)."""
    if not isinstance(action, Mapping):
        raise _bad("an action is a JSON object")
    kind = action.get("type")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise InvalidAction("unknown-action", f"not a Nauticus action type: {kind!r}; types are {list(HANDLERS)}")
    if state.step == "over":
        raise IllegalAction("game-over", "the game is over")
    if not isinstance(seat, int) or not 0 <= seat < len(state.players):
        raise InvalidAction("bad-seat", f"no seat {seat!r} in this game")
    if seat != active_seat(state):
        raise IllegalAction("not-your-turn", f"it is {_name(active_seat(state) or 0)}'s turn to act (rule §4.2)")
    new, events = handler(state, seat, action, rng)
    return _settle(new, events), events
