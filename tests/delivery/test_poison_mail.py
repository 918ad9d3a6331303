"""No poison (issue 28 item 4): every hostile mail of tests/delivery/poison is either parsed or
refused for good, never an exception the transport would answer as "try again later"; a mail
over the pre-scan's limits (the 100,000-part MIME bomb) is refused before the parser sees it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.config import Settings
from service.delivery.inbound import NOT_FOR_THE_DESK, Door, MailUnreadable, deliver_raw, delivery, parse, prescan
from tests.conftest import SmtpSink
from tests.helpers import mailcorpus
from tests.helpers.mail_in import mime_bomb
from tests.helpers.mailcorpus import wire
from tests.helpers.recording import RecordingDesk
from tests.play.mail_desk import BASE, mail_settings, open_table

__all__ = ["mail_settings"]

POISON = Path(__file__).parent / "poison"


def cases() -> list[tuple[str, str]]:
    """(file, outcome) of every line of poison/cases.txt."""
    rows = [line.split()[:2] for line in (POISON / "cases.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    return [(name, outcome) for name, outcome in rows]


def test_the_cases_list_names_every_poison_file_once() -> None:
    listed = [name for name, _ in cases()]
    assert sorted(listed) == sorted(p.name for p in POISON.glob("*.eml"))
    assert {outcome for _, outcome in cases()} == {"parsed", "refused"}


@pytest.mark.parametrize(("name", "outcome"), cases())
def test_a_poison_mail_is_parsed_or_refused_for_good(name: str, outcome: str) -> None:
    desk = RecordingDesk()
    raw = (POISON / name).read_bytes()
    if outcome == "refused":
        with pytest.raises(MailUnreadable):
            deliver_raw(desk, raw)
        assert desk.mails == []
    else:
        assert deliver_raw(desk, raw).startswith("recorded")
        assert len(desk.mails) == 1


@pytest.mark.parametrize(("name", "words"), [("charset-idna.eml", "3, 1, end"), ("base64-idna.eml", "3, 1, end"),
                                             ("charset-rfc2231-bogus.eml", "3, 1, end"), ("multipart-unclosed.eml", "3, 1")])
def test_an_odd_charset_still_gives_the_reply_s_words(name: str, words: str) -> None:
    assert parse((POISON / name).read_bytes()).text.startswith(words)


def test_the_mime_bomb_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parsing(*_: object, **__: object) -> None:
        raise AssertionError("the MIME bomb reached the parser")

    monkeypatch.setattr(delivery, "parse", no_parsing)
    with pytest.raises(MailUnreadable, match="100001 MIME boundary lines"):
        deliver_raw(RecordingDesk(), mime_bomb(100_000))


def test_the_pre_scan_counts_parts_nesting_and_headers() -> None:
    prescan.prescan(mime_bomb(prescan.MAX_PARTS - 1))  # the closing delimiter is one more line: exactly the limit
    with pytest.raises(MailUnreadable, match="MIME boundary lines"):
        prescan.prescan(mime_bomb(prescan.MAX_PARTS))
    for msg in (mailcorpus.gmail("3"), mailcorpus.mixed_with_attachment("3"), mailcorpus.apple_html_only("3")):
        prescan.prescan(wire(msg))
    quoted = b'Content-Type: multipart/mixed; boundary="a b"\r\n\r\n' + b"--a b\r\n\r\nx\r\n" * 501
    with pytest.raises(MailUnreadable, match="501 MIME boundary lines"):
        prescan.prescan(quoted)
    fields = b"".join(b"--b\r\n" + b"X-Field: y\r\n" * 60 + b"\r\nx\r\n" for _ in range(400))
    with pytest.raises(MailUnreadable, match="24001 header-like lines, over the limit of 20000"):
        prescan.prescan(b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + fields + b"--b--\r\n")
    long_head = b"Subject: " + b"x" * prescan.MAX_HEADER_BYTES + b"\r\n\r\nbody\r\n"
    with pytest.raises(MailUnreadable, match="header section"):
        prescan.prescan(long_head)


def test_a_parser_failure_is_a_permanent_refusal_not_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the stdlib may yet raise on some mail, the transport refuses it for good."""
    def broken(*_: object, **__: object) -> None:
        raise UnicodeError("a codec nobody foresaw")

    monkeypatch.setattr(delivery, "parse", broken)
    with pytest.raises(MailUnreadable, match="cannot be parsed"):
        deliver_raw(RecordingDesk(), wire(mailcorpus.gmail("3")))


SEEDS = [(POISON / name).read_bytes() for name, outcome in cases() if outcome == "parsed"] + [
    wire(mailcorpus.mixed_with_attachment("3")), wire(mailcorpus.latin1_qp("3"))]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(SEEDS), edits=st.lists(
    st.tuples(st.floats(0, 1), st.integers(0, 8), st.sampled_from([
        b"", b"\xff", b"\x00", b"\r\n", b"\r\n\r\n", b"=?idna?q?=FF?=", b"; charset=idna", b"; charset*=idna''%FF",
        b"Content-Type: multipart/mixed; boundary=q\r\n", b"--q\r\n", b"Content-Transfer-Encoding: base64\r\n",
        b"Content-Type: message/rfc822\r\n", b"Content-Type: text/plain; charset=utf-7\r\n\r\n+ZZ", b"=\r\n"])),
    max_size=6))
def test_mutated_mail_is_parsed_or_refused_for_good(seed: bytes, edits: list[tuple[float, int, bytes]]) -> None:
    raw = bytearray(seed)
    for where, cut, insert in edits:
        at = int(where * len(raw))
        raw[at:at + cut] = insert
    desk = RecordingDesk()
    try:
        deliver_raw(desk, bytes(raw))
    except MailUnreadable:  # refused for good: the desk never saw it
        assert desk.mails == []
        return
    assert len(desk.mails) == 1  # parsed and handed on; any other exception fails the test


def test_the_real_desk_takes_every_readable_poison_mail_from_the_seat(mail_settings: Settings,
                                                                        smtp_sink: SmtpSink) -> None:
    """Sent by the seat to its authentic reply address, each readable poison mail is dealt with by
    the real desk (moved, refused or ignored), never an exception the transport would defer."""
    table = open_table(mail_settings, smtp_sink)
    door = Door(table.m.server_key, BASE)
    verdicts: set[str] = set()
    for name, outcome in cases():
        if outcome != "parsed":
            continue
        seat, email = table.mover()  # some of them move ("3, 1, end" survives the odd charsets)
        to = table.address("t", seat, table.m.meta(table.match).ply)
        raw = (f"From: {email}\r\nTo: {to}\r\nMessage-ID: <{name}.desk@example.org>\r\n".encode()
               + (POISON / name).read_bytes())  # the first From, To and Message-ID count
        account = deliver_raw(table.desk, raw, [to], envelope_sender=email, door=door)
        assert account != NOT_FOR_THE_DESK, name
        verdicts.add(account.split(":")[0])
    assert "moved" in verdicts and "refused" in verdicts, verdicts
