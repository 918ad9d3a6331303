"""Refusals over the wire (issue 11): real mail through the real SMTP receiver to the real desk,
the answers from a real worker burst into a real SMTP sink. Each refusal changes nothing; a 5 MB
attachment is answered, never read; a mail loop (our own answer bounced back, an auto-reply, a
delivery report) is never answered; the very same message delivered twice is one move and one
answer."""

from __future__ import annotations

import smtplib
import uuid
from email.message import EmailMessage
from email.policy import SMTP

from service.config import Settings
from service.runtime import build
from tests.conftest import SmtpSink
from tests.play.mail_desk import Table, mail_settings, open_table, words

__all__ = ["mail_settings"]


def send(to_server: tuple[str, int], msg: EmailMessage, mail_from: str | None = None) -> str:
    """Deliver over SMTP; the receiver's last answer line."""
    with smtplib.SMTP(*to_server, timeout=60) as smtp:
        sender = mail_from if mail_from is not None else str(msg["From"])
        smtp.ehlo()
        smtp.mail(sender)
        smtp.rcpt(str(msg["To"]))
        code, answer = smtp.data(msg.as_bytes(policy=SMTP))
    assert code == 250, (code, answer)
    return answer.decode()


def a_reply(t: Table, words_: str, *, sender: str | None = None, to: str | None = None) -> EmailMessage:
    seat, email = t.mover()
    msg = EmailMessage()
    msg["From"] = sender or email
    msg["To"] = to or t.address("t", seat, t.m.meta(t.match).ply)
    msg["Subject"] = "Re: [Portolan] Your turn"
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@client.example.org>"
    msg.set_content(f"{words_}\n\n-- \nAna\n")
    return msg


def test_refusals_over_the_wire(mail_settings: Settings, smtp_sink: SmtpSink, receiver: tuple[str, int]) -> None:
    t = open_table(mail_settings, smtp_sink)
    before = t.snapshot()

    photo = a_reply(t, "1")
    photo.add_attachment(b"\xff\xd8" + bytes(5 * 1024 * 1024), maintype="image", subtype="jpeg", filename="board.jpg")
    send(receiver, photo)
    assert t.snapshot() == before
    [answer] = t.answers()
    assert "attachments are not read" in words(answer)

    # not the seat's address: dropped, and nobody is answered (issue 28: an answer would go to
    # whatever address the From names, the backscatter a forger wants)
    forged = a_reply(t, "1", sender="mallory@example.net")
    send(receiver, forged)
    assert t.answers() == []
    assert t.snapshot() == before

    # a mail loop: our own answer sent back to its Reply-To (a forwarding robot, a misconfigured
    # alias) carries Auto-Submitted and is dropped; so are a vacation reply and a bounce
    bounced = EmailMessage()
    for name in ("From", "To", "Subject", "Auto-Submitted"):
        bounced[name] = str(answer[name]) if name != "From" else str(answer["To"])
    bounced.replace_header("To", str(answer["Reply-To"] or t.address("o", 0)))
    bounced["Message-ID"] = f"<{uuid.uuid4().hex}@loop.example.org>"
    bounced.set_content(str(answer.get_body(preferencelist=("plain",)).get_content()))  # type: ignore[union-attr]
    assert "dropped" in send(receiver, bounced)
    vacation = a_reply(t, "I am away until Monday")
    vacation["Auto-Submitted"] = "auto-replied"
    assert "dropped" in send(receiver, vacation)
    report = a_reply(t, "Delivery failed")
    report.replace_header("Content-Type", 'multipart/report; report-type=delivery-status; boundary="b"')
    assert "dropped" in send(receiver, report, mail_from="<>")
    assert t.answers() == []
    assert t.snapshot() == before


def test_the_same_message_delivered_twice_over_smtp(mail_settings: Settings, smtp_sink: SmtpSink,
                                                    receiver: tuple[str, int]) -> None:
    t = open_table(mail_settings, smtp_sink)
    ply = t.m.meta(t.match).ply
    msg = a_reply(t, "1")
    assert "moved" in send(receiver, msg)
    assert "duplicate" in send(receiver, msg)
    assert len(build(mail_settings).log(t.match)) == ply + 1
    [answer] = t.answers()
    assert "accepted:" in words(answer)
