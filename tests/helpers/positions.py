"""Positions of a game reached by seeded random play: what the bot tests ask the policies about
(in this process, and in child processes that must decide the same)."""

from __future__ import annotations

from typing import Any

from service.games.base import Game, Rng
from service.games.undo import without_undo


def positions(game: Game[Any], players: int, count: int, seed: str) -> list[tuple[Any, int]]:
    """``count`` positions (state, acting seat) reached by seeded random play, spread over a game."""
    out: list[tuple[Any, int]] = []
    rng = Rng.from_seed(seed)
    state = game.setup(players, game.validate_options({}, players), rng).state
    step = 0
    while len(out) < count:
        if game.outcome(state) is not None:  # over: start another match
            state = game.setup(players, game.validate_options({}, players), rng).state
        seat = game.active_seats(state)[0]
        legal = without_undo(game.legal_actions(state, seat))
        if len(legal) > 1 and step % 7 == 0:
            out.append((state, seat))
        state = game.apply(state, seat, legal[rng.randbelow(len(legal))], rng).state
        step += 1
    return out
