"""Every kind of mail Portolan sends, as the jobs write it to the outbox, is a standard message
(issue 27 part 1): Date, Message-ID, MIME-Version 1.0, no parser defects in any part, no line
over RFC 5322's 998 octets."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest

from service.config import Settings
from service.delivery import letters
from service.delivery.mail import Mail, deliver, message_id, render, to_message
from service.play.mail.inbound import InboundMail
from service.play.mail.reply_address import reply_address
from service.runtime import build, build_desk
from tests.conftest import CREATOR_KEY, Player, worker_burst
from tests.helpers import clock_helpers
from tests.helpers.notices import finished_race, notice, parsed
from workers import jobs


def every_kind(s: Settings, players: list[Player]) -> list[tuple[str, bytes]]:
    """One mail of each kind, sent the way the service sends it; the outbox file of each."""
    m = build(s)
    outbox = Path(s.outbox_dir)
    made = m.create("ophir", {}, [{"invite": "zoe@example.org"}, {"invite": "bea@example.org"}, {"bot": "random"}],
                    creator_key=CREATOR_KEY, creator_name="Ana")
    assert jobs.send_invite(made["id"], 0, "zoe@example.org", made["invites"]["0"]).startswith("sent")
    m.abort(made["id"], CREATOR_KEY)
    assert jobs.send_match_over(made["id"], 0).startswith("sent")  # the aborted mail to an invited seat
    finished = finished_race(m, players[0], "Zoë")
    assert jobs.send_match_over(finished, 0).startswith("sent")  # the standings

    _, _, mid, seat, _ = notice(s, players)
    email = m.meta(mid).seats[seat].email
    # the desk's answer to a reply ("help" to the seat's o address), sent by a real worker burst
    to = reply_address(m.server_key, s.reply_base(), "o", mid, seat)
    mid_in = f"<{uuid.uuid4().hex}@mail.example.org>"
    desk = build_desk(s, m)
    desk.receive(InboundMail(sender=email, recipients=(to,), message_id=mid_in, subject="Re: your turn",
                             text="help", automatic=False, attachments=0, size=4,
                             digest=hashlib.sha256(mid_in.encode()).hexdigest()))
    worker_burst(s)

    lines, _ = letters.waiting_lines(m, s, email, [(mid, seat, "2026-12-01T10:00:00")])
    deliver(s, letters.digest(m, s, email, lines, datetime(2026, 12, 2, tzinfo=UTC), "digest:x:2026-12-02"))

    timed = clock_helpers.started(m, players, 2, 100, time_control={"kind": "per-move", "days": 3},
                                  timeout_policy={"grace_hours": 48})
    meta = m.meta(timed)
    status = m.clock_status(meta)[meta.active[0]]
    now = datetime.now(UTC) + timedelta(days=2)
    for mail in (letters.reminder(m, s, timed, meta.active[0], status, now, f"reminder:{timed}:0"),
                 letters.late_note(m, s, timed, meta.active[0], 1 - meta.active[0], 1, status, now, f"late:{timed}:1")):
        assert mail is not None
        deliver(s, mail)
    deliver(s, render("webhook_disabled", "ana@example.org", "[Portolan] Webhook h1 was switched off", "hookoff:h1:1",
                      {"hook_id": "h1", "scope": "all your matches", "url": "https://hooks.example.org/x",
                       "failures": 15, "reason": "410 Gone", "public_url": s.public_url,
                       "ping_line": "portolan webhook ping h1", "deliveries_line": "portolan webhook deliveries h1"}))
    return [(path.name.split("-", 1)[0], path.read_bytes()) for path in sorted(outbox.glob("*.eml"))]


def assert_standard(raw: bytes, settings: Settings) -> None:
    """The headers RFC 5322 and receivers want, a Date that parses, MIME without defects, short lines."""
    msg = parsed(raw)
    for name in ("From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Auto-Submitted"):
        assert len(msg.get_all(name) or []) == 1, name
    assert msg["MIME-Version"] == "1.0"
    when = parsedate_to_datetime(str(msg["Date"]))
    assert when.tzinfo is not None and abs(datetime.now(UTC) - when) < timedelta(hours=1)
    assert msg["Message-ID"] == message_id(str(msg["X-Portolan-Notice"]), settings.message_domain())
    for part in msg.walk():
        assert not part.defects, (part.get_content_type(), part.defects)
        if not part.is_multipart():
            part.get_content()  # decodes
    assert msg.get_body(preferencelist=("plain",)) is not None and msg.get_body(preferencelist=("html",)) is not None
    assert max(len(line) for line in raw.split(b"\n")) <= 998


def test_every_kind_of_mail_is_a_standard_message(outbox_settings: Settings, players: list[Player]) -> None:
    mails = every_kind(outbox_settings, players)
    kinds = [kind for kind, _ in mails]  # the worker burst sends the other matches' invitations too
    assert set(kinds) == {"invite", "over", "notice", "answer", "digest", "reminder", "late", "hookoff"}
    assert kinds.count("over") == 2  # aborted, and finished with standings
    for kind, raw in mails:
        try:
            assert_standard(raw, outbox_settings)
        except AssertionError as exc:
            raise AssertionError(f"{kind}: {exc}") from exc
    # issue 28: no Subject carries words a creator or a player chose (the creator here is "Ana",
    # the players Ana, Bea and Zoë); an answer's "Re: ..." is the replying player's own subject
    chosen = ("Ana", "Bea", "Zoë", *(p.name for p in players))
    for kind, raw in mails:
        subject = str(parsed(raw)["Subject"])
        assert kind == "answer" or not any(name in subject for name in chosen), (kind, subject)


def simple() -> Mail:
    return Mail(to="zoe@example.org", subject="Your turn", text="Hello\n", html="<p>Hello</p>", key="notice:m1:0:3")


def test_a_resend_has_a_fresh_date_and_the_same_message_id() -> None:
    first = to_message(simple(), "turns@example.org", "example.org", date=datetime(2026, 12, 1, 9, 30, tzinfo=UTC))
    again = to_message(simple(), "turns@example.org", "example.org")
    assert first["Message-ID"] == again["Message-ID"] == "<notice.m1.0.3@example.org>"
    assert first["Date"] == "Tue, 01 Dec 2026 09:30:00 +0000"
    assert parsedate_to_datetime(str(again["Date"])) > parsedate_to_datetime(str(first["Date"]))


@pytest.mark.parametrize("header", [b"Date", b"MIME-Version", b"Message-ID"])
def test_the_check_itself_fails_on_a_message_without_one_of_them(outbox_settings: Settings, header: bytes) -> None:
    """The assertions above can fail: the same message, one header taken out."""
    raw = bytes(to_message(simple(), outbox_settings.mail_from, outbox_settings.message_domain()))
    assert_standard(raw, outbox_settings)
    head, _, rest = raw.partition(b"\n\n")
    head = b"\n".join(line for line in head.split(b"\n") if not line.startswith(header + b":"))
    with pytest.raises(AssertionError):
        assert_standard(head + b"\n\n" + rest, outbox_settings)
