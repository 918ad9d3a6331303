"""Every error leaves as ``application/problem+json`` (RFC 9457) with a stable ``code``.

In the request's language (issue 29): ``detail`` (the sentence), ``title`` (RFC 9457 §3.1.4: a
problem type's title may change "for localization"), and the messages of ``errors``; the answer says
``Content-Language``. ``type``, ``code``, ``status`` and every other machine field stay as they are.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, current_app, g, has_request_context, json
from marshmallow import ValidationError
from redis.exceptions import RedisError
from werkzeug.exceptions import HTTPException

from service import i18n
from service.api.auth import give_back_nonce
from service.api.words import speaking
from service.games.base import describe_field_errors, field_errors
from service.play.errors import ServiceError, TooManyRequests, Unavailable
from service.storage.archive import ArchiveError

log = logging.getLogger("portolan.api")

_CODES = {400: "malformed-request", 404: "not-found", 405: "method-not-allowed", 413: "body-too-large",
          415: "unsupported-media-type"}

_HTTP: dict[int, tuple[str, str]] = {
    # werkzeug's own titles and descriptions, word for word in English, so they can be said in others
    400: (i18n.phrase("Bad Request"),
          i18n.phrase("The browser (or proxy) sent a request that this server could not understand.")),
    404: (i18n.phrase("Not Found"),
          i18n.phrase("The requested URL was not found on the server. If you entered the URL manually please check "
                      "your spelling and try again.")),
    405: (i18n.phrase("Method Not Allowed"), i18n.phrase("The method is not allowed for the requested URL.")),
    413: (i18n.phrase("Request Entity Too Large"), i18n.phrase("The data value transmitted exceeds the capacity limit.")),
    415: (i18n.phrase("Unsupported Media Type"),
          i18n.phrase("The server does not support the media type transmitted in the request.")),
}
"""The HTTP errors a client meets most, so that their words follow the request's language too."""


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    """A problem+json answer; ``title``, ``detail`` and phrases in ``extra`` in the request's language."""
    language = speaking()
    body = {"type": f"https://portolan.invalid/problems/{code}", "title": i18n.render(title, language),
            "status": status, "detail": i18n.render(detail, language), "code": code}
    body.update({k: i18n.localise(v, language) for k, v in extra.items() if v is not None})
    if has_request_context():
        g.portolan_code = code  # the refusal's code, for the metrics (service/api/metrics.py)
    return Response(json.dumps(body), status=status, mimetype="application/problem+json",
                    headers={"Content-Language": language})


def register(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def _service(exc: ServiceError) -> Response:
        resp = problem(exc.status, exc.code, exc.title, exc.message, **exc.extra)
        if isinstance(exc, TooManyRequests | Unavailable):
            resp.headers["Retry-After"] = str(exc.retry_after)
        if isinstance(exc, Unavailable):  # a 503 gives the nonce back, as for a store outage
            give_back_nonce()
        return resp

    @app.errorhandler(ValidationError)
    def _validation(exc: ValidationError) -> Response:
        # One flat list (the shape openapi.yaml's Problem.errors promises), and a detail that
        # reads as a sentence rather than the repr of marshmallow's nested dict.
        # our own validators' messages are phrases (said in the reader's language); marshmallow's
        # built-in ones ("Not a valid integer.") stay English
        errors = field_errors(i18n.localise(exc.messages, speaking()))
        return problem(400, "malformed-request", i18n.phrase("Malformed request"),
                       i18n.phrase("the request body is not valid: {errors}", errors=describe_field_errors(errors)),
                       errors=errors)

    @app.errorhandler(RedisError)
    def _redis(exc: RedisError) -> Response:  # an outage, not a bug: say so and let the client retry
        log.warning("redis error: %s", exc)
        give_back_nonce()  # the identical request, retried after Retry-After, must not be a "replay"
        resp = problem(503, "storage-unavailable", i18n.phrase("Service unavailable"),
                       i18n.phrase("the match store does not answer; nothing was changed by this request unless it "
                                   "was already accepted (resubmitting the same signed move is safe: it is never "
                                   "applied twice; the same signed request may be sent again as it is)"))
        resp.headers["Retry-After"] = "5"
        return resp

    @app.errorhandler(ArchiveError)
    def _archive(exc: ArchiveError) -> Response:  # an archived match whose document cannot be read now
        log.error("archive error: %s", exc)
        give_back_nonce()
        resp = problem(503, "archive-unavailable", i18n.phrase("Service unavailable"),
                       i18n.phrase("this match has ended and was moved to the archive, which cannot be read right "
                                   "now ({error}); nothing was changed by this request; try again later", error=exc))
        resp.headers["Retry-After"] = "30"
        return resp

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        title, detail = exc.name, exc.description or exc.name
        known = _HTTP.get(status)
        if known is not None:
            title = known[0]
            if detail == type(exc).description:  # werkzeug's stock sentence, not one of ours
                detail = known[1]
        if status == 413:
            limit = current_app.config.get("MAX_CONTENT_LENGTH")
            detail = i18n.phrase("the request body is larger than this server accepts ({limit} bytes at most)",
                                 limit=limit)
        resp = problem(status, _CODES.get(status, "http-error"), title, detail)
        # the exception's own headers carry meaning (405's Allow, 401's WWW-Authenticate); keep
        # them, only the body's type and length are ours
        for name, value in exc.get_headers():
            if name.lower() not in ("content-type", "content-length"):
                resp.headers.add(name, value)
        return resp

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:  # a bug: log it whole, tell the client little
        log.exception("unhandled error")
        return problem(500, "internal-error", i18n.phrase("Internal server error"),
                       i18n.phrase("the server failed; nothing was changed"))
