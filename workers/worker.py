"""The worker entry point: ``portolan worker`` runs this.

One process runs three things:

- the **dispatcher** (service.delivery.outbox): one consumer in every outbox consumer group, in
  background threads, turning committed changes into RQ jobs (and stream and webhook work);
- an **RQ worker** on the queues it is given (``--queues``; a bare ``portolan worker`` runs one
  such process per queue group, service.tools.supervise), with RQ's scheduler on so retries with
  backoff happen; when Redis goes away it leaves its loop and a fresh one starts once Redis
  answers (:class:`RidesOutRedis`, :func:`serve_queues`), in the same process;
- the **clock tick** (workers.clock.tick, every ``PORTOLAN_CLOCK_TICK_S``, 60 s, and in every
  sweep): every match whose next wake in the deadline index (service.storage.clock) is due by
  the service clock is woken, whatever became of its scheduled RQ job; this is what makes the
  clock survive a restart of every process, and what acts on a file clock moved forward;
- the **watchdog** (service.delivery.watchdog): every job is enqueued with a promise that the
  job keeps when its work is done; an overdue promise whose job is neither queued nor running
  (its worker was killed) is enqueued again, so a bot turn is retried until the ply moves on and
  a notice until it is sent; a job started by a worker that no longer beats is enqueued again at
  once (first pass as the worker starts);
- the **heartbeat** (service.delivery.heartbeat): the RQ worker's name is alive while it runs, so
  what a SIGKILLed worker held (a running job, a mail's sending lease) is known dead
  ``PORTOLAN_WORKER_ALIVE_S`` after the kill.

Any number of such processes may run; killing one at any point loses nothing (see the outbox
and watchdog modules). By default jobs run in the worker process (RQ's SimpleWorker: no fork
per job, which matters for bots that make many small moves); ``fork=True`` gives each job its
own process. A slow safety-net sweep (``PORTOLAN_SWEEP_S``, 5 minutes) still looks for what no
outbox entry explains (a start that failed after the last claim, before the outbox had the
start); it finds nothing in a healthy installation, and the kill tests hold it to that.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType

import redis
from redis import Redis
from redis.client import Pipeline
from rq import Queue, SimpleWorker, Worker
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.scheduler import RQScheduler
from rq.worker import BaseWorker

from service.config import Settings
from service.delivery import dkim_sign
from service.delivery.clock import scheduler_of, tick_every_s
from service.delivery.dispatch import RQDispatcher
from service.delivery.heartbeat import Heartbeat
from service.delivery.outbox import Dispatcher, install_default_groups
from service.delivery.watchdog import Watchdog
from service.observe import logs
from service.observe.metrics import serve_worker_metrics
from service.runtime import build
from service.storage.connection import connect
from service.storage.liveness import Liveness
from service.storage.outage import Outage, redis_unreachable
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
    outage = Outage("sweep", log, settings.redis_retry_max_s)
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
            outage.ok()
        except Exception as exc:  # keep sweeping: a Redis hiccup now is no reason to stop for good
            if redis_unreachable(exc):
                outage.failed(exc)  # the next pass is the retry; said once per outage
            else:
                log.exception("sweep failed")


def tick_forever(settings: Settings, every_s: float, stop: threading.Event) -> None:
    """Every ``every_s`` seconds, wake the matches whose next wake is due (workers.clock.tick)."""
    service = build(settings)
    clock = scheduler_of(service, settings)
    outage = Outage("clock tick", log, settings.redis_retry_max_s)
    wait_s = every_s
    while not stop.wait(wait_s):
        wait_s = every_s
        try:
            said = tick_with(service, clock)
            if not said.startswith("woke 0 "):
                log.info("clock tick: %s", said)
            outage.ok()
        except Exception as exc:  # keep ticking: a Redis hiccup now is no reason to stop for good
            if redis_unreachable(exc):  # tick again as soon as Redis is back, not a minute later
                wait_s = min(every_s, outage.failed(exc))
            else:
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


class StopsListeningInOrder(BaseWorker):
    """An RQ worker whose command listener stops at once when the worker stops.

    RQ's worker listens for commands (kill-horse, stop-job, shutdown) in a redis-py pubsub thread
    that polls for 60 s at a time. RQ's teardown sends UNSUBSCRIBE and only then stops that
    thread: when the thread reads the server's reply first, it finds itself subscribed to nothing
    but still told to run, and waits in ``get_message`` for a subscription that never comes, for
    the rest of its 60 s. Since redis-py 8.2 ``PubSubWorkerThread.stop()`` waits for the thread,
    so the teardown waited that long too (issue 26: one burst in five on a loaded machine; before
    8.2, RQ's ``join(timeout=1)`` gave up after a second and left the thread behind)."""

    def unsubscribe(self) -> None:
        """Stop the listener, then wake it with a message on its own channel: it returns from its
        poll, finds itself stopped and closes its connection, which ends the subscription. The
        message goes over the worker's own connection, so no two threads ever use the listener's
        (sending UNSUBSCRIBE on it after the stop could race the listener closing it)."""
        thread, pubsub = self.pubsub_thread, self.pubsub
        if thread is None or pubsub is None:
            return
        if "timeout" in inspect.signature(thread.stop).parameters:
            thread.stop(timeout=0)  # redis-py 8.2+: stop() also waits for the thread unless told not to
        else:
            thread.stop()
        try:
            # a command RQ does not know, which its handle_command passes over: it only wakes the listener
            self.connection.publish(self.pubsub_channel_name, json.dumps({"command": "listener-stopping"}))
        finally:
            # at most a message's round trip; the bound is for a Redis that went away meanwhile (the
            # listener then backs off 2 s on its connection error before it sees the stop)
            thread.join(timeout=5)
            pubsub.close()
            self.pubsub_thread = None


class RedisGone(Exception):
    """Redis could not be reached from inside RQ's work loop: leave the loop (the caller waits for
    Redis and starts a fresh RQ worker, scheduler and all; see :func:`serve_queues`)."""


class QuietScheduler(RQScheduler):
    """RQ's scheduler process, ending quietly when Redis goes away: RQ's own re-raises, and its
    process dies with a traceback on stderr at every outage. The worker starts a fresh one once
    Redis is back (:func:`serve_queues`)."""

    def work(self) -> None:
        """RQ's scheduling loop, until a stop or an unreachable Redis."""
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
            super().work()  # type: ignore[no-untyped-call]


class RidesOutRedis(StopsListeningInOrder):
    """An RQ worker that leaves its work loop as soon as Redis is unreachable, and whose teardown
    then does what it can without Redis.

    RQ 3 retries a failed BLPOP with its own backoff (and a log line per try), but a Redis error
    anywhere else in its loop (a job's result written back, the heartbeat after a job, its
    maintenance) ends ``work()`` with "found an unhandled exception, quitting", and its scheduler
    process dies on the first failed heartbeat and is looked at again only at the next maintenance
    (10 minutes). So this worker turns the first failed heartbeat into :class:`RedisGone`, leaving
    the loop on every outage alike; :func:`serve_queues` waits for Redis and starts afresh."""

    stopping = False
    """A stop was asked for (SIGINT, SIGTERM): the end of ``work()`` is the end, not an outage."""
    cut_short: str | None = None
    """The id of the job the outage interrupted (RQ keeps it "started" for its whole timeout)."""

    def execute_job(self, job: Job, queue: Queue) -> None:
        """RQ's execution; remembers the job when Redis went away under it (``cut_short``)."""
        try:
            super().execute_job(job, queue)  # type: ignore[no-untyped-call]
        except (redis.ConnectionError, redis.TimeoutError, RedisGone):
            self.cut_short = job.id
            raise

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        """RQ's warm shutdown, remembered (``stopping``) so the worker is not started again."""
        self.stopping = True
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    def _start_scheduler(self, burst: bool = False, logging_level: str | None = "INFO",
                         date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
                         log_format: str = DEFAULT_LOGGING_FORMAT) -> None:
        """RQ's (rq.worker.base), with :class:`QuietScheduler` for its scheduler; a serving worker
        only (a burst one does not get here)."""
        self.scheduler = QuietScheduler(self.queues, connection=self.connection,
                                        logging_level=logging_level if logging_level is not None else self.log.level,
                                        date_format=date_format, log_format=log_format, serializer=self.serializer)
        self.scheduler.acquire_locks()  # type: ignore[no-untyped-call]
        if self.scheduler.acquired_locks and not burst:
            self.scheduler.start()  # type: ignore[no-untyped-call]

    def heartbeat(self, timeout: int | None = None, pipeline: Pipeline | None = None) -> None:
        """RQ's heartbeat; a Redis that cannot be reached raises :class:`RedisGone`, which RQ's
        dequeue loop does not catch and retry."""
        try:
            super().heartbeat(timeout, pipeline)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise RedisGone(str(exc)) from exc

    def teardown(self) -> None:
        """RQ's teardown, each step on its own: its scheduler stopped, its death registered (left to
        its key's TTL when Redis is gone) and its command listener stopped."""
        if self.is_horse:
            super().teardown()  # type: ignore[no-untyped-call]
            return
        if self.scheduler:
            self.stop_scheduler()  # type: ignore[no-untyped-call]
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
            # without Redis: the worker's key lapses by its TTL
            self.register_death()  # type: ignore[no-untyped-call]
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
            self.unsubscribe()  # without Redis: stopped and closed all the same (StopsListeningInOrder)


class QuietAboutRedis(logging.Filter):
    """Drops RQ's log records about an unreachable Redis (one per retry, with tracebacks): the
    outage is said once by :class:`~service.storage.outage.Outage`."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a record about Redis being unreachable."""
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and (redis_unreachable(exc) or isinstance(exc, RedisGone)):
            return False
        text = record.getMessage()
        return not any(s in text for s in ("could not connect to Redis", "Redis connection timeout", "RedisGone",
                                            "redis.exceptions.ConnectionError", "redis.exceptions.TimeoutError"))


def quiet_rq_about_redis() -> None:
    """Install :class:`QuietAboutRedis` on RQ's worker and scheduler loggers (once)."""
    for name in ("rq.worker", "rq.scheduler"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, QuietAboutRedis) for f in logger.filters):
            logger.addFilter(QuietAboutRedis())


class ListensForNoCommands(StopsListeningInOrder):
    """An RQ worker without a command listener: for bursts. A burst worker lives for one call of
    ``work_burst``, and nothing sends it commands (they are addressed to a worker by name, for a
    long-running one); a listener would cost it a thread and a connection of its own, and was
    where its teardown waited."""

    def subscribe(self) -> None:
        """Listen to nothing: ``pubsub_thread`` stays None, so RQ's teardown has nothing to stop."""


class SimpleServingWorker(RidesOutRedis, SimpleWorker):
    """RQ's SimpleWorker (jobs in this process), with its listener stopped in order, leaving its
    loop when Redis goes away."""


class ForkingServingWorker(RidesOutRedis, Worker):
    """RQ's Worker (a process per job), with its listener stopped in order, leaving its loop when
    Redis goes away."""


class SimpleBurstWorker(ListensForNoCommands, SimpleWorker):
    """RQ's SimpleWorker for a burst: no command listener."""


class ForkingBurstWorker(ListensForNoCommands, Worker):
    """RQ's Worker for a burst: no command listener."""


def worker_class(fork: bool, burst: bool) -> type[BaseWorker]:
    """The RQ worker class to run: a process per job with ``fork``; without a command listener
    for a ``burst``."""
    if burst:
        return ForkingBurstWorker if fork else SimpleBurstWorker
    return ForkingServingWorker if fork else SimpleServingWorker


def work_burst(queues: list[str], client: Redis, fork: bool = False, name: str | None = None,
               liveness: Liveness | None = None, alive_s: float = 10.0) -> bool:
    """Run ``queues`` empty with one RQ burst worker (its scheduler enqueues what is due first);
    True if it ran any job. With ``liveness`` it beats while it works (service.delivery.heartbeat)."""
    worker = worker_class(fork, burst=True)(queues, connection=client, name=name)
    if liveness is None:
        return bool(worker.work(burst=True, with_scheduler=True, logging_level="WARNING"))
    with Heartbeat(liveness, worker.name, alive_s):
        return bool(worker.work(burst=True, with_scheduler=True, logging_level="WARNING"))


def run(settings: Settings, burst: bool = False, fork: bool = False, name: str | None = None,
        sweep_every_s: float | None = None, kinds: tuple[str, ...] = QUEUES) -> bool:
    """Dispatch and process jobs until stopped. With ``burst``, alternate draining the outbox (and
    a watchdog pass) and running the queues empty until neither has anything left (tests, one-off
    catch-up).

    ``kinds`` picks the queues, in priority order. A worker runs one job at a time, so the mail,
    the bots and the webhooks each have processes of their own (service.tools.supervise,
    ``WORKER_GROUPS``): then no bot flood and no slow receiver can delay a turn notice."""
    logs.configure()
    if settings.worker_metrics_port:  # no shared multiprocess folder: this worker serves its own
        serve_worker_metrics(settings.worker_metrics_port)
    client = connect(settings.queue_url)
    unknown = set(kinds) - set(QUEUES)
    if unknown or not kinds:
        raise ValueError(f"queues are some of {', '.join(QUEUES)}, not {', '.join(sorted(unknown)) or 'none'}")
    kinds = with_clock(kinds)
    dkim_sign.check(settings)  # a bad PORTOLAN_DKIM_KEY stops the worker here, not in a mail job
    queues = [settings.queue_name(kind) for kind in kinds]
    outbox = dispatcher(settings, name=f"{name}-outbox" if name else None)
    watchdog = Watchdog(outbox.service.store, RQDispatcher(client, settings, outbox.service.store), settings)
    store = outbox.service.store
    alive = Liveness(store.r, store.q, store.ns)  # the worker beats while it runs: see service.delivery.heartbeat
    if burst:
        ok = True
        clock = scheduler_of(outbox.service, settings)
        while True:
            tick_with(outbox.service, clock)  # first: what its wakes commit is drained right after
            outbox.drain()
            watchdog.check()
            if all(Queue(q, connection=client).count == 0 for q in queues):
                return ok
            ok = work_burst(queues, client, fork=fork, name=name, liveness=alive, alive_s=settings.worker_alive_s) and ok
    sweep_s = settings.sweep_s if sweep_every_s is None else sweep_every_s
    log.info("worker %s: dispatcher (consumer %s in groups %s, claims after %.1f s), watchdog every %.1f s "
             "(job deadline %.1f s, job timeout %d s), sweep %s, clock tick %s, RQ %s on %s", os.getpid(), outbox.name,
             ", ".join(sorted(outbox.groups)), outbox.claim_after_ms / 1000, settings.watchdog_s,
             settings.job_deadline_s, settings.job_timeout_s, f"every {sweep_s:g} s" if sweep_s > 0 else "off",
             f"every {tick_every_s(settings):g} s" if "clock" in kinds else "off", "Worker" if fork else "SimpleWorker",
             ", ".join(queues))
    stop = threading.Event()
    threading.Thread(target=outbox.run, args=(stop,), daemon=True, name="outbox").start()
    threading.Thread(target=watchdog.run, args=(stop,), daemon=True, name="watchdog").start()
    if sweep_s > 0:
        threading.Thread(target=sweep_forever, args=(settings, sweep_s, stop), daemon=True,
                         name="notice-sweep").start()
    tick_s = tick_every_s(settings)
    if tick_s > 0 and "clock" in kinds:
        threading.Thread(target=tick_forever, args=(settings, tick_s, stop), daemon=True, name="clock-tick").start()
    def redo(jid: str) -> None:
        # the job an outage cut short can never finish; RQ would call it running until its
        # timeout and more: drop it, and have the watchdog's next pass enqueue it again (jobs are
        # idempotent, and a promise the job kept before the outage stays kept)
        with contextlib.suppress(NoSuchJobError):
            Job.fetch(jid, connection=client).delete()
        outbox.service.store.job_due_by(jid, time.time())

    try:
        return serve_queues(settings, queues, client, fork=fork, name=name, redo=redo, alive=alive)
    finally:
        stop.set()


def serve_queues(settings: Settings, queues: list[str], client: Redis, fork: bool = False,
                 name: str | None = None, redo: Callable[[str], None] | None = None,
                 alive: Liveness | None = None) -> bool:
    """Run an RQ worker (with its scheduler) on ``queues`` until a stop is asked for; when it
    leaves its loop for any other reason (Redis went away, most often), wait for Redis with a
    capped backoff (said once per outage) and start a fresh one in this same process, after
    ``redo`` of the job the outage cut short, if any. True if any job ran."""
    quiet_rq_about_redis()
    outage = Outage(f"RQ worker on {', '.join(queues)}", log, settings.redis_retry_max_s)
    stopping = threading.Event()
    worked = False
    rounds = 0
    while True:
        # A pool of its own: RQ waits in BLPOP for up to 405 s and raises its connection's socket
        # timeout to 415 s, but only for connections made after it does; the shared pool already
        # holds the dispatcher's and watchdog's, made with redis-py's default of 5 s. BLPOP on one
        # of those timed out, and RQ backed off up to 60 s before it looked at its queues again: a
        # restarted worker left a notice waiting a minute more (issue 28, item 9).
        worker = worker_class(fork, burst=False)(queues, connection=Redis.from_url(settings.queue_url),
                                                 name=name if name is None or not rounds else f"{name}.{rounds}")
        rounds += 1
        began = time.monotonic()
        # each RQ worker beats under its own name (service.delivery.heartbeat): a round cut short by
        # an outage stops beating, so the job it was running counts as its dead worker's
        beating = Heartbeat(alive, worker.name, settings.worker_alive_s) if alive is not None else None
        try:
            if beating is not None:
                with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
                    beating.start()
            worked = bool(worker.work(burst=False, with_scheduler=True, logging_level="WARNING")) or worked
        except (RedisGone, redis.ConnectionError, redis.TimeoutError) as exc:
            outage.failed(exc)  # raised by its teardown or a signal handler: Redis is gone
        finally:
            if beating is not None:
                beating.stop()
        # RQ's handlers are the old worker's from here on: ours, until the next worker installs its own
        signal.signal(signal.SIGINT, lambda *_: stopping.set())
        signal.signal(signal.SIGTERM, lambda *_: stopping.set())
        if (isinstance(worker, RidesOutRedis) and worker.stopping) or stopping.is_set():
            return worked
        if not wait_for_redis(client, outage, stopping):
            return worked
        if outage.ongoing:
            outage.ok()
        elif time.monotonic() - began < 5 and stopping.wait(1.0):
            return worked  # it quit soon with Redis up (a fault of its own, logged by RQ): no tight loop
        if redo is not None and isinstance(worker, RidesOutRedis) and worker.cut_short:
            with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
                redo(worker.cut_short)
        if worker.scheduler is not None:  # the dead scheduler's locks, so the next one takes them now
            with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
                # else they lapse by themselves within a minute
                worker.scheduler.release_locks()  # type: ignore[no-untyped-call]


def wait_for_redis(client: Redis, outage: Outage, stopping: threading.Event) -> bool:
    """Wait until Redis answers a PING (backoff capped at ``PORTOLAN_REDIS_RETRY_MAX_S``); False if a
    stop was asked for meanwhile."""
    while not stopping.is_set():
        try:
            if client.ping():
                return True
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            if stopping.wait(outage.failed(exc)):
                return False
    return False
