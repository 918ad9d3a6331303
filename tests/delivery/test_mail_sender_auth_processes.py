"""Issue 28 with real processes: ``portolan mail-receiver`` (SMTP) in its own process, trusting our
MTA's Authentication-Results (``PORTOLAN_MAIL_AUTHSERV_ID``), the test's Redis, the answer job in a
real worker burst. A spoofed From (no result, a forged A-R of another id, a forged A-R of ours
below the hop that received it) cannot play the seat and nobody is mailed; the genuine sender,
whose domain our MTA found passing DMARC, plays it. And with the requirement on but nothing to
prove a sender with, neither ``mail-receiver`` nor ``mail-in`` starts."""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from service.config import Settings
from service.storage.embedded import free_port
from tests.conftest import SmtpSink
from tests.helpers.mail_in import running_receiver
from tests.helpers.mailcorpus import wire
from tests.play.mail_desk import Table, mail_settings, open_table, words

pytestmark = pytest.mark.processes  # the receiver and mail-in as processes

__all__ = ["mail_settings"]

ROOT = Path(__file__).resolve().parents[2]
OURS = "mx.portolan.test"


def environment(s: Settings, **extra: str) -> dict[str, str]:
    """What the receiver's unit gives Portolan in production: our MTA's authserv-id, the requirement on."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": s.redis_url, "PORTOLAN_NS": s.namespace,
           "PUBLIC_URL": s.public_url, "SMTP_URL": s.smtp_url or "", "MAIL_FROM": s.mail_from,
           "PORTOLAN_MAIL_REPLY_TO": s.mail_reply_to, "PORTOLAN_MAIL_AUTHSERV_ID": OURS}
    env.pop("PORTOLAN_MAIL_REQUIRE_AUTH", None)  # the default: on
    env.pop("PORTOLAN_MAIL_REQUIRE_DKIM", None)
    return {**env, **extra}


@pytest.fixture
def receiver(mail_settings: Settings, tmp_path: Path) -> Iterator[int]:
    """``portolan mail-receiver`` in its own process on a free port; yields the port."""
    with running_receiver(environment(mail_settings), tmp_path) as port:
        yield port


def a_reply(table: Table, text: str, trace: list[tuple[str, str]]) -> tuple[bytes, str]:
    """The mover's reply (its From the seat's address, true or spoofed) with ``trace`` headers on top."""
    seat, email = table.mover()
    to = table.address("t", seat, table.m.meta(table.match).ply)
    msg = EmailMessage()
    for name, value in trace:
        msg[name] = value
    msg["From"] = f"Player <{email}>"
    msg["To"] = to
    msg["Subject"] = "Re: [Portolan] Your turn"
    msg["Message-ID"] = f"<{os.urandom(8).hex()}@mail.example.org>"
    msg.set_content(f"{text}\n")
    return wire(msg), to


def send(port: int, raw: bytes, sender: str, to: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
        smtp.sendmail(sender, [to], raw)


def test_a_spoofed_from_cannot_play_the_seat_through_the_receiver(mail_settings: Settings, smtp_sink: SmtpSink,
                                                                  receiver: int) -> None:
    table = open_table(mail_settings, smtp_sink)
    seat, email = table.mover()
    domain = email.rpartition("@")[2]
    before = table.snapshot()
    ours = f"from mail.evil.example by {OURS} (Postfix) with ESMTPS id 4Xy"
    spoofs = [
        [],  # the From header alone, as a spoofer sends it
        [("Received", ours), ("Authentication-Results", f"mx.evil.example; dmarc=pass header.from={domain}")],
        [("Received", ours), ("Authentication-Results", f"{OURS}; dkim=none; dmarc=fail header.from={domain}")],
        # our id, forged by the sender below the hop that received it: not our MTA's
        [("Received", ours), ("Authentication-Results", f"{OURS}; spf=none"),
         ("Received", "from [10.9.9.9] by mail.evil.example"),
         ("Authentication-Results", f"{OURS}; dmarc=pass header.from={domain}")],
    ]
    for trace in spoofs:
        raw, to = a_reply(table, "1", trace)
        send(receiver, raw, "spoofer@evil.example", to)
    assert table.snapshot() == before  # not one move
    assert table.answers() == []  # and nobody mailed: no backscatter to the spoofed address
    raw, to = a_reply(table, "1", [("Received", f"from mail.example.org by {OURS} (Postfix) with ESMTPS id 5Ab"),
                                   ("Authentication-Results", f"{OURS}; dkim=pass header.d={domain}; "
                                                              f"dmarc=pass header.from={domain}")])
    send(receiver, raw, email, to)
    log = table.m.log(table.match)
    assert len(log) == len(before[1]) + 1 and log[-1]["by"] == "email" and log[-1]["seat"] == seat
    [answer] = table.answers()
    assert "accepted" in words(answer).lower()


def test_nothing_to_prove_a_sender_with_and_mail_in_does_not_start(mail_settings: Settings) -> None:
    env = environment(mail_settings)
    env.pop("PORTOLAN_MAIL_AUTHSERV_ID")
    receiver = subprocess.run([sys.executable, "-m", "service.tools.cli", "mail-receiver", "--listen",
                               f"127.0.0.1:{free_port()}"], env=env, capture_output=True, timeout=120, check=False)
    assert receiver.returncode != 0
    [line] = receiver.stderr.decode().strip().splitlines()
    assert "PORTOLAN_MAIL_AUTHSERV_ID" in line and "PORTOLAN_MAIL_REQUIRE_DKIM" in line
    mail_in = subprocess.run([sys.executable, "-m", "service.tools.cli", "mail-in", "--recipient", "turns@x.test"],
                             input=b"From: a@b.test\r\n\r\n1\r\n", env=env, capture_output=True, timeout=120,
                             check=False)
    assert mail_in.returncode == 78  # EX_CONFIG: Postfix defers the mail until the setting is fixed
    assert "PORTOLAN_MAIL_AUTHSERV_ID" in mail_in.stderr.decode()
