"""A tiny dice game used by the service tests before (and beside) the real games.

"Harbour race": seats take turns; on your turn you ``roll`` a die (a 1 loses the turn's
haul and passes the turn) or ``bank`` the haul and pass. The first seat whose bank reaches
``target`` wins. It exercises randomness, turn passing and the end of a game; it is never
shipped or listed in the catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from marshmallow import Schema, fields, validate

from service.games.base import (
    Action,
    Applied,
    Game,
    IllegalAction,
    InvalidAction,
    Outcome,
    Rng,
)


class RaceOptions(Schema):
    target = fields.Integer(load_default=12, validate=validate.Range(min=5, max=100))


@dataclass(frozen=True)
class RaceState:
    target: int
    banks: tuple[int, ...]
    haul: int
    turn: int
    over: bool


class HarbourRace(Game[RaceState]):
    id = "harbour-race"
    title = "Harbour race (test fixture)"
    players = range(2, 5)
    options_schema = RaceOptions
    actions = {"roll": "roll the die and add it to this turn's haul", "bank": "bank the haul"}
    action_schemas = {
        "roll": {"type": "object", "properties": {"type": {"const": "roll"}}},
        "bank": {"type": "object", "properties": {"type": {"const": "bank"}}},
    }

    def setup(self, players: int, options: Mapping[str, Any], rng: Rng) -> Applied[RaceState]:
        first = rng.randbelow(players)
        state = RaceState(options["target"], (0,) * players, 0, first, False)
        return Applied(state, [{"type": "start", "seat": first, "text": f"Seat {first} starts"}])

    def active_seats(self, state: RaceState) -> list[int]:
        return [] if state.over else [state.turn]

    def legal_actions(self, state: RaceState, seat: int) -> list[Action]:
        if state.over or seat != state.turn:
            return []
        return [{"type": "roll"}, {"type": "bank"}] if state.haul else [{"type": "roll"}]

    def apply(self, state: RaceState, seat: int, action: Mapping[str, Any], rng: Rng) -> Applied[RaceState]:
        kind = action.get("type")
        if kind not in self.actions or set(action) != {"type"}:
            raise InvalidAction("unknown-action", f"not an action of {self.title}: {dict(action)}")
        if state.over:
            raise IllegalAction("game-over", "the race is over")
        if seat != state.turn:
            raise IllegalAction("not-your-turn", f"it is seat {state.turn}'s turn")
        n = len(state.banks)
        if kind == "roll":
            d = rng.die()
            if d == 1:
                nxt = (seat + 1) % n
                return Applied(
                    replace(state, haul=0, turn=nxt),
                    [{"type": "rolled", "seat": seat, "die": d, "text": f"Seat {seat} rolled a 1 and lost the haul"}],
                )
            return Applied(
                replace(state, haul=state.haul + d),
                [{"type": "rolled", "seat": seat, "die": d, "text": f"Seat {seat} rolled {d}"}],
            )
        if not state.haul:
            raise IllegalAction("empty-haul", "there is nothing to bank: roll first (rule: a haul is banked after at least one roll)")
        banks = list(state.banks)
        banks[seat] += state.haul
        over = banks[seat] >= state.target
        return Applied(
            RaceState(state.target, tuple(banks), 0, (seat + 1) % n, over),
            [{"type": "banked", "seat": seat, "amount": state.haul, "text": f"Seat {seat} banked {state.haul}"}],
        )

    def view(self, state: RaceState, seat: int | None) -> dict[str, Any]:
        return {"target": state.target, "banks": list(state.banks), "haul": state.haul, "turn": state.turn}

    def outcome(self, state: RaceState) -> Outcome | None:
        if not state.over:
            return None
        best = max(state.banks)
        ranks = tuple(1 + sum(1 for b in state.banks if b > mine) for mine in state.banks)
        return Outcome(tuple(state.banks), ranks, {"winner_bank": best})

    def dump(self, state: RaceState) -> dict[str, Any]:
        return {"target": state.target, "banks": list(state.banks), "haul": state.haul, "turn": state.turn, "over": state.over}

    def load(self, data: Mapping[str, Any]) -> RaceState:
        return RaceState(data["target"], tuple(data["banks"]), data["haul"], data["turn"], data["over"])

    def describe_action(self, action: Mapping[str, Any]) -> str:
        return {"roll": "roll the die", "bank": "bank your haul and pass"}.get(str(action.get("type")), str(action))

    def render(self, view: Mapping[str, Any], language: str = "en") -> str:
        banks = ", ".join(f"seat {i}: {b}" for i, b in enumerate(view["banks"]))
        return f"Race to {view['target']}. Banks: {banks}. Haul this turn: {view['haul']}."


GAME = HarbourRace()
