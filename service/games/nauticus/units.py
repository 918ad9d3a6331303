"""Units of the actions (spec §5, §6): buy, transfer, deliver, take money, score crowns, and the
completed-ship rewards that interrupt them. Each handler checks the JSON shape first
(InvalidAction), then the rules (IllegalAction), then returns the new state and its events."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from service.games.base import Event, IllegalAction, Rng
from service.games.words import count

from . import data
from .common import (
    Result,
    bad,
    int_field,
    item_field,
    name,
    need_action,
    need_fields,
    need_workers,
    running_turn,
    set_player,
    spend_workers,
    take_from_supply,
    target_field,
    with_exec,
)
from .rules import crown_workers_max, current, price, reward_available, stock
from .ships import Placement, crowns, has_room, is_complete, is_loaded, place, placement_error, store, unstore
from .state import Exec, Player, Rewards, State, Turn

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
                    "text": f"{name(seat)} completes ship {k} (size {len(ship)}) and takes {count(len(ship), 'reward')}.",
                }
            )
    return set_player(state, seat, p)._replace(turn=with_exec(t, e)._replace(rewards=rewards))


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
                f"no room for a {data.item_name(item)} in your warehouse (rule §5.6: {data.WAREHOUSE_CAPACITY} spaces, a mast takes 2)",
            )
        return
    err = placement_error(p.ships, item, where)
    if err is not None:
        raise IllegalAction("illegal-placement", err)


def buy(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Buy one item of the running paid action (spec §5.1-5.5): 1 worker (blue first) plus the printed
    price for the first of a kind, the repeat price after; a 0-thaler item must go to the warehouse
    (golden rule); the 4th distinct kind opens the free-item prompt."""
    need_fields(action, {"type", "item", "to"}, {"ship", "end", "hull"})
    item = item_field(action)
    where = target_field(action)
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, data.PAID_ACTIONS, "a purchase")
    if item not in data.ACTION_ITEMS[e.action]:
        raise IllegalAction(
            "wrong-item", f"{data.ACTION_NAMES[e.action]} sells only "
            f"{', '.join(data.item_name(i) for i in data.ACTION_ITEMS[e.action])} (rule §5.1)"
        )
    if stock(state, item) <= 0:
        raise IllegalAction("sold-out", f"no {data.item_name(item)} left in the supply (rule §1: limited supply)")
    cost = price(e, item)
    if cost > p.thaler:
        raise IllegalAction("cannot-afford", f"a {data.item_name(item)} costs {cost} thaler and you have {p.thaler} (rule §5.1)")
    need_workers(e, p, 1)
    if where is not None and cost == 0:
        raise IllegalAction(
            "golden-rule",
            f"the {data.item_name(item)} costs 0 thaler, so it is free and must go to the warehouse (rule §5.0: golden rule)",
        )
    _check_where(p, item, where)
    paid_action = e.action
    e, p = spend_workers(e, p, 1)
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
            "text": f"{name(seat)} buys a {data.item_name(item)} for {cost} thaler and 1 worker, to {_where_text(where)}.",
        }
    ]
    state = state._replace(supply=take_from_supply(state, item))
    state = _placed(state, seat, p, e, t, item, where, events)
    if newly and len(e.bought) == len(data.ACTION_ITEMS[paid_action]):
        assert state.turn is not None
        state = state._replace(turn=state.turn._replace(free_item=paid_action))
        events.append(
            {
                "type": "all-four",
                "seat": seat,
                "text": f"{name(seat)} bought all four kinds and gets one free item (rule §5.1).",
            }
        )
    return state, events


def transfer(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Move one tile from the warehouse to a legal place in the shipyard for 1 worker (spec §5.6)."""
    need_fields(action, {"type", "item", "to"}, {"ship", "end", "hull"})
    item = item_field(action)
    where = target_field(action)
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"transfer"}, "Transfer")
    if where is None:
        raise IllegalAction(
            "transfer-to-shipyard", "a transfer moves a tile from the warehouse to the shipyard (rule §5.6)"
        )
    if item not in p.warehouse:
        raise IllegalAction("not-in-warehouse", f"there is no {data.item_name(item)} in your warehouse (rule §5.6)")
    need_workers(e, p, 1)
    _check_where(p, item, where)
    e, p = spend_workers(e, p, 1)
    p = p._replace(warehouse=unstore(p.warehouse, item))
    events: list[Event] = [
        {
            "type": "transferred",
            "seat": seat,
            "item": item,
            "text": f"{name(seat)} moves a {data.item_name(item)} from the warehouse to {_where_text(where)}.",
        }
    ]
    return _placed(state, seat, p, e, t, item, where, events), events


def deliver(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Unload the whole cargo of one complete, fully loaded ship, 1 worker per good (spec §5.7)."""
    need_fields(action, {"type", "ship"})
    k = int_field(action, "ship")
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"deliver"}, "Deliver goods")
    if k >= len(p.ships):
        raise IllegalAction("no-such-ship", f"there is no ship {k} in your shipyard")
    ship = p.ships[k]
    if not is_complete(ship) or not is_loaded(ship):
        raise IllegalAction(
            "not-deliverable", "only a complete ship with a good under every hull piece can deliver (rule §5.7)"
        )
    need_workers(e, p, len(ship))
    e, p = spend_workers(e, p, len(ship))
    delivered = list(p.delivered)
    for h in ship:
        assert h.good is not None
        delivered[data.GOODS.index(h.good)] += 1
    emptied = tuple(h._replace(good=None) for h in ship)
    p = p._replace(ships=(*p.ships[:k], emptied, *p.ships[k + 1 :]), delivered=tuple(delivered))
    goods = [h.good for h in ship]
    state = set_player(state, seat, p)._replace(turn=with_exec(t, e))
    return state, [
        {
            "type": "delivered",
            "seat": seat,
            "ship": k,
            "goods": goods,
            "text": f"{name(seat)} delivers ship {k}'s cargo ({', '.join(str(g) for g in goods)}).",
        }
    ]


def take_money(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Take 2 thaler per worker used, blue workers included (spec §5.8)."""
    need_fields(action, {"type", "workers"})
    n = int_field(action, "workers", 1)
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"money"}, "Take money")
    need_workers(e, p, n)
    e, p = spend_workers(e, p, n)
    gain = n * data.THALER_PER_WORKER
    p = p._replace(thaler=p.thaler + gain)
    state = set_player(state, seat, p)._replace(turn=with_exec(t, e))
    return state, [
        {
            "type": "money-taken",
            "seat": seat,
            "workers": n,
            "thaler": gain,
            "text": f"{name(seat)} takes {gain} thaler with {count(n, 'worker')}.",
        }
    ]


def score_crowns(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Score crowns x workers VP, at most 15 per use (spec §5.9, ruling §10.13)."""
    need_fields(action, {"type", "workers"})
    n = int_field(action, "workers", 1)
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"crowns"}, "Score crowns")
    c = crowns(p.ships, p.warehouse, p.flipped)
    if c == 0:
        raise IllegalAction(
            "no-crowns", "you show no crowns, so scoring them gains nothing: pass instead (rule §10.13)"
        )
    remaining = data.CROWN_CAP - e.crown_vp
    if remaining <= 0 or n > crown_workers_max(c, remaining):
        raise IllegalAction(
            "crown-cap",
            f"Score crowns gives at most {data.CROWN_CAP} VP per use; with {count(c, 'crown')} and {remaining} VP left under"
            f" the cap, at most {count(crown_workers_max(c, remaining) if remaining > 0 else 0, 'worker')} count (rule §5.9)",
        )
    need_workers(e, p, n)
    e, p = spend_workers(e, p, n)
    gain = min(remaining, c * n)
    e = e._replace(crown_vp=e.crown_vp + gain)
    p = p._replace(vp=p.vp + gain)
    state = set_player(state, seat, p)._replace(turn=with_exec(t, e))
    return state, [
        {
            "type": "crowns-scored",
            "seat": seat,
            "crowns": c,
            "workers": n,
            "vp": gain,
            "text": f"{name(seat)} scores {count(c, 'crown')} x {count(n, 'worker')} = {gain} VP.",
        }
    ]


# --------------------------------------------------------------------------------------------
# Rewards, passing, ending a turn, the extra action


def take_reward(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Take one reward for the ship just completed (spec §6): one per mast, each at most twice."""
    r = action.get("reward")
    if r not in data.REWARDS:
        raise bad(f"take-reward: 'reward' is one of {', '.join(repr(x) for x in data.REWARDS)}, not {json.dumps(r)}")
    goods: tuple[str, ...] = ()
    if r == "goods":
        need_fields(action, {"type", "reward", "goods"})
        raw = action["goods"]
        if not isinstance(raw, list) or not all(isinstance(g, str) and g in data.GOODS for g in raw):
            raise bad(f"take-reward: 'goods' must be a list of goods from {', '.join(data.GOODS)}")
        goods = tuple(raw)
    else:
        need_fields(action, {"type", "reward"})
    t = state.turn
    if state.step != "turn" or t is None or t.rewards is None:
        raise IllegalAction("no-reward", "you have no completed ship whose rewards are due (rule §6)")
    i = data.REWARDS.index(r)
    if t.rewards.taken[i] >= data.REWARD_MAX_SAME:
        raise IllegalAction(
            "reward-limit", f"each reward may be taken at most {count(data.REWARD_MAX_SAME, 'time')} per ship (rule §6)"
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
        supply = take_from_supply(state, tile)
        what = f"a {data.item_name(tile)} to the warehouse"
    elif r == "goods":
        wh = p.warehouse
        for g in goods:
            wh = store(wh, g)
            supply = take_from_supply(state._replace(supply=supply), g)
        p = p._replace(warehouse=wh)
        what = f"{' and '.join(goods)} to the warehouse"
    elif r == "thaler":
        p = p._replace(thaler=p.thaler + amount)
        what = f"{amount} thaler"
    elif r == "workers":
        p = p._replace(workers=p.workers + amount)
        what = count(amount, "worker")
    else:
        p = p._replace(vp=p.vp + amount)
        what = f"{amount} VP"
    taken = (*t.rewards.taken[:i], t.rewards.taken[i] + 1, *t.rewards.taken[i + 1 :])
    left = t.rewards.left - 1
    rewards = None if left == 0 else t.rewards._replace(left=left, taken=taken)
    state = set_player(state, seat, p)._replace(supply=supply, turn=t._replace(rewards=rewards))
    return state, [
        {"type": "reward-taken", "seat": seat, "reward": r, "text": f"{name(seat)} takes a ship reward: {what}."}
    ]
