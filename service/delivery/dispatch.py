"""The fan-out point: outbox entries become RQ jobs (turn notices, bot turns, mail), each with a
promise the watchdog keeps.

Jobs are named by dotted path, so this module does not import ``workers`` (which imports us).
Job ids are deterministic (``notice-<match>-<seat>-<ply>``), and the jobs themselves dedupe with
marks in Redis, so a retried or doubly enqueued job sends one mail.

**Promises.** Every job is enqueued together with a *promise* (its id, what to call, and when to
look again), in the same MULTI: a job is enqueued if and only if it is promised. The job keeps
the promise when its work is done (:func:`workers.jobs` calls ``Store.job_done``), whatever
happens to the RQ job itself. What RQ 3 does with a job whose worker was SIGKILLed: the job
stays "started" in its StartedJobRegistry until the entry's score (start + job timeout + 60 s
for a SimpleWorker) has passed *and* some worker runs its maintenance (every 10 minutes), which
then retries it if it has retries left, else fails it for good; a worker killed between popping
the job off the queue (BLPOP, with several queues there is no intermediate queue) and
registering it as started loses it for good. So the watchdog (:mod:`service.delivery.watchdog`)
does not wait on that: a promise overdue whose job is neither queued nor running is enqueued
again under the same id (RQ overwrites an existing job hash of that id and pushes it again; it
is not a no-op).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from service.config import Settings
from service.storage.liveness import Liveness
from service.storage.store import Store

NOTICE_JOB = "workers.jobs.send_turn_notice"
FINISHED_JOB = "workers.jobs.send_match_over"
BOT_JOB = "workers.jobs.play_bot"
INVITE_JOB = "workers.jobs.send_invite"
ANSWER_JOB = "workers.answers.send_answer"
DIGEST_JOB = "workers.jobs.send_digest"
WAKE_JOB = "workers.clock.wake"
TICK_JOB = "workers.clock.tick"
REMINDER_JOB = "workers.clock.send_reminder"
LATE_JOB = "workers.clock.send_late_note"

_MAIL_RETRY = [1, 5, 30, 120, 600]
KINDS: dict[str, tuple[str, str, list[int]]] = {
    # kind: (job function, queue, retry intervals)
    "notice": (NOTICE_JOB, "notices", _MAIL_RETRY),
    "over": (FINISHED_JOB, "notices", _MAIL_RETRY),
    "invite": (INVITE_JOB, "notices", _MAIL_RETRY),
    "digest": (DIGEST_JOB, "notices", _MAIL_RETRY),
    "bot": (BOT_JOB, "bots", [1, 5, 30]),
    "answer": (ANSWER_JOB, "notices", _MAIL_RETRY),  # the mail desk's answers (service.play.mail.desk)
    # the match clock (service.delivery.clock): wakes, and the mails they decide on
    "wake": (WAKE_JOB, "clock", [1, 5, 30]),
    "reminder": (REMINDER_JOB, "notices", _MAIL_RETRY),
    "late": (LATE_JOB, "notices", _MAIL_RETRY),
}
QUEUES = ("notices", "bots", "clock")


def job_id(kind: str, match_id: str, seat: int, ply: int | None = None) -> str:
    """The deterministic RQ job id (and promise name) of one piece of work."""
    return f"{kind}-{match_id}-{seat}" + ("" if ply is None else f"-{ply}")


def answer_job_id(key: str) -> str:
    """The RQ job id (and promise name) of the answer to the received message ``key``."""
    return f"answer-{key}"


def digest_job_id(address: str, day: str) -> str:
    """The job id of one address's digest of one day (``address`` is the address's digest)."""
    return f"digest-{address[:32]}-{day}"


Call = tuple[str, tuple[object, ...], str]
"""(kind, job arguments, job id)."""


class RQDispatcher:
    """Enqueues the service's jobs on RQ, each with its promise (when given the store)."""

    def __init__(self, client: redis.Redis, settings: Settings, store: Store | None = None) -> None:
        self.client = client
        self.settings = settings
        self.store = store
        self.queues = {kind: Queue(settings.queue_name(kind), connection=client) for kind in QUEUES}
        self.notices = self.queues["notices"]
        self.liveness = None if store is None else Liveness(store.r, store.q, store.ns)
        self.bots = self.queues["bots"]

    def _enqueue(self, calls: list[Call], at: datetime | None = None) -> None:
        """Enqueue jobs and their promises in one MULTI/EXEC pipeline: one Redis round trip
        however many jobs (RQ on its own makes two per job: the queue registration and the job).
        ``at`` (a system-clock moment): schedule them then instead (RQ's scheduler enqueues them;
        the promise falls due a job deadline after that)."""
        if not calls:
            return
        due = (time.time() if at is None else max(time.time(), at.timestamp())) + self.settings.job_deadline_s
        with self.client.pipeline(transaction=True) as pipe:
            for kind, args, jid in calls:
                func, queue, intervals = KINDS[kind]
                options: dict[str, Any] = {"job_id": jid, "retry": Retry(max=len(intervals), interval=intervals),
                                           "timeout": self.settings.job_timeout_s, "failure_ttl": 30 * 86400,
                                           "pipeline": pipe}
                if at is None:
                    self.queues[queue].enqueue_call(func, args=args, **options)
                else:
                    self.queues[queue].enqueue_at(at, func, *args, **options)
            if self.store is not None:
                self.store.promise_jobs(pipe, [(jid, json.dumps({"kind": kind, "args": list(args)}), due)
                                               for kind, args, jid in calls])
            pipe.execute()

    def turn(self, match_id: str, ply: int, seats: list[int]) -> None:
        self._enqueue([("notice", (match_id, seat, ply), job_id("notice", match_id, seat, ply)) for seat in seats])

    def finished(self, match_id: str, ply: int, seats: list[int]) -> None:
        self._enqueue([("over", (match_id, seat), job_id("over", match_id, seat)) for seat in seats])

    def bot(self, match_id: str, ply: int, seat: int) -> None:
        self._enqueue([("bot", (match_id, seat, ply), job_id("bot", match_id, seat, ply))])

    def invite(self, match_id: str, seat: int, email: str, token: str, language: str = "en") -> None:
        """The invitation to ``seat``, written in ``language`` (the creator's) unless the address chose one."""
        args: tuple[object, ...] = (match_id, seat, email, token) if language == "en" else (match_id, seat, email, token,
                                                                                           language)
        self._enqueue([("invite", args, job_id("invite", match_id, seat))])

    def answer(self, key: str, answer: dict[str, Any]) -> None:
        """Enqueue the answer mail to one received message (``key``: the message's identity, so
        a redelivered message's answer is the same job and the same "sent" mark)."""
        self._enqueue([("answer", (key, answer), answer_job_id(key))])

    def digest(self, address: str, day: str) -> None:
        """The daily digest of the address kept under the digest ``address``, for the UTC date ``day``."""
        self._enqueue([("digest", (address, day), digest_job_id(address, day))])

    def wake_at(self, match_id: str, at: datetime | None, jid: str) -> None:
        """Schedule the clock's wake of a match at ``at`` (system clock: ``Clock.to_system``;
        None: enqueue it now)."""
        self._enqueue([("wake", (match_id,), jid)], at=at)

    def reminder(self, match_id: str, seat: int, since: int, name: str) -> None:
        """The reminder ``name`` (half, 24h) to the seat whose clock runs since epoch ``since``."""
        self._enqueue([("reminder", (match_id, seat, since, name), f"remind-{match_id}-{seat}-{since}-{name}")])

    def late_notes(self, match_id: str, late: int, since: int, day: int, to: list[int]) -> None:
        """The late note of day ``day`` about seat ``late`` to each seat of ``to``."""
        self._enqueue([("late", (match_id, late, since, day, seat), f"late-{match_id}-{late}-{since}-{day}-{seat}")
                       for seat in to])

    def tick(self) -> str:
        """Enqueue a clock tick now (no promise: the worker's own tick is the safety net)."""
        jid = f"clock-tick-{time.time_ns()}"
        self.queues["clock"].enqueue_call(TICK_JOB, job_id=jid, timeout=max(self.settings.job_timeout_s, 300),
                                          result_ttl=3600, failure_ttl=86400)
        return jid

    def again(self, jid: str, spec: str) -> None:
        """Enqueue a promised job again, under its own id (the watchdog, for a job that is lost)."""
        data: dict[str, Any] = json.loads(spec)
        self._enqueue([(data["kind"], tuple(data["args"]), jid)])

    def job_state(self, jid: str, now: float | None = None) -> str:
        """``waiting`` (queued, or scheduled for a retry), ``running`` (started no longer ago
        than the job timeout allows) or ``lost`` (no such job; started by a worker that must be
        dead, since a live one would have timed the job out; queued but in no queue, i.e. popped
        by a worker killed before it started it; failed for good; or finished without keeping
        its promise, as a notice whose lease another worker held does)."""
        try:
            job = Job.fetch(jid, connection=self.client)
        except NoSuchJobError:
            return "lost"
        status = job.get_status(refresh=False)
        at = time.time() if now is None else now
        if status == JobStatus.SCHEDULED:
            # A retry waits for RQ's scheduler, which runs in the worker holding its lock; that
            # lock outlives a killed holder by a minute. Overdue by a deadline: enqueue it now.
            try:
                when = utc_timestamp(self._scheduled_time(job))
            except NoSuchJobError:
                return "lost"
            return "waiting" if at <= when + self.settings.job_deadline_s else "lost"
        if status == JobStatus.DEFERRED:
            return "waiting"
        if status == JobStatus.QUEUED:
            return "waiting" if job.origin in self._queue_names() and self._queued(job) else "lost"
        if status == JobStatus.STARTED:
            started = job.started_at
            if started is None or not self.worker_alive(job.worker_name):
                return "lost"
            age = at - utc_timestamp(started)
            return "running" if age <= self.settings.job_dead_after_s() else "lost"
        return "lost"

    def worker_alive(self, worker: str | None) -> bool:
        """Does the RQ worker ``worker`` still beat (service.storage.liveness)? Without a store
        to ask, or for a job that names no worker, it is taken to be (the job timeout decides)."""
        if self.liveness is None or not worker:
            return True
        return self.liveness.alive([worker])[0]

    def started_jobs(self) -> list[tuple[str, str, str]]:
        """``(job id, execution id, worker name)`` of every job RQ lists as started in the
        service's queues (its StartedJobRegistry; a handful, one per busy worker)."""
        found: list[tuple[str, str, str]] = []
        for queue in self.queues.values():
            entries = queue.started_job_registry.get_job_and_execution_ids(cleanup=False)
            if not entries:
                continue
            jobs = Job.fetch_many([jid for jid, _ in entries], connection=self.client)
            for (jid, eid), job in zip(entries, jobs, strict=True):
                if job is not None and job.worker_name and job.get_status(refresh=False) == JobStatus.STARTED:
                    found.append((jid, eid, job.worker_name))
        return found

    def _scheduled_time(self, job: Job) -> datetime:
        """When RQ's scheduler is to enqueue this job (NoSuchJobError: it is not scheduled)."""
        queue = next((q for q in self.queues.values() if q.name == job.origin), None)
        if queue is None:
            raise NoSuchJobError(job.id)
        when: datetime = queue.scheduled_job_registry.get_scheduled_time(job)
        return when

    def _queue_names(self) -> set[str]:
        return {q.name for q in self.queues.values()}

    def _queued(self, job: Job) -> bool:
        queue = next(q for q in self.queues.values() if q.name == job.origin)
        return queue.get_job_position(job.id) is not None


def utc_timestamp(value: datetime) -> float:
    """Seconds since the epoch of a datetime RQ gives back (naive ones are UTC)."""
    return value.replace(tzinfo=value.tzinfo or UTC).timestamp()
