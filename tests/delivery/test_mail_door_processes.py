"""The door and the poison rules with real processes (issue 28 items 2 and 4): ``portolan
mail-receiver`` (SMTP) and ``portolan mail-in`` as subprocesses in front of the real desk on the
test's Redis, the answers from a real worker burst into a real SMTP sink.

Forged senders writing to a forged or missing reply token are refused at ``RCPT TO`` (550) and
after the workers ran nobody was mailed; the pipe drops them with exit 0 and no answer; the idna
mail is read and answered, never deferred; the 100,000-part MIME bomb is refused for good (554,
exit 65) in a few seconds, and the receiver takes the next reply."""

from __future__ import annotations

import smtplib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Settings
from tests.conftest import SmtpSink
from tests.helpers.mail_in import environment, gmail_reply, mime_bomb, running_receiver
from tests.helpers.mailcorpus import wire
from tests.play.mail_desk import BASE, Table, mail_settings, open_table, words

pytestmark = pytest.mark.processes

__all__ = ["mail_settings"]

FORGED = BASE.replace("@", "+t-abcd-0-1-abcdefghijkmnpqr@")


def idna_reply(table: Table) -> tuple[bytes, str]:
    """The mover's reply whose text part says ``charset=idna`` (issue 28 F6); and its address."""
    seat, email = table.mover()
    to = table.address("t", seat, table.m.meta(table.match).ply)
    raw = (f"From: {email}\r\nTo: {to}\r\nSubject: Re: your turn\r\nMessage-ID: <idna.{time.time_ns()}@example.org>\r\n"
           "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=idna\r\n\r\nshow\r\n").encode()
    return raw, to


def forged_mail(i: int) -> bytes:
    """What an attacker sends in a victim's name to make us mail the victim (F4: 40 of them)."""
    return (f"From: victim{i}@example.net\r\nTo: {FORGED}\r\nSubject: Claim your prize at evil.example {i}\r\n"
            f"Message-ID: <forged.{i}.{time.time_ns()}@example.net>\r\n\r\n1\r\n").encode()


@pytest.fixture
def smtp_receiver(mail_settings: Settings, tmp_path: Path) -> Iterator[int]:
    """``portolan mail-receiver`` (SMTP) in its own process on a free port; yields the port."""
    with running_receiver(environment(mail_settings), tmp_path) as port:
        yield port


def test_the_receiver_refuses_forged_tokens_at_rcpt_and_mails_nobody(mail_settings: Settings, smtp_sink: SmtpSink,
                                                                     smtp_receiver: int) -> None:
    table = open_table(mail_settings, smtp_sink)
    sent_before = len(smtp_sink.messages)
    with smtplib.SMTP("127.0.0.1", smtp_receiver, timeout=60) as smtp:
        smtp.ehlo()
        for i in range(40):
            smtp.mail(f"victim{i}@example.net")
            code, answer = smtp.rcpt(FORGED)
            assert (code, answer[:6]) == (550, b"5.1.1 "), answer
            assert smtp.docmd("DATA")[0] == 503  # no recipient was taken: nothing to deliver
            smtp.rset()
        smtp.mail("victim@example.net")
        assert smtp.rcpt(BASE)[0] == 550  # the reply base without a token is no mailbox either
        smtp.rset()
        msg, to = gmail_reply(table, "1")
        smtp.mail(table.mover()[1])
        assert smtp.rcpt(to)[0] == 250
        code, answer = smtp.data(wire(msg))
    assert code == 250 and b"moved" in answer, answer
    [accepted] = table.answers()  # a real worker burst: the one answer is the authentic reply's
    assert "accepted" in words(accepted).lower()
    mailed = [str(m["To"]) for m in smtp_sink.messages[sent_before:]]
    assert not [to for to in mailed if "victim" in to or "example.net" in to], mailed


def test_the_receiver_reads_the_idna_mail_and_refuses_the_mime_bomb_for_good(mail_settings: Settings,
                                                                               smtp_sink: SmtpSink,
                                                                               smtp_receiver: int) -> None:
    table = open_table(mail_settings, smtp_sink)
    raw, to = idna_reply(table)
    with smtplib.SMTP("127.0.0.1", smtp_receiver, timeout=60) as smtp:
        smtp.ehlo()
        smtp.mail(table.mover()[1])
        smtp.rcpt(to)
        code, answer = smtp.data(raw)
    assert code == 250, answer  # F6: it was 451, and the sender's server retried for days
    [shown] = table.answers()
    assert table.mover()[1] in str(shown["To"])  # read and answered like any reply
    bomb = mime_bomb(100_000)  # F9: 4.9 MB, 100,000 parts, 69 s of CPU before
    started = time.monotonic()
    with smtplib.SMTP("127.0.0.1", smtp_receiver, timeout=60) as smtp:
        smtp.ehlo()
        smtp.mail(table.mover()[1])
        smtp.rcpt(to)
        code, answer = smtp.data(bomb)
    assert (code, answer[:6]) == (554, b"5.6.0 "), answer
    assert time.monotonic() - started < 30  # a generous deadline: before, the parser alone took over a minute
    msg, to = gmail_reply(table, "1")  # and the receiver goes on taking replies
    with smtplib.SMTP("127.0.0.1", smtp_receiver, timeout=60) as smtp:
        assert smtp.sendmail(table.mover()[1], [to], wire(msg)) == {}


def mail_in(settings: Settings, raw: bytes, recipient: str, sender: str) -> subprocess.CompletedProcess[bytes]:
    """``portolan mail-in`` as an MTA's pipe runs it."""
    return subprocess.run([sys.executable, "-m", "service.tools.cli", "mail-in", f"--recipient={recipient}",
                           f"--sender={sender}"], input=raw, capture_output=True, timeout=120,
                          env=environment(settings), check=False)


def test_mail_in_drops_forged_mail_unanswered_and_refuses_the_bomb_with_65(mail_settings: Settings,
                                                                            smtp_sink: SmtpSink) -> None:
    table = open_table(mail_settings, smtp_sink)
    sent_before = len(smtp_sink.messages)
    for i in range(3):
        done = mail_in(mail_settings, forged_mail(i), FORGED, f"victim{i}@example.net")
        assert done.returncode == 0, done.stderr.decode()
        assert "dropped: no authentic reply address" in done.stderr.decode()
    assert table.answers() == [] and len(smtp_sink.messages) == sent_before  # nobody was mailed
    raw, to = idna_reply(table)
    done = mail_in(mail_settings, raw, to, table.mover()[1])
    assert done.returncode == 0, done.stderr.decode()  # F6: it was 75, deferred for days
    assert len(table.answers()) == 1
    done = mail_in(mail_settings, mime_bomb(100_000), to, table.mover()[1])
    assert done.returncode == 65 and b"MIME boundary lines" in done.stderr, done.stderr.decode()
