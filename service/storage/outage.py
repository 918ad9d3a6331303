"""Riding out a Redis that went away: capped backoff, and one log line per outage.

Every loop of a worker (the RQ worker, each outbox group, the watchdog, the clock tick, the sweep)
keeps one :class:`Outage`. When a pass fails because Redis cannot be reached, the loop asks it how
long to wait (0.5 s, doubling up to ``PORTOLAN_REDIS_RETRY_MAX_S``); the first failure of an
outage is logged, the retries are not, and the first pass that works again says how long it took.
An operator restarting Redis sees two lines per loop, not one traceback a second per thread.
"""

from __future__ import annotations

import logging
import threading
import time

import redis

FIRST_WAIT_S = 0.5


def redis_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` means Redis could not be reached or answered nothing (refused, reset,
    timed out, still loading its data after a restart), rather than a fault of ours."""
    return isinstance(exc, (redis.ConnectionError, redis.TimeoutError))


class Outage:
    """The state of one loop's outage: when it began and how long the next wait is."""

    def __init__(self, what: str, log: logging.Logger, max_wait_s: float = 5.0) -> None:
        self.what = what
        self.log = log
        self.max_wait_s = max(FIRST_WAIT_S, max_wait_s)
        self.since: float | None = None
        self.wait_s = 0.0
        self.tries = 0
        self._lock = threading.Lock()

    @property
    def ongoing(self) -> bool:
        """Whether the last pass failed for want of Redis."""
        return self.since is not None

    def failed(self, exc: BaseException) -> float:
        """A pass failed on ``exc`` (Redis unreachable): the seconds to wait before the next try.
        Logs the first failure of an outage only."""
        with self._lock:
            self.tries += 1
            if self.since is None:
                self.since = time.monotonic()
                self.wait_s = FIRST_WAIT_S
                self.log.warning("%s: Redis went away (%s); trying again with backoff up to %g s, quietly",
                                 self.what, exc, self.max_wait_s)
            else:
                self.wait_s = min(self.max_wait_s, self.wait_s * 2)
            return self.wait_s

    def ok(self) -> None:
        """A pass worked: if an outage was going on, say once that it is over."""
        if self.since is None:
            return
        with self._lock:
            if self.since is None:
                return
            self.log.warning("%s: Redis is back after %.1f s (%d tries)", self.what, time.monotonic() - self.since,
                             self.tries)
            self.since = None
            self.tries = 0
            self.wait_s = 0.0
