"""Units of the actions (spec §5, §6): buy, transfer, deliver, take money, score crowns, and the
completed-ship rewards that interrupt them. Each handler checks the JSON shape first
(InvalidAction), then the rules (IllegalAction), then returns the new state and its events."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from service.games.base import Event, IllegalAction, Rng
from service.i18n import phrase, phrase_n

from . import data, words
from .common import (
    Result,
    bad,
    int_field,
    item_field,
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
from .events import event
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
            events.append(event("ship-completed", seat=seat, ship=k, size=len(ship)))
    return set_player(state, seat, p)._replace(turn=with_exec(t, e)._replace(rewards=rewards))


def _check_where(p: Player, item: str, where: Placement | None) -> None:
    if where is None:
        if not has_room(p.warehouse, item):
            raise IllegalAction(
                "warehouse-full",
                phrase("no room for a {item} in your warehouse (rule §5.6: {n} spaces, a mast takes 2)",
                       item=words.item(item), n=data.WAREHOUSE_CAPACITY),
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
    need_action(e, data.PAID_ACTIONS, phrase("a purchase"))
    if item not in data.ACTION_ITEMS[e.action]:
        raise IllegalAction(
            "wrong-item", phrase("{the_action} sells only {items} (rule §5.1)", the_action=words.action(e.action),
                                 items=words.joined([words.item(i) for i in data.ACTION_ITEMS[e.action]]))
        )
    if stock(state, item) <= 0:
        raise IllegalAction("sold-out", phrase("no {item} left in the supply (rule §1: limited supply)",
                                               item=words.item(item)))
    cost = price(e, item)
    if cost > p.thaler:
        raise IllegalAction("cannot-afford", phrase("a {item} costs {cost} thaler and you have {thaler} (rule §5.1)",
                                                    item=words.item(item), cost=cost, thaler=p.thaler))
    need_workers(e, p, 1)
    if where is not None and cost == 0:
        raise IllegalAction(
            "golden-rule",
            phrase("the {item} costs 0 thaler, so it is free and must go to the warehouse (rule §5.0: golden rule)",
                   item=words.item(item)),
        )
    _check_where(p, item, where)
    paid_action = e.action
    e, p = spend_workers(e, p, 1)
    p = p._replace(thaler=p.thaler - cost)
    newly = item not in e.bought
    if newly:
        e = e._replace(bought=(*e.bought, item))
    events: list[Event] = [event("bought", seat=seat, item=item, thaler=cost, place=words.placement_json(where))]
    state = state._replace(supply=take_from_supply(state, item))
    state = _placed(state, seat, p, e, t, item, where, events)
    if newly and len(e.bought) == len(data.ACTION_ITEMS[paid_action]):
        assert state.turn is not None
        state = state._replace(turn=state.turn._replace(free_item=paid_action))
        events.append(event("all-four", seat=seat))
    return state, events


def transfer(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Move one tile from the warehouse to a legal place in the shipyard for 1 worker (spec §5.6)."""
    need_fields(action, {"type", "item", "to"}, {"ship", "end", "hull"})
    item = item_field(action)
    where = target_field(action)
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"transfer"}, words.action_named("Transfer"))
    if where is None:
        raise IllegalAction(
            "transfer-to-shipyard", phrase("a transfer moves a tile from the warehouse to the shipyard (rule §5.6)")
        )
    if item not in p.warehouse:
        raise IllegalAction("not-in-warehouse", phrase("there is no {item} in your warehouse (rule §5.6)",
                                                       item=words.item(item)))
    need_workers(e, p, 1)
    _check_where(p, item, where)
    e, p = spend_workers(e, p, 1)
    p = p._replace(warehouse=unstore(p.warehouse, item))
    events: list[Event] = [event("transferred", seat=seat, item=item, place=words.placement_json(where))]
    return _placed(state, seat, p, e, t, item, where, events), events


def deliver(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Unload the whole cargo of one complete, fully loaded ship, 1 worker per good (spec §5.7)."""
    need_fields(action, {"type", "ship"})
    k = int_field(action, "ship")
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"deliver"}, words.action_named("Deliver goods"))
    if k >= len(p.ships):
        raise IllegalAction("no-such-ship", phrase("there is no ship {k} in your shipyard", k=k))
    ship = p.ships[k]
    if not is_complete(ship) or not is_loaded(ship):
        raise IllegalAction(
            "not-deliverable",
            phrase("only a complete ship with a good under every hull piece can deliver (rule §5.7)"),
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
    return state, [event("delivered", seat=seat, ship=k, goods=goods)]


def take_money(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Take 2 thaler per worker used, blue workers included (spec §5.8)."""
    need_fields(action, {"type", "workers"})
    n = int_field(action, "workers", 1)
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"money"}, words.action_named("Take money"))
    need_workers(e, p, n)
    e, p = spend_workers(e, p, n)
    gain = n * data.THALER_PER_WORKER
    p = p._replace(thaler=p.thaler + gain)
    state = set_player(state, seat, p)._replace(turn=with_exec(t, e))
    return state, [event("money-taken", seat=seat, workers=n, thaler=gain)]


def score_crowns(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Score crowns x workers VP, at most 15 per use (spec §5.9, ruling §10.13)."""
    need_fields(action, {"type", "workers"})
    n = int_field(action, "workers", 1)
    t = running_turn(state, seat)
    e = current(t)
    p = state.players[seat]
    need_action(e, {"crowns"}, words.action_named("Score crowns"))
    c = crowns(p.ships, p.warehouse, p.flipped)
    if c == 0:
        raise IllegalAction(
            "no-crowns", phrase("you show no crowns, so scoring them gains nothing: pass instead (rule §10.13)")
        )
    remaining = data.CROWN_CAP - e.crown_vp
    if remaining <= 0 or n > crown_workers_max(c, remaining):
        raise IllegalAction(
            "crown-cap",
            phrase("{the_action} gives at most {cap} VP per use; with {n_crowns} and {left} VP left under the cap, at most"
                   " {n_workers} count (rule §5.9)", the_action=words.action_named("Score crowns"), cap=data.CROWN_CAP,
                   n_crowns=words.crowns(c), left=remaining,
                   n_workers=words.workers(crown_workers_max(c, remaining) if remaining > 0 else 0)),
        )
    need_workers(e, p, n)
    e, p = spend_workers(e, p, n)
    gain = min(remaining, c * n)
    e = e._replace(crown_vp=e.crown_vp + gain)
    p = p._replace(vp=p.vp + gain)
    state = set_player(state, seat, p)._replace(turn=with_exec(t, e))
    return state, [event("crowns-scored", seat=seat, crowns=c, workers=n, vp=gain)]


# --------------------------------------------------------------------------------------------
# Rewards, passing, ending a turn, the extra action


def take_reward(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Take one reward for the ship just completed (spec §6): one per mast, each at most twice."""
    r = action.get("reward")
    if r not in data.REWARDS:
        raise bad(phrase("{type}: 'reward' is one of {known}, not {value}", type="take-reward",
                         known=", ".join(repr(x) for x in data.REWARDS), value=json.dumps(r)))
    goods: tuple[str, ...] = ()
    if r == "goods":
        need_fields(action, {"type", "reward", "goods"})
        raw = action["goods"]
        if not isinstance(raw, list) or not all(isinstance(g, str) and g in data.GOODS for g in raw):
            raise bad(phrase("{type}: 'goods' must be a list of goods from {known}", type="take-reward",
                             known=", ".join(data.GOODS)))
        goods = tuple(raw)
    else:
        need_fields(action, {"type", "reward"})
    t = state.turn
    if state.step != "turn" or t is None or t.rewards is None:
        raise IllegalAction("no-reward", phrase("you have no completed ship whose rewards are due (rule §6)"))
    i = data.REWARDS.index(r)
    if t.rewards.taken[i] >= data.REWARD_MAX_SAME:
        raise IllegalAction(
            "reward-limit", phrase_n("each reward may be taken at most {n} time per ship (rule §6)",
                                     "each reward may be taken at most {n} times per ship (rule §6)", data.REWARD_MAX_SAME)
        )
    amount = data.REWARD_AMOUNT[r]
    if r == "goods" and (len(goods) != amount or len(set(goods)) != amount):
        raise IllegalAction("reward-goods",
                            phrase("the goods reward is {n} different goods of your choice (rule §6)", n=amount))
    p = state.players[seat]
    if not reward_available(state, p, r, goods):
        raise IllegalAction(
            "reward-unavailable", phrase("that reward is out of stock or does not fit your warehouse (rules §10.5-10.6)")
        )
    supply = state.supply
    if r in ("crown-mast", "crown-sail"):
        tile = data.CROWN_MAST if r == "crown-mast" else data.CROWN_SAIL
        p = p._replace(warehouse=store(p.warehouse, tile))
        supply = take_from_supply(state, tile)
    elif r == "goods":
        wh = p.warehouse
        for g in goods:
            wh = store(wh, g)
            supply = take_from_supply(state._replace(supply=supply), g)
        p = p._replace(warehouse=wh)
    elif r == "thaler":
        p = p._replace(thaler=p.thaler + amount)
    elif r == "workers":
        p = p._replace(workers=p.workers + amount)
    else:
        p = p._replace(vp=p.vp + amount)
    taken = (*t.rewards.taken[:i], t.rewards.taken[i] + 1, *t.rewards.taken[i + 1 :])
    left = t.rewards.left - 1
    rewards = None if left == 0 else t.rewards._replace(left=left, taken=taken)
    state = set_player(state, seat, p)._replace(supply=supply, turn=t._replace(rewards=rewards))
    fields = {"goods": list(goods)} if r == "goods" else {}
    return state, [event("reward-taken", seat=seat, reward=r, **fields)]
