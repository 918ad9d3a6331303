"""The conformance suite (OpenSpiel's playthrough idea): every registered game, every player
count, seeded random playthroughs checked step by step against the contract of service.games.base.

A game's own package adds its scenario tests and invariants; this file holds what is true of
every game: setup is valid, every listed legal action applies, ``apply`` leaves its input
unchanged, dump/load is the identity, an active seat always has a legal action and an inactive
one none, the game ends, and the views are JSON and show nothing of what is face down (a view
does not change when only the order of a hidden deck does).

The games are played once, in tests/helpers/playthrough.py, and shared with the undo and
player-words checks; this file only reads the recorded steps.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from service.games.base import Game, Outcome, Rng
from service.games.undo import without_undo
from tests.helpers.playthrough import SLOW_SEEDS, Playthrough, canon, default_seeds, games, playthrough, text_digest

GAMES: list[Game[Any]] = games()
CASES = [(g, n) for g in GAMES for n in g.players]
IDS = [f"{g.id}-{n}p" for g, n in CASES]
VIEW_EVERY = 10
"""Every this many steps the views of every seat and a spectator are read (JSON, no leak)."""
FACE_DOWN: dict[str, tuple[tuple[str, int], ...]] = {
    "el-capitan": (("dest_deck", 0), ("conn_deck", 0)),  # the draw piles, all face down
    "ophir": (("deck", 1),),  # the market deck below its top card (the future card, face up once revealed)
}
"""State fields (with how many cards on top are face up) whose order nobody may see: reversing the
rest must not change any view."""


def _reversed(state: Any, piles: tuple[tuple[str, int], ...]) -> Any:
    """The state with the face-down part of the named piles reversed (a NamedTuple or a dataclass)."""
    changes = {name: (*getattr(state, name)[:top], *reversed(getattr(state, name)[top:])) for name, top in piles}
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        return dataclasses.replace(state, **changes)
    return state._replace(**changes)


def check_contract(p: Playthrough) -> None:
    """Everything the contract promises along one recorded playthrough."""
    game, players = p.game, p.players
    assert p.failure is None, f"{p.name}: {p.failure}"
    json.dumps(p.setup_events)
    hidden = FACE_DOWN.get(game.id, ())
    # a dead end, a crash of a listed action and a loop stopped the playthrough: p.failure says which
    for step in p.steps:
        assert not step.idle_with_actions, f"{p.name} step {step.index}: inactive seats {step.idle_with_actions} have legal actions"
        before = canon(game.dump(step.before))
        assert text_digest(before) == step.before_digest, f"{p.name} step {step.index}: apply mutated its input"
        assert canon(game.dump(game.load(json.loads(before)))) == before, "dump/load is not the identity"
        assert isinstance(step.events, list)
        json.dumps(step.events)
        if step.index % VIEW_EVERY == 0:
            check_views(game, step.before, players, hidden)
    outcome = game.outcome(p.final)
    assert isinstance(outcome, Outcome)
    assert len(outcome.scores) == players and len(outcome.ranks) == players
    assert min(outcome.ranks) == 1
    json.dumps(outcome.to_json())
    check_views(game, p.final, players, hidden)


def check_views(game: Game[Any], state: Any, players: int, hidden: tuple[tuple[str, int], ...]) -> None:
    """Every seat's and a spectator's view is JSON, and none changes when a face-down pile is
    put in another order (a view that showed a card's place in the deck would)."""
    shuffled = _reversed(state, hidden) if hidden else None
    for seat in [None, *range(players)]:
        view = game.view(state, seat)
        json.dumps(view)
        if shuffled is not None:
            assert game.view(shuffled, seat) == view, f"{game.id}: the view of seat {seat} shows a face-down order"


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_random_playthroughs_end_and_keep_the_contract(game: Game[Any], players: int) -> None:
    for seed in default_seeds(players):
        check_contract(playthrough(game.id, players, seed))


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_many_random_playthroughs_end_and_keep_the_contract(game: Game[Any], players: int) -> None:
    for seed in SLOW_SEEDS:
        check_contract(playthrough(game.id, players, seed))


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
        snapshot = canon(game.dump(state))
        a, ea = game.apply(state, seat, action, Rng.from_seed(step))
        b, eb = game.apply(state, seat, action, Rng.from_seed(step))
        assert canon(game.dump(state)) == snapshot, "apply mutated its input"
        assert canon(game.dump(a)) == canon(game.dump(b)) and ea == eb, "apply is not deterministic"
        state = a


@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_catalog_entry_is_json(game: Game[Any]) -> None:
    entry = game.describe()
    json.dumps(entry)
    assert entry["players"]["min"] >= 1
    assert entry["actions"], "a game lists its action vocabulary"
    game.validate_options({})
