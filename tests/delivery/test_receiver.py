"""The SMTP/LMTP receiver over real sockets: smtplib against aiosmtpd on a free port."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

from service.config import Settings, parse_listen
from service.delivery.inbound import delivery
from service.delivery.receiver import controller, handler_for
from service.play.mail.reply_address import reply_address
from service.proof import signing
from service.storage.embedded import free_port
from tests.helpers import mailcorpus
from tests.helpers.mailcorpus import wire
from tests.helpers.recording import RecordingDesk

KEY = signing.private_key_from_seed(b"the door test key")  # fixed, as in test_mail_door
REPLY = reply_address(KEY, "turns@portolan.test", "t", "abc", 1, 12)


@pytest.fixture
def mail_settings() -> Settings:
    return Settings(redis_url="redis://unused", smtp_url=None, outbox_dir="unused", public_url="http://portolan.test",
                    namespace="unused:", server_key=None, mail_from="Portolan <turns@portolan.test>",
                    mail_max_bytes=200_000)


@contextmanager
def receiving(desk: RecordingDesk, settings: Settings, *, lmtp: bool = False) -> Iterator[int]:
    """The receiver on a free loopback port; yields the port."""
    port = free_port()
    server = controller(handler_for(desk, settings, KEY, lmtp=lmtp), "127.0.0.1", port, settings.mail_max_bytes)
    server.start()
    try:
        yield port
    finally:
        server.stop()


def test_a_reply_is_taken_and_answered_250_after_the_desk_took_it(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    msg = mailcorpus.gmail("3, 1, end")
    with receiving(desk, mail_settings) as port, smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.ehlo()
        code, answer = smtp.mail("ana@example.org")
        assert code == 250
        assert smtp.rcpt(REPLY)[0] == 250
        code, answer = smtp.data(wire(msg))
    assert code == 250 and b"recorded " + msg["Message-ID"].encode() in answer
    [mail] = desk.mails
    assert (mail.text, mail.sender, mail.recipients[0], mail.automatic) == ("3, 1, end", "ana@example.org", REPLY, False)
    assert mail.digest and mail.size > 0


def test_a_desk_that_raises_is_a_451_and_the_redelivered_message_is_taken(mail_settings: Settings) -> None:
    desk = RecordingDesk(failures=1)
    raw = wire(mailcorpus.outlook("show"))
    with receiving(desk, mail_settings) as port:
        with smtplib.SMTP("127.0.0.1", port) as smtp, pytest.raises(smtplib.SMTPDataError) as refused:
            smtp.sendmail("ana@example.org", [REPLY], raw)
        assert refused.value.smtp_code == 451 and desk.mails == []
        with smtplib.SMTP("127.0.0.1", port) as smtp:  # the sending server retries later
            assert smtp.sendmail("ana@example.org", [REPLY], raw) == {}
    assert [m.text for m in desk.mails] == ["show"]


def test_a_foreign_recipient_is_550_the_receiver_is_no_open_relay(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    with receiving(desk, mail_settings) as port, smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.ehlo()
        smtp.mail("spammer@example.net")
        code, answer = smtp.rcpt("victim@example.com")
        assert code == 550 and b"relay" in answer
        assert smtp.rcpt("turns@portolan.test.example.com")[0] == 550
        assert smtp.rcpt(REPLY.upper())[0] == 250  # domains (and our tokens) are case-insensitive
        smtp.rset()
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            smtp.sendmail("spammer@example.net", ["victim@example.com"], b"Subject: x\r\n\r\nbuy\r\n")
    assert desk.mails == []


def test_past_a_hundred_recipients_is_452(mail_settings: Settings) -> None:
    with receiving(RecordingDesk(), mail_settings) as port, smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.ehlo()
        smtp.mail("ana@example.org")
        assert all(smtp.rcpt(reply_address(KEY, "turns@portolan.test", "t", "abc", 1, i))[0] == 250 for i in range(100))
        assert smtp.rcpt(reply_address(KEY, "turns@portolan.test", "t", "abc", 1, 100))[0] == 452


def test_over_the_cap_is_552_and_never_reaches_the_desk(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    big = wire(mailcorpus.mixed_with_attachment("3", size=300_000))
    with receiving(desk, mail_settings) as port:
        with smtplib.SMTP("127.0.0.1", port) as smtp, pytest.raises(smtplib.SMTPSenderRefused) as announced:
            smtp.sendmail("ana@example.org", [REPLY], big)  # smtplib announces SIZE=: refused at MAIL FROM
        assert announced.value.smtp_code == 552
        with smtplib.SMTP("127.0.0.1", port) as smtp:  # a client that does not say the size: cut in DATA
            smtp.ehlo()
            smtp.mail("ana@example.org")
            smtp.rcpt(REPLY)
            code, _ = smtp.data(big)
        assert code == 552
    assert desk.mails == []


def test_the_null_sender_of_a_bounce_marks_it_automatic(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    with receiving(desk, mail_settings) as port, smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.sendmail("<>", [REPLY], wire(mailcorpus.gmail("3")))
    assert desk.mails[0].automatic


def test_lmtp_answers_once_per_recipient(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    other = reply_address(KEY, "turns@portolan.test", "o", "abc", 1)
    with receiving(desk, mail_settings, lmtp=True) as port:
        with smtplib.LMTP("127.0.0.1", port) as lmtp:
            assert lmtp.docmd("EHLO", "client.example.org")[0] == 500  # LMTP speaks LHLO, not EHLO
            assert lmtp.ehlo()[0] == 250  # smtplib.LMTP.ehlo sends LHLO
            lmtp.mail("ana@example.org")
            assert lmtp.rcpt(REPLY)[0] == 250
            assert lmtp.rcpt("someone@example.com")[0] == 550
            assert lmtp.rcpt(other)[0] == 250
            first = lmtp.data(wire(mailcorpus.iphone("3, 1, end")))
            second = lmtp.getreply()
        assert first[0] == second[0] == 250
        failing = RecordingDesk(failures=1)
    with receiving(failing, mail_settings, lmtp=True) as port, smtplib.LMTP("127.0.0.1", port) as lmtp:
        lmtp.ehlo()
        lmtp.mail("ana@example.org")
        lmtp.rcpt(REPLY)
        lmtp.rcpt(other)
        assert lmtp.data(wire(mailcorpus.gmail("1")))[0] == 451
        assert lmtp.getreply()[0] == 451
    [mail] = desk.mails
    assert mail.text == "3, 1, end" and mail.recipients[:2] == (REPLY, other)
    assert failing.mails == []


def test_the_receiver_takes_the_reply_base_s_domain(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    settings = replace(mail_settings, mail_reply_to="Moves <moves@play.example.org>")
    assert handler_for(desk, settings, KEY).domains == frozenset({"play.example.org"})


@pytest.mark.parametrize(("listen", "pair"), [("127.0.0.1:8025", ("127.0.0.1", 8025)), ("[::1]:25", ("::1", 25)),
                                             ("localhost:2525", ("localhost", 2525))])
def test_listen_addresses(listen: str, pair: tuple[str, int]) -> None:
    assert parse_listen(listen) == pair


@pytest.mark.parametrize("listen", ["8025", "localhost", ":25", "host:port"])
def test_a_bad_listen_address_says_what_it_wants(listen: str) -> None:
    with pytest.raises(ValueError, match="host:port"):
        parse_listen(listen)


def test_rcpt_to_a_forged_or_missing_token_is_550_and_each_recipient_is_judged_alone(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    with receiving(desk, mail_settings) as port, smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.ehlo()
        smtp.mail("victim@example.net")
        for forged in ("turns@portolan.test", "turns+t-abc-1-12-abcdefghijkmnpqr@portolan.test",
                       "turns+nonsense@portolan.test", "turns+t-abc-1-12@portolan.test", "anyone@portolan.test"):
            code, answer = smtp.rcpt(forged)
            assert code == 550 and answer.startswith(b"5.1.1 <"), (forged, answer)
        assert smtp.rcpt(REPLY)[0] == 250  # the same transaction goes on with the authentic one
        code, answer = smtp.data(wire(mailcorpus.gmail("3")))
    assert code == 250
    [mail] = desk.mails
    assert mail.recipients[0] == REPLY


def test_postmaster_is_taken_but_never_reaches_the_desk(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    with receiving(desk, mail_settings) as port, smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.ehlo()
        smtp.mail("someone@example.net")
        assert smtp.rcpt("postmaster@portolan.test")[0] == 250
        code, answer = smtp.data(wire(mailcorpus.base(to="postmaster@portolan.test")))
    assert code == 250 and b"dropped" in answer
    assert desk.mails == []


def test_a_mail_that_cannot_be_read_is_554_never_451(mail_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = RecordingDesk()
    bomb = (b"From: ana@example.org\r\nSubject: bomb\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
            + b"--b\r\n\r\nx\r\n" * 1000 + b"--b--\r\n")
    with receiving(desk, mail_settings) as port:
        with smtplib.SMTP("127.0.0.1", port) as smtp, pytest.raises(smtplib.SMTPDataError) as refused:
            smtp.sendmail("ana@example.org", [REPLY], bomb)
        assert refused.value.smtp_code == 554 and refused.value.smtp_error.startswith(b"5.6.0 ")

        def unforeseen(*_: object, **__: object) -> None:
            raise UnicodeError("a codec nobody foresaw")

        monkeypatch.setattr(delivery, "parse", unforeseen)
        with smtplib.SMTP("127.0.0.1", port) as smtp, pytest.raises(smtplib.SMTPDataError) as refused:
            smtp.sendmail("ana@example.org", [REPLY], wire(mailcorpus.gmail("3")))
        assert refused.value.smtp_code == 554
    assert desk.mails == []


def test_the_idna_mail_is_read_and_taken(mail_settings: Settings) -> None:
    desk = RecordingDesk()
    raw = (b"From: ana@example.org\r\nTo: " + REPLY.encode() + b"\r\nSubject: Re: your turn\r\n"
           b"Message-ID: <idna@example.org>\r\nContent-Type: text/plain; charset=idna\r\n\r\n3, 1, end\r\n")
    with receiving(desk, mail_settings) as port, smtplib.SMTP("127.0.0.1", port) as smtp:
        assert smtp.sendmail("ana@example.org", [REPLY], raw) == {}
    assert [m.text for m in desk.mails] == ["3, 1, end"]
