"""The HTTP API: an app factory and one blueprint per resource (Flask's tutorial shape)."""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask, Response
from flask_cors import CORS
from werkzeug.middleware.proxy_fix import ProxyFix

from service import web
from service.api import (
    boards,
    errors,
    games,
    languages,
    limits,
    matches,
    metrics,
    notices,
    players,
    seat_keys,
    server,
    streams,
    unsubscribe,
    webhooks,
    words,
)
from service.api import vacations as vacation_routes
from service.api.clients import ClientStreams
from service.api.json_provider import FastJSONProvider
from service.config import Settings, open_clock
from service.observe import logs
from service.play.matches import Matches
from service.play.outward.streams import Feeds
from service.runtime import build, build_webhooks
from service.storage.streams import Wakeups


class _Flask(Flask):
    """Flask with the API's JSON provider (service/api/json_provider.py: orjson)."""

    json_provider_class = FastJSONProvider


def create_app(settings: Settings | None = None, service: Matches | None = None, **config: Any) -> Flask:
    """Build the API. ``service`` may be injected (tests); otherwise it is built from settings."""
    app = _Flask(__name__)
    app.config.update(JSON_SORT_KEYS=False, MAX_CONTENT_LENGTH=256 * 1024)
    app.config.update(config)
    settings = settings or Settings.from_env()
    # a file clock is refused here too, unless allowed, even with an injected service (/healthz says which)
    app.extensions["portolan.clock"] = open_clock(settings)
    service = service or build(settings)
    app.extensions["portolan"] = service
    app.extensions["portolan.settings"] = settings
    app.extensions["portolan.webhooks"] = build_webhooks(settings, service)
    # the waiting slots of ?wait=N long-polls in this process (see matches._poll)
    app.extensions["portolan.long_polls"] = threading.BoundedSemaphore(settings.long_polls) if settings.long_polls else None
    # open event streams per process (service/api/streams.py), and the one pub/sub listener that
    # wakes them and the long-polls
    app.extensions["portolan.streams"] = threading.BoundedSemaphore(settings.streams) if settings.streams else None
    app.extensions["portolan.client_streams"] = ClientStreams(settings.streams_per_client)  # issue 28, item 11
    app.extensions["portolan.feeds"] = Feeds()  # what the streams of one match share (play/streams.py)
    app.extensions["portolan.wakeups"] = Wakeups(service.store.r, service.store.events_channel())
    app.json.sort_keys = False  # type: ignore[attr-defined]
    languages.install(app)  # issue 29: the request's language (pages, detail sentences)
    words.install(app)  # and Content-Language on the answers whose words it chose
    errors.register(app)
    logs.configure()
    app.register_blueprint(metrics.bp)  # first: its hooks time every request
    app.register_blueprint(server.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(matches.bp)
    app.register_blueprint(boards.bp)  # board pictures and move previews
    app.register_blueprint(players.bp)
    app.register_blueprint(seat_keys.bp)
    app.register_blueprint(notices.bp)
    app.register_blueprint(unsubscribe.bp)  # RFC 8058 one-click, the URL in every mail's List-Unsubscribe
    app.register_blueprint(streams.bp)
    app.register_blueprint(webhooks.bp)
    app.register_blueprint(vacation_routes.bp)  # /v1/me/vacations
    app.register_blueprint(web.bp)  # the reference web client at / (service/web)
    # CORS (flask-cors): browsers on the allowed origins may call every route. Requests are
    # authenticated by their signature, never by cookies, so "*" is a safe default and no
    # credentials are ever allowed; the signature and JSON headers may be sent, and the headers
    # a client needs (versions, where a thing was made, when to retry) may be read.
    anyone = "*" in settings.cors_origins  # then answer "*" itself (one cacheable answer), not the echo
    CORS(app, origins="*" if anyone else list(settings.cors_origins), send_wildcard=anyone, supports_credentials=False,
         allow_headers=["Authorization", "Content-Type", "If-None-Match", "Prefer"],
         expose_headers=["ETag", "Location", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining",
                         "RateLimit-Reset", "RateLimit-Policy", "RateLimit", "Portolan-Now", "Preference-Applied"],
         methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"], max_age=86400)
    limits.install(app, settings, service.store.r)

    @app.after_request
    def say_the_time(response: Response) -> Response:
        # The service's clock (PORTOLAN_CLOCK) at this answer: a view's clock block holds no
        # reading time (it is cached by its ETag), so a client counts down from this header, which
        # a 304 carries fresh too; with a file clock it is not the client's own time.
        response.headers["Portolan-Now"] = service.now()
        return response

    if settings.proxies:  # only then is X-Forwarded-For the client's word, set by a proxy we trust
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxies)  # type: ignore[method-assign]
    return app
