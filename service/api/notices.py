"""A player's notice preference: a mail every turn, a daily digest, or none (``/v1/me/notices``);
and the language of an address's mail (``/v1/me/language``, issue 29)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, request

from service.api import schemas
from service.api.auth import signed_key
from service.config import Settings
from service.i18n import parse_language, phrase
from service.play.errors import BadRequest
from service.play.matches import Matches
from service.play.outward.notice_owner import held_address
from service.storage.preferences import NoticePreferences

bp = Blueprint("notices", __name__, url_prefix="/v1/me")


def _preferences() -> NoticePreferences:
    m: Matches = current_app.extensions["portolan"]
    settings: Settings = current_app.extensions["portolan.settings"]
    return NoticePreferences(m.store.r, settings.namespace)


def _answer(address: str, prefs: NoticePreferences) -> dict[str, Any]:
    return {"email": address, "notices": prefs.get(address)}


@bp.get("/notices")
def get_notices() -> Any:
    """The notice preference of an address a seat of the signing key mails to (``?email=``)."""
    key = signed_key()
    emails = request.args.getlist("email")
    if len(emails) != 1:
        raise BadRequest("bad-query", phrase("give the address as ?email=ADDRESS, once"))
    m: Matches = current_app.extensions["portolan"]
    return _answer(held_address(m, key, emails[0]), _preferences())


@bp.put("/notices")
def put_notices() -> Any:
    """Set that preference: ``{"email", "notices": "every" | "digest" | "off"}``."""
    key = signed_key()
    data = schemas.body(schemas.SetNotices)
    m: Matches = current_app.extensions["portolan"]
    address = held_address(m, key, data["email"])
    prefs = _preferences()
    prefs.set(address, data["notices"])
    return _answer(address, prefs)


@bp.put("/language")
def put_language() -> Any:
    """The language of an address's mail: ``{"email", "language"}`` (a code or a name: ``hu``,
    ``magyar``, ``English``), for an address a seat of the signing key mails to, as for notices.
    The same can be said by replying ``nyelv magyar`` / ``language english`` to any Portolan mail."""
    key = signed_key()
    data = schemas.body(schemas.SetLanguage)
    code = parse_language(data["language"])
    if code is None:
        raise BadRequest("unknown-language", f"Portolan does not speak {data['language']!r}: say en or hu",
                         field="language")
    m: Matches = current_app.extensions["portolan"]
    address = held_address(m, key, data["email"])
    prefs = _preferences()
    prefs.set_language(address, code)
    return {"email": address, "language": prefs.language(address)}
