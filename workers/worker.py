"""The worker entry point: ``portolan worker`` runs this.

One process runs three things:

- the **dispatcher** (service.delivery.outbox): one consumer in every outbox consumer group, in
  background threads, turning committed changes into RQ jobs (and stream and webhook work);
- an **RQ worker** listening to the bot queue first (a bot's move unblocks people), then the
  notice queue and the webhook queue, with RQ's scheduler on so retries with backoff happen;
- the **clock tick** (workers.clock.tick, every ``PORTOLAN_CLOCK_TICK_S``, 60 s, and in every
  sweep): every match whose next wake in the deadline index (service.storage.clock) is due by
  the service clock is woken, whatever became of its scheduled RQ job; this is what makes the
  clock survive a restart of every process, and what acts on a file clock moved forward;
- the **watchdog** (service.delivery.watchdog): every job is enqueued with a promise that the
  job keeps when its work is done; an overdue promise whose job is neither queued nor running
  (its worker was killed) is enqueued again, so a bot turn is retried until the ply moves on and
  a notice until it is sent.

Any number of such processes may run; killing one at any point loses nothing (see the outbox
and watchdog modules). By default jobs run in the worker process (RQ's SimpleWorker: no fork
per job, which matters for bots that make many small moves); ``fork=True`` gives each job its
own process. A slow safety-net sweep (``PORTOLAN_SWEEP_S``, 5 minutes) still looks for what no
outbox entry explains (a start that failed after the last claim, before the outbox had the
start); it finds nothing in a healthy installation, and the kill tests hold it to that.
"""

from __future__ import annotations

import logging
import os
import threading

from rq import Queue, SimpleWorker, Worker

from service.config import Settings
from service.delivery.clock import scheduler_of, tick_every_s
from service.delivery.dispatch import RQDispatcher
from service.delivery.outbox import Dispatcher, install_default_groups
from service.delivery.watchdog import Watchdog
from service.observe import logs
from service.observe.metrics import serve_worker_metrics
from service.runtime import build
from service.storage.connection import connect
from workers.clock import tick_with

log = logging.getLogger("portolan.worker")


def sweep_forever(settings: Settings, every_s: float, stop: threading.Event) -> None:
    """Every ``every_s`` seconds, start matches whose start failed after their last claim,
    re-enqueue turn notices and bot turns that never went out, enqueue the daily digests
    that are due (service.delivery.digests) and archive the matches that ended
    ``PORTOLAN_ARCHIVE_AFTER_DAYS`` ago (service.play.archiving). Idempotent: a notice or digest that did go out has
    its mark, and a bot job for a ply already played does nothing."""
    from service.delivery.digests import enqueue_due_digests
    from service.play.archiving import archive_due
    from service.play.listings import resend_unsent_notices, resume_stalled_bots, start_unstarted_matches
    from service.storage.preferences import DigestBook

    service = build(settings)
    rq = RQDispatcher(connect(settings.queue_url), settings, service.store)
    book = DigestBook(connect(settings.redis_url), settings.namespace)
    clock = scheduler_of(service, settings)
    while not stop.wait(every_s):
        try:
            log.info("sweep: clock tick: %s", tick_with(service, clock))
            n = start_unstarted_matches(service)
            if n:
                log.warning("sweep: started %d match(es) whose start had failed after the last claim", n)
            n = resend_unsent_notices(service, rq)
            if n:
                log.warning("sweep: re-enqueued %d turn notice(s) that never went out", n)
            n = resume_stalled_bots(service, rq)
            if n:
                log.warning("sweep: re-enqueued %d bot turn(s) that nobody was going to play", n)
            n = enqueue_due_digests(service.store, book, rq, settings.digest_hour, service.moment())
            if n:
                log.info("sweep: enqueued %d daily digest(s)", n)
            for done in archive_due(service, service.moment().timestamp(), settings.archive_after_days):
                if done.error:
                    log.warning("sweep: could not archive %s (it stays in Redis): %s", done.match, done.error)
                else:
                    log.info("sweep: archived %s to %s", done.match, done.where)
        except Exception:  # keep sweeping: a Redis hiccup now is no reason to stop for good
            log.exception("sweep failed")


def tick_forever(settings: Settings, every_s: float, stop: threading.Event) -> None:
    """Every ``every_s`` seconds, wake the matches whose next wake is due (workers.clock.tick)."""
    service = build(settings)
    clock = scheduler_of(service, settings)
    while not stop.wait(every_s):
        try:
            said = tick_with(service, clock)
            if not said.startswith("woke 0 "):
                log.info("clock tick: %s", said)
        except Exception:  # keep ticking: a Redis hiccup now is no reason to stop for good
            log.exception("clock tick failed")


def dispatcher(settings: Settings, name: str | None = None) -> Dispatcher:
    """A dispatcher over this process's service, with the service's own consumer groups."""
    install_default_groups(settings)
    return Dispatcher(build(settings), settings, name=name)


QUEUES = ("bots", "clock", "notices", "webhooks")


def with_clock(kinds: tuple[str, ...]) -> tuple[str, ...]:
    """The queues to work: the clock's wakes go with the bot turns (both move matches, and a
    timeout is what a stand-in's turn waits on), so a worker of the bot queue works the clock
    queue right after it unless the clock queue is named on its own."""
    if "bots" in kinds and "clock" not in kinds:
        i = kinds.index("bots") + 1
        return (*kinds[:i], "clock", *kinds[i:])
    return kinds


def run(settings: Settings, burst: bool = False, fork: bool = False, name: str | None = None,
        sweep_every_s: float | None = None, kinds: tuple[str, ...] = QUEUES) -> bool:
    """Dispatch and process jobs until stopped. With ``burst``, alternate draining the outbox (and
    a watchdog pass) and running the queues empty until neither has anything left (tests, one-off
    catch-up).

    ``kinds`` picks the queues, in priority order. A webhook delivery may wait up to
    ``PORTOLAN_WEBHOOK_TIMEOUT`` on a slow receiver, and a worker runs one job at a time, so in
    production run webhook workers of their own (``portolan worker --queues webhooks``) beside
    ``--queues bots,notices``: then no receiver can delay a bot's move or a turn notice."""
    logs.configure()
    if settings.worker_metrics_port:  # no shared multiprocess folder: this worker serves its own
        serve_worker_metrics(settings.worker_metrics_port)
    client = connect(settings.queue_url)
    unknown = set(kinds) - set(QUEUES)
    if unknown or not kinds:
        raise ValueError(f"queues are some of {', '.join(QUEUES)}, not {', '.join(sorted(unknown)) or 'none'}")
    kinds = with_clock(kinds)
    queues = [settings.queue_name(kind) for kind in kinds]
    cls = Worker if fork else SimpleWorker
    outbox = dispatcher(settings, name=f"{name}-outbox" if name else None)
    watchdog = Watchdog(outbox.service.store, RQDispatcher(client, settings, outbox.service.store), settings)
    if burst:
        ok = True
        clock = scheduler_of(outbox.service, settings)
        while True:
            tick_with(outbox.service, clock)  # first: what its wakes commit is drained right after
            outbox.drain()
            watchdog.check()
            if all(Queue(q, connection=client).count == 0 for q in queues):
                return ok
            ok = bool(cls(queues, connection=client, name=name).work(burst=True, with_scheduler=True,
                                                                      logging_level="WARNING")) and ok
    sweep_s = settings.sweep_s if sweep_every_s is None else sweep_every_s
    log.info("worker %s: dispatcher (consumer %s in groups %s, claims after %.1f s), watchdog every %.1f s "
             "(job deadline %.1f s, job timeout %d s), sweep %s, clock tick %s, RQ %s on %s", os.getpid(), outbox.name,
             ", ".join(sorted(outbox.groups)), outbox.claim_after_ms / 1000, settings.watchdog_s,
             settings.job_deadline_s, settings.job_timeout_s, f"every {sweep_s:g} s" if sweep_s > 0 else "off",
             f"every {tick_every_s(settings):g} s" if "clock" in kinds else "off", cls.__name__, ", ".join(queues))
    stop = threading.Event()
    threading.Thread(target=outbox.run, args=(stop,), daemon=True, name="outbox").start()
    threading.Thread(target=watchdog.run, args=(stop,), daemon=True, name="watchdog").start()
    if sweep_s > 0:
        threading.Thread(target=sweep_forever, args=(settings, sweep_s, stop), daemon=True,
                         name="notice-sweep").start()
    tick_s = tick_every_s(settings)
    if tick_s > 0 and "clock" in kinds:
        threading.Thread(target=tick_forever, args=(settings, tick_s, stop), daemon=True, name="clock-tick").start()
    worker = cls(queues, connection=client, name=name)
    try:
        return bool(worker.work(burst=False, with_scheduler=True, logging_level="WARNING"))
    finally:
        stop.set()
