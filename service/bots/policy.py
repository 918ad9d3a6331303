"""The policy interface every bot kind satisfies.

A policy is a pure function from what one seat knows to one of its legal actions::

    decide(game, view, seat, legal, rng) -> action

``view`` is ``game.view(state, seat)``: the seat's own view, exactly what a person in that seat
is shown, never the whole state. ``legal`` is the seat's legal actions now; ``rng`` the bot's
own random stream (OpenSpiel's bots take an injected rng the same way). Given the same view,
legal actions and stream a policy decides the same, in every process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from service.games.base import Action, Game, Rng


class Policy(Protocol):
    """``decide(game, view, seat, legal, rng)``: one of ``legal`` (see the module)."""

    def __call__(self, game: Game[Any], view: Mapping[str, Any], seat: int, legal: Sequence[Action],
                 rng: Rng) -> Action: ...


def uniform_random(game: Game[Any], view: Mapping[str, Any], seat: int, legal: Sequence[Action], rng: Rng) -> Action:
    """Any legal action, each equally likely."""
    if not legal:
        raise ValueError(f"seat {seat} has no legal action")
    return dict(legal[rng.randbelow(len(legal))])
