"""A slow webhook receiver stalls nothing in `portolan dev` (issue 28, item 6): its deliveries run
on a worker of their own, so while a receiver holds a delivery open by dripping one byte a second,
an all-bot match moves and an invitation goes out."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from service.storage.embedded import free_port
from service.tools.client import Client
from tests.conftest import CREATOR

pytestmark = pytest.mark.processes  # `portolan dev` and every process it starts

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Drip:
    """An HTTP receiver that answers one byte a second, for as long as the client listens."""

    port: int = 0
    open: int = 0
    began: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)  # the request (its headers and body are small)
                with self.lock:
                    self.open += 1
                    self.began += 1
                try:
                    for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000:
                        if self.stop.wait(1.0):
                            return
                        conn.sendall(bytes([byte]))
                finally:
                    with self.lock:
                        self.open -= 1
            except OSError:  # the client gave up
                return


@pytest.fixture
def drip() -> Iterator[Drip]:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    receiver = Drip(port=server.getsockname()[1])

    def accept() -> None:
        while not receiver.stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            threading.Thread(target=receiver.serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.stop.set()
        thread.join(5)
        server.close()


def wait_for(what: str, ok: Callable[[], bool], limit_s: float, lines: list[str]) -> None:
    end = time.monotonic() + limit_s
    while not ok():
        assert time.monotonic() < end, f"{what} not within {limit_s:g} s:\n{''.join(lines)[-5000:]}"
        time.sleep(0.1)


def test_a_dripping_webhook_receiver_delays_no_bot_move_and_no_mail(tmp_path: Path, drip: Drip) -> None:
    port, mail_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SMTP_URL", "OUTBOX_DIR", "PUBLIC_URL",
                                                             "QUEUE_REDIS_URL")}
    env.update(PYTHONPATH=str(ROOT), PORTOLAN_MAIL_RECEIVER=f"127.0.0.1:{mail_port}",
               PORTOLAN_WEBHOOKS_ALLOW_PRIVATE="on")
    proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "dev", "--port", str(port),
                             "--data", str(tmp_path / "var")], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    outbox = tmp_path / "var" / "outbox"
    try:
        wait_for("portolan dev up", lambda: any("Ctrl-C stops everything" in line for line in lines), 90, lines)
        client = Client(f"http://127.0.0.1:{port}")
        hooked = client.create("nauticus", [{"invite": "hooked@example.org"}, {"bot": "random"}], private_key=CREATOR)
        hook = client.add_webhook(f"http://127.0.0.1:{drip.port}/hook", match=str(hooked["id"]), private_key=CREATOR)
        client.ping_webhook(str(hook["id"]), match=str(hooked["id"]), private_key=CREATOR)
        wait_for("the receiver dripping", lambda: drip.open > 0, 30, lines)
        mails = len(list(outbox.glob("invite-*.eml")))

        began = time.monotonic()
        bots = client.create("nauticus", [{"bot": "random"}, {"bot": "random"}], private_key=CREATOR)
        client.create("nauticus", [{"invite": "waiting@example.org"}, {"bot": "random"}], private_key=CREATOR)
        wait_for("the all-bot match moving", lambda: int(client.show(str(bots["id"]))["ply"]) > 0, 60, lines)
        wait_for("the invitation", lambda: len(list(outbox.glob("invite-*.eml"))) > mails, 60, lines)
        print(f"bot move and invitation {time.monotonic() - began:.1f} s after, the receiver still dripping")
        assert drip.open > 0 and drip.began == 1  # all that while, the one delivery was still dripping
    finally:
        drip.stop.set()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=10)
    assert proc.returncode == 0, "".join(lines)[-5000:]
