"""The rules core and its registry.

Each subpackage of ``service.games`` is one game and exposes ``GAME``, an instance of
:class:`service.games.base.Game`. The registry discovers them, so adding a game is adding a
package; nothing else in the service names a game.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from typing import Any

from .base import Game

_registry: dict[str, Game[Any]] | None = None


def _discover() -> dict[str, Game[Any]]:
    """Every subpackage's GAME, plus the modules named in ``PORTOLAN_PLUGINS`` (comma
    separated, each exposing ``GAME``): games that live outside this package."""
    found: dict[str, Game[Any]] = {}
    for name in filter(None, (p.strip() for p in os.environ.get("PORTOLAN_PLUGINS", "").split(","))):
        plugin = getattr(importlib.import_module(name), "GAME", None)
        if isinstance(plugin, Game):
            found[plugin.id] = plugin
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not mod.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{mod.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found[game.id] = game
    return found


def registry() -> dict[str, Game[Any]]:
    """Every registered game by id, in id order."""
    global _registry
    if _registry is None:
        _registry = _discover()
    return _registry


def register(game: Game[Any]) -> None:
    """Add a game that does not live in this package (the tests' fixture game)."""
    registry()[game.id] = game


def unregister(game_id: str) -> None:
    registry().pop(game_id, None)


def get(game_id: str) -> Game[Any] | None:
    """The game with this id, or None."""
    return registry().get(game_id)
