"""The use cases' errors: each has an HTTP status and a stable machine ``code``.

The API turns them into ``application/problem+json`` (RFC 9457); the CLI prints the message. The
message and the title are :class:`service.i18n.Phrase` (a ``str`` in English), rendered in the
reader's language where the reader is known (the API: ``Accept-Language``; docs/i18n.md).
"""

from __future__ import annotations

from typing import Any

from service.i18n import phrase


class ServiceError(Exception):
    """A refused request. Nothing was changed when one of these is raised."""

    status = 400
    title: str = phrase("Bad request")

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


class BadRequest(ServiceError):
    status = 400
    title: str = phrase("Malformed request")


class Unauthorized(ServiceError):
    status = 401
    title: str = phrase("Signature or credentials not valid")


class Forbidden(ServiceError):
    status = 403
    title: str = phrase("Not your seat")


class NotFound(ServiceError):
    status = 404
    title: str = phrase("Not found")


class Conflict(ServiceError):
    status = 409
    title: str = phrase("Conflict with the match's current state")


class Unprocessable(ServiceError):
    status = 422
    title: str = phrase("Illegal action")


class TooManyRequests(ServiceError):
    """A quota is used up; ``retry_after`` says in how many seconds it frees (the ``Retry-After`` header)."""

    status = 429
    title: str = phrase("Too many requests")

    def __init__(self, code: str, message: str, retry_after: int, **extra: Any) -> None:
        super().__init__(code, message, **extra)
        self.retry_after = max(1, int(retry_after))


class Unavailable(ServiceError):
    """The server cannot take this request now (not the client's fault); ``retry_after`` seconds."""

    status = 503
    title: str = phrase("Service unavailable")

    def __init__(self, code: str, message: str, retry_after: int, **extra: Any) -> None:
        super().__init__(code, message, **extra)
        self.retry_after = max(1, int(retry_after))
