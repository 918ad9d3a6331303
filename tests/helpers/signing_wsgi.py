"""A test-only WSGI middleware that signs requests as they arrive (docs/signing.md).

The fuzzer generates requests without real signatures, so on its own it only ever meets the
401 in front of the signed routes. Wrapped in :class:`Signer`, each request to a signed route
that carries no Portolan ``Authorization`` of its own is signed over exactly the method, path, raw query
and body the app will see: with the creator's key for create and abort, with the seat's key for
a seat view (and a move, whose envelope names the seat), with one player's key for "my
turns" and that player's webhooks, and with the creator's key for a match's webhooks. ``stranger=True`` signs with a key that holds nothing, to reach the 403s;
``forged=True`` signs with the right key over another path, to reach the ``bad-signature`` 401.

Schemathesis fills the ``signedRequest`` apiKey header with arbitrary strings; such a header
(one that does not start with ``Portolan ``) is replaced by a real signature, while a
``Portolan ...`` header the fuzzer made up is passed on untouched (the 401s of a wrong
signature). The unsigned variant is the app without this middleware.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from werkzeug.wrappers import Request

from service.proof import signing

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_CREATOR_ROUTES = re.compile(r"/v1/matches(/[^/]+/abort)?")
_SEAT_VIEW = re.compile(r"/v1/matches/[^/]+/seats/(\d{1,400})/view")
_MOVES = re.compile(r"/v1/matches/[^/]+/moves")
_MY_HOOKS = re.compile(r"/v1/me/webhooks(/[^/]+(/ping|/deliveries)?)?")
_MATCH_HOOKS = re.compile(r"/v1/matches/[^/]+/webhooks(/[^/]+(/ping|/deliveries)?)?")


@dataclass
class Signer:
    """Signs each unsigned request to a signed route with the key that route wants."""

    app: WsgiApp
    creator: str
    seat_keys: list[str]
    stranger: bool = False
    forged: bool = False
    outsider: str = field(default_factory=signing.generate_private_key)
    signed: int = 0

    def key_for(self, method: str, path: str, body: bytes) -> str | None:
        """The private key to sign ``method path`` with, or None for a route that is not signed."""
        if self.stranger:
            return self.outsider if self._is_signed_route(method, path, body) else None
        if method == "POST" and _CREATOR_ROUTES.fullmatch(path):
            return self.creator
        if _MATCH_HOOKS.fullmatch(path):  # a match's webhooks are its creator's
            return self.creator
        if _MY_HOOKS.fullmatch(path):
            return self.seat_keys[0]
        if method == "GET" and (m := _SEAT_VIEW.fullmatch(path)):
            return self.seat_keys[int(m.group(1)) % len(self.seat_keys)]
        if method == "GET" and path == "/v1/me/turns":
            return self.seat_keys[0]
        if method == "POST" and _MOVES.fullmatch(path):
            seat = _envelope_seat(body)
            return None if seat is None else self.seat_keys[seat % len(self.seat_keys)]
        return None

    def _is_signed_route(self, method: str, path: str, body: bytes) -> bool:
        return bool((method == "POST" and (_CREATOR_ROUTES.fullmatch(path) or _MOVES.fullmatch(path)))
                    or (method == "GET" and (_SEAT_VIEW.fullmatch(path) or path == "/v1/me/turns"))
                    or _MY_HOOKS.fullmatch(path) or _MATCH_HOOKS.fullmatch(path))

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """Sign the request in ``environ`` (when it is unsigned and its route is signed), then pass it on."""
        if not environ.get("HTTP_AUTHORIZATION", "").startswith("Portolan "):
            # The body is read whole and put back: the app must read exactly the bytes signed.
            body = environ["wsgi.input"].read()
            environ["wsgi.input"] = io.BytesIO(body)
            if "CONTENT_LENGTH" in environ or body:
                environ["CONTENT_LENGTH"] = str(len(body))
            request = Request(environ, populate_request=False, shallow=True)
            key = self.key_for(request.method, request.path, body)
            if key is not None:
                path = request.path + "/forged" if self.forged else request.path
                environ["HTTP_AUTHORIZATION"] = signing.authorization(
                    key, request.method, path, request.query_string.decode("latin-1"), body)
                self.signed += 1
        return self.app(environ, start_response)


def _envelope_seat(body: bytes) -> int | None:
    """The seat a move's envelope names, when the body is such a move."""
    try:
        seat = json.loads(body)["envelope"]["seat"]
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    return seat if isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0 else None
