"""Helpers of the mail desk tests: a match whose seats play by mail, replies as InboundMail, and
the answers read back from a real SMTP sink after a real worker burst."""

from __future__ import annotations

import dataclasses
import hashlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import pytest

from service.config import Settings
from service.play.mail.inbound import InboundMail, MailDesk
from service.play.mail.reply_address import Kind, reply_address
from service.play.matches import Matches
from service.proof import signing
from service.proof.match_record import MatchMeta
from service.runtime import build, build_desk
from tests.conftest import CREATOR_KEY, SmtpSink, as_in_a_worker, forget_worker_service, worker_burst

ANA, BEA = "ana@example.org", "Bea.Lima@example.org"
BASE = "turns@portolan.test"


@pytest.fixture
def mail_settings(settings: Settings, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Mail to the SMTP sink; the jobs build their service from the environment, as in a worker."""
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url, mail_reply_to=BASE)
    as_in_a_worker(monkeypatch, {"REDIS_URL": s.redis_url, "PORTOLAN_NS": s.namespace, "PUBLIC_URL": s.public_url,
                                 "OUTBOX_DIR": s.outbox_dir, "SMTP_URL": smtp_sink.url, "MAIL_FROM": s.mail_from,
                                 "PORTOLAN_MAIL_REPLY_TO": BASE})
    yield s
    forget_worker_service()


@dataclass
class Table:
    """A match (Nauticus unless told) of Ana (own key, mail delegation) and Bea (joined by mail:
    custodial)."""

    settings: Settings
    m: Matches
    desk: MailDesk
    sink: SmtpSink
    match: str = ""
    ana_key: str = field(default_factory=signing.generate_private_key)
    seen: int = 0

    def address(self, kind: Kind, seat: int, ply: int = 0) -> str:
        return reply_address(self.m.server_key, BASE, kind, self.match, seat, ply)

    def mover(self) -> tuple[int, str]:
        """The seat to act now and its address."""
        meta = self.m.meta(self.match)
        seat = meta.active[0]
        return seat, meta.seats[seat].email

    def snapshot(self) -> tuple[MatchMeta, list[dict[str, Any]]]:
        return self.m.meta(self.match), self.m.log(self.match)

    def answers(self) -> list[EmailMessage]:
        """The answer mails that arrived since the last call (after a real worker burst)."""
        worker_burst(self.settings)
        new = self.sink.messages[self.seen:]
        self.seen = len(self.sink.messages)
        return [msg for msg in new if str(msg.get("X-Portolan-Notice", "")).startswith("answer:")]


def reply(to: str, sender: str, text: str, *, message_id: str | None = None, **kw: Any) -> InboundMail:
    """A reply as the transport hands it to the desk (its own words already separated)."""
    mid = message_id if message_id is not None else f"<{uuid.uuid4().hex}@mail.example.org>"
    digest = hashlib.sha256(f"{mid}\n{sender}\n{to}\n{text}".encode()).hexdigest()
    fields: dict[str, Any] = {"sender": sender.lower(), "recipients": (to,), "message_id": mid, "digest": digest,
                              "subject": "[Portolan] Your turn", "text": text, "automatic": False, "attachments": 0,
                              "size": len(text)}
    fields.update(kw)
    return InboundMail(**fields)


def body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def words(msg: EmailMessage) -> str:
    """The plain body with its lines joined: phrases do not depend on where the text wraps."""
    return " ".join(body(msg).split())


def open_table(s: Settings, sink: SmtpSink, game: str = "nauticus") -> Table:
    """Create the match (Nauticus unless told), Ana claims with a key and a mail delegation,
    Bea joins by mail."""
    m = build(s)
    t = Table(s, m, build_desk(s, m), sink)
    made = m.create(game, {}, [{"invite": ANA}, {"invite": BEA}], creator_key=CREATOR_KEY)
    t.match = made["id"]
    ana_pub = signing.public_key_of(t.ana_key)
    delegation = signing.sign(t.ana_key, m.delegation_body(t.match, 0, m.mail_public_key(t.match, 0, 0)))
    m.claim(t.match, 0, made["invites"]["0"], ana_pub, "Ana", ANA, mail_delegation=delegation)
    account = t.desk.receive(reply(t.address("i", 1), BEA, "join Bea Lima\n\n-- \nBea"))
    assert account.startswith("joined"), account
    assert m.meta(t.match).status == "active"
    [welcome] = t.answers()
    assert "Welcome aboard, Bea Lima" in words(welcome)
    # the start sends the turn notices: the welcome is no second prompt for the same turn
    assert welcome["Reply-To"] == t.address("o", 1) and "What you can do now" not in words(welcome)
    return t
