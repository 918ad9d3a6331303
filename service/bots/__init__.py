"""Bot policies over the Game protocol: pure functions from what a seat sees to an action.

A policy (:class:`service.bots.policy.Policy`) gets the game, **the seat's view** (never the
whole state), the seat, its legal actions and an explicit :class:`~service.games.base.Rng`, and
returns one of the legal actions. The service's bot job picks the policy by the seat's bot kind
and submits its choice through the same signed, ply-checked path as a person's move.

Bot kinds, from the weakest up:

* ``random`` -- any legal action, each equally likely (every game);
* ``heuristic`` -- the game's own sense (:mod:`service.bots.heuristic`);
* ``search:easy``, ``search:medium``, ``search:hard`` -- information-set Monte Carlo tree search
  with the heuristic in its playouts (:mod:`service.bots.search`); ``search`` is ``search:medium``.

The heuristic and the search need a :class:`~service.bots.knowledge.Knowledge` of the game
(``service/bots/<game>.py``); a game without one (a plugin) gets ``random`` only.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from functools import cache
from typing import Any

from service.bots.heuristic import heuristic_policy
from service.bots.knowledge import Knowledge
from service.bots.policy import Policy, uniform_random
from service.bots.search import LEVELS, search_policy
from service.games.base import Action, Game, Rng
from service.games.undo import without_undo

__all__ = ["ALL_KINDS", "FALLBACK", "STRENGTH", "Policy", "choose", "describe", "kinds", "knowledge", "policy",
           "search_iterations", "strongest"]

_KNOWLEDGE_MODULES: Mapping[str, str] = {
    "el-capitan": "service.bots.el_capitan",
    "nauticus": "service.bots.nauticus",
    "ophir": "service.bots.ophir",
}
"""Where each game's :class:`Knowledge` lives (as ``KNOWLEDGE``)."""

DESCRIPTIONS: Mapping[str, str] = {
    "random": "plays any legal action, each equally likely (a sparring partner, not an opponent)",
    "heuristic": "plays by the game's own sense, instantly",
    "search:easy": "looks a little ahead (Monte Carlo tree search, a small budget)",
    "search:medium": "looks ahead (Monte Carlo tree search); the usual opponent",
    "search:hard": "looks further ahead (Monte Carlo tree search, the largest budget; up to about 2 s a step)",
    "search": "the same as search:medium",
}
"""Each bot kind in a player's words, for the catalog and the CLI."""

ALL_KINDS = ("random", "heuristic", *(f"search:{level}" for level in LEVELS), "search")
"""Every bot kind this build knows, weakest first (a game may offer fewer: :func:`kinds`)."""

STRENGTH = ("search:hard", "search:medium", "search", "heuristic", "random")
"""Bot kinds from the strongest down: a late player's stand-in is the first one a game has."""


FALLBACK = "heuristic"
"""The kind a search bot plays as once its match's search budget is spent (docs/bots.md)."""


@cache
def knowledge(game_id: str) -> Knowledge[Any] | None:
    """The game's :class:`Knowledge`, or None when the bots know nothing of it."""
    module = _KNOWLEDGE_MODULES.get(game_id)
    if module is None or importlib.util.find_spec(module) is None:
        return None
    found: Knowledge[Any] = importlib.import_module(module).KNOWLEDGE
    return found


def kinds(game_id: str) -> list[str]:
    """The bot kinds a match of ``game_id`` may seat, weakest first."""
    if knowledge(game_id) is None:
        return ["random"]
    return list(ALL_KINDS)


def describe(game_id: str) -> list[dict[str, str]]:
    """The catalog's bot list: ``[{"kind", "description"}]``, weakest first."""
    return [{"kind": k, "description": DESCRIPTIONS[k]} for k in kinds(game_id)]


@cache
def policy(game_id: str, kind: str) -> Policy | None:
    """The policy of bot ``kind`` for ``game_id``, or None when that game has no such bot."""
    if kind not in kinds(game_id):
        return None
    if kind == "random":
        return uniform_random
    know = knowledge(game_id)
    assert know is not None  # kinds() offers more than random only with a knowledge
    if kind == "heuristic":
        return heuristic_policy(know)
    level = kind.partition(":")[2] or "medium"
    return search_policy(know, LEVELS[level])


def search_iterations(game_id: str, kind: str) -> int:
    """What one decision of bot ``kind`` costs a match's search budget (0: it does not search): its
    level's nominal playouts (``search:hard`` 240), whatever the game. Each game's
    ``search_scale`` sets its real playouts so that a decision takes about the same time in every
    game, so the nominal count is the one that stays proportional to CPU across games."""
    if not kind.startswith("search") or knowledge(game_id) is None or kind not in kinds(game_id):
        return 0
    return LEVELS[kind.partition(":")[2] or "medium"].iterations


def strongest(game_id: str) -> str:
    """The strongest bot kind ``game_id`` has (a late player's stand-in)."""
    available = kinds(game_id)
    return next(k for k in STRENGTH if k in available)


def choose(game: Game[Any], kind: str, state: Any, seat: int, rng: Rng) -> Action:
    """Bot ``kind``'s choice for ``seat`` in ``state``, asked as the service asks it: with the
    seat's view and legal actions only, never the state itself. Raises KeyError for a kind the
    game does not have."""
    decide = policy(game.id, kind)
    if decide is None:
        raise KeyError(f"{game.id} has no bot {kind!r}")
    # never undo: a bot that takes back its steps could go back and forth for ever
    return decide(game, game.view(state, seat), seat, without_undo(game.legal_actions(state, seat)), rng)
