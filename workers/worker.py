"""The worker entry point: ``portolan worker`` runs this.

One process runs three things:

- the **dispatcher** (service.delivery.outbox): one consumer in every outbox consumer group, in
  background threads, turning committed changes into RQ jobs (and stream and webhook work);
- an **RQ worker** listening to the bot queue first (a bot's move unblocks people), then the
  notice queue and the webhook queue, with RQ's scheduler on so retries with backoff happen;
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
from service.delivery.dispatch import RQDispatcher
from service.delivery.outbox import Dispatcher, install_default_groups
from service.delivery.watchdog import Watchdog
from service.runtime import build, connect

log = logging.getLogger("portolan.worker")


def sweep_forever(settings: Settings, every_s: float, stop: threading.Event) -> None:
    """Every ``every_s`` seconds, start matches whose start failed after their last claim,
    re-enqueue turn notices and bot turns that never went out, and enqueue the daily digests
    that are due (service.delivery.digests). Idempotent: a notice or digest that did go out has
    its mark, and a bot job for a ply already played does nothing."""
    from service.delivery.digests import enqueue_due_digests
    from service.play.listings import resend_unsent_notices, resume_stalled_bots, start_unstarted_matches
    from service.storage.preferences import DigestBook

    service = build(settings)
    rq = RQDispatcher(connect(settings.redis_url), settings, service.store)
    book = DigestBook(connect(settings.redis_url), settings.namespace)
    while not stop.wait(every_s):
        try:
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
        except Exception:  # keep sweeping: a Redis hiccup now is no reason to stop for good
            log.exception("sweep failed")


def dispatcher(settings: Settings, name: str | None = None) -> Dispatcher:
    """A dispatcher over this process's service, with the service's own consumer groups."""
    install_default_groups(settings)
    return Dispatcher(build(settings), settings, name=name)


QUEUES = ("bots", "notices", "webhooks")


def run(settings: Settings, burst: bool = False, fork: bool = False, name: str | None = None,
        sweep_every_s: float | None = None, kinds: tuple[str, ...] = QUEUES) -> bool:
    """Dispatch and process jobs until stopped. With ``burst``, alternate draining the outbox (and
    a watchdog pass) and running the queues empty until neither has anything left (tests, one-off
    catch-up).

    ``kinds`` picks the queues, in priority order. A webhook delivery may wait up to
    ``PORTOLAN_WEBHOOK_TIMEOUT`` on a slow receiver, and a worker runs one job at a time, so in
    production run webhook workers of their own (``portolan worker --queues webhooks``) beside
    ``--queues bots,notices``: then no receiver can delay a bot's move or a turn notice."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s worker %(message)s")
    client = connect(settings.redis_url)
    unknown = set(kinds) - set(QUEUES)
    if unknown or not kinds:
        raise ValueError(f"queues are some of {', '.join(QUEUES)}, not {', '.join(sorted(unknown)) or 'none'}")
    queues = [settings.queue_name(kind) for kind in kinds]
    cls = Worker if fork else SimpleWorker
    outbox = dispatcher(settings, name=f"{name}-outbox" if name else None)
    watchdog = Watchdog(outbox.service.store, RQDispatcher(client, settings, outbox.service.store), settings)
    if burst:
        ok = True
        while True:
            outbox.drain()
            watchdog.check()
            if all(Queue(q, connection=client).count == 0 for q in queues):
                return ok
            ok = bool(cls(queues, connection=client, name=name).work(burst=True, with_scheduler=True,
                                                                      logging_level="WARNING")) and ok
    sweep_s = settings.sweep_s if sweep_every_s is None else sweep_every_s
    log.info("worker %s: dispatcher (consumer %s in groups %s, claims after %.1f s), watchdog every %.1f s "
             "(job deadline %.1f s, job timeout %d s), sweep %s, RQ %s on %s", os.getpid(), outbox.name,
             ", ".join(sorted(outbox.groups)), outbox.claim_after_ms / 1000, settings.watchdog_s,
             settings.job_deadline_s, settings.job_timeout_s, f"every {sweep_s:g} s" if sweep_s > 0 else "off",
             cls.__name__, ", ".join(queues))
    stop = threading.Event()
    threading.Thread(target=outbox.run, args=(stop,), daemon=True, name="outbox").start()
    threading.Thread(target=watchdog.run, args=(stop,), daemon=True, name="watchdog").start()
    if sweep_s > 0:
        threading.Thread(target=sweep_forever, args=(settings, sweep_s, stop), daemon=True,
                         name="notice-sweep").start()
    worker = cls(queues, connection=client, name=name)
    try:
        return bool(worker.work(burst=False, with_scheduler=True, logging_level="WARNING"))
    finally:
        stop.set()
