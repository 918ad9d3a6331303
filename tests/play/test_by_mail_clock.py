"""The clock's mail commands (docs/clock.md): ``resign yes``, ``abort``, ``back`` and
``vacation``, through the real desk, a real Redis, the real answer job in a real RQ worker burst
and a real SMTP sink. A match action by mail is a move signed with the seat's mail key (or its
custodial key) and logged ``by: "email"``; every refusal changes nothing and is answered once."""

from __future__ import annotations

import pytest

from service.config import Settings
from service.play.mail.grammar import Reading, read
from tests.conftest import SmtpSink
from tests.play.mail_desk import ANA, BEA, Table, mail_settings, open_table, reply, words

__all__ = ["mail_settings"]

@pytest.mark.parametrize(("text", "reading"), [
    ("resign", Reading(command="resign")),
    ("Resign yes.", Reading(command="resign", argument="yes")),
    ("abort", Reading(command="abort")),
    ("back", Reading(command="back")),
    ("I'm back!", Reading(command="back")),
    ("vacation 2027-01-04 7", Reading(command="vacation", argument="2027-01-04 7")),
    ("vacation off", Reading(command="vacation", argument="off")),
])
def test_the_clock_commands_are_read(text: str, reading: Reading) -> None:
    assert read(text) == reading


@pytest.mark.parametrize(("text", "says"), [
    ("resign now", "say `resign yes`"),
    ("vacation soon", "vacation YYYY-MM-DD DAYS"),
    ("vacation 2027-01-04", "vacation YYYY-MM-DD DAYS"),
])
def test_a_garbled_clock_command_is_a_problem(text: str, says: str) -> None:
    reading = read(text)
    assert reading.command is None and says in reading.problem


def one_answer(t: Table, seat: int, text: str, **kw: object) -> str:
    """Deliver one reply of ``seat`` (to its 'other' address: match actions need no turn) and read
    the one answer that comes back."""
    email = t.m.meta(t.match).seats[seat].email
    account = t.desk.receive(reply(t.address("o", seat), email, text, **kw))
    [answer] = t.answers()
    return f"{account} || {words(answer)}"


def test_resign_needs_its_yes_then_ranks_the_seat_last(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    before = t.snapshot()
    said = one_answer(t, 1, "resign")
    assert "Nothing was done. Resigning gives up seat 1" in said and "reply `resign yes`" in said
    assert t.snapshot() == before
    ply = before[0].ply
    said = one_answer(t, 1, "resign yes")  # Bea joined by mail: the custodial key signs
    assert f"Done: you resigned seat 1 of match {t.match}; you are ranked last" in said
    assert "Seat 1 resigned and is ranked last." in said
    assert "It is your turn" not in said  # no menu for a seat that is no longer the player's
    [entry] = t.m.log(t.match, ply)
    assert entry["by"] == "email" and entry["seat"] == 1 and entry["envelope"]["actions"] == [{"type": "match:resign"}]
    assert entry["mail"]["digest"]
    assert t.m.meta(t.match).standing["controllers"][1] == "forfeited"
    # once left, the seat takes no match action any more: refused, nothing changes
    before = t.snapshot()
    said = one_answer(t, 1, "abort")
    assert "Nothing was done: seat 1 has already left the match." in said and "(rule: seat-left)" in said
    assert t.snapshot() == before


def test_abort_by_mail_is_a_vote(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    mail = reply(t.address("o", 0), ANA, "abort")
    assert t.desk.receive(mail).startswith("accepted")  # Ana signs with her mail delegation
    [answer] = t.answers()
    assert "Still needed: 1 vote (seat 1); the match goes on meanwhile." in words(answer)
    entry = t.m.log(t.match)[-1]
    assert entry["by"] == "email" and entry["delegation"] and entry["envelope"]["actions"] == [{"type": "match:abort"}]
    # the same message delivered again does nothing; a second vote is refused, nothing changes
    before = t.snapshot()
    assert t.desk.receive(mail).startswith("duplicate")
    assert t.answers() == []
    said = one_answer(t, 0, "abort")
    assert "Nothing was done: seat 0 has already voted to abort." in said and "(rule: already-voted)" in said
    assert t.snapshot() == before
    said = one_answer(t, 1, "abort")
    assert "yours was the last vote needed" in said and "is aborted, with no result" in said
    assert t.m.meta(t.match).status == "aborted"
    said = one_answer(t, 0, "resign yes")
    assert "Nothing was done:" in said and "(rule: match-not-active)" in said


def test_back_without_a_stand_in_is_refused(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    before = t.snapshot()
    said = one_answer(t, 0, "back")
    assert "Nothing was done: nobody stands in for seat 0: it is already yours." in said
    assert t.snapshot() == before


def test_an_address_that_holds_no_seat_votes_nothing(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    before = t.snapshot()
    account = t.desk.receive(reply(t.address("o", 0), BEA, "abort"))  # Bea's address, to Ana's seat's reply address
    assert account.startswith("dropped") and t.answers() == []  # never answered: no backscatter
    assert t.snapshot() == before


def test_vacation_on_a_server_without_vacations_is_refused(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    t.m.pauses = None  # a service built without a vacation book
    said = one_answer(t, 0, "vacation 2030-01-04 7")
    assert "Nothing was done: this server keeps no vacations." in said


def test_vacation_by_mail(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    today = t.m.moment().date()
    start = today.replace(year=today.year + 1, month=1, day=4)
    said = one_answer(t, 0, f"vacation {start.isoformat()} 7")
    assert f"Done: you are on vacation from {start.isoformat()} to " in said and "(7 days, UTC)" in said
    assert f"vacation days left in {start.year}: 14 of 21" in said
    said = one_answer(t, 0, f"vacation {start.isoformat()} 30")  # beyond the allowance: refused
    assert "Nothing was done:" in said and "vacation-allowance" in said
    said = one_answer(t, 0, "vacation off")
    assert f"your vacation from {start.isoformat()} is cancelled" in said
    said = one_answer(t, 0, "vacation 2001-01-01 3")
    assert "Nothing was done:" in said and "vacation-in-the-past" in said
