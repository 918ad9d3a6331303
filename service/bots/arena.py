"""Whole matches between bots, offline: the rules core and the policies, nothing of the service.

Used by ``bench/bots.py`` (the strength table) and the bot tests. Each seat's policy is asked
with that seat's view only, exactly as the service asks it; the game's own randomness comes
from a stream of its own, so the bots' streams never shape the dice.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.bots.policy import Policy
from service.games.base import Game, Outcome, Rng
from service.games.undo import without_undo


@dataclass
class Played:
    """A finished bot match: its outcome, its length and each seat's decision times (seconds)."""

    outcome: Outcome
    plies: int
    decision_s: list[list[float]] = field(default_factory=list)


class Stalled(RuntimeError):
    """The match did not end within the step bound (a rules or bot bug: games always end)."""


def play(game: Game[Any], policies: Sequence[Policy], seed: int | str, options: Mapping[str, Any] | None = None,
         max_steps: int = 20_000, timed: bool = False) -> Played:
    """Play one match of ``game`` with ``policies[i]`` in seat ``i``, from ``seed``.

    ``timed`` records each decision's wall time (benchmarks); forced steps (one legal action)
    are played without asking the policy and are not timed."""
    players = len(policies)
    opts = game.validate_options(options or {}, players)
    state = game.setup(players, opts, Rng.derive(_key(seed), "setup")).state
    decision_s: list[list[float]] = [[] for _ in range(players)]
    for step in range(max_steps):
        if game.outcome(state) is not None:
            outcome = game.outcome(state)
            assert outcome is not None
            return Played(outcome, step, decision_s)
        seat = game.active_seats(state)[0]
        legal = without_undo(game.legal_actions(state, seat))
        if len(legal) == 1:
            action = legal[0]
        else:
            started = time.perf_counter()
            action = policies[seat](game, game.view(state, seat), seat, legal,
                                    Rng.derive(_key(seed), f"bot:{seat}:{step}"))
            if timed:
                decision_s[seat].append(time.perf_counter() - started)
        state = game.apply(state, seat, action, Rng.derive(_key(seed), f"game:{step}")).state
    raise Stalled(f"{game.id} with {players} players did not end within {max_steps} steps (seed {seed!r})")


def _key(seed: int | str) -> bytes:
    import hashlib

    return hashlib.sha256(f"portolan-arena:{seed}".encode()).digest()
