"""Mail never queues behind bot turns (issue 28, item 5): a bare ``portolan worker`` runs one
process per queue group (mail, bots and the clock, webhooks), so an invitation made after 200
all-bot matches reaches the SMTP sink while nearly all of their bot turns are still to come. The
test counts what is left at the moment the mail arrives; it measures no speed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rq import Queue

from service.config import Settings
from service.runtime import build
from service.storage.connection import connect
from tests.conftest import CREATOR_KEY, SmtpSink

pytestmark = pytest.mark.processes  # `portolan worker` and its group processes

ROOT = Path(__file__).resolve().parents[2]
FLOOD = 200


def test_an_invitation_does_not_wait_behind_a_flood_of_bot_turns(settings: Settings, smtp_sink: SmtpSink,
                                                                  tmp_path: Path) -> None:
    env = dict(os.environ, REDIS_URL=settings.redis_url, PORTOLAN_NS=settings.namespace, SMTP_URL=smtp_sink.url,
               PUBLIC_URL=settings.public_url, MAIL_FROM=settings.mail_from, PYTHONPATH=str(ROOT),
               PORTOLAN_SWEEP_S="0")
    m = build(settings)
    bots = Queue(settings.queue_name("bots"), connection=connect(settings.queue_url))
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "worker"], env=env, cwd=ROOT,
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        flood = [str(m.create("nauticus", {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)["id"])
                 for _ in range(FLOOD)]
        deadline = time.monotonic() + 60
        while bots.count < FLOOD // 2:  # the dispatcher has turned most of the flood into bot jobs
            assert time.monotonic() < deadline, log.read_text()[-4000:]
            time.sleep(0.05)
        m.create("nauticus", {}, [{"invite": "first@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
        deadline = time.monotonic() + 120  # generous: the bot turns left are counted, not the time
        while not any("first@example.org" in str(msg["To"]) for msg in list(smtp_sink.messages)):
            assert time.monotonic() < deadline, f"no invitation; bot jobs waiting: {bots.count}\n{log.read_text()[-4000:]}"
            time.sleep(0.02)
        waiting = bots.count
        playing = sum(1 for mid in flood if m.meta(mid).status == "active")
        print(f"when the invitation arrived: {waiting} bot jobs waiting, {playing} of {FLOOD} all-bot matches playing")
        assert waiting >= FLOOD // 4, waiting  # the invitation did not wait for the bot queue to drain
        assert playing >= FLOOD // 2, playing
    finally:
        os.killpg(worker.pid, signal.SIGKILL)  # the flood need not be played out
        worker.wait()
