"""Bot policies over the Game protocol: pure functions from a position to an action.

A policy gets the game, the state, the seat, the legal actions and an explicit :class:`Rng`
(OpenSpiel's bots take an injected rng the same way) and returns one of the legal actions. The
service's bot job picks the policy by the seat's bot kind and submits the action through the
same signed, ply-checked path as a person's move. Stronger bots (heuristics, search) are more
entries in :data:`POLICIES`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from service.games.base import Action, Game, Rng

Policy = Callable[[Game[Any], Any, int, Sequence[Action], Rng], Action]


def uniform_random(game: Game[Any], state: Any, seat: int, legal: Sequence[Action], rng: Rng) -> Action:
    """Any legal action, each equally likely."""
    if not legal:
        raise ValueError(f"seat {seat} has no legal action")
    return dict(legal[rng.randbelow(len(legal))])


POLICIES: dict[str, Policy] = {"random": uniform_random}
"""Bot kinds a match may seat (``{"bot": "random"}``)."""


STRENGTH = ("search:hard", "search:medium", "search", "heuristic", "random")
"""Bot kinds from the strongest down: a late player's stand-in is the first one this build has."""


def strongest(game_id: str) -> str:
    """The strongest bot kind available for ``game_id`` (the stand-in of a late seat)."""
    return next(k for k in STRENGTH if k in POLICIES)
