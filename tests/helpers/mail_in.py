"""Mail in as an MTA hands it over, for tests that run ``portolan mail-in`` or the receiver as
processes: their environment, a player's reply as Gmail writes it, and a MIME bomb."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

from service.config import Settings
from service.storage.embedded import free_port
from tests.play.mail_desk import Table

ROOT = Path(__file__).resolve().parents[2]


def environment(s: Settings) -> dict[str, str]:
    """What an MTA's pipe (through deploy/mail/portolan-mail-in) or the receiver's unit gives Portolan."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": s.redis_url, "PORTOLAN_NS": s.namespace,
            "PUBLIC_URL": s.public_url, "SMTP_URL": s.smtp_url or "", "MAIL_FROM": s.mail_from,
            "PORTOLAN_MAIL_REPLY_TO": s.mail_reply_to, "PORTOLAN_PLUGINS": "tests.helpers.fixture_game",
            "PORTOLAN_MAIL_REQUIRE_AUTH": "off"}


def gmail_reply(table: Table, text: str) -> tuple[EmailMessage, str]:
    """The mover's reply to their turn notice, as Gmail writes it; and the reply address."""
    seat, email = table.mover()
    to = table.address("t", seat, table.m.meta(table.match).ply)
    msg = EmailMessage()
    msg["From"] = f"Player <{email}>"
    msg["To"] = to
    msg["Subject"] = "Re: [Portolan] Your turn"
    msg["Message-ID"] = f"<{os.urandom(8).hex()}@mail.example.org>"
    msg.set_content(f"{text}\n\n-- \nSent with love\n\nOn Tue, Dec 1, 2026 at 3:40 PM Portolan <{to}> wrote:\n"
                    "> Your turn.\n> 1. something\n")
    return msg, to


def mime_bomb(parts: int) -> bytes:
    """A mail of ``parts`` tiny text parts (issue 28 F9: 100,000 of them, 4.9 MB, cost 69 s of CPU)."""
    body = b"".join(b"--b\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nx\r\n" for _ in range(parts))
    return (b"From: ana@example.org\r\nTo: turns@portolan.test\r\nSubject: bomb\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + body + b"--b--\r\n")


@contextlib.contextmanager
def running_receiver(env: dict[str, str], folder: Path, *, lmtp: bool = False) -> Iterator[int]:
    """``portolan mail-receiver`` (``--lmtp`` with ``lmtp``) in its own process on a free port,
    its log in ``folder``; yields the port once it takes connections, and checks that SIGTERM
    stops it cleanly."""
    port = free_port()
    path = folder / "receiver.log"
    log = open(path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "mail-receiver", *(["--lmtp"] if lmtp else []),
                             "--listen", f"127.0.0.1:{port}"], env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, path.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the receiver did not come up"
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    assert proc.returncode == 0, path.read_text()  # SIGTERM is a clean stop
