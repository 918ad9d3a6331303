"""The dispatcher: consumers of the outbox that every commit appends to (docs/architecture.md, "The way out").

A commit (creation, start, move, abort) appends one entry to its bucket's outbox stream in the
same atomic step (service.storage.store). Here, one **consumer group per concern** reads every
bucket's stream and hands each entry to its handler:

============  ==============================================================================
``jobs``      turn notices, bot turns, match-over mail and invitations, as RQ jobs
``webhooks``  one webhook delivery job per (hook, event) (service.delivery.webhooks)
``inboxes``   each player key's event inbox (``GET /v1/me/events``, service/delivery/inboxes.py)
``clock``     each timed match's next wake: reminders, late notes, timeouts (service.delivery.clock)
(others)      registered with :func:`register` by the streams and webhooks
============  ==============================================================================

Delivery is at least once. An entry is acknowledged only after its handler returned; a handler
that raises leaves it pending, and an entry pending longer than ``claim_after_s`` (its consumer
was killed, or the handler failed) is claimed by a live consumer and handled again. So any
number of dispatchers may run (each is one consumer in every group), and killing one at any
point loses nothing. Handlers must therefore be idempotent: the RQ jobs they enqueue have
deterministic ids and marks, and a bot turn for a ply already played does nothing; each job is
enqueued with a promise that the watchdog keeps an eye on (service.delivery.watchdog), so a job
whose RQ worker was killed is enqueued again.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from typing import Any

from service.config import Settings
from service.delivery import clock, inboxes, webhooks
from service.delivery.dispatch import RQDispatcher
from service.play.matches import Matches
from service.proof.match_record import MatchMeta
from service.proof.standing import Standing
from service.storage.outage import Outage, redis_unreachable
from service.storage.outbox_streams import OutboxRecord

log = logging.getLogger("portolan.dispatcher")
AFTER_OUTAGE_MS = 1000
"""Once Redis is back, entries pending this long are claimed at once: a handler takes milliseconds,
so an entry idle a second was left by the outage (or a dispatcher that died in it)."""

OutboxEntry = OutboxRecord
Handler = Callable[[Matches, OutboxEntry], None]
"""Handle one outbox entry; raise to leave it pending (it is handled again later)."""

_HANDLERS: dict[str, Handler] = {}


def register(group: str, handler: Handler) -> None:
    """Add a consumer group: every dispatcher hands each outbox entry to ``handler`` once
    (at least once) for ``group``, independently of the other groups."""
    _HANDLERS[group] = handler


def handlers() -> dict[str, Handler]:
    """The registered consumer groups and their handlers."""
    return dict(_HANDLERS)


def consumer_name() -> str:
    """This process's consumer name: host, pid and a random suffix (a restarted process is a new
    consumer; the entries its predecessor left pending are claimed after ``claim_after_s``)."""
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class Dispatcher:
    """One consumer in every registered group, over one service (store and RQ connection)."""

    def __init__(self, service: Matches, settings: Settings, name: str | None = None,
                 claim_after_s: float | None = None, groups: dict[str, Handler] | None = None) -> None:
        self.service = service
        self.settings = settings
        self.name = name or consumer_name()
        # PORTOLAN_OUTBOX_CLAIM_S: how long a killed consumer's entries wait for another one
        self.claim_after_ms = int((settings.outbox_claim_s if claim_after_s is None else claim_after_s) * 1000)
        self.groups = handlers() if groups is None else groups
        for group in self.groups:
            service.store.ensure_group(group)

    def _handle(self, group: str, handler: Handler, records: list[OutboxRecord]) -> int:
        done = 0
        for record in records:
            try:
                handler(self.service, record)
            except Exception:  # left pending: claimed and handled again after claim_after_s
                log.exception("%s: handling %s %s of match %s failed; it stays pending", group, record.kind,
                              record.stream_id, record.match)
                continue
            self.service.store.ack_outbox(group, record)
            done += 1
        return done

    def step(self, group: str, block_ms: int | None = None, claim: bool = False) -> int:
        """Handle what is new for ``group`` (waiting up to ``block_ms`` for something) and, with
        ``claim``, what other consumers left pending too long. Returns how many entries were handled."""
        handler = self.groups[group]
        store = self.service.store
        done = 0
        if claim:
            done += self._handle(group, handler, store.claim_outbox(group, self.name, self.claim_after_ms))
        done += self._handle(group, handler, store.read_outbox(group, self.name, block_ms=block_ms))
        return done

    def drain(self) -> int:
        """Handle everything new in every group, without waiting (tests, ``worker --burst``)."""
        total = 0
        for group in self.groups:
            while n := self.step(group):
                total += n
        return total

    def run(self, stop: threading.Event, block_ms: int = 1000) -> None:
        """Consume until ``stop`` is set: one thread per group, so a slow group (say, one whose
        handler fails and waits for its retry) never holds up another."""
        threads = [threading.Thread(target=self._loop, args=(g, stop, block_ms), daemon=True, name=f"outbox-{g}")
                   for g in self.groups]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def _loop(self, group: str, stop: threading.Event, block_ms: int) -> None:
        # wait no longer than half the claim time between claims, so a killed consumer's
        # entries are taken over between claim_after_s and 1.5 x claim_after_s after their read
        block_ms = max(50, min(block_ms, self.claim_after_ms // 2))
        claim_every = max(1, self.claim_after_ms // block_ms // 2)
        turn = 0
        outage = Outage(f"outbox {group}", log, self.settings.redis_retry_max_s)
        while not stop.is_set():
            try:
                if outage.ongoing:  # Redis is back: first take what the outage left pending (an
                    # entry whose handler failed for want of Redis), not claim_after_s later
                    self._handle(group, self.groups[group],
                                 self.service.store.claim_outbox(group, self.name, AFTER_OUTAGE_MS))
                self.step(group, block_ms=block_ms, claim=turn % claim_every == 0)
                outage.ok()
            except Exception as exc:  # Redis went away: wait and try again, never die
                if redis_unreachable(exc):  # logged once per outage, not once a try
                    stop.wait(outage.failed(exc))
                else:
                    log.exception("%s: reading the outbox failed", group)
                    stop.wait(1.0)
            turn += 1


# -- the "jobs" group: notices, bot turns, match-over mail, invitations --------------------------

def _jobs(settings: Settings) -> Callable[[Matches, OutboxEntry], None]:
    rq: dict[str, RQDispatcher] = {}

    def handle(service: Matches, entry: OutboxEntry) -> None:
        dispatcher = rq.get("d")
        if dispatcher is None:
            dispatcher = rq["d"] = RQDispatcher(service.store.q, settings, service.store)
        jobs_for(service, dispatcher, entry)

    return handle


def jobs_for(service: Matches, dispatcher: RQDispatcher, entry: OutboxEntry) -> None:
    """Enqueue the RQ jobs an outbox entry calls for. Idempotent (deterministic job ids, marks).

    A seat the server plays (a bot seat, or a person's seat a stand-in, a skip or the bot of a
    forfeited seat plays now: ``Standing.server_plays``) gets the bot job, never a turn notice;
    a match that ended, by its rules, by forfeits or by an abort after its start, the end mail."""
    data: dict[str, Any] = entry.data
    if entry.kind == "created":
        for seat, invite in sorted(data.get("invites", {}).items()):
            dispatcher.invite(entry.match, int(seat), invite["email"], invite["token"], invite.get("language", "en"))
        return
    if entry.kind not in ("started", "moved"):
        return
    meta = service.meta(entry.match)
    seats = meta.seats
    before = data.get("before", [])
    after = data.get("after", [])
    served = server_played(meta)
    humans = [s for s in after if seats[s].is_human and s not in before and s not in served]
    if humans:
        dispatcher.turn(entry.match, entry.ply, humans)
    for s in after:
        if seats[s].is_bot or s in served:
            dispatcher.bot(entry.match, entry.ply, s)
    if data.get("status") in ("finished", "aborted"):
        dispatcher.finished(entry.match, entry.ply, [s.seat for s in seats if s.kind == "human"])


def server_played(meta: MatchMeta) -> set[int]:
    """The human seats the server moves for now (meta.standing; none in a match without one)."""
    raw = meta.standing
    if not raw:
        return set()
    standing = Standing.from_json(raw)
    return {s for s in range(len(standing.controllers)) if standing.server_plays(s)}


def install_default_groups(settings: Settings) -> None:
    """Register the service's own consumer groups (idempotent)."""
    register("jobs", _jobs(settings))
    register(webhooks.GROUP, webhooks.outbox_handler(settings))
    register(inboxes.GROUP, inboxes.handle)  # the per-key inboxes of GET /v1/me/events
    register(clock.GROUP, clock.outbox_handler(settings))
