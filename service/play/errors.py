"""The use cases' errors: each has an HTTP status and a stable machine ``code``.

The API turns them into ``application/problem+json`` (RFC 9457); the CLI prints the message.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refused request. Nothing was changed when one of these is raised."""

    status = 400
    title = "Bad request"

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


class BadRequest(ServiceError):
    status, title = 400, "Malformed request"


class Unauthorized(ServiceError):
    status, title = 401, "Signature or credentials not valid"


class Forbidden(ServiceError):
    status, title = 403, "Not your seat"


class NotFound(ServiceError):
    status, title = 404, "Not found"


class Conflict(ServiceError):
    status, title = 409, "Conflict with the match's current state"


class Unprocessable(ServiceError):
    status, title = 422, "Illegal action"


class TooManyRequests(ServiceError):
    """A quota is used up; ``retry_after`` says in how many seconds it frees (the ``Retry-After`` header)."""

    status, title = 429, "Too many requests"

    def __init__(self, code: str, message: str, retry_after: int, **extra: Any) -> None:
        super().__init__(code, message, **extra)
        self.retry_after = max(1, int(retry_after))


class Unavailable(ServiceError):
    """The server cannot take this request now (not the client's fault); ``retry_after`` seconds."""

    status, title = 503, "Service unavailable"

    def __init__(self, code: str, message: str, retry_after: int, **extra: Any) -> None:
        super().__init__(code, message, **extra)
        self.retry_after = max(1, int(retry_after))
