"""Every error leaves as ``application/problem+json`` (RFC 9457) with a stable ``code``."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, current_app, g, has_request_context, json
from marshmallow import ValidationError
from redis.exceptions import RedisError
from werkzeug.exceptions import HTTPException

from service.api.auth import give_back_nonce
from service.games.base import describe_field_errors, field_errors
from service.play.errors import ServiceError, TooManyRequests, Unavailable
from service.storage.archive import ArchiveError

log = logging.getLogger("portolan.api")

_CODES = {400: "malformed-request", 404: "not-found", 405: "method-not-allowed", 413: "body-too-large",
          415: "unsupported-media-type"}


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    body = {"type": f"https://portolan.invalid/problems/{code}", "title": title, "status": status,
            "detail": detail, "code": code}
    body.update({k: v for k, v in extra.items() if v is not None})
    if has_request_context():
        g.portolan_code = code  # the refusal's code, for the metrics (service/api/metrics.py)
    return Response(json.dumps(body), status=status, mimetype="application/problem+json")


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
        errors = field_errors(exc.messages)
        return problem(400, "malformed-request", "Malformed request",
                       f"the request body is not valid: {describe_field_errors(errors)}", errors=errors)

    @app.errorhandler(RedisError)
    def _redis(exc: RedisError) -> Response:  # an outage, not a bug: say so and let the client retry
        log.warning("redis error: %s", exc)
        give_back_nonce()  # the identical request, retried after Retry-After, must not be a "replay"
        resp = problem(503, "storage-unavailable", "Service unavailable",
                       "the match store does not answer; nothing was changed by this request unless it was already "
                       "accepted (resubmitting the same signed move is safe: it is never applied twice; the same "
                       "signed request may be sent again as it is)")
        resp.headers["Retry-After"] = "5"
        return resp

    @app.errorhandler(ArchiveError)
    def _archive(exc: ArchiveError) -> Response:  # an archived match whose document cannot be read now
        log.error("archive error: %s", exc)
        give_back_nonce()
        resp = problem(503, "archive-unavailable", "Service unavailable",
                       "this match has ended and was moved to the archive, which cannot be read right now "
                       f"({exc}); nothing was changed by this request; try again later")
        resp.headers["Retry-After"] = "30"
        return resp

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        detail = exc.description or exc.name
        if status == 413:
            limit = current_app.config.get("MAX_CONTENT_LENGTH")
            detail = f"the request body is larger than this server accepts ({limit} bytes at most)"
        resp = problem(status, _CODES.get(status, "http-error"), exc.name, detail)
        # the exception's own headers carry meaning (405's Allow, 401's WWW-Authenticate); keep
        # them, only the body's type and length are ours
        for name, value in exc.get_headers():
            if name.lower() not in ("content-type", "content-length"):
                resp.headers.add(name, value)
        return resp

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:  # a bug: log it whole, tell the client little
        log.exception("unhandled error")
        return problem(500, "internal-error", "Internal server error", "the server failed; nothing was changed")
