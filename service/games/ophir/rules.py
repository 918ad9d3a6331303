"""Legal-action listing and the apply dispatcher: the one place that checks an action's JSON
shape (InvalidAction), whose turn and which phase it is (IllegalAction), then hands the step to
the module that owns that part of the rules.

Why uniform random play ends: a turn has a bounded number of steps (at most one influence
declaration, two moves or an anchor, two rival hexes, its roll and trade choice, then one
gather, one trade, one goods donation, one upgrade, specialty sales and metal purchases and
donations bounded by the hold of at most 4 spaces, and ``end-turn``). Nothing can cycle: coins
come only from trades and sales, which consume goods gathered one per turn. Every turn offers,
with positive probability, a step towards an end condition (a market shift or a metal
donation). Measured: 1,000-5,000 steps per random game for 2-4 players."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import Action, Event, IllegalAction, InvalidAction, Rng
from service.i18n import phrase, phrase_n

from . import actions as act
from . import navigation as nav
from .data import BASIC, DEMAND_STANDS, EDGES, HEXES, METALS, SPECIALIST_BY_ID
from .flow import end_turn
from .setup import barrier_actions, draft, draft_actions, place_barrier
from .state import BARRIERS, DRAFT, OVER, State, Turn, seat_name
from .words import phase_word

_HEXES = frozenset(HEXES)
_BASIC = frozenset(BASIC)
_METALS = frozenset(METALS)

# type -> {field: (required, kind)}; kinds are checked by _field below.
SHAPES: dict[str, dict[str, tuple[bool, str]]] = {
    "place-barrier": {"edge": (True, "edge")},
    "draft-specialist": {"specialist": (True, "specialist")},
    "anchor": {},
    "declare-influence": {},
    "move": {"hex": (True, "hex")},
    "move-rival": {"hex": (True, "hex")},
    "stop-rival": {},
    "rival-trade": {},
    "decline-rival-trade": {},
    "gather": {"good": (True, "basic"), "discard": (False, "basics1")},
    "trade": {"slot": (True, "slot"), "favor_for": (False, "basics3")},
    "sell-specialty": {"good": (True, "basic")},
    "buy-metal": {"metal": (True, "metal"), "pay": (True, "pay"), "discard": (False, "basics2")},
    "donate-metal": {"metal": (True, "metal")},
    "donate-goods": {"slot": (True, "slot")},
    "upgrade-cargo": {},
    "end-turn": {},
}


def _field(kind: str, value: Any) -> bool:
    if kind == "edge":
        return type(value) is int and value in EDGES
    if kind == "slot":
        return type(value) is int and 0 <= value < DEMAND_STANDS
    if kind == "specialist":
        return isinstance(value, str) and value in SPECIALIST_BY_ID
    if kind == "hex":
        return isinstance(value, str) and value in _HEXES
    if kind == "basic":
        return isinstance(value, str) and value in _BASIC
    if kind == "metal":
        return isinstance(value, str) and value in _METALS
    if kind == "pay":
        return value in ("coins", "favor")
    if kind.startswith("basics"):  # a list of basic goods, at most N long ("basics2")
        return (isinstance(value, list) and len(value) <= int(kind[-1])
                and all(isinstance(v, str) and v in _BASIC for v in value))
    return False  # pragma: no cover


def parse(action: Mapping[str, Any]) -> dict[str, Any]:
    """Check the JSON shape of an action; InvalidAction (HTTP 400) if it is not one of ours."""
    if not isinstance(action, Mapping):
        raise InvalidAction("not-an-object", phrase("an action is a JSON object with a 'type'."))
    kind = action.get("type")
    shape = SHAPES.get(kind) if isinstance(kind, str) else None
    if shape is None:
        raise InvalidAction("unknown-action", phrase("not an Ophir action type: {kind}.", kind=repr(kind)))
    extra = set(action) - {"type", *shape}
    if extra:
        raise InvalidAction("unknown-field", phrase_n("{kind} has no field {fields}.", "{kind} has no fields {fields}.",
                                                      len(extra), kind=kind,
                                                      fields=", ".join(repr(x) for x in sorted(extra))))
    out: dict[str, Any] = {"type": kind}
    for name, (required, fkind) in shape.items():
        if name not in action:
            if required:
                raise InvalidAction("missing-field", phrase("{kind} needs '{name}'.", kind=kind, name=name))
            out[name] = []
            continue
        if not _field(fkind, action[name]):
            raise InvalidAction("bad-field", phrase("{kind}: '{name}' = {value} is not a valid {what}.", kind=kind,
                                                    name=name, value=repr(action[name]), what=fkind))
        out[name] = action[name]
    return out


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every legal step for ``seat`` now, fully specified; [] unless ``seat`` must act."""
    if state.phase == OVER or seat != state.active:
        return []
    if state.phase == BARRIERS:
        return barrier_actions(state)
    if state.phase == DRAFT:
        return draft_actions(state)
    turn = state.turn
    assert turn is not None
    out = nav.navigation_actions(state, seat, turn)
    if act.can_act(turn):
        out += act.action_actions(state, seat, turn)
        out.append({"type": "end-turn"})
    return out


_PHASE_OF = {"place-barrier": BARRIERS, "draft-specialist": DRAFT}
_NAV = frozenset({"anchor", "declare-influence", "move"})
_RIVAL = frozenset({"move-rival", "stop-rival", "rival-trade", "decline-rival-trade"})


def apply(state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> tuple[State, list[Event]]:
    """Validate and apply one action; never mutates ``state``."""
    a = parse(action)
    kind = a["type"]
    if state.phase == OVER:
        raise IllegalAction("game-over", phrase("the game is over (rule §8)."), "§8")
    if seat != state.active:
        raise IllegalAction("not-your-turn", phrase("it is {active}'s turn to act, not {seat}'s.",
                                                    active=seat_name(state.active), seat=seat_name(seat)))
    want = _PHASE_OF.get(kind, "play")
    if want != state.phase:
        raise IllegalAction("wrong-phase", phrase("{kind} is not possible during the {phase} phase.", kind=kind,
                                                  phase=phase_word(state.phase)))
    events: list[Event] = []
    if kind == "place-barrier":
        return place_barrier(state, seat, a["edge"], events), events
    if kind == "draft-specialist":
        return draft(state, seat, a["specialist"], events), events
    turn = state.turn
    assert turn is not None
    if kind in _RIVAL:
        return _apply_rival(state, seat, turn, a, rng, events), events
    if turn.rival_step >= 0 or turn.rival_trade:
        raise IllegalAction("rival-pending", phrase(
            "finish moving the rival (and its optional trade) before anything else (rule §7: the turn pauses while "
            "the rival moves)."), "§7")
    if kind in _NAV:
        if kind == "anchor":
            return nav.anchor(state, seat, turn, events), events
        if kind == "declare-influence":
            return nav.declare_influence(state, seat, turn, events), events
        return nav.move(state, seat, turn, a["hex"], rng, events), events
    if not act.can_act(turn):
        raise IllegalAction("navigate-first", phrase(
            "navigation is compulsory: sail or anchor before taking actions or ending the turn (rule §5.1)."), "§5.1")
    return _apply_action(state, seat, turn, a, events), events


def _apply_rival(state: State, seat: int, turn: Turn, a: dict[str, Any], rng: Rng, events: list[Event]) -> State:
    kind = a["type"]
    if kind in ("move-rival", "stop-rival"):
        if turn.rival_step < 0:
            raise IllegalAction("no-rival-move", phrase(
                "the rival moves only when your ship has just entered its hex (rule §7)."), "§7")
        if kind == "move-rival":
            return nav.move_rival(state, seat, turn, a["hex"], rng, events)
        return nav.stop_rival(state, seat, turn, rng, events)
    return nav.rival_trade(state, seat, turn, kind == "rival-trade", events)


def _apply_action(state: State, seat: int, turn: Turn, a: dict[str, Any], events: list[Event]) -> State:
    kind = a["type"]
    if kind == "end-turn":
        return end_turn(state, seat, events, voluntary=True)
    if kind == "gather":
        return act.gather(state, seat, turn, a["good"], list(a["discard"]), events)
    if kind == "buy-metal":
        return act.buy_metal(state, seat, turn, a["metal"], a["pay"], list(a["discard"]), events)
    if kind == "trade":
        return act.trade(state, seat, turn, a["slot"], list(a["favor_for"]), events)
    if kind == "sell-specialty":
        return act.sell_specialty(state, seat, turn, a["good"], events)
    if kind == "donate-metal":
        return act.donate_metal(state, seat, turn, a["metal"], events)
    if kind == "donate-goods":
        return act.donate_goods(state, seat, turn, a["slot"], events)
    assert kind == "upgrade-cargo"
    return act.upgrade_cargo(state, seat, turn, events)
