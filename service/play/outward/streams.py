"""Live event streams: what a match stream and a key's ``me`` stream carry, read from the truth.

A match stream is read from the match's meta and log, never from memory: each event's SSE id is
the match's ply after it (``started`` 0, the move accepted at ply ``p`` is ``p + 1``; ``finished``
repeats the last move's ply, which already says ``status: finished`` and the outcome, and
``aborted`` is 0 before the start and repeats the last move's ply after it, like ``finished``), so ``Last-Event-ID: n`` resumes with every event after ply ``n``, no gap and no
duplicate. The ``me`` stream is a per-key inbox (written by the "inboxes" outbox consumer,
:func:`inbox_events`) whose entry ids are the SSE ids.

Nothing here knows Redis or HTTP: waiting goes through a :class:`Wakeups` port, the inbox
through an :class:`Inbox` port (service/storage/streams.py is the adapter of both).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from service.i18n import phrase
from service.play.errors import BadRequest
from service.play.outward import events
from service.play.outward.presence import SeatWatch
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.play.context import MatchContext

log = logging.getLogger("portolan.streams")
Item = tuple[str, dict[str, Any]] | None
"""What a stream yields: (SSE id, event object), or None for a heartbeat."""


class Waiter(Protocol):
    def wait(self, timeout: float) -> bool: ...


class Wakeups(Protocol):
    """Wake-ups by topic (``m:<match>``, ``i:<key>``): a hint to re-read, never the data."""

    def watch(self, topic: str) -> AbstractContextManager[Waiter]: ...


class Inbox(Protocol):
    def read(self, public_key: str, after: str | None, count: int = 100) -> list[tuple[str, dict[str, Any]]]: ...
    def newest(self, public_key: str) -> str | None: ...
    def later(self, a: str, b: str) -> bool: ...


@dataclass(frozen=True)
class Timing:
    """``heartbeat_s``: a comment after this long without an event (proxies drop silent
    connections); ``recheck_s``: re-read even without a wake-up (a lost one costs at most this);
    ``max_s``: the stream ends after this long and the client resumes with Last-Event-ID (a
    deploy or a recycled worker must not wait for streams that never end); ``hangup_s``: how
    often a waiting stream asks whether its client hung up (when it can tell: see ``gone`` of
    :func:`follow_match`), so a closed stream gives its slot back within this, not at the next
    write (issue 28, item 11)."""

    heartbeat_s: float = 15.0
    recheck_s: float = 5.0
    max_s: float = 600.0
    hangup_s: float = 1.0


DONE = ("finished", "aborted")


def parse_match_event_id(raw: str | None, meta: MatchMeta) -> int | None:
    """A match stream's Last-Event-ID: a ply this match has reached, or 400."""
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
        raise BadRequest("bad-last-event-id", phrase("Last-Event-ID must be a ply of this match (ASCII digits, the id of an event this stream sent), not {raw!r}", raw=raw[:40]))
    n = int(raw)
    never_started = meta.status == "waiting" or (meta.status == "aborted" and not meta.head)
    if n > meta.ply or (never_started and n > 0):
        raise BadRequest("bad-last-event-id", phrase("Last-Event-ID {n} is past this match (it is at ply {ply}, status {status}): it is not an id this stream sent", n=n, ply=meta.ply, status=meta.status))
    if meta.status == "waiting":  # nothing was ever sent: there is no event 0 to resume after
        raise BadRequest("bad-last-event-id", phrase("this match has not started, so its stream has sent no event yet; connect without Last-Event-ID"))
    return n


class Feed:
    """The events of one match for one viewer, read from the log once per process and shared by
    every stream of that match and viewer in the process.

    Why: one commit wakes every stream of its match at once; each reading the meta and the log
    itself made a herd of identical reads (50 streams on a match: 100 Redis calls per move). A
    feed re-reads only when its last read began before the caller's wake-up, so the herd costs
    one read, and what was read is never stale for the caller: a read that started after the
    caller learnt of a commit includes it. Log entries never change, so the events built from
    them are kept (a match's whole history: a few hundred events at most)."""

    def __init__(self, match_id: str, viewer: int | None) -> None:
        self.match_id = match_id
        self.viewer = viewer
        self.events: list[tuple[int, dict[str, Any]]] = []
        self.done = False
        self.read_at = float("-inf")
        self.users = 0
        self._next = 0  # the next log entry to read
        self._started = False
        self.lock = threading.Lock()

    def since(self, ctx: MatchContext, after: int | None, known_at: float,
              clock: Callable[[], float] = time.monotonic) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
        """The events after ply ``after`` (None: all), as of a read begun no earlier than
        ``known_at``, and whether the match is over."""
        with self.lock:
            if self.read_at < known_at and not self.done:
                self.read_at = clock()
                self._read(ctx)
            found = [(p, e) for p, e in self.events if after is None or p > after]
            return found, self.done

    def _read(self, ctx: MatchContext) -> None:
        meta = ctx.meta(self.match_id)
        status, ply = meta.status, int(meta.ply)
        if status == "aborted" and not meta.head:  # aborted before its start: nothing else to tell
            self.events.append((0, events.aborted(meta)))
            self.done = True
            return
        if status == "waiting":
            return
        if not self._started:
            self.events.append((0, events.started(meta, self.viewer)))
            self._started = True
        if self._next < ply:  # only up to the meta's ply: the log may already hold a later commit
            for entry in ctx.store.log(self.match_id, self._next, ply - 1):
                self.events.append((int(entry["ply"]) + 1, events.move(meta, entry, self.viewer)))
            self._next = ply
        if status in DONE:  # finished, or aborted after the start (the last vote or the timeout came first)
            self.events.append((ply, events.finished(meta) if status == "finished" else events.aborted(meta)))
            self.done = True


class Feeds:
    """The process's feeds, one per (match, viewer) while a stream uses it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._feeds: dict[tuple[str, int | None], Feed] = {}

    @contextmanager
    def use(self, match_id: str, viewer: int | None) -> Iterator[Feed]:
        with self._lock:
            feed = self._feeds.get((match_id, viewer))
            if feed is None:
                feed = self._feeds[(match_id, viewer)] = Feed(match_id, viewer)
            feed.users += 1
        try:
            yield feed
        finally:
            with self._lock:
                feed.users -= 1
                if feed.users == 0:
                    del self._feeds[(match_id, viewer)]

    def __len__(self) -> int:
        with self._lock:
            return len(self._feeds)


Gone = Callable[[], bool]
"""Whether the stream's client has hung up (the API asks its connection; a cheap, non-blocking look)."""


def follow_match(ctx: MatchContext, wakeups: Wakeups, feeds: Feeds, match_id: str, viewer: int | None, after: int | None,
                 timing: Timing, clock: Callable[[], float] = time.monotonic,
                 watch: SeatWatch | None = None, gone: Gone | None = None) -> Iterator[Item]:
    """Every event of the match after ply ``after`` as it happens, heartbeats between; ends when
    the match is over, after ``timing.max_s``, or within ``timing.hangup_s`` of ``gone`` saying the
    client hung up. ``watch``: the seat's presence, for a stream that proved the seat's key
    (service/play/outward/presence.py), kept while the stream runs (its loop comes round at least
    every ``recheck_s``) and given up when it ends, however it ends."""
    deadline = clock() + timing.max_s
    quiet_since = clock()
    try:
        with wakeups.watch(f"m:{match_id}") as waiter, feeds.use(match_id, viewer) as feed:
            known_at = clock()  # registered before this: any commit from here on wakes us
            while True:
                if watch is not None:
                    watch.beat(clock())
                found, done = feed.since(ctx, after, known_at, clock)
                for ply, event in found:
                    yield str(ply), event
                    after, quiet_since = ply, clock()
                if done:
                    return
                if (yield from _pause(waiter, timing, deadline, quiet_since, clock, gone)):
                    return
                known_at = clock()
                if known_at >= deadline:
                    return
                if known_at - quiet_since >= timing.heartbeat_s:
                    quiet_since = known_at
    finally:
        if watch is not None:
            _leave(watch)


def _leave(watch: SeatWatch) -> None:
    """Give the presence up; a failure is logged, not raised: the stream is over either way, and
    a presence left behind lapses by itself (the notice then follows after its TTL)."""
    try:
        watch.leave()
    except Exception as exc:  # Redis went away, most likely: the stream says so already
        log.warning("could not give up the presence of seat %d of match %s: %s", watch.seat, watch.match_id, exc)


def presence_timing(timing: Timing) -> tuple[float, float]:
    """(renew every, lapse after) of a stream's presence: renewed at each re-check (the loop's
    slowest round), lapsing after two heartbeats, the longest a closed connection can go unnoticed
    by a stream (a write to it fails at the next heartbeat), so a player who left is absent within
    one heartbeat of leaving, or two if the stream's process was killed."""
    every = min(timing.recheck_s, timing.heartbeat_s)
    return every, max(2 * timing.heartbeat_s, 2 * every)


def _pause(waiter: Waiter, timing: Timing, deadline: float, quiet_since: float,
           clock: Callable[[], float], gone: Gone | None = None) -> Generator[Item, None, bool]:
    """Wait for a wake-up, the re-check, the heartbeat or the end, whichever is first; yield a
    heartbeat when it is due. Returns True when the client hung up meanwhile (looked at every
    ``hangup_s`` while waiting): why, a closed connection is otherwise noticed only when a write
    to it fails, a heartbeat or two later, and kept its stream slot all that while."""
    now = clock()
    beat = quiet_since + timing.heartbeat_s
    until = now + min(timing.recheck_s, deadline - now, beat - now)
    while True:
        left = until - clock()
        if gone is not None:
            left = min(left, timing.hangup_s)
        if waiter.wait(left) or clock() >= until:
            break
        if gone is not None and gone():
            return True
    if clock() >= beat and clock() < deadline:
        yield None
    return False


def parse_inbox_event_id(raw: str | None, inbox: Inbox, public_key: str) -> str | None:
    """A me stream's Last-Event-ID: an inbox entry id this key's stream sent, or 400."""
    if raw is None:
        return None
    ms, sep, seq = raw.partition("-")
    if not (sep and raw.isascii() and ms.isdigit() and seq.isdigit() and len(ms) <= 20 and len(seq) <= 20):
        raise BadRequest("bad-last-event-id", phrase("Last-Event-ID must be the id of an event this stream sent (<digits>-<digits>), not {raw!r}", raw=raw[:40]))
    newest = inbox.newest(public_key)
    if newest is None or inbox.later(raw, newest):
        raise BadRequest("bad-last-event-id", phrase("Last-Event-ID {raw} is not an id this key's stream sent (its newest event is {newest}); connect without it to read from the oldest event kept", raw=raw, newest=newest or phrase('none yet')))
    return raw


def follow_inbox(inbox: Inbox, wakeups: Wakeups, public_key: str, after: str | None, timing: Timing,
                 clock: Callable[[], float] = time.monotonic, gone: Gone | None = None) -> Iterator[Item]:
    """The key's inbox after entry ``after`` (None: from the oldest kept), then as it grows;
    ends after ``timing.max_s`` or when ``gone`` says the client hung up (as :func:`follow_match`)."""
    deadline = clock() + timing.max_s
    quiet_since = clock()
    with wakeups.watch(f"i:{public_key}") as waiter:
        while True:
            while True:
                batch = inbox.read(public_key, after)
                for sid, event in batch:
                    yield sid, event
                    after, quiet_since = sid, clock()
                if len(batch) < 100:
                    break
            if (yield from _pause(waiter, timing, deadline, quiet_since, clock, gone)):
                return
            if clock() >= deadline:
                return
            if clock() - quiet_since >= timing.heartbeat_s:
                quiet_since = clock()


# -- what goes into the inboxes ------------------------------------------------------------------


def inbox_events(ctx: MatchContext, kind: str, match_id: str, ply: int, data: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(public key, event) for every inbox an outbox entry concerns: each human seat's key gets
    the match's events with its own seat's hidden events, and a ``your-turn`` when its seat
    becomes active; the creator's key hears of an abort. ``created`` goes to nobody: an invitee
    has no key until it claims (the invitation goes by mail)."""
    meta = ctx.store.meta(match_id)
    if meta is None:
        return []
    holders = [(s.seat, s.public_key) for s in meta.seats if s.kind == "human" and s.public_key]
    out: list[tuple[str, dict[str, Any]]] = []
    if kind == "aborted":
        keys = {key for _, key in holders} | ({meta.creator_key} if meta.creator_key else set())
        return [(key, events.aborted(meta)) for key in sorted(keys)]
    if kind == "started":
        # who acts first, as the start announced it (the meta may have moved on since)
        first = list(data.get("after") or (meta.active if meta.ply == 0 else []))
        then = meta.but(ply=0, active=tuple(first), updated_at=meta.started_at or meta.updated_at)
        for seat, key in holders:
            out.append((key, events.started(meta, seat)))
            if seat in first:
                out.append((key, events.your_turn(then, seat)))
        return out
    if kind == "reminder":  # the match clock: a reminder to its seat, a late note to everyone
        if meta.status != "active":
            return out
        ev = events.reminder(meta, data)
        return [(key, ev) for seat, key in holders if ev["reminder"] == "late" or seat == data.get("seat")]
    if kind != "moved" or ply < 1:
        return out
    entries = ctx.store.log(match_id, ply - 1, ply - 1)
    if not entries:
        return out
    entry = entries[0]
    before = list(data.get("before") or [])
    after = list(data.get("after") or [])
    # the match as it stood right after this move, for the your-turn (the meta may have moved on)
    then = meta.but(ply=ply, active=tuple(after), updated_at=entry["accepted_at"])
    for seat, key in holders:
        out.append((key, events.move(meta, entry, seat)))
        if seat in after and seat not in before:
            out.append((key, events.your_turn(then, seat)))
    if data.get("status") == "finished" and meta.status == "finished":
        out.extend((key, events.finished(meta)) for _, key in holders)
    if data.get("status") == "aborted" and meta.status == "aborted":  # by vote or timeout, after the start
        out.extend((key, events.aborted(meta)) for _, key in holders)
    return out
