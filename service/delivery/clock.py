"""Scheduling the match clock: when each timed match must next be woken, on RQ's own scheduler.

What is due for a seat whose clock runs (and is played by its player), as the match stands:

- **reminders** before the deadline (``reminder_times``: half time, 24 h left): only the latest
  one that has come, once;
- the **daily late note** from the deadline on, every 24 h until the timeout policy acts: only
  the latest one that has come (a worker down for two days sends one note, not three), once;
- the **timeout** at ``acts_at`` (deadline + grace): ``Matches.timeout``, idempotent.

"Once" is a mark in Redis per match, seat, clock start (``since``) and reminder (or late day),
so a new turn of the same seat starts afresh and a wake that runs twice does nothing twice.

**Two ways to wake, one truth.** Every started or moved match (the outbox consumer group
``clock``) and every wake computes the match's next wake from :meth:`Matches.clock_status`,
stores it in the deadline index (service.storage.clock, by the service clock) and schedules the
job ``workers.clock.wake`` there with ``enqueue_at(clock.to_system(when))`` under the id
``clock-<match>-<epoch>`` and a promise (service.delivery.dispatch), so the watchdog re-enqueues
a lost one. The index is what survives: the worker's tick (every ``PORTOLAN_CLOCK_TICK_S``, and
at once after ``portolan clock advance`` through :func:`tick_now`) wakes every match whose entry
is due, whatever became of the RQ jobs, and a file clock moved forward (which RQ, on the system
clock, knows nothing of) is acted on at the next tick.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from service.clock import Clock, iso
from service.config import Settings
from service.delivery.dispatch import RQDispatcher
from service.play.matches import Matches
from service.storage.clock import Deadlines
from service.storage.connection import connect
from service.storage.outbox_streams import OutboxRecord
from service.storage.store import Store

log = logging.getLogger("portolan.clock")

GROUP = "clock"
DAY = timedelta(days=1)
RETRY_S = 30.0
"""How soon a wake looks again at something due that it could not do (another wake held it)."""
TICK_S = 60.0
"""How often the worker's tick wakes the overdue matches of the index (``PORTOLAN_CLOCK_TICK_S``)."""


class SeatStatus(Protocol):
    """What the clock needs of one seat's status (service.play.clock.clocks.SeatClockStatus)."""

    @property
    def seat(self) -> int: ...
    @property
    def controller(self) -> str: ...
    @property
    def running(self) -> bool: ...
    @property
    def since(self) -> datetime | None: ...
    @property
    def deadline(self) -> datetime | None: ...
    @property
    def acts_at(self) -> datetime | None: ...
    @property
    def reminders(self) -> Sequence[tuple[str, datetime]]: ...


@dataclass(frozen=True)
class Due:
    """One thing the clock must do for a seat: a ``reminder`` (``name``: half, 24h), a ``late``
    note (``day``: 0 at the deadline, then 1, 2...) or the ``timeout``; ``when`` it came due."""

    kind: str
    seat: int
    when: datetime
    since: datetime
    name: str = ""
    day: int = 0

    def mark(self, match_id: str) -> str:
        """The one-time mark that says it was done ("" for a timeout: Matches.timeout is its own guard)."""
        at = int(self.since.timestamp())
        if self.kind == "reminder":
            return f"remind:{match_id}:{self.seat}:{at}:{self.name}"
        if self.kind == "late":
            return f"late:{match_id}:{self.seat}:{at}:{self.day}"
        return ""


def plan(statuses: Sequence[SeatStatus], now: datetime) -> tuple[list[Due], datetime | None]:
    """What is due at ``now`` (marks not consulted) and the earliest later moment something will be."""
    due: list[Due] = []
    later: list[datetime] = []
    for st in statuses:
        if st.controller != "player" or not st.running or None in (st.since, st.deadline, st.acts_at):
            continue
        since, deadline, acts_at = st.since, st.deadline, st.acts_at
        assert since is not None and deadline is not None and acts_at is not None
        if now >= acts_at:
            due.append(Due("timeout", st.seat, acts_at, since))
            continue
        later.append(acts_at)
        if now >= deadline:
            day = int((now - deadline) // DAY)
            due.append(Due("late", st.seat, deadline + day * DAY, since, day=day))
            if deadline + (day + 1) * DAY < acts_at:
                later.append(deadline + (day + 1) * DAY)
            continue
        if deadline < acts_at:  # the first late note; with no grace the timeout comes at once
            later.append(deadline)
        come = [(n, w) for n, w in st.reminders if w <= now]
        if come:
            name, when = come[-1]
            due.append(Due("reminder", st.seat, when, since, name=name))
        later += [w for _, w in st.reminders if w > now]
    return due, min(later) if later else None


def undone(store: Store, match_id: str, due: Sequence[Due]) -> list[Due]:
    """Of the due things, those not done yet (timeouts always: their guard is the commit)."""
    marks = [d.mark(match_id) for d in due]
    taken = store.marked([m for m in marks if m])
    done = dict(zip([m for m in marks if m], taken, strict=True))
    return [d for d, m in zip(due, marks, strict=True) if not m or not done[m]]


def clock_of(settings: Settings) -> Clock:
    """The service clock the settings name (``PORTOLAN_CLOCK``)."""
    return Clock.named(settings.clock)


def tick_every_s(settings: Settings) -> float:
    """``PORTOLAN_CLOCK_TICK_S`` (default 60; 0: no tick of its own, only the sweep's)."""
    return float(settings.clock_tick_s)


def wake_job_id(match_id: str, when: float) -> str:
    """The deterministic id of the wake of ``match_id`` due at epoch ``when`` (service clock)."""
    return f"clock-{match_id}-{int(when)}"


@dataclass
class Scheduler:
    """Computes and schedules the next wake of matches: the index and the RQ job."""

    matches: Matches
    rq: RQDispatcher
    clock: Clock

    @property
    def deadlines(self) -> Deadlines:
        return Deadlines(self.matches.store.r, self.matches.store.ns)

    def schedule(self, match_id: str, *, current_job: str | None = None, retry: bool = False) -> datetime | None:
        """Store and schedule the match's next wake as it stands now; None (and no index entry)
        when nothing will ever be due. ``retry``: something due could not be done by this wake,
        so look again in RETRY_S rather than at once. ``current_job``: the wake job running this,
        which must not be scheduled again under its own id while it runs."""
        meta = self.matches.store.meta(match_id)
        if meta is None or meta.status != "active":
            self.deadlines.drop(match_id)
            return None
        now = self.matches.moment()
        due, later = plan(self.matches.clock_status(meta, now), now)
        pending = undone(self.matches.store, match_id, due)
        when = (now + timedelta(seconds=RETRY_S) if retry else now) if pending else later
        if when is None:
            self.deadlines.drop(match_id)
            return None
        at = when.timestamp()
        self.deadlines.set(match_id, at)
        jid = wake_job_id(match_id, at)
        if jid != current_job:
            at_system = self.clock.to_system(when)
            # due already: straight onto the queue (a burst worker does not wait for the scheduler)
            self.rq.wake_at(match_id, None if at_system.timestamp() <= time.time() else at_system, jid)
        log.debug("match %s: next wake %s (%s)", match_id, iso(when), jid)
        return when


def scheduler_of(matches: Matches, settings: Settings) -> Scheduler:
    """The scheduler over ``matches`` (its store's Redis) and the settings' clock."""
    return Scheduler(matches, RQDispatcher(matches.store.q, settings, matches.store), clock_of(settings))


def outbox_handler(settings: Settings) -> Callable[[Matches, OutboxRecord], None]:
    """The ``clock`` consumer group: a started or moved match gets its next wake (re)computed;
    an aborted one loses its index entry. Idempotent: it reads the match as it stands."""
    made: dict[int, Scheduler] = {}

    def handle(m: Matches, entry: OutboxRecord) -> None:
        if entry.kind not in ("started", "moved", "aborted"):
            return
        s = made.get(id(m))
        if s is None:
            s = made[id(m)] = scheduler_of(m, settings)
        s.schedule(entry.match)

    return handle


def tick_now(settings: Settings) -> str:
    """Enqueue a clock tick at once (``portolan clock advance`` calls this after moving a file
    clock): the workers act on every deadline the move passed now, not at their next tick.
    Returns the job id. Raises redis' ConnectionError when Redis cannot be reached."""
    rq = RQDispatcher(connect(settings.queue_url), settings)
    return rq.tick()

