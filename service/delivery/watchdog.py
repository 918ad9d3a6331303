"""The watchdog: every dispatched job is done in the end, whatever was killed on the way.

The dispatcher enqueues each job with a promise due ``PORTOLAN_JOB_DEADLINE_S`` later
(service.delivery.dispatch); the job keeps its promise when its work is done. Every worker
process runs a watchdog that looks for overdue promises every ``PORTOLAN_WATCHDOG_S``. It
postpones each one first (atomically, so of several watchdogs exactly one handles it), then asks
RQ about the job: queued in its queue, scheduled for a retry, or running for less than the job
timeout means it is on its way; anything else (its worker was SIGKILLed while running it or
between popping and starting it, it failed for good, or it returned without doing its work
because another worker held the mail's lease) means it is enqueued again, under its own id.

A job that RQ lists as started by a worker that no longer beats (service.storage.liveness: killed
while running it) is enqueued again at the next pass, not when its promise falls due: with the
mail's lease taken over from the dead worker (workers.jobs.send_once), a notice whose sender was
killed arrives ``PORTOLAN_WORKER_ALIVE_S`` plus a pass after the kill. Each worker's watchdog
makes its first pass as the worker starts.

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
        again = self.orphans()
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

    def orphans(self) -> int:
        """Re-enqueue the promised jobs RQ lists as started by a worker that no longer beats
        (killed while running them): at once, not when their promise falls due. Of several
        watchdogs one takes each (a mark per execution); returns how many."""
        found = self.rq.started_jobs()
        alive = self.rq.liveness.alive([w for _, _, w in found]) if found and self.rq.liveness else []
        again = 0
        for (jid, eid, worker), live in zip(found, alive, strict=True):
            if live:
                continue
            spec = self.store.promise_of(jid)
            if spec is None:  # kept already, or a job without a promise (a clock tick)
                continue
            if not self.store.claim_once(f"orphan:{jid}:{eid}", ttl=86400):
                continue
            self.rq.again(jid, spec)
            again += 1
            log.warning("watchdog: job %s was running in worker %s, which no longer beats; enqueued again", jid, worker)
        return again

    def run(self, stop: threading.Event) -> None:
        """Check now (a worker that starts after a crash picks up what the crash left) and then
        every ``watchdog_s`` until ``stop`` is set; a Redis outage is said once and the next pass
        comes within the backoff."""
        outage = Outage("watchdog", log, self.settings.redis_retry_max_s)
        wait_s = self.settings.watchdog_s
        while True:
            try:
                self.check()
                outage.ok()
                wait_s = self.settings.watchdog_s
            except Exception as exc:
                if redis_unreachable(exc):  # logged once per outage
                    wait_s = min(self.settings.watchdog_s, outage.failed(exc))
                else:
                    log.exception("watchdog pass failed")
            if stop.wait(wait_s):
                return
