"""Board pictures (SVG and PNG) of the current or a past position, and a seat's move preview."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request
from marshmallow import Schema, fields

from service.api import schemas
from service.api.auth import signed_key
from service.api.languages import COOKIE
from service.api.matches import _arg, _int_arg, service
from service.api.words import said, speaking
from service.delivery.rasterise import to_png
from service.play.views import boards, preview
from service.proof.match_record import MatchMeta

bp = Blueprint("boards", __name__, url_prefix="/v1/matches")

PAST_MAX_AGE = 365 * 24 * 3600
"""A past position never changes (the log is append-only), so its picture may be kept a year."""

SVG_TYPE = "image/svg+xml; charset=utf-8"


def _viewer(match_id: str) -> tuple[int | None, int | None, MatchMeta]:
    """``?seat`` (authenticated: the request must be signed by that seat's key) and ``?ply``,
    with the match's meta as read. Both are checked before the match is looked up."""
    seat = _int_arg("seat", -1, 0, 63) if _arg("seat") is not None else None
    ply = _int_arg("ply", -1, 0, 10**9) if _arg("ply") is not None else None
    m = service()
    meta = m.authenticate(match_id, seat, signed_key()) if seat is not None else m.meta(match_id)
    return seat, ply, meta


def _picture(match_id: str, png: bool) -> Response:
    seat, ply, meta = _viewer(match_id)
    where = boards.position(service(), match_id, seat, ply, meta)
    language = speaking()
    svg = boards.render(where, language)
    etag = boards.etag_of(svg, language)
    if png:  # the PNG is a function of the SVG: its own tag, derived from the SVG's
        etag = etag[:-1] + '-png"'
    # a seat's picture is for that seat alone: no shared cache may keep it
    scope = "public" if seat is None else "private"
    cache = f"{scope}, max-age={PAST_MAX_AGE}, immutable" if not where.current else f"{scope}, no-cache"
    # the words follow the request's language: a cache keys on what chose it (the cookie too when
    # the web client's lang cookie is there, as service.api.words adds to every answer it words)
    vary = ["Authorization", "Accept-Language"] if seat is not None else ["Accept-Language"]
    if request.cookies.get(COOKIE):
        vary.append("Cookie")
    headers = {"ETag": etag, "Cache-Control": cache, "Vary": ", ".join(vary)}
    if request.if_none_match.contains(etag.strip('"')):
        return Response(status=304, headers=headers)
    if png:
        return Response(to_png(svg), mimetype="image/png", headers=headers)
    return Response(svg, content_type=SVG_TYPE, headers=headers)


@bp.get("/<match_id>/board.svg")
def board_svg(match_id: str) -> Response:
    """The board as SVG: the spectator picture, or with ``?seat=N`` (a request signed by that
    seat's key) the seat's own, with spots for its legal actions; ``?ply=N`` a past position."""
    return _picture(match_id, png=False)


@bp.get("/<match_id>/board.png")
def board_png(match_id: str) -> Response:
    """The same picture as PNG (at most 900 pixels wide, on white), for mail and chat clients."""
    return _picture(match_id, png=True)


class Preview(Schema):
    ply = fields.Integer(required=True, strict=True)
    actions = fields.List(fields.Dict(), required=True)


@bp.post("/<match_id>/seats/<int:seat>/preview")
def preview_move(match_id: str, seat: int) -> Any:
    """The seat's view after the queued steps, applied tentatively (nothing is stored); the
    request is signed with the seat's key. See service.play.views.preview for when it stops early."""
    key = signed_key()
    data = schemas.body(Preview)
    m = service()
    language = speaking()
    return said(preview.preview(m, m.authenticate(match_id, seat, key), seat, data["ply"], data["actions"], language))
