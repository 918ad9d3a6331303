"""The API's words in the request's language (issue 29; docs/i18n.md, "Choosing the language").

The use cases answer with :class:`service.i18n.Phrase` where a person reads the words (legal action
labels, match actions, refusals, event descriptions); this is where they meet their reader: the
request's language (:func:`service.api.languages.language`), and ``Content-Language`` on every
answer whose words were rendered here. Machine fields (codes, types, ids) never change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flask import Flask, Response, g, has_request_context, request

from service import i18n
from service.api.languages import COOKIE, language
from service.games.base import Game
from service.play.views.match import describe_event

__all__ = ["event_words", "install", "said", "speaking"]


def speaking(code: str | None = None) -> str:
    """The language this answer's words are in (the request's unless ``code`` says), noted for
    its ``Content-Language`` header."""
    chosen = code or language()
    if has_request_context():
        g.portolan_words = chosen
    return chosen


def said(value: Any, code: str | None = None) -> Any:
    """``value`` (a view, a list, a phrase) with every phrase in it in the request's language.

    In English it is ``value`` itself, not walked: a phrase *is* its English text as a ``str``, and
    JSON writes it so, which keeps the answers of most readers (and of every move) as cheap as before."""
    chosen = speaking(code)
    return value if chosen == i18n.DEFAULT else i18n.localise(value, chosen)


def event_words(game: Game[Any], events: Iterable[Mapping[str, Any]], code: str) -> list[str]:
    """Each event in words for its reader, in ``code``: the match's own events as the standing says
    them, the rest by the game's :meth:`~Game.describe_event`, computed from the event's fields
    (older events fall back to their stored English ``text``)."""
    return [i18n.render(describe_event(game, e), code) for e in events]


def _content_language(response: Response) -> Response:
    chosen = g.get("portolan_words")
    if chosen and "Content-Language" not in response.headers:
        response.headers["Content-Language"] = chosen
    if chosen and request.cookies.get(COOKIE):
        # the web client's cookie chose (or could have chosen) the words: a cache keys on it too
        response.vary.add("Cookie")
    return response


def install(app: Flask) -> None:
    """Say ``Content-Language`` on every answer that carries words rendered through this module."""
    app.after_request(_content_language)
