"""Match options checked for good before a match is stored.

A match is stored at creation and set up only when its last seat is claimed, maybe days later.
If setup refused the options then, the match could never start: every seat claimed, status
``waiting`` forever. So creation validates the options against the player count
(:meth:`service.games.base.Game.validate_options`) and then runs the game's setup once with a
throwaway Rng, a dry run whose state is discarded: whatever setup would refuse is refused now,
with a 400, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import Game, GameError, Rng
from service.i18n import phrase
from service.play.errors import BadRequest


def checked_options(game: Game[Any], options: Mapping[str, Any] | None, players: int) -> dict[str, Any]:
    """The loaded options (defaults filled) if ``game`` can set up a match of ``players`` seats
    with them; otherwise 400 ``bad-options`` (or the game's own code) naming the rule."""
    try:
        opts = game.validate_options(options or {}, players)
    except GameError as exc:
        raise BadRequest(exc.code, exc.message) from exc
    try:
        # Any seed will do: setup's randomness (a random start seat, shuffles) cannot make
        # valid options invalid, and the real seed must stay unused until the match starts.
        game.setup(players, opts, Rng.from_seed("portolan/setup-check"))
    except (GameError, ValueError, KeyError, TypeError) as exc:
        raise BadRequest("bad-options", phrase("{title} cannot be set up for {players} players with these options: {exc}", title=game.title, players=players, exc=exc)) from exc
    return opts
