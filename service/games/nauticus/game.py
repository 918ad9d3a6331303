"""The :class:`Nauticus` game object: the rules-core contract of ``service.games.base``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema

from service.games.base import Action, Applied, Outcome, Provisional, Rng
from service.games.undo import TurnUndo, Undo, is_undo
from service.i18n import Phrase, phrase, phrase_in, phrase_n

from . import actions as moves
from . import data, flow, rules, scoring, view, words
from .events import describe_event
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
            return phrase("your turn has ended")
        return None

    def drew_why(self, action: Mapping[str, Any]) -> str:
        return phrase("the action tiles were shuffled for the new round")

    def seat_label(self, state: State, seat: int) -> str:
        return words.seat_name(seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view.view(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return scoring.outcome(state)

    def dump(self, state: State) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> State:
        return load_state(data)

    def render(self, view: Mapping[str, Any], language: str = "en") -> str:
        return render_view(view, language)

    def provisional(self) -> list[Provisional]:
        return data.provisional()

    def seat_names(self, players: int) -> list[str]:
        return list(words.SEATS[:players])

    def describe_action(self, action: Mapping[str, Any]) -> str:
        return describe(action)

    def label_action(self, state: State, seat: int, action: Mapping[str, Any]) -> str:
        if is_undo(action):
            return self.describe_action(action)  # undo's own label (service/games/undo.py)
        text = self.describe_action(action)  # the method: TurnUndo adds undo's words to it
        item = action.get("item")
        turn = state.turn
        chosen = action.get("action")
        if action.get("type") == "choose-action" and chosen in state.layout:
            space = state.layout.index(chosen)
            blue = flow.blue_workers(state.anchor, space)
            return phrase_n("{the_action} (space {space}: bonus {bonus}; {n} blue worker for each player's turn)",
                            "{the_action} (space {space}: bonus {bonus}; {n} blue workers for each player's turn)", blue,
                            the_action=text, space=space, bonus=words.bonus_text(data.BONUSES[space]))
        if action.get("type") == "buy" and isinstance(item, str) and turn is not None and item in rules.ITEM_POS:
            cost = rules.price(rules.current(turn), item)
            return phrase("buy a {item} for {cost} thaler and put it {where}", item=words.item_object(item), cost=cost,
                          where=words.where_to(action))
        return text

    def describe_event(self, event: Mapping[str, Any]) -> str:
        """The event's words from its fields (:mod:`.events`); an older record's event without them is its
        text. Undo's own event is worded by :meth:`TurnUndo.describe_undone`, with :meth:`event_seat_label`."""
        return describe_event(event)

    def event_seat_label(self, event: Mapping[str, Any]) -> str:
        """The seat of an ``undone`` event by its colour, in the reader's language."""
        seat = event.get("seat")
        return words.seat_name(seat) if isinstance(seat, int) and 0 <= seat < len(words.SEATS) else super().event_seat_label(event)


def describe(action: Mapping[str, Any]) -> str:
    """The action in plain words ("buy a bow and put it at the front of ship 0")."""
    t = action.get("type")
    if t == "choose-action":
        return phrase("choose the action {the_action}", the_action=words.action(str(action.get("action"))))
    if t == "take-bonus":
        return phrase("take a free {item} to the warehouse", item=words.item_object(str(action.get("item"))))
    if t == "buy":
        return phrase("buy a {item} and put it {where}", item=words.item_object(str(action.get("item"))),
                      where=words.where_to(action))
    if t == "transfer":
        return phrase("move a {item} from the warehouse {where}", item=words.item_object(str(action.get("item"))),
                      where=words.where_to(action))
    if t == "deliver":
        return phrase("deliver the cargo of {the_ship}", the_ship=words.ship(action.get("ship")))
    if t in ("take-money", "score-crowns"):
        n = action.get("workers")
        if not isinstance(n, int) or isinstance(n, bool):
            return str(dict(action))  # not an action the rules made: its JSON, as for an unknown type
        if t == "take-money":
            return phrase_n("take money with {n} worker", "take money with {n} workers", n)
        return phrase_n("score crowns with {n} worker", "score crowns with {n} workers", n)
    if t == "take-reward":
        reward = str(action.get("reward"))
        if reward == "goods":
            goods = [words.item(str(g)) for g in action.get("goods", [])]
            return phrase("take the ship reward: {the_reward}", the_reward=words.joined(goods, " and "))
        amount = data.REWARD_AMOUNT.get(reward)
        if reward in ("thaler", "workers", "vp") and amount is not None:
            counted = {"thaler": words.thaler, "workers": words.workers, "vp": words.vp}[reward](amount)
            return phrase("take the ship reward: {the_reward}", the_reward=counted)
        return phrase("take the ship reward: {the_reward}", the_reward=_REWARD_NAMES.get(reward, reward))
    if t == "pass":
        return phrase("pass (flip a pass tile)")
    if t == "done":
        return phrase_in("nauticus", "end the turn")  # an imperative menu, as Ophir's (El Capitán names its steps)
    if t == "extra-action":
        chosen = words.action(str(action.get("action")))
        if action.get("pass_first"):
            return phrase("pass, then play the extra action: {the_action}", the_action=chosen)
        return phrase("play the extra action: {the_action}", the_action=chosen)
    return str(dict(action))


_REWARD_NAMES: dict[str, Phrase] = {
    "crown-mast": phrase("a crowned mast"), "crown-sail": phrase("a crowned sail"), "thaler": phrase_in("reward", "thaler"),
    "workers": phrase_in("reward", "workers"), "vp": phrase("victory points"), "goods": phrase("two different goods"),
}
"""The completed-ship rewards in words (``data.REWARD_NAMES`` in English)."""
