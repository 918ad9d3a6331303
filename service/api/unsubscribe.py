"""One-click unsubscribe (RFC 8058): ``/v1/unsubscribe/<token>``, the https URL of every mail's
``List-Unsubscribe`` header (service.delivery.letters.unsubscribe).

``POST`` with the body ``List-Unsubscribe=One-Click`` is what a mailbox provider sends when its user
presses "unsubscribe": no cookies, no signature, nothing but the URL, so the token in it is the only
credential (service.delivery.unsubscribe: the signed digest of one address). It sets that address's
notice preference to ``off``, the same as replying ``stop notices``: no more turn notices, game-over
mail or invitations. Idempotent; a token that is not genuine is a 404 and changes nothing.

``GET`` never unsubscribes: link scanners and previews fetch every URL of a mail, and a mail client
without one-click opens the URL in a browser. It answers a page with one button, a form that POSTs
the same body. Both live here, on the one URL, rather than the page in service/web: the header can
name only one URL, and the page needs no script and no API call (service/web's pages are scripts
over the public API). The routes have the read limit every route has (service.api.limits): a
mailbox provider POSTs for many people from few addresses, so a tighter per-address limit would
refuse real unsubscribes, and 128 bits of MAC leave nothing to guess.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Response, current_app, request

from service.config import Settings
from service.delivery import unsubscribe as one_click
from service.i18n import phrase
from service.play.errors import BadRequest, NotFound
from service.play.matches import Matches
from service.storage.preferences import NoticePreferences

log = logging.getLogger("portolan.api")

bp = Blueprint("unsubscribe", __name__, url_prefix="/v1/unsubscribe")

# The page holds no script, loads nothing and may only post to this server; the token in its URL
# goes nowhere in a Referer, and nothing keeps a copy.
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "X-Robots-Tag": "noindex",
}

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Unsubscribe · Portolan</title>
</head>
<body style="font-family: sans-serif; max-width: 32em; margin: 2em auto; padding: 0 1em; line-height: 1.4">
<h1 style="font-size: 1.3em">Stop Portolan mail to this address?</h1>
<p>This address will get no more turn notices, game-over mail or invitations from this Portolan
server. Your matches go on; you can still play them on the web or with the <code>portolan</code>
command.</p>
<form method="post" action="{action}">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit" style="font-size: 1.1em; padding: 0.5em 1em">Unsubscribe</button>
</form>
</body>
</html>
"""

DONE = ("Unsubscribed: this address gets no more turn notices, game-over mail or invitations from this "
        "Portolan server.\nTo have them again, run `portolan notices every`, or reply \"notices every\" to "
        "any Portolan mail you kept.\n")


def _digest(token: str) -> str:
    """The address digest ``token`` names, or the 404 that changes nothing."""
    m: Matches = current_app.extensions["portolan"]
    digest = one_click.address_of(m.server_key, token)
    if digest is None:
        raise NotFound("bad-unsubscribe-token", phrase("this unsubscribe link is not one this server made; nothing was changed"))
    return digest


@bp.get("/<token>")
def page(token: str) -> Any:
    """The page a browser (or a link scanner) gets: a button that POSTs the one-click body. It
    changes nothing by itself."""
    _digest(token)
    # the token is 64 characters of base64url (checked above): nothing in it needs escaping
    return Response(_PAGE.format(action=request.path), mimetype="text/html", headers=_PAGE_HEADERS)


@bp.post("/<token>")
def one_click_post(token: str) -> Any:
    """RFC 8058's POST: ``List-Unsubscribe=One-Click`` (form-encoded or multipart) turns the
    token's address's notices ``off``. Saying it again answers the same."""
    digest = _digest(token)
    field, value = one_click.ONE_CLICK
    if request.form.getlist(field) != [value]:
        raise BadRequest("not-one-click", phrase("the body must be the form field {field}={value} (RFC 8058), once; nothing was changed", field=field, value=value))
    m: Matches = current_app.extensions["portolan"]
    settings: Settings = current_app.extensions["portolan.settings"]
    NoticePreferences(m.store.r, settings.namespace).set_digest(digest, "off")
    log.info("one-click unsubscribe: the address kept under %s... turned its notices off", digest[:12])
    return Response(DONE, mimetype="text/plain", headers={"Cache-Control": "no-store"})
