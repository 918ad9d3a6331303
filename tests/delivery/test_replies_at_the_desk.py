"""Corpus replies (tests/delivery/replies) through the real parser into the real desk: a forwarded
notice is refused and told to reply instead, an out-of-office without robot headers is dropped
unanswered, and an answer below the quote moves; each time on a real Redis with the real answer job."""

from __future__ import annotations

from email import message_from_bytes, policy
from pathlib import Path

from service.config import Settings
from service.delivery.inbound import deliver_raw
from tests.conftest import SmtpSink
from tests.play.mail_desk import Table, mail_settings, open_table, words

__all__ = ["mail_settings"]

REPLIES = Path(__file__).parent / "replies"


def addressed(table: Table, name: str, *, words_from: bytes = b"", words_to: bytes = b"") -> tuple[bytes, str]:
    """Corpus file ``name`` as the mover sends it to their turn notice's reply address (its
    From and To rewritten, the bytes of its body left as the client wrote them)."""
    seat, email = table.mover()
    to = table.address("t", seat, table.m.meta(table.match).ply)
    msg = message_from_bytes((REPLIES / name).read_bytes(), policy=policy.compat32)
    msg.replace_header("From", f"Player <{email}>")
    msg.replace_header("To", to)
    raw = msg.as_bytes()
    if words_from:
        assert words_from in raw
        raw = raw.replace(words_from, words_to, 1)
    return raw, to


def test_a_forwarded_notice_is_refused_with_reply_instead(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    table = open_table(mail_settings, smtp_sink)
    for name in ("50-forward-gmail.eml", "52-forward-thunderbird-german.eml"):
        before = table.snapshot()
        raw, to = addressed(table, name)
        account = deliver_raw(table.desk, raw, (to,))
        assert table.snapshot() == before, account  # not even the "3" written above the forward moved
        [answer] = table.answers()
        assert "you forwarded the notice: reply to it instead" in words(answer)


def test_an_out_of_office_without_robot_headers_is_never_answered(mail_settings: Settings,
                                                                  smtp_sink: SmtpSink) -> None:
    table = open_table(mail_settings, smtp_sink)
    before = table.snapshot()
    for name in ("41-ooo-no-headers-english.eml", "46-ooo-hungarian-body-only.eml"):
        raw, to = addressed(table, name)
        assert deliver_raw(table.desk, raw, (to,)) == "dropped: automatic mail"
    assert table.snapshot() == before
    assert table.answers() == []


def test_thunderbird_s_answer_below_the_quote_moves(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    table = open_table(mail_settings, smtp_sink)
    plies = len(table.m.log(table.match))
    raw, to = addressed(table, "17-thunderbird-bottom.eml", words_from=b"\n\n3\n\n-- ",
                        words_to=b"\n\n1\n\n-- ")
    assert deliver_raw(table.desk, raw, (to,)).startswith("moved")
    assert len(table.m.log(table.match)) == plies + 1
    [answer] = table.answers()
    assert "accepted" in words(answer).lower()
