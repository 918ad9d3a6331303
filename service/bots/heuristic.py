"""The heuristic bot: game knowledge applied to one sample of what the seat cannot see.

It draws one determinisation of the seat's view (:meth:`Knowledge.sample`) and plays what the
game's :meth:`Knowledge.heuristic` says there. Cheap (one sample, no search) and deterministic
given its stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.bots.knowledge import Knowledge
from service.bots.policy import Policy
from service.games.base import Action, Game, Rng


def heuristic_policy(knowledge: Knowledge[Any]) -> Policy:
    """The heuristic bot of one game, as a :class:`~service.bots.policy.Policy`."""

    def decide(game: Game[Any], view: Mapping[str, Any], seat: int, legal: Sequence[Action], rng: Rng) -> Action:
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        if len(legal) == 1:
            return dict(legal[0])
        state = knowledge.sample(game, view, seat, rng, legal)
        return dict(knowledge.heuristic(game, state, seat, legal, rng))

    return decide
