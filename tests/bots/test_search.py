"""The search bot over a game small enough to know the answer: the fixture's dice race.

Harbour race is Pig: roll to add to the haul (a 1 loses it), or bank. Banking at once is a poor
plan (a bank of 2-6 a turn); the search, starting from that plan, must find that rolling on pays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from service.bots import arena
from service.bots.knowledge import Knowledge, margin_value, outcome_value
from service.bots.policy import uniform_random
from service.bots.search import Budget, search, search_policy
from service.games.base import Action, Game, Outcome, Rng
from service.games.undo import without_undo
from tests.helpers.fixture_game import GAME, RaceState


class BankAtOnce(Knowledge[RaceState]):
    """A deliberately poor heuristic: bank whenever there is anything to bank."""

    game_id = GAME.id

    def sample(self, game: Game[RaceState], view: Mapping[str, Any], seat: int, rng: Rng,
               legal: Sequence[Action] = ()) -> RaceState:
        return RaceState(view["target"], tuple(view["banks"]), view["haul"], view["turn"], False)

    def evaluate(self, game: Game[RaceState], state: RaceState) -> list[float]:
        return margin_value([b + (state.haul if i == state.turn else 0) for i, b in enumerate(state.banks)], 8.0)

    def heuristic(self, game: Game[RaceState], state: RaceState, seat: int, legal: Sequence[Action],
                  rng: Rng) -> Action:
        return next((a for a in legal if a["type"] == "bank"), legal[0])


KNOW = BankAtOnce()
BUDGET = Budget(iterations=120, depth=10)


def test_outcome_value_ranks_and_shares() -> None:
    assert outcome_value(Outcome((30, 10, 20), (1, 3, 2))) == [1.0, 0.0, 0.5]
    assert outcome_value(Outcome((30, 30, 0), (1, 1, 3))) == [0.75, 0.75, 0.0]
    assert outcome_value(Outcome((5, 5), (1, 1))) == [0.5, 0.5]


def test_margin_value_orders_by_lead() -> None:
    v = margin_value([10, 4, 7], 5.0)
    assert v[0] > 0.5 > v[2] > v[1]


def test_same_view_same_seed_same_choice() -> None:
    view = {"target": 30, "banks": [10, 12], "haul": 7, "turn": 0}
    legal = without_undo(GAME.legal_actions(KNOW.sample(GAME, view, 0, Rng.from_seed(0)), 0))
    picks = {search(KNOW, GAME, view, 0, legal, Rng.from_seed("s"), BUDGET)["type"] for _ in range(3)}
    assert len(picks) == 1


def test_a_single_legal_action_is_played_without_search() -> None:
    view = {"target": 30, "banks": [0, 0], "haul": 0, "turn": 1}
    assert search(KNOW, GAME, view, 1, [{"type": "roll"}], Rng.from_seed(1), BUDGET) == {"type": "roll"}


def test_every_choice_is_legal() -> None:
    state = GAME.setup(3, {"target": 25}, Rng.from_seed("legal")).state
    rng = Rng.from_seed("walk")
    for step in range(200):
        if GAME.outcome(state) is not None:
            break
        seat = GAME.active_seats(state)[0]
        legal = without_undo(GAME.legal_actions(state, seat))
        action = search(KNOW, GAME, GAME.view(state, seat), seat, legal, Rng.from_seed(step), Budget(20, 4))
        assert action in legal
        state = GAME.apply(state, seat, action, rng).state


def _wins(policies: list[Any], seeds: range) -> int:
    won = 0
    for seed in seeds:
        # swap seats every other match: the first seat has an edge in a race
        first = seed % 2
        order = policies if first == 0 else policies[::-1]
        played = arena.play(GAME, order, seed, {"target": 30})
        won += played.outcome.ranks[first] == 1
    return won


def test_search_improves_on_its_heuristic() -> None:
    """Banking at once loses to rolling on; the search finds that from the bank-at-once start."""
    heuristic = _policy_of(KNOW)
    won = _wins([search_policy(KNOW, BUDGET), heuristic], range(30))
    assert won >= 21, f"search won {won} of 30 against banking at once"


def test_search_beats_random() -> None:
    """Without the progressive bias: it trusts the heuristic, which here is deliberately poor."""
    won = _wins([search_policy(KNOW, Budget(120, 10, bias=0.0)), uniform_random], range(20))
    assert won >= 15, f"search won {won} of 20 against random"


def _policy_of(know: Knowledge[RaceState]) -> Any:
    from service.bots.heuristic import heuristic_policy

    return heuristic_policy(know)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_arena_plays_to_the_end(players: int) -> None:
    played = arena.play(GAME, [uniform_random] * players, "end", {"target": 15})
    assert sorted(played.outcome.ranks)[0] == 1 and played.plies > 0
