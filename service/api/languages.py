"""The language of a request: Flask-Babel over the catalogs of :mod:`service.i18n`.

Which language answers (first that says): ``?lang=`` (the switch on every page; the web client keeps
it in the ``lang`` cookie), the ``lang`` cookie, ``Accept-Language``, English. The API's machine
fields (codes, types) never change; its ``detail`` sentences and the pages follow this choice.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, request
from flask_babel import Babel, Domain, get_locale
from werkzeug.wrappers import Response

from service import i18n

__all__ = ["COOKIE", "install", "language"]

COOKIE = "lang"
"""The cookie the language switch sets: a preference, never an identity (requests are signed)."""


class _Catalogs(Domain):  # type: ignore[misc]
    """Flask-Babel's domain reading our ``.po`` catalogs (no compiled ``.mo`` files to build)."""

    def get_translations(self) -> Any:
        return i18n.translations(language())


def _pick() -> str:
    chosen = i18n.parse_language(request.args.get("lang")) or i18n.parse_language(request.cookies.get(COOKIE))
    return chosen or i18n.negotiate(request.headers.get("Accept-Language"))


def language() -> str:
    """The code of the current request's language (``"en"`` outside a request)."""
    try:
        locale = get_locale()
    except RuntimeError:
        return i18n.DEFAULT
    return str(locale.language) if locale is not None else i18n.DEFAULT


def _remember(response: Response) -> Response:
    # the switch is a link with ?lang=: keep the choice for the next pages (a year, this site only)
    chosen = i18n.parse_language(request.args.get("lang"))
    if chosen and request.cookies.get(COOKIE) != chosen and request.method == "GET":
        response.set_cookie(COOKIE, chosen, max_age=365 * 86400, samesite="Lax", httponly=False)
    response.vary.add("Accept-Language")
    return response


def install(app: Flask) -> None:
    """Give ``app`` Flask-Babel with the catalogs and the language choice above."""
    babel = Babel(app, locale_selector=_pick, default_domain="messages")
    babel.domain_instance = _Catalogs()
    app.after_request(_remember)
