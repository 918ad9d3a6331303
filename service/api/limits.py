"""Request rate limits (issue 9): Flask-Limiter on the store's Redis, answering 429 problem+json.

Every route has the read limit; creating a match, claiming a seat, moving and aborting have their
own (``service/config.py``: ``PORTOLAN_RATE_*``), and creating also one per address. A client is its signing key when the request
carries a Portolan signature that verifies (fresh ``ts``, the key's own signature over this very
request) and its address otherwise (behind a proxy, the address ProxyFix reads from
``X-Forwarded-For``; see :func:`service.api.create_app`). The signature is verified here, before
the route, but the nonce is spent only by the route (:func:`service.api.auth.signed_key`), so the
check costs the caller nothing. Why verify first: public keys are in every log and record, and a
bucket keyed on a merely named key let anyone exhaust its holder's budget with forged headers
(found by the second outside test of issue 9); forgeries now count against the sender's address.
A replayed header (same key and nonce, seen on the wire within its 300 s) still counts against its
key before the route refuses it; that needs the victim's traffic, which TLS keeps private. The
invitation quotas (service/play/throttle.py) are what bound the mail a creator can cause.

The counters share the store's connection pool, under ``<namespace>ratelimit``. When Redis does
not answer, the limiter lets the request through (``swallow_errors``): the route then meets the
same outage and answers 503 ``storage-unavailable``, never a 500 from the limiter.
"""

from __future__ import annotations

import math
import time
from typing import Any

import redis
from flask import Flask, Response, request
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address

from service.api.auth import verified_signer
from service.api.errors import problem
from service.config import Settings
from service.play.throttle import client_network
from service.storage.counters import limits_storage

# routes that change something, by endpoint: everything else has the read limit
_CREATE = ("matches.create",)
_WRITES = ("matches.claim", "matches.move", "matches.abort", "webhooks.add_my_hook", "webhooks.add_match_hook",
           "webhooks.remove_my_hook", "webhooks.remove_match_hook", "seat_keys.grant", "seat_keys.withdraw",
           "seat_keys.attach",
           # a preview costs what a move does (replay the steps, draw the picture) but stores nothing
           "boards.preview_move")
# Each ping makes the server send a request to a URL the caller chose: far fewer than writes,
# per key and per address (keys cost nothing), so pings cannot turn the server into a flood.
_PINGS = ("webhooks.ping_my_hook", "webhooks.ping_match_hook")
PINGS_PER_KEY = "20/hour"
PINGS_PER_ADDRESS = "100/hour"
# A PNG costs a few tenths of a second of CPU to draw (resvg), and any past ply may be asked for,
# so the read limit would let one client keep every core busy. The web client uses the SVG and the
# mails carry their PNG inline, so only the odd chat or mail client asks for this route: few per
# address, whatever keys it signs with.
_PICTURES = ("boards.board_png",)
PNGS_PER_ADDRESS = "60/minute"


def client_identity() -> str:
    """The bucket a request counts against: the key that verifiably signed it, else its client address."""
    key = verified_signer() if request.headers.get("Authorization", "").startswith("Portolan ") else None
    return f"key:{key}" if key is not None else client_address()


def client_address() -> str:
    """The bucket of the request's client address, whatever key it signs with (an IPv6 client
    as its /64: service.play.throttle.client_network)."""
    return f"addr:{client_network(get_remote_address())}"


def install(app: Flask, settings: Settings, client: redis.Redis) -> Limiter:
    """Put the limits of ``settings`` on every route of ``app`` (call after the blueprints are registered),
    counted in the store's Redis (``client``: its pool, or on a Redis Cluster limits' own cluster client)."""
    storage_uri, options = limits_storage(client, f"{settings.namespace}ratelimit")
    limiter = Limiter(
        client_identity,
        app=app,
        default_limits=[settings.rate_read],
        strategy="fixed-window",  # one round trip per limit and request; moving windows cost more
        storage_uri=storage_uri,
        storage_options=options,
        swallow_errors=True,
        headers_enabled=False,  # Retry-After is written by the 429 handler below
        enabled=settings.rate_limits,
    )
    if settings.rate_limits:
        _decorate(app, limiter, settings)

    @app.errorhandler(RateLimitExceeded)
    def _too_many(exc: RateLimitExceeded) -> Response:
        hit = limiter.current_limit
        retry_after = max(1, math.ceil(hit.reset_at - time.time())) if hit is not None else 60
        resp = problem(429, "rate-limited", "Too many requests",
                       f"this client sent more than {exc.limit.limit} to this route (the operator's rate limit); "
                       f"nothing was done: try again in {retry_after} s")
        resp.headers["Retry-After"] = str(retry_after)
        return resp

    return limiter


def _decorate(app: Flask, limiter: Limiter, settings: Settings) -> None:
    """Put the per-route limits on their routes. Only when the limits are on: a decorated route
    goes through Flask-Limiter's request bookkeeping even when the limiter is disabled (tens of
    µs a move, docs/performance.md)."""
    for endpoints, value in ((_CREATE, settings.rate_create), (_WRITES, settings.rate_write)):
        for endpoint in endpoints:
            view: Any = app.view_functions[endpoint]
            app.view_functions[endpoint] = limiter.limit(value)(view)
    # Creation also counts per address: a fresh key costs nothing, so per key alone a script
    # could create without end (each creation stores a match and may send mail).
    for endpoint in _CREATE:
        limiter.limit(settings.rate_create_per_address, key_func=client_address)(app.view_functions[endpoint])
    for endpoint in _PICTURES:
        png: Any = app.view_functions[endpoint]
        app.view_functions[endpoint] = limiter.limit(PNGS_PER_ADDRESS, key_func=client_address)(png)
    for endpoint in _PINGS:  # the decorated view must be the one served: its wrapper does the check
        view = limiter.limit(PINGS_PER_KEY)(app.view_functions[endpoint])
        app.view_functions[endpoint] = limiter.limit(PINGS_PER_ADDRESS, key_func=client_address)(view)
