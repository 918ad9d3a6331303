"""Server-sent event streams: a match's events, and everything a key should hear of (``/v1/me``).

``text/event-stream`` (the WHATWG HTML "server-sent events" format): each event is ``id:`` (a
resume point), ``event:`` (the event's ``type``) and one ``data:`` line of JSON (the event object
of service/play/outward/events.py); a ``: keepalive`` comment goes out after 15 s without an event, and
the first block is a ``retry:`` hint. ``Last-Event-ID`` (the header an ``EventSource`` sends when
it reconnects; ``?last_event_id=`` for a first connect that cannot set headers, the header wins
when both are there) resumes right after that event. Everything is read from the log or the inbox,
so a reconnect misses nothing and repeats nothing. Refusals happen before the stream begins, as
problem+json like everywhere else: 429 past the client's own streams (``PORTOLAN_STREAMS_PER_CLIENT``
per address, per /64 on IPv6), 503 past the process's (``PORTOLAN_STREAMS``). A stream whose client
hangs up gives both back within a second (the stream looks at its connection while it waits), not
at its next write.
"""

from __future__ import annotations

import functools
import json
import logging
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, request

from service import games, i18n
from service.api.auth import signed_key
from service.api.clients import ClientStreams, request_client
from service.api.matches import _arg, _int_arg
from service.api.words import event_words, speaking
from service.delivery.dispatch import job_id
from service.i18n import phrase
from service.observe.metrics import STREAMS
from service.play.errors import TooManyRequests, Unavailable
from service.play.matches import Matches
from service.play.outward import streams
from service.play.outward.presence import SeatWatch
from service.storage.presence import Presence
from service.storage.streams import Inboxes, Wakeups

bp = Blueprint("streams", __name__)
log = logging.getLogger("portolan.api")
RETRY_MS = 3000
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}  # no proxy may buffer a stream


def _last_event_id() -> str | None:
    header = request.headers.get("Last-Event-ID")
    return header if header is not None else _arg("last_event_id")


def frame(sid: str, event: dict[str, Any]) -> str:
    """One SSE block; the JSON is one line (json.dumps escapes every newline inside strings)."""
    return f"id: {sid}\nevent: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n"


@functools.cache
def _system_poll() -> Callable[[], Any]:
    """The system's own ``select.poll`` (gevent's monkey-patching replaces the module's)."""
    try:
        from gevent.monkey import get_original
    except ImportError:  # pragma: no cover - gevent is a dependency; a server without it has the real poll
        return select.poll
    found: Callable[[], Any] = get_original("select", "poll")
    return found


def _hangup_probe() -> streams.Gone | None:
    """A look at whether this request's client has hung up, or None when the server does not
    hand the connection over (gunicorn says ``gunicorn.socket``, werkzeug ``werkzeug.socket``).
    Hung up: the connection reads as end-of-file (or fails). Bytes the client sent meanwhile are
    left where they are (only peeked at): a live client."""
    sock = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
    if not isinstance(sock, socket.socket):
        return None

    def gone() -> bool:
        try:
            # poll, not select: a busy process's descriptors go past select's 1024; and the
            # system's poll even under gevent: a look that never waits needs no trip through
            # the hub (with gevent's, 1,500 idle streams cost 9 % of a core; with this, 6.6 %,
            # against 1.9 % without the look)
            poller = _system_poll()()
            poller.register(sock.fileno(), select.POLLIN)
            if not poller.poll(0):
                return False
            return sock.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):  # reset, or already closed under us
            return True

    return gone


def in_words(event: dict[str, Any], language: str) -> dict[str, Any]:
    """An event object with ``words``: its rules events described in ``language`` (one string per
    event, in order), for the events of a match's ``started`` and ``move``. A new object: the
    event itself is shared by every stream of its match in this process (a feed), whatever their
    languages, and never changed."""
    if not isinstance(event.get("events"), list):
        return event
    game = games.get(str(event.get("game")))
    if game is None:
        return event
    return {**event, "words": event_words(game, event["events"], language)}


def _stream(items: Iterator[streams.Item], slot: Slot, language: str = i18n.DEFAULT) -> Response:
    """The SSE response over ``items``; the words in ``language``, the language of the request that
    opened it (the body runs after the request, so it is chosen here, once)."""
    def body() -> Iterator[str]:
        try:
            yield f"retry: {RETRY_MS}\n: connected\n\n"
            for item in items:
                yield ": keepalive\n\n" if item is None else frame(item[0], in_words(item[1], language))
        except Exception:  # the headers are gone: end the stream; the client resumes from its last id
            log.warning("event stream ended by an error", exc_info=True)

    released = threading.Event()

    def done() -> None:
        # on close, not in the generator's finally: a response closed before its first chunk
        # (the client hung up at once) never runs the generator, and would keep its slot for ever
        if released.is_set():
            return
        released.set()
        STREAMS.dec()
        try:
            items.close()  # type: ignore[attr-defined]
        finally:
            slot.release()

    response = Response(body(), mimetype="text/event-stream", headers={**HEADERS, "Content-Language": language})
    STREAMS.inc()
    response.call_on_close(done)
    return response


def _client_streams() -> ClientStreams:
    found: ClientStreams = current_app.extensions["portolan.client_streams"]
    return found


@dataclass(frozen=True)
class Slot:
    """What an open stream holds: one of its client's streams and one of the process's slots
    (given back when the response closes, outside any request or app context)."""

    client: str
    per_client: ClientStreams
    process: threading.BoundedSemaphore | None

    def release(self) -> None:
        """Give both back."""
        self.per_client.give_back(self.client)
        if self.process is not None:
            self.process.release()


def _slot() -> Slot:
    """One of the client's streams (``PORTOLAN_STREAMS_PER_CLIENT``), or 429, and one of the
    process's stream slots (``PORTOLAN_STREAMS``), or 503: a stream is held for minutes, so a
    process bounds how many it keeps open rather than run out of sockets, and how many of them
    one client may hold, so that one client cannot take them all (issue 28, item 11)."""
    client = request_client()
    per_client = _client_streams()
    if not per_client.take(client):
        raise TooManyRequests("too-many-streams-from-client", phrase("this client ({client}) holds {cap} open event streams on this server process, as many as one client may; close one (or share one stream between tabs) and try again", client=client, cap=per_client.cap), retry_after=10)
    slots: threading.BoundedSemaphore | None = current_app.extensions["portolan.streams"]
    if slots is not None and not slots.acquire(blocking=False):
        per_client.give_back(client)
        raise Unavailable("too-many-streams", phrase("this server process holds as many open event streams as it may; try again shortly (or poll GET /v1/matches/{{id}}?wait=30)"), retry_after=5)
    return Slot(client, per_client, slots)


def _timing() -> streams.Timing:
    timing: streams.Timing = current_app.config.get("PORTOLAN_STREAM_TIMING") or streams.Timing()
    return timing


@bp.get("/v1/matches/<match_id>/events")
def match_events(match_id: str) -> Any:
    """The match's events as they happen. Public by default; with ``?seat=N`` and a request
    signed by that seat's key, the seat's hidden events too (and never another seat's)."""
    m: Matches = current_app.extensions["portolan"]
    wakeups: Wakeups = current_app.extensions["portolan.wakeups"]
    seat = _int_arg("seat", -1, 0, 63) if _arg("seat") is not None else None
    raw_last = _last_event_id()
    meta = m.authenticate(match_id, seat, signed_key()) if seat is not None else m.meta(match_id)
    after = streams.parse_match_event_id(raw_last, meta)
    if after is not None and meta.status in streams.DONE and after >= meta.ply:
        return Response(status=204, headers=HEADERS)  # all sent and nothing will follow: EventSource stops
    slot = _slot()
    timing = _timing()
    # a stream that proved the seat's key keeps the seat's player present: no turn notice while it is open
    watch = None if seat is None else _seat_watch(m, match_id, seat, timing)
    if watch is not None:
        # present from before the answer's headers: a client that sees its stream open may count on
        # it (a turn that starts from here on waits for it); should the body never be read, the
        # presence lapses by its TTL, as a killed process's does
        watch.beat(time.monotonic())
    return _stream(streams.follow_match(m, wakeups, current_app.extensions["portolan.feeds"], match_id, seat, after,
                                         timing, watch=watch, gone=_hangup_probe()), slot, speaking())


def _seat_watch(m: Matches, match_id: str, seat: int, timing: streams.Timing) -> SeatWatch:
    """The presence of a seat-authenticated stream (docs/architecture.md, 'The way out'); when it
    ends with the seat still to act, the notice's promise is made due now, so the watchdog's next
    pass runs the notice job (nothing is enqueued from a request)."""
    def hurry(mid: str, s: int, ply: int) -> None:
        m.store.job_due_by(job_id("notice", mid, s, ply), time.time())

    every, ttl = streams.presence_timing(timing)
    return SeatWatch(m, Presence(m.store.r, m.store.ns), hurry, match_id, seat, every, ttl)


@bp.get("/v1/me/events")
def my_events() -> Any:
    """Everything the signing key should hear of, across its matches: its turns, the moves of its
    matches (with its seats' hidden events), finished and aborted matches."""
    m: Matches = current_app.extensions["portolan"]
    wakeups: Wakeups = current_app.extensions["portolan.wakeups"]
    key = signed_key()
    inbox = Inboxes(m.store.r, m.store.ns)
    after = streams.parse_inbox_event_id(_last_event_id(), inbox, key)
    slot = _slot()
    return _stream(streams.follow_inbox(inbox, wakeups, key, after, _timing(), gone=_hangup_probe()), slot, speaking())
