"""The worker entry point: ``portolan worker`` runs this.

One process runs two things:

- the **dispatcher** (service.delivery.outbox): one consumer in every outbox consumer group, in
  background threads, turning committed changes into RQ jobs (and stream and webhook work);
- an **RQ worker** listening to the bot queue first (a bot's move unblocks people) and then the
  notice queue, with RQ's scheduler on so retries with backoff happen.

Any number of such processes may run; killing one at any point loses nothing (see the outbox
module). By default jobs run in the worker process (RQ's SimpleWorker: no fork per job, which
matters for bots that make many small moves); ``fork=True`` gives each job its own process.
A slower safety-net sweep still looks for matches the outbox cannot explain (a start that failed
after the last claim; a job that failed for good); it finds nothing in a healthy installation.
"""

from __future__ import annotations

import logging
import threading

from rq import Queue, SimpleWorker, Worker

from service.config import Settings
from service.delivery.dispatch import RQDispatcher
from service.delivery.outbox import Dispatcher, install_default_groups
from service.runtime import build, connect

log = logging.getLogger("portolan.worker")


def sweep_forever(settings: Settings, every_s: float, stop: threading.Event) -> None:
    """Every ``every_s`` seconds, start matches whose start failed after their last claim, and
    re-enqueue turn notices and bot turns that never went out. Idempotent: a notice that did go
    out has its mark, and a bot job for a ply already played does nothing."""
    from service.play.listings import resend_unsent_notices, resume_stalled_bots, start_unstarted_matches

    service = build(settings)
    rq = RQDispatcher(connect(settings.redis_url), settings)
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
        except Exception:  # keep sweeping: a Redis hiccup now is no reason to stop for good
            log.exception("sweep failed")


def dispatcher(settings: Settings, name: str | None = None) -> Dispatcher:
    """A dispatcher over this process's service, with the service's own consumer groups."""
    install_default_groups(settings)
    return Dispatcher(build(settings), settings, name=name)


def run(settings: Settings, burst: bool = False, fork: bool = False, name: str | None = None,
        sweep_every_s: float = 60.0) -> bool:
    """Dispatch and process jobs until stopped. With ``burst``, alternate draining the outbox and
    running the queues empty until neither has anything left (tests, one-off catch-up)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s worker %(message)s")
    client = connect(settings.redis_url)
    queues = [settings.queue_name("bots"), settings.queue_name("notices")]
    cls = Worker if fork else SimpleWorker
    outbox = dispatcher(settings, name=f"{name}-outbox" if name else None)
    if burst:
        ok = True
        while True:
            outbox.drain()
            if all(Queue(q, connection=client).count == 0 for q in queues):
                return ok
            ok = bool(cls(queues, connection=client, name=name).work(burst=True, with_scheduler=True,
                                                                      logging_level="WARNING")) and ok
    stop = threading.Event()
    threading.Thread(target=outbox.run, args=(stop,), daemon=True, name="outbox").start()
    if sweep_every_s > 0:
        threading.Thread(target=sweep_forever, args=(settings, sweep_every_s, stop), daemon=True,
                         name="notice-sweep").start()
    worker = cls(queues, connection=client, name=name)
    try:
        return bool(worker.work(burst=False, with_scheduler=True, logging_level="WARNING"))
    finally:
        stop.set()
