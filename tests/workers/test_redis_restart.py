"""Workers survive Redis (issue 28, item 7): a real redis-server with its append-only file is
SIGKILLed under a running ``portolan worker`` and started again on the same port with the same
data; the worker's processes are the same ones afterwards and they deliver the invitation and the
turn notice of a match created after the restart to a real SMTP sink."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from service.config import Settings
from service.runtime import build
from service.storage.embedded import EmbeddedRedis
from tests.conftest import CREATOR_KEY, Player, SmtpSink
from tests.helpers.processes import alive, children

pytestmark = pytest.mark.processes  # a redis-server and `portolan worker` as child processes, killed

ROOT = Path(__file__).resolve().parents[2]


def wait_for(what: str, ok: Callable[[], bool], limit_s: float, log: Path) -> None:
    """Wait until ``ok()``; fail with the worker's log if it never happens (a generous deadline)."""
    end = time.monotonic() + limit_s
    while not ok():
        assert time.monotonic() < end, f"{what} did not happen within {limit_s:g} s:\n{log.read_text()[-6000:]}"
        time.sleep(0.2)


def subjects(sink: SmtpSink, to: str) -> list[str]:
    return [str(m["Subject"]) for m in list(sink.messages) if to in str(m["To"])]


def test_a_worker_lives_through_a_redis_restart(tmp_path: Path, smtp_sink: SmtpSink) -> None:
    data = tmp_path / "redis"
    redis = EmbeddedRedis(data, durable=True)
    url = redis.start()
    ns = f"ptest-{uuid.uuid4().hex[:10]}:"
    settings = Settings(redis_url=url, smtp_url=smtp_sink.url, outbox_dir=str(tmp_path / "outbox"),
                        public_url="http://portolan.test", namespace=ns, server_key=None,
                        mail_from="Portolan <turns@portolan.test>", queue_redis_url="")
    env = dict(os.environ, REDIS_URL=url, PORTOLAN_NS=ns, SMTP_URL=smtp_sink.url, PUBLIC_URL=settings.public_url,
               MAIL_FROM=settings.mail_from, PYTHONPATH=str(ROOT), PORTOLAN_WATCHDOG_S="1", PORTOLAN_SWEEP_S="0",
               # a bot job popped at the instant of the kill is lost as with a killed worker: the
               # watchdog enqueues it again once its promise is due, which this makes 5 s, not 60
               PORTOLAN_JOB_DEADLINE_S="5")
    env.pop("QUEUE_REDIS_URL", None)
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "worker"], env=env, cwd=ROOT,
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    m = build(settings)
    try:
        first = m.create("nauticus", {}, [{"invite": "before@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
        wait_for("the invitation before the restart", lambda: bool(subjects(smtp_sink, "before@example.org")), 60, log)
        assert first["status"] == "waiting"
        pids = {worker.pid, *children(worker.pid)}
        # bot turns running when Redis goes: a worker busy with a job meets the outage mid-job
        busy = [m.create("nauticus", {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)["id"]
                for _ in range(6)]
        time.sleep(0.5)

        redis.proc.send_signal(signal.SIGKILL) if redis.proc else None
        redis.proc.wait() if redis.proc else None
        time.sleep(4)  # long enough for every part of the worker to meet the closed port
        redis = EmbeddedRedis(data, port=redis.port, durable=True)
        redis.start()
        back = time.monotonic()

        made = m.create("nauticus", {}, [{"invite": "after@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
        wait_for("the invitation after the restart", lambda: bool(subjects(smtp_sink, "after@example.org")), 60, log)
        print(f"invitation {time.monotonic() - back:.1f} s after Redis was back")  # the figure for issue 28's note
        ana = Player("Ana")
        m.claim(str(made["id"]), 0, made["invites"]["0"], ana.public_key, "Ana", "after@example.org")
        # the claim starts the match: the bot moves (a bot job) or Ana is first; either way her turn notice comes
        wait_for("the turn notice after the restart", lambda: len(subjects(smtp_sink, "after@example.org")) >= 2, 60, log)

        ply = {mid: int(m.meta(str(mid)).ply) for mid in busy}
        wait_for("the all-bot matches moving again", lambda: all(int(m.meta(str(mid)).ply) > ply[mid] or
                                                                 m.meta(str(mid)).status != "active" for mid in busy), 60, log)
        assert worker.poll() is None, log.read_text()[-6000:]
        assert {worker.pid, *children(worker.pid)} == pids  # nobody exited and was replaced: they reconnected
        assert all(alive(pid) for pid in pids)
        text = log.read_text()
        print(f"'Redis went away' said {text.count('Redis went away')} times by {len(pids)} processes")
        assert "unhandled exception, quitting" not in text
        assert text.count("Redis went away") <= len(pids) * 8  # once per outage and thread, not per retry
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
        redis.stop()
