"""The promises and the watchdog, and the mail's sent mark, one kill point at a time (the random
kills with real processes are in test_kills)."""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rq import Queue
from rq.job import Job, JobStatus

from service.config import Settings
from service.delivery.dispatch import RQDispatcher, job_id
from service.delivery.mail import message_id
from service.delivery.watchdog import Watchdog
from service.runtime import build
from service.storage.connection import connect
from tests.conftest import CREATOR_KEY, Player, SmtpSink, as_in_a_worker, worker_burst
from tests.helpers.jobs import notices, start_human_match
from workers import jobs


@pytest.fixture
def smtp_settings(settings: Settings, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> Settings:
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url, job_timeout_s=2, job_deadline_s=1.0)
    as_in_a_worker(monkeypatch, {"REDIS_URL": s.redis_url, "SMTP_URL": s.smtp_url, "PORTOLAN_NS": s.namespace,
                                 "PUBLIC_URL": s.public_url, "OUTBOX_DIR": s.outbox_dir, "MAIL_FROM": s.mail_from,
                                 "PORTOLAN_JOB_TIMEOUT_S": "2", "PORTOLAN_JOB_DEADLINE_S": "1"})
    return s


def watchdog(s: Settings) -> Watchdog:
    m = build(s)
    return Watchdog(m.store, RQDispatcher(m.store.q, s, m.store), s)


def all_bot_match(s: Settings) -> tuple[str, int]:
    """An all-bot match whose first bot job was dispatched (queued, promised) but not run."""
    from service.delivery.outbox import Dispatcher, install_default_groups

    m = build(s)
    made = m.create("harbour-race", {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    install_default_groups(s)
    Dispatcher(m, s).drain()
    return made["id"], m.meta(made["id"]).active[0]


def test_the_mark_says_sent_only_after_the_server_accepted(smtp_settings: Settings, players: list[Player],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    mark = f"notice:{mid}:{seat}:0"
    seen: list[bool] = []
    real = jobs.deliver

    def watching(settings: Settings, mail: Any) -> str:
        seen.append(m.store.marked([mark])[0])
        return real(settings, mail)

    monkeypatch.setattr(jobs, "deliver", watching)
    assert jobs.send_turn_notice(mid, seat, 0).startswith("sent")
    assert seen == [False] and m.store.marked([mark]) == [True]


def test_a_kill_after_250_resends_with_the_same_message_id(smtp_settings: Settings, smtp_sink: SmtpSink,
                                                           players: list[Player],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker died after the server's 250 and before the mark: once its lease is over, the
    notice goes out again, with the Message-ID of the first copy."""
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    mark = f"notice:{mid}:{seat}:0"
    with monkeypatch.context() as mp:  # lease "taken", mark "set", and nothing stored: as if killed after deliver()
        mp.setattr(jobs.service().store, "claim_once", lambda *a, **k: True)
        assert jobs.send_turn_notice(mid, seat, 0).startswith("sent")
    assert not m.store.marked([mark])[0]
    assert jobs.send_turn_notice(mid, seat, 0).startswith("sent")
    assert jobs.send_turn_notice(mid, seat, 0).startswith("skipped")
    copies = [x for x in notices(smtp_sink) if x["X-Portolan-Notice"] == mark]
    assert len(copies) == 2
    assert {x["Message-ID"] for x in copies} == {message_id(mark, "portolan.test")} == {f"<notice.{mid}.{seat}.0@portolan.test>"}


def test_a_held_lease_defers_and_leaves_the_promise_open(smtp_settings: Settings, smtp_sink: SmtpSink,
                                                         players: list[Player]) -> None:
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    jid = job_id("notice", mid, seat, 0)
    m.store.promise_jobs(m.store.q, [(jid, '{"kind": "notice", "args": []}', time.time() + 60)])
    book = jobs.liveness(m)
    book.beat("other-worker", 30)  # another worker, alive, is sending
    assert book.take_lease(f"notice:{mid}:{seat}:0:sending", "other-worker", 30) is None
    assert jobs.send_turn_notice(mid, seat, 0).startswith("deferred")
    assert notices(smtp_sink) == [] and m.store.overdue_jobs(time.time() + 61) != []
    book.release(f"notice:{mid}:{seat}:0:sending", "other-worker")  # it gave up (a failure)
    assert jobs.send_turn_notice(mid, seat, 0).startswith("sent")


def test_the_lease_of_a_worker_that_no_longer_beats_is_taken_over_at_once(
        smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    """Its holder was SIGKILLed while sending: the lease names it, it no longer beats, and the
    next run sends at once (not after the lease's 65 s); once sent, the lease is free again."""
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    lease = f"notice:{mid}:{seat}:0:sending"
    book = jobs.liveness(m)
    book.beat("killed-worker", 0.05)
    assert book.take_lease(lease, "killed-worker", 65) is None
    time.sleep(0.1)  # its last beat lapsed
    assert book.alive(["killed-worker"]) == [False]
    assert jobs.send_turn_notice(mid, seat, 0).startswith("sent")
    assert len(notices(smtp_sink)) == 1 and not m.store.marked([lease])[0]
    assert m.store.overdue_jobs(time.time() + 61) == []


def test_a_bot_job_whose_worker_died_while_running_it_is_enqueued_again(smtp_settings: Settings) -> None:
    """SIGKILL in the middle of a bot job: RQ keeps it "started" until its maintenance (10 min)
    retries it, or fails it for good. The watchdog sees a job started longer ago than a live
    worker would let it run and enqueues it again, under its own id, and the bot plays."""
    s = smtp_settings
    mid, seat = all_bot_match(s)
    m = build(s)
    client = connect(s.queue_url)
    jid = job_id("bot", mid, seat, 0)
    q = Queue(s.queue_name("bots"), connection=client)
    assert q.get_job_position(jid) == 0
    q.remove(jid)  # popped by a worker, which set it started and died
    job = Job.fetch(jid, connection=client)
    job.set_status(JobStatus.STARTED)
    job.started_at = datetime.now(UTC) - timedelta(seconds=1)
    job.save()
    dog = watchdog(s)
    assert dog.check() == 0  # not overdue yet
    assert dog.check(now=time.time() + 2) == 0  # overdue, but a live worker may still be running it
    assert dog.check(now=time.time() + 10) == 1  # started 10 s ago with a 2 s timeout: its worker is dead
    assert q.get_job_position(jid) is not None
    assert dog.check(now=time.time() + 10) == 0  # postponed: one re-enqueue per deadline
    assert jobs.play_bot(mid, seat, 0).startswith("played")
    assert m.meta(mid).ply == 1 and m.store.overdue_jobs(time.time() + 100) == []


def test_a_job_popped_by_a_worker_killed_before_it_started_is_enqueued_again(smtp_settings: Settings) -> None:
    s = smtp_settings
    mid, _ = all_bot_match(s)
    m = build(s)
    q = Queue(s.queue_name("bots"), connection=connect(s.queue_url))
    [jid] = q.job_ids
    q.remove(jid)  # BLPOP took it; the worker died before it registered it as started: status "queued"
    first, second = watchdog(s), watchdog(s)
    later = time.time() + 2
    assert first.check(now=later) + second.check(now=later) == 1  # two watchdogs: one of them re-enqueues
    assert q.job_ids == [jid]
    for _ in range(300):
        worker_burst(s)
        if m.meta(mid).status == "finished":
            break
    assert m.meta(mid).status == "finished"
    assert m.store.promised_jobs() == 0


def test_a_queued_job_is_left_alone(smtp_settings: Settings) -> None:
    s = smtp_settings
    all_bot_match(s)
    dog = watchdog(s)
    assert dog.check(now=time.time() + 2) == 0  # overdue but still in its queue: on its way
    assert len(Queue(s.queue_name("bots"), connection=connect(s.queue_url)).job_ids) == 1


def test_the_message_id_domain_comes_from_settings() -> None:
    base = Settings.from_env({"MAIL_FROM": "Portolan <turns@games.example.org>"})
    assert base.message_domain() == "games.example.org"
    assert Settings.from_env({"PORTOLAN_MAIL_DOMAIN": "mail.example.net"}).message_domain() == "mail.example.net"
    assert message_id("over:abc:1", "x.example") == "<over.abc.1@x.example>"
    with pytest.raises(ValueError, match="PORTOLAN_OUTBOX_CLAIM_S"):
        Settings.from_env({"PORTOLAN_OUTBOX_CLAIM_S": "soon"})


def test_a_retry_the_scheduler_never_enqueued_is_enqueued_again(smtp_settings: Settings) -> None:
    """A retry waits in RQ's ScheduledJobRegistry for the scheduler, which runs in whichever
    worker holds its lock; a killed holder's lock lasts another minute. A retry overdue by a
    deadline is enqueued now; one due later is left to the scheduler."""
    s = smtp_settings
    mid, seat = all_bot_match(s)
    client = connect(s.queue_url)
    jid = job_id("bot", mid, seat, 0)
    q = Queue(s.queue_name("bots"), connection=client)
    q.remove(jid)
    job = Job.fetch(jid, connection=client)
    q.schedule_job(job, datetime.now(UTC) + timedelta(seconds=30))
    dog = watchdog(s)
    assert job.get_status() == JobStatus.SCHEDULED
    assert dog.check(now=time.time() + 2) == 0 and q.job_ids == []  # its retry is due in 30 s
    assert dog.check(now=time.time() + 40) == 1 and q.job_ids == [jid]  # due 10 s ago: nobody ran the scheduler


def test_a_job_started_by_a_worker_that_no_longer_beats_is_enqueued_again_at_once(
        smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    """A worker took the notice's job and died with it "started" (its heartbeat lapsed): the next
    watchdog pass enqueues it again although its promise is not due for a minute, exactly one
    pass does (of several watchdogs, one per execution), and a worker then sends the notice."""
    from rq.worker import SimpleWorker

    s = dataclasses.replace(smtp_settings, job_deadline_s=60.0)
    m = build(s)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    rq = RQDispatcher(m.store.q, s, m.store)
    rq.turn(mid, 0, [seat])
    jid = job_id("notice", mid, seat, 0)
    ghost = SimpleWorker([rq.notices], connection=m.store.q, name="ghost-worker")
    found = Queue.dequeue_any([rq.notices], None, connection=m.store.q)
    assert found is not None and found[0].id == jid
    ghost.prepare_execution(found[0])
    ghost.prepare_job_execution(found[0])  # started, in the registry, in the ghost's name: then SIGKILL
    assert rq.job_state(jid) == "lost" and rq.started_jobs() == [(jid, rq.started_jobs()[0][1], "ghost-worker")]
    dog = watchdog(s)
    assert dog.check() == 1 and dog.check() == 0  # due in a minute, yet enqueued at once; once
    assert rq.notices.get_job_position(jid) is not None
    worker_burst(s)
    assert [x["X-Portolan-Notice"] for x in notices(smtp_sink)] == [f"notice:{mid}:{seat}:0"]


def test_a_job_started_by_a_live_worker_is_left_alone(smtp_settings: Settings, players: list[Player]) -> None:
    from rq.worker import SimpleWorker

    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    rq = RQDispatcher(m.store.q, smtp_settings, m.store)
    rq.turn(mid, 0, [seat])
    jobs.liveness(m).beat("busy-worker", 30)
    busy = SimpleWorker([rq.notices], connection=m.store.q, name="busy-worker")
    found = Queue.dequeue_any([rq.notices], None, connection=m.store.q)
    assert found is not None
    busy.prepare_execution(found[0])
    busy.prepare_job_execution(found[0])
    assert rq.job_state(job_id("notice", mid, seat, 0)) == "running"
    assert watchdog(smtp_settings).orphans() == 0
