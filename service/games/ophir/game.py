"""The :class:`Ophir` game object: the rules-core contract of :mod:`service.games.base`,
wired to this package's modules (setup, rules, view, scoring, render)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, fields, validate

from service.games.base import Action, Applied, Outcome, Provisional, Rng, StrictBoolean
from service.games.undo import TurnUndo, Undo, trail_to_json
from service.i18n import phrase

from . import rules
from . import words as w
from .data import (
    BASIC,
    EDGES,
    HEXES,
    METALS,
    PROVISIONAL,
    SEAT_COLOURS,
    SPECIALISTS,
)
from .events import sentence
from .labels import describe, label
from .render import render_view
from .scoring import outcome as final_outcome
from .setup import new_match
from .state import Options, State, replace, state_from_json, to_json
from .view import view as seat_view


class OphirOptions(Schema):
    """Match options: the spec's configurable rulings (§10)."""

    barriers = fields.String(load_default="chosen", validate=validate.OneOf(["chosen", "random"]), metadata={
        "description": "chosen: the starting player places both barriers (rule §2.1); random: the server "
                       "draws one of the 48 legal placements (rule §10.14)."})
    end_on_empty_deck = fields.String(load_default="refill", validate=validate.OneOf(["refill", "reveal"]), metadata={
        "description": "End condition B (rule §10.4). refill: the game ends on the first market shift that "
                       "finds no future card to slide in; reveal (ophir-2d): one shift earlier, when no new future "
                       "card can be turned up."})
    chancellor_missing_only = StrictBoolean(load_default=False, metadata={
        "description": "If true the Chancellor pays favor only for the card's goods they lack (the seed's "
                       "headline); default false: any of the card's goods (rule §10.10)."})
    moneychanger_sells_at_temple = StrictBoolean(load_default=False, metadata={
        "description": "If true the Moneychanger may also sell specialty goods at the temple (ophir-2d); "
                       "default false (rule §10.9)."})
    priest_voluntary_only = StrictBoolean(load_default=False, metadata={
        "description": "If true the Priest gains favor only when ending the turn voluntarily (ophir-2d); default "
                       "false: also after two failed influence tests (rule §10.8)."})


def _obj(props: dict[str, Any] | None = None, required: list[str] | None = None) -> dict[str, Any]:
    p = {"type": {"type": "string"}, **(props or {})}
    return {"type": "object", "properties": p, "required": ["type", *(required or [])], "additionalProperties": False}


_HEX = {"type": "string", "enum": list(HEXES), "description": "hex id: C centre, TR, R, BR, BL, L, TL"}
_SLOT = {"type": "integer", "minimum": 0, "maximum": 2, "description": "demand stand, 0 = leftmost"}
_BASICS = {"type": "array", "items": {"type": "string", "enum": list(BASIC)}, "maxItems": 3}
_METAL = {"type": "string", "enum": list(METALS)}

ACTIONS: dict[str, str] = {
    "place-barrier": "starting player, setup: put a barrier on a map edge (rule §2.3 constrains the pair)",
    "draft-specialist": "setup draft: keep one of the specialists handed to you and pass the rest to the right",
    "move": "sail one hex; an occupied hex needs an influence test rolled by the server",
    "declare-influence": "spend 1 favor: no influence tests for the rest of this turn",
    "anchor": "spend 1 favor: stay on the start hex and take its actions",
    "move-rival": "2 players, after entering the rival's hex: sail the rival one hex",
    "stop-rival": "2 players: stop the rival after its first hex",
    "rival-trade": "2 players, rival ended on the market: shift the market",
    "decline-rival-trade": "2 players, rival ended on the market: do not shift the market",
    "gather": "goods hex: take one good of that hex, throwing back goods only if the hold is full",
    "trade": "market: fill a demand card for its coins plus the stand's modifier (Chancellor: favor for goods)",
    "sell-specialty": "market: sell one good of your specialty for 1 coin",
    "buy-metal": "metals hex: buy one gold or silver for coins or favor",
    "donate-metal": "temple: put one metal on the current tier for VP",
    "donate-goods": "temple: give the goods of the temple merchant's card for favor and VP",
    "upgrade-cargo": "temple: pay 2 coins for one more hold (3, then 4)",
    "end-turn": "end your turn",
}

ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "place-barrier": _obj({"edge": {"type": "integer", "enum": sorted(EDGES)}}, ["edge"]),
    "draft-specialist": _obj({"specialist": {"type": "string", "enum": [s.id for s in SPECIALISTS]}}, ["specialist"]),
    "move": _obj({"hex": _HEX}, ["hex"]),
    "declare-influence": _obj(),
    "anchor": _obj(),
    "move-rival": _obj({"hex": _HEX}, ["hex"]),
    "stop-rival": _obj(),
    "rival-trade": _obj(),
    "decline-rival-trade": _obj(),
    "gather": _obj({"good": {"type": "string", "enum": list(BASIC)},
                    "discard": {**_BASICS, "maxItems": 1, "default": []}}, ["good"]),
    "trade": _obj({"slot": _SLOT, "favor_for": {**_BASICS, "default": [],
                                                "description": "Chancellor only: the card's goods paid with favor"}},
                  ["slot"]),
    "sell-specialty": _obj({"good": {"type": "string", "enum": list(BASIC)}}, ["good"]),
    "buy-metal": _obj({"metal": _METAL, "pay": {"type": "string", "enum": ["coins", "favor"]},
                       "discard": {**_BASICS, "maxItems": 2, "default": []}}, ["metal", "pay"]),
    "donate-metal": _obj({"metal": _METAL}, ["metal"]),
    "donate-goods": _obj({"slot": _SLOT}, ["slot"]),
    "upgrade-cargo": _obj(),
    "end-turn": _obj(),
}
for _name, _schema in ACTION_SCHEMAS.items():
    _schema["properties"]["type"] = {"const": _name}


class Ophir(TurnUndo[State]):
    """Ophir (Terra Nova Games, 2015), 2-4 players, with the 2-player rival and 8 specialists."""

    id = "ophir"
    title = "Ophir"
    players = range(2, 5)
    options_schema = OphirOptions
    actions = ACTIONS
    action_schemas = ACTION_SCHEMAS

    def setup(self, players: int, options: Mapping[str, Any], rng: Rng) -> Applied[State]:
        opts = Options(**{k: options[k] for k in Options.__slots__ if k in options})
        state, events = new_match(players, opts, rng)
        return Applied(state, events)

    def active_seats(self, state: State) -> list[int]:
        return [] if state.phase == "over" else [state.active]

    def step_actions(self, state: State, seat: int) -> list[Action]:
        return rules.legal_actions(state, seat)

    def step(self, state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Applied[State]:
        new, events = rules.apply(state, seat, action, rng)
        return Applied(new, events)

    def undo_of(self, state: State) -> Undo:
        return state.undo

    def with_undo(self, state: State, undo: Undo) -> State:
        return replace(state, undo=undo)

    def commits(self, before: State, after: State, seat: int, action: Mapping[str, Any]) -> str | None:
        """Spec §10 item 27: nothing is undone once a die was rolled (the Rng, see ``drew_why``) or a
        card revealed: a market shift turns up the next card, and the map and market are turned face up
        once. A turn that ended is over too."""
        if before.deck != after.deck or before.demand != after.demand or before.market_revealed != after.market_revealed:
            return phrase("a market card was revealed")
        if before.revealed != after.revealed:
            return phrase("the map was revealed")
        if before.turns_played != after.turns_played or before.phase != after.phase:
            return phrase("your turn has ended")
        return None

    def drew_why(self, action: Mapping[str, Any]) -> str:
        return phrase("the influence die was rolled")

    def seat_label(self, state: State, seat: int) -> str:
        return w.seat_name(seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return seat_view(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return final_outcome(state)

    def dump(self, state: State) -> dict[str, Any]:
        data: dict[str, Any] = to_json(state)
        # absent rather than null: states dumped before undo existed stay byte-identical
        undo = data.pop("undo", None) and trail_to_json(state.undo, self.dump)
        if undo is not None:
            data["undo"] = undo
        return data

    def load(self, data: Mapping[str, Any]) -> State:
        return state_from_json(data)

    def render(self, view: Mapping[str, Any], language: str = "en") -> str:
        return render_view(view, language)

    def provisional(self) -> list[Provisional]:
        return list(PROVISIONAL)

    def seat_names(self, players: int) -> list[str]:
        return [w.seat_name(seat) for seat in range(min(players, len(SEAT_COLOURS)))]

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """The event's words from its fields (:mod:`.events`); an event of an older record that lacks a
        field its sentence needs, or of a type this game does not make, reads as its stored text."""
        try:
            words = sentence(event)
        except (KeyError, TypeError, ValueError, IndexError, StopIteration):
            words = None
        return words if words is not None else super().describe_event(event)

    def describe_action(self, action: Mapping[str, Any]) -> str:
        return describe(action)

    def label_action(self, state: State, seat: int, action: Mapping[str, Any]) -> str:
        return label(state, action, self.describe_action(action))  # the method: TurnUndo words undo
