"""The watchdog: every dispatched job is done in the end, whatever was killed on the way.

The dispatcher enqueues each job with a promise due ``PORTOLAN_JOB_DEADLINE_S`` later
(service.delivery.dispatch); the job keeps its promise when its work is done. Every worker
process runs a watchdog that looks for overdue promises every ``PORTOLAN_WATCHDOG_S``. It
postpones each one first (atomically, so of several watchdogs exactly one handles it), then asks
RQ about the job: queued in its queue, scheduled for a retry, or running for less than the job
timeout means it is on its way; anything else (its worker was SIGKILLed while running it or
between popping and starting it, it failed for good, or it returned without doing its work
because another worker held the mail's lease) means it is enqueued again, under its own id.

So a bot turn is retried until the ply moves on (the bot job keeps its promise once the ply it
was for is played, by it or anyone) and a notice until its "sent" mark is set. Cost: one ZADD and
HSET in the enqueueing MULTI, one ZREM and HDEL when the job is done, and one ZRANGEBYSCORE per
watchdog pass; nothing scans the matches.
"""

from __future__ import annotations

import logging
import threading
import time

from service.config import Settings
from service.delivery.dispatch import RQDispatcher
from service.storage.outage import Outage, redis_unreachable
from service.storage.store import Store

log = logging.getLogger("portolan.watchdog")


class Watchdog:
    """Re-enqueues the promised jobs that are overdue and lost (see the module docstring)."""

    def __init__(self, store: Store, rq: RQDispatcher, settings: Settings) -> None:
        self.store = store
        self.rq = rq
        self.settings = settings

    def check(self, now: float | None = None) -> int:
        """One pass; returns how many jobs were enqueued again."""
        at = time.time() if now is None else now
        again = 0
        for jid, spec in self.store.overdue_jobs(at):
            if not self.store.postpone_job(jid, at, at + self.settings.job_deadline_s):
                continue  # another watchdog has it, or the job kept its promise meanwhile
            state = self.rq.job_state(jid, at)
            if state != "lost":
                continue
            self.rq.again(jid, spec)
            again += 1
            log.warning("watchdog: job %s was lost (killed worker, failed for good, or deferred); enqueued again", jid)
        return again

    def run(self, stop: threading.Event) -> None:
        """Check every ``watchdog_s`` until ``stop`` is set; a Redis hiccup only skips a pass."""
        outage = Outage("watchdog", log, self.settings.redis_retry_max_s)
        wait_s = self.settings.watchdog_s
        while not stop.wait(wait_s):
            wait_s = self.settings.watchdog_s
            try:
                self.check()
                outage.ok()
            except Exception as exc:
                if redis_unreachable(exc):  # logged once per outage; the next pass comes within the backoff
                    wait_s = min(wait_s, outage.failed(exc))
                else:
                    log.exception("watchdog pass failed")
