"""The worker entry point: ``portolan worker`` runs this.

One worker listens to the bot queue first (a bot's move unblocks people), then the notice
queue and the webhook queue, with RQ's scheduler on so retries with backoff happen. By default jobs run in the
worker process (RQ's SimpleWorker: no fork per job, which matters for bots that make many
small moves); ``fork=True`` gives each job its own process, as RQ's default Worker does.
"""

from __future__ import annotations

import logging
import threading

from rq import SimpleWorker, Worker

from service.config import Settings
from service.runtime import connect

log = logging.getLogger("portolan.worker")


def sweep_forever(settings: Settings, every_s: float, stop: threading.Event) -> None:
    """Every ``every_s`` seconds, start matches whose start failed after their last claim, and
    re-enqueue turn notices and bot turns that never went out (a crash between a move's commit
    and its enqueue). Idempotent: a notice that did go out has its
    mark, and a bot job for a ply already played does nothing."""
    from service.play.listings import resend_unsent_notices, resume_stalled_bots, start_unstarted_matches
    from service.runtime import build

    service = build(settings)
    while not stop.wait(every_s):
        try:
            n = start_unstarted_matches(service)
            if n:
                log.warning("sweep: started %d match(es) whose start had failed after the last claim", n)
            n = resend_unsent_notices(service)
            if n:
                log.warning("sweep: re-enqueued %d turn notice(s) that never went out", n)
            n = resume_stalled_bots(service)
            if n:
                log.warning("sweep: re-enqueued %d bot turn(s) that nobody was going to play", n)
        except Exception:  # keep sweeping: a Redis hiccup now is no reason to stop for good
            log.exception("sweep failed")


def run(settings: Settings, burst: bool = False, fork: bool = False, name: str | None = None,
        sweep_every_s: float = 60.0) -> bool:
    """Process jobs until stopped (or, with ``burst``, until the queues are empty). Unless in
    burst mode, a background thread sweeps for unsent turn notices every ``sweep_every_s``."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s worker %(message)s")
    stop = threading.Event()
    if not burst and sweep_every_s > 0:
        threading.Thread(target=sweep_forever, args=(settings, sweep_every_s, stop), daemon=True,
                         name="notice-sweep").start()
    client = connect(settings.redis_url)
    cls = Worker if fork else SimpleWorker
    queues = [settings.queue_name("bots"), settings.queue_name("notices"), settings.queue_name("webhooks")]
    worker = cls(queues, connection=client, name=name)
    try:
        return bool(worker.work(burst=burst, with_scheduler=True, logging_level="WARNING"))
    finally:
        stop.set()
