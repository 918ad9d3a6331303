"""The :class:`Nauticus` game object: the rules-core contract of ``service.games.base``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema

from service.games.base import Action, Applied, Outcome, Provisional, Rng
from service.games.undo import TurnUndo, Undo
from service.games.words import count

from . import actions as moves
from . import data, flow, rules, scoring, view
from .render import bonus_text
from .render import render as render_view
from .schemas import ACTION_SCHEMAS, ACTIONS
from .state import State, dump_state, load_state


class NauticusOptions(Schema):
    """Nauticus has no variants: every rule and number comes from the rulebook (``data.json``)."""


class Nauticus(TurnUndo[State]):
    """Nauticus for 2-4 players (spec: /work/shared/rules/nauticus.md)."""

    id = "nauticus"
    title = "Nauticus"
    players = range(2, 5)
    options_schema = NauticusOptions
    actions = ACTIONS
    action_schemas = ACTION_SCHEMAS

    def setup(self, players: int, options: Mapping[str, Any], rng: Rng) -> Applied[State]:
        if players not in self.players:
            raise ValueError(f"Nauticus is for 2-4 players, not {players}")
        state, events = flow.setup(players, rng)
        return Applied(state, events)

    def active_seats(self, state: State) -> list[int]:
        seat = rules.active_seat(state)
        return [] if seat is None else [seat]

    def step_actions(self, state: State, seat: int) -> list[Action]:
        return rules.legal_actions(state, seat)

    def step(self, state: State, seat: int, action: Mapping[str, Any], rng: Rng) -> Applied[State]:
        new, events = moves.apply(state, seat, action, rng)
        return Applied(new, events)

    def undo_of(self, state: State) -> Undo:
        return state.undo

    def with_undo(self, state: State, undo: Undo) -> State:
        return state._replace(undo=undo)

    def commits(self, before: State, after: State, seat: int, action: Mapping[str, Any]) -> str | None:
        """Nothing in Nauticus is hidden (spec §10.1): a seat may take back its steps until its turn
        ends. A turn that ends while the same seat acts on (it chooses the next action) is over all the
        same: the others' turns of that action were played on it."""
        if (before.round, before.game_phase, before.turns_taken) != (after.round, after.game_phase, after.turns_taken):
            return "your turn has ended"
        return None

    def drew_why(self, action: Mapping[str, Any]) -> str:
        return "the action tiles were shuffled for the new round"

    def seat_label(self, state: State, seat: int) -> str:
        return flow.SEAT_NAMES[seat]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view.view(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return scoring.outcome(state)

    def dump(self, state: State) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> State:
        return load_state(data)

    def render(self, view: Mapping[str, Any], language: str = "en") -> str:
        return render_view(view)

    def provisional(self) -> list[Provisional]:
        return data.provisional()

    def seat_names(self, players: int) -> list[str]:
        return list(flow.SEAT_NAMES[:players])

    def describe_action(self, action: Mapping[str, Any]) -> str:
        return describe(action)

    def label_action(self, state: State, seat: int, action: Mapping[str, Any]) -> str:
        text = self.describe_action(action)  # the method: TurnUndo adds undo's words to it
        item = action.get("item")
        turn = state.turn
        chosen = action.get("action")
        if action.get("type") == "choose-action" and chosen in state.layout:
            space = state.layout.index(chosen)
            blue = flow.blue_workers(state.anchor, space)
            return (f"{text} (space {space}: bonus {bonus_text(data.BONUSES[space])};"
                    f" {count(blue, 'blue worker')} for each player's turn)")
        if action.get("type") == "buy" and isinstance(item, str) and turn is not None and item in rules.ITEM_POS:
            cost = rules.price(rules.current(turn), item)
            return f"buy a {data.item_name(item)} for {cost} thaler and put it {_where(action)}"
        return text


def _where(action: Mapping[str, Any]) -> str:
    to = action.get("to")
    if to == "warehouse":
        return "to the warehouse"
    if to == "new-ship":
        return "as a new ship"
    if "end" in action:
        return f"at the {action['end']} of ship {action.get('ship')}"
    return f"on hull piece {action.get('hull')} of ship {action.get('ship')}"


def _workers(action: Mapping[str, Any]) -> str:
    n = action.get("workers")
    return count(n, "worker") if isinstance(n, int) else f"{n} workers"


def describe(action: Mapping[str, Any]) -> str:
    """The action in plain words ("buy a bow and put it at the front of ship 0")."""
    t = action.get("type")
    if t == "choose-action":
        return f"choose the action {data.ACTION_NAMES.get(str(action.get('action')), action.get('action'))}"
    if t == "take-bonus":
        return f"take a free {data.item_name(str(action.get('item')))} to the warehouse"
    if t == "buy":
        return f"buy a {data.item_name(str(action.get('item')))} and put it {_where(action)}"
    if t == "transfer":
        return f"move a {data.item_name(str(action.get('item')))} from the warehouse {_where(action)}"
    if t == "deliver":
        return f"deliver the cargo of ship {action.get('ship')}"
    if t == "take-money":
        return f"take money with {_workers(action)}"
    if t == "score-crowns":
        return f"score crowns with {_workers(action)}"
    if t == "take-reward":
        if action.get("reward") == "goods":
            return f"take the ship reward: {' and '.join(str(g) for g in action.get('goods', []))}"
        reward = str(action.get("reward"))
        amount = data.REWARD_AMOUNT.get(reward)
        if reward in ("thaler", "workers", "vp") and amount is not None:
            return f"take the ship reward: {count(amount, {'thaler': 'thaler', 'workers': 'worker', 'vp': 'VP'}[reward])}"
        return f"take the ship reward: {data.REWARD_NAMES.get(reward, reward)}"
    if t == "pass":
        return "pass (flip a pass tile)"
    if t == "done":
        return "end the turn"
    if t == "extra-action":
        first = "pass, then " if action.get("pass_first") else ""
        return f"{first}play the extra action: {data.ACTION_NAMES.get(str(action.get('action')), action.get('action'))}"
    return str(dict(action))
