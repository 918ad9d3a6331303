"""The worker entry point: ``portolan worker`` runs this.

One worker listens to the bot queue first (a bot's move unblocks people) and then the notice
queue, with RQ's scheduler on so retries with backoff happen. By default jobs run in the
worker process (RQ's SimpleWorker: no fork per job, which matters for bots that make many
small moves); ``fork=True`` gives each job its own process, as RQ's default Worker does.
"""

from __future__ import annotations

import logging

from rq import SimpleWorker, Worker

from service.config import Settings
from service.runtime import connect


def run(settings: Settings, burst: bool = False, fork: bool = False, name: str | None = None) -> bool:
    """Process jobs until stopped (or, with ``burst``, until the queues are empty)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s worker %(message)s")
    client = connect(settings.redis_url)
    cls = Worker if fork else SimpleWorker
    worker = cls([settings.queue_name("bots"), settings.queue_name("notices")], connection=client, name=name)
    return bool(worker.work(burst=burst, with_scheduler=True, logging_level="WARNING"))
