"""Issue 28, item 6, with real processes: a `portolan worker` delivering to a receiver that drips
its answer one byte a second, for ever. The attempt ends at its deadline with the connection
closed (the receiver sees it close), is logged as a failure, and the worker is free for the next
delivery at once. Before the deadline, the same receiver held a worker for as long as it dripped
(181 s in the tester's run: RQ's job timeout)."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Settings
from service.play.matches import Matches
from service.play.outward.webhooks import player_owner
from service.runtime import build_webhooks
from tests.conftest import CREATOR_KEY
from tests.helpers.hooks import Receiver

pytestmark = pytest.mark.processes  # a real worker process

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 3


class Dripper:
    """A receiver on loopback that reads the request, then sends one byte of a never-ending status
    line a second until the connection closes; notes when it accepted and when it saw the close."""

    def __init__(self) -> None:
        self.srv = socket.create_server(("127.0.0.1", 0))
        self.port = self.srv.getsockname()[1]
        self.accepted_at: float | None = None
        self.closed_at: float | None = None
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.srv.accept()
        except OSError:
            return
        self.accepted_at = time.monotonic()
        conn.settimeout(1.0)
        with conn:
            try:
                got = b""
                while b"\r\n\r\n" not in got:  # the headers; the small JSON body comes with or after them
                    got += conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                while True:
                    conn.sendall(b"X")  # one byte a second, for ever
                    try:
                        # a shut connection reads as EOF at once; a live one times out after 1 s
                        if conn.recv(65536) == b"":
                            break
                    except TimeoutError:
                        pass
            except OSError:
                pass
        self.closed_at = time.monotonic()
        self.closed.set()

    def close(self) -> None:
        self.srv.close()


@pytest.fixture
def dripper() -> Iterator[Dripper]:
    d = Dripper()
    yield d
    d.close()


@pytest.fixture
def worker(settings: Settings, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = dict(os.environ, REDIS_URL=settings.redis_url, PORTOLAN_NS=settings.namespace, PUBLIC_URL=settings.public_url,
               MAIL_FROM=settings.mail_from, OUTBOX_DIR=settings.outbox_dir, PORTOLAN_WEBHOOKS_ALLOW_PRIVATE="on",
               PORTOLAN_WEBHOOK_TIMEOUT=str(DEADLINE_S), PORTOLAN_WEBHOOK_RETRIES="none", PYTHONPATH=str(ROOT))
    env.pop("SMTP_URL", None)
    log = (tmp_path / "worker.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "worker", "--queues", "webhooks"], env=env,
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    yield proc
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


def test_a_dripping_receiver_is_cut_at_the_deadline_and_the_worker_goes_on(
        settings: Settings, service: Matches, dripper: Dripper, receiver: Receiver,
        worker: subprocess.Popen[bytes]) -> None:
    s = dataclasses.replace(settings, webhooks_allow_private=True, webhook_timeout=float(DEADLINE_S),
                            webhook_retries=())
    hooks = build_webhooks(s, service)
    owner = player_owner(CREATOR_KEY)
    slow = hooks.add(owner, f"http://127.0.0.1:{dripper.port}/hook")
    quick = hooks.add(owner, receiver.url)
    hooks.ping(owner, slow["id"])  # first in the queue: the one worker takes it first
    hooks.ping(owner, quick["id"])

    assert dripper.closed.wait(60), "the dripping receiver's connection was never closed"
    assert dripper.accepted_at is not None and dripper.closed_at is not None
    held = dripper.closed_at - dripper.accepted_at
    assert held < DEADLINE_S + 2.5, f"the receiver held its connection {held:.1f} s"  # the close is seen within 1 s

    waited_until = time.monotonic() + 30
    while not receiver.ok() and time.monotonic() < waited_until:
        assert worker.poll() is None, "the worker died"
        time.sleep(0.1)
    assert [r.event["type"] for r in receiver.ok()] == ["ping"], "the next delivery never came"
    [attempt] = hooks.store.deliveries(owner, slow["id"])
    assert attempt["ok"] is False and "timed out" in attempt["error"]
    assert attempt["latency_ms"] < (DEADLINE_S + 1) * 1000
