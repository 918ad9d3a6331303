"""Both ways in as an MTA uses them, in front of the real desk: ``portolan mail-in`` and
``portolan mail-receiver --lmtp`` as real subprocesses, on the test's Redis; a reply makes a move,
the same message again makes none, and the answer goes out once."""

from __future__ import annotations

import smtplib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Settings
from tests.conftest import SmtpSink
from tests.helpers.mail_in import environment, gmail_reply, running_receiver
from tests.helpers.mailcorpus import wire
from tests.play.mail_desk import mail_settings, open_table, words

pytestmark = pytest.mark.processes  # `portolan mail-in` and the LMTP receiver as processes

__all__ = ["mail_settings"]


def test_mail_in_makes_the_move_once_however_often_the_mta_delivers(mail_settings: Settings,
                                                                      smtp_sink: SmtpSink) -> None:
    table = open_table(mail_settings, smtp_sink)
    before = len(table.m.log(table.match))
    msg, to = gmail_reply(table, "1")
    raw = wire(msg)
    for _ in range(2):  # the MTA did not see the first exit status, and delivers again
        done = subprocess.run([sys.executable, "-m", "service.tools.cli", "mail-in", f"--recipient={to}",
                               f"--sender={table.mover()[1]}"], input=raw, capture_output=True, timeout=120,
                              env=environment(mail_settings), check=False)
        assert done.returncode == 0, done.stderr.decode()
    log = table.m.log(table.match)
    assert len(log) == before + 1 and log[-1]["by"] == "email"
    assert "duplicate" in done.stdout.decode()
    [answer] = table.answers()
    assert "accepted" in words(answer).lower()


@pytest.fixture
def lmtp_receiver(mail_settings: Settings, tmp_path: Path) -> Iterator[int]:
    """``portolan mail-receiver --lmtp`` in its own process on a free port; yields the port."""
    with running_receiver(environment(mail_settings), tmp_path, lmtp=True) as port:
        yield port


def test_the_lmtp_receiver_makes_the_move(mail_settings: Settings, smtp_sink: SmtpSink, lmtp_receiver: int) -> None:
    table = open_table(mail_settings, smtp_sink)
    before = len(table.m.log(table.match))
    msg, to = gmail_reply(table, "1")
    with smtplib.LMTP("127.0.0.1", lmtp_receiver) as lmtp:
        lmtp.ehlo()
        lmtp.mail(table.mover()[1])
        assert lmtp.rcpt(to)[0] == 250
        code, answer = lmtp.data(wire(msg))
    assert code == 250, answer
    log = table.m.log(table.match)
    assert len(log) == before + 1 and log[-1]["by"] == "email"
    [reply] = table.answers()
    assert "accepted" in words(reply).lower()
