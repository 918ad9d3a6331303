"""The reference web client: pages served by the Flask app, everything else done in the browser.

The server side is only this blueprint: it hands out templates and static files (ES modules, no
build step). Every page then talks to the public API (``/v1/...``) with ``fetch``, exactly as a
third-party frontend would; the player's Ed25519 key is made and kept by the browser (WebCrypto,
non-extractable, in IndexedDB: ``static/js/keys.js``) and never sent anywhere but as a public key or
a signature. See docs/web-client.md.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, abort, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import get_locale  # the request's language, chosen in service/api/languages.py
from flask_babel import gettext as _

from service import i18n

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
               static_url_path="/web/static")

# Why a Content-Security-Policy: the pages show names people chose and SVG the server drew; with
# scripts only from this origin (no inline script, no eval) nothing injected into them can run.
# 'unsafe-inline' styles: the inline SVG pictures carry style attributes.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


@bp.after_request
def _headers(response: Any) -> Any:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("Referrer-Policy", "no-referrer")  # an invite token in a URL goes nowhere
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if request.path.startswith("/web/static/"):
        # Why revalidate every time: the modules import each other with no version in their URLs,
        # so a browser keeping some of them from before an upgrade would mix two versions of the
        # client. A revalidation costs a 304.
        response.headers["Cache-Control"] = "no-cache"
    return response


def switch_links() -> list[tuple[i18n.Language, str]]:
    """The language switch's links as the server writes them: this page's path with ``?lang=``.

    ``static/js/header.js`` then makes each link the whole URL the browser shows, its query and
    ``#fragment`` too (a claim link's token lives in the fragment, which never reaches a server).
    Why the server writes no query: nothing a URL carries is echoed into a page (a token put in a
    claim link's query by mistake must not end up in the HTML); the plain link is the fallback."""
    return [(language, f"{request.path}?{urlencode({'lang': language.code})}") for language in i18n.LANGUAGES]


def _page(template: str, title: str, **context: Any) -> str:
    locale = get_locale()
    language = str(locale.language) if locale is not None else i18n.DEFAULT
    return render_template(template, title=title, language=language, languages=i18n.LANGUAGES,
                           language_links=switch_links(), **context)


@bp.get("/")
def lobby() -> str:
    """Open matches and the ones this browser's key plays in."""
    return _page("lobby.html", "Portolan")


@bp.get("/new")
def new_match() -> str:
    """Create a match: game, options, seats (you, invitations, bots)."""
    return _page("new.html", _("New match"))


@bp.get("/claim/<match_id>/<int:seat>")
def claim(match_id: str, seat: int) -> str:
    """Take an invited seat. The invite token is in the URL's fragment (``#token=...``), which the
    browser never sends to a server, so it stays out of access logs and Referer headers."""
    return _page("claim.html", _("Join a match"), match_id=match_id, seat=seat)


@bp.get("/match/<match_id>")
def match(match_id: str) -> str:
    """The match page: the board, whose turn, what happened, and your legal actions."""
    return _page("match.html", _("Match"), match_id=match_id)


@bp.get("/match/<match_id>/log")
def log(match_id: str) -> str:
    """The log with its hash chain, and "verify this record" in the browser."""
    return _page("log.html", _("Match log"), match_id=match_id)


@bp.get("/keys")
def keys() -> str:
    """This browser's key: its public half, export to a backup file, import on a second device."""
    return _page("keys.html", _("Your key"))


@bp.get("/web/words/<language>.json")
def words(language: str) -> ResponseReturnValue:
    """The browser client's messages in ``language``, ``{english: translation}`` (static/js/words.js).

    English is the messages themselves, so its table is empty; a language we do not speak is 404."""
    if language not in i18n.codes():
        abort(404)
    response = jsonify(i18n.as_json(language, "web"))
    response.headers["Cache-Control"] = "no-cache"  # revalidated like the modules: one release at a time
    return response
