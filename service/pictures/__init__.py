"""Pictures of positions: one pure renderer per game, from a view to SVG.

Like the rules core, a picture knows no Flask, no Redis and no clock: it is a function of what a
seat (or a spectator) may see, the view that :meth:`service.games.base.Game.view` computes, plus
the seat's legal actions when the picture is for a seat whose turn it is. The same SVG serves the
web client, the turn notices (rasterised to PNG by the service) and third-party frontends.

A renderer marks the places on the board where a legal action is natural to click (a city, a hex,
a wheel space) as *spots*: an element with ``data-spot="<id>"`` and ``data-actions="<i> <j> ..."``,
the indices of the legal actions that spot stands for (see :mod:`service.pictures.svg`).

Board geometry and colours are data (``service/pictures/data/<game>.json``), never constants in
the code; provisional values of a game's data are marked visibly in the picture.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["Renderer", "UnknownPicture", "render", "renderer"]


class UnknownPicture(LookupError):
    """No renderer for that game id."""


class Renderer(Protocol):
    """What a game's picture module exposes."""

    def render(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]] = (), language: str = "en") -> str:
        """The SVG document (a string starting with ``<svg``) of ``view``, its words in ``language``
        (a code of :mod:`service.i18n`; English is the default and the source).

        ``legal`` is the seat's legal actions as the API lists them
        (``[{"action": {...}, "text": "..."}]``), empty for a spectator or a seat that is not to
        move; each is drawn as a spot where the board has a natural place for it."""
        ...


# game id -> module under service.pictures; a game without a picture module has no picture
_MODULES = {"el-capitan": "el_capitan", "nauticus": "nauticus", "ophir": "ophir"}


def renderer(game_id: str) -> Renderer:
    """The picture module of ``game_id``; :class:`UnknownPicture` when there is none."""
    name = _MODULES.get(game_id)
    if name is None:
        raise UnknownPicture(f"no picture renderer for game {game_id!r}")
    module: Renderer = importlib.import_module(f"{__name__}.{name}")  # type: ignore[assignment]
    return module


def render(game_id: str, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]] = (),
           language: str = "en") -> str:
    """The SVG of ``view`` (a game view, the ``board`` of an API view) of game ``game_id``, its words
    (labels, tooltips, legends, the spots' action labels) in ``language``."""
    module = renderer(game_id)
    if language == "en":  # a renderer written before the pictures spoke languages is still called as it was
        return module.render(view, legal)
    return module.render(view, legal, language)
