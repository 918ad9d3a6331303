"""Applying one atomic action (spec §4-§7): dispatch, choosing an action, bonuses, passing,
ending a turn and the extra action (the units of the actions live in ``units``).

``apply`` is the server's only check, so it re-validates everything ``rules.legal_actions`` lists:
malformed JSON raises :class:`InvalidAction`, a real action the rules forbid now raises
:class:`IllegalAction` with a stable code and a sentence naming the rule.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from service.games.base import Event, IllegalAction, InvalidAction, Rng
from service.i18n import phrase

from . import data, flow, units, words
from .common import Result, bad, flip, item_field, name, need_fields, running_turn, set_player, take_from_supply
from .events import event
from .rules import active_seat, bonus_choices, free_item_choices
from .ships import store
from .state import Exec, State

# --------------------------------------------------------------------------------------------
# Choosing and bonuses


def _unknown_action(kind: str, a: Any) -> InvalidAction:
    return bad(phrase("{type}: unknown action {value}; actions are {known}", type=kind, value=repr(a),
                      known=", ".join(data.ACTIONS)))


def _choose(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    need_fields(action, {"type", "action"})
    a = action["action"]
    if a not in data.ACTIONS:
        raise _unknown_action("choose-action", a)
    if state.step != "choose":
        raise IllegalAction("not-choosing", phrase("the action of this phase was already chosen (rule §4.2)"))
    space = state.layout.index(a)
    if state.face_down[space]:
        raise IllegalAction(
            "action-used",
            phrase("{the_action} was already chosen this round (rule §4.2: its tile is face down)", the_action=words.action(a)),
        )
    bonus = data.BONUSES[space]
    p = state.players[seat]
    p = p._replace(
        workers=p.workers + bonus.get("workers", 0),
        vp=p.vp + bonus.get("vp", 0),
        thaler=p.thaler + bonus.get("thaler", 0),
    )
    events: list[Event] = [event("action-chosen", seat=seat, action=a, space=space)]
    state = set_player(state, seat, p)._replace(
        space=space, anchor_tile=space if state.phase == 1 else state.anchor_tile
    )
    kind = bonus.get("tile")
    if kind is not None:
        if bonus_choices(state, p, kind):
            return state._replace(step="bonus", bonus=kind), events
        events.append(event("bonus-forfeited", seat=seat, bonus=kind))
    return state._replace(step="turn", turn=flow.fresh_turn(state, seat)), events


def _take_bonus(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    need_fields(action, {"type", "item"})
    item = item_field(action)
    p = state.players[seat]
    if state.step == "bonus":
        assert state.bonus is not None
        if item not in bonus_choices(state, p, state.bonus):
            raise IllegalAction(
                "bad-bonus",
                phrase("the bonus is a {bonus} of your choice, in stock and fitting your warehouse (rule §4.2)",
                       bonus=words.bonus_tile(state.bonus)),
            )
        p = p._replace(warehouse=store(p.warehouse, item))
        state = set_player(state, seat, p)._replace(supply=take_from_supply(state, item), bonus=None, step="turn")
        state = state._replace(turn=flow.fresh_turn(state, seat))
        return state, [event("bonus-taken", seat=seat, item=item, source="space")]
    t = state.turn
    if state.step != "turn" or t is None or t.rewards is not None or t.free_item is None:
        raise IllegalAction("nothing-to-take", phrase("there is no bonus item to take now"))
    if item not in free_item_choices(state, p, t.free_item):
        raise IllegalAction(
            "bad-bonus",
            phrase("the free item is one of {items}, in stock and fitting your warehouse (rule §5.1, golden rule)",
                   items=words.joined([words.item(i) for i in data.ACTION_ITEMS[t.free_item]])),
        )
    p = p._replace(warehouse=store(p.warehouse, item))
    state = set_player(state, seat, p)._replace(supply=take_from_supply(state, item), turn=t._replace(free_item=None))
    return state, [event("bonus-taken", seat=seat, item=item, source="all-four")]


def _pass_turn(state: State, seat: int, rng: Rng, events: list[Event]) -> Result:
    """Pass on the current action (spec §5.10): flip a pass tile, then the turn ends."""
    p, value = flip(state.players[seat])
    events.append(event("passed", seat=seat, flipped=value))
    state, more = flow.end_turn(set_player(state, seat, p), rng)
    return state, events + more


def _pass(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    need_fields(action, {"type"})
    t = running_turn(state, seat)
    if t.extra is not None:
        raise IllegalAction("in-extra-action", phrase("finish your extra action with done first (rule §7)"))
    if t.normal.units > 0:
        raise IllegalAction(
            "already-executed", phrase("you executed this action, so end your turn with done, not pass (rule §5.10)")
        )
    return _pass_turn(state, seat, rng, [])


def _done(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    need_fields(action, {"type"})
    t = running_turn(state, seat)
    if t.extra is not None:
        events: list[Event] = [event("extra-action-done", seat=seat)]
        if t.closing:
            state, more = flow.end_turn(state, rng)
            return state, events + more
        return state._replace(turn=t._replace(extra=None)), events
    if t.normal.units == 0:
        # spec §10.2: a done with zero units counts as a pass
        return _pass_turn(state, seat, rng, [])
    state, more = flow.end_turn(state, rng)
    return state, [event("turn-done", seat=seat), *more]


def _extra_action(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    need_fields(action, {"type", "action"}, {"pass_first"})
    a = action["action"]
    if a not in data.ACTIONS:
        raise _unknown_action("extra-action", a)
    pass_first = action.get("pass_first", False)
    if not isinstance(pass_first, bool):
        raise bad(phrase("{type}: {field} must be a boolean", type="extra-action", field="'pass_first'"))
    t = running_turn(state, seat)
    p = state.players[seat]
    if not p.extra or t.extra_used or t.extra is not None:
        raise IllegalAction("no-extra-action",
                            phrase("the extra-action tile is used once per game and is gone (rule §7)"))
    events: list[Event] = []
    if pass_first:
        if t.normal.units > 0:
            raise IllegalAction("already-executed",
                                phrase("you executed this action, so you cannot pass on it (rule §5.10)"))
        p, value = flip(p)
        events.append(event("passed", seat=seat, flipped=value))
    p = p._replace(extra=False, workers=p.workers + data.EXTRA_WORKERS)
    closing = pass_first or t.normal.units > 0
    extra = Exec(a, -1, 0, 0, (), 0)  # no bonus, no blue workers (ruling, spec §13.3.2)
    events.append(event("extra-action", seat=seat, action=a))
    state = set_player(state, seat, p)._replace(turn=t._replace(extra=extra, extra_used=True, closing=closing))
    return state, events


# --------------------------------------------------------------------------------------------
# Dispatch

HANDLERS: dict[str, Callable[[State, int, Mapping[str, Any], Rng], Result]] = {
    "choose-action": _choose,
    "take-bonus": _take_bonus,
    "buy": units.buy,
    "transfer": units.transfer,
    "deliver": units.deliver,
    "take-money": units.take_money,
    "score-crowns": units.score_crowns,
    "take-reward": units.take_reward,
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
            events.append(event("bonus-forfeited", seat=t.seat, bonus="all-four"))
            return state._replace(turn=t._replace(free_item=None))
    return state


def apply(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Result:
    """Apply one action of ``seat`` (see the module docstring for the errors it raises)."""
    if not isinstance(action, Mapping):
        raise bad(phrase("an action is a JSON object"))
    kind = action.get("type")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise InvalidAction("unknown-action", phrase("not a Nauticus action type: {value}; types are {known}",
                                                     value=repr(kind), known=", ".join(HANDLERS)))
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.players):
        raise InvalidAction("bad-seat", phrase("no seat {value} in this game", value=repr(seat)))
    active = active_seat(state)
    if seat != active:
        # Malformed JSON is reported as such (400) even out of turn: run the handler on a throwaway
        # stream for its shape checks only, and discard whatever it computes.
        with contextlib.suppress(IllegalAction):
            handler(state, seat, action, Rng.from_seed("shape-check"))
        if active is None:
            raise IllegalAction("game-over", phrase("the game is over"))
        raise IllegalAction("not-your-turn", phrase("it is {seat}'s turn to act (rule §4.2)", seat=name(active)))
    new, events = handler(state, seat, action, rng)
    return _settle(new, events), events
