"""What comes in by mail, as the use cases see it: one parsed reply, and the desk that takes it.

The transport (service.delivery.inbound: the SMTP/LMTP receiver and ``portolan mail-in``) turns
the raw RFC 5322 bytes into an :class:`InboundMail`; the desk (service.play.mail.desk) decides what
the reply means and answers it. The desk is called once per delivery: it raises to say "try
again later" (the receiver answers 451, ``mail-in`` exits 75, EX_TEMPFAIL, so the MTA keeps the
message and redelivers it) and returns normally once the message is dealt with, refused or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class InboundMail:
    """One received message, parsed, with nothing of the transport left."""

    sender: str
    """The From address (only the address), lower-cased; "" when there is none."""
    recipients: tuple[str, ...]
    """Every address it was delivered to, the envelope's RCPT TO first, then Delivered-To,
    X-Original-To, To and Cc: the reply address is one of them."""
    message_id: str
    """The Message-ID header as sent ("" when missing)."""
    digest: str
    """Hex SHA-256 of the raw message bytes: what a mail move's log entry names it by."""
    subject: str
    text: str
    """The reply's own words: quoted text, signatures and HTML already removed."""
    automatic: bool
    """An auto-reply, bounce, or list mail (Auto-Submitted, Precedence, a null return path, a
    delivery status report ...), or an out-of-office text without such headers (its subject or
    first lines say so): it must never be answered, or two robots mail each other forever."""
    attachments: int
    """How many parts were attachments (they are never read)."""
    size: int
    """The raw message's size in bytes."""
    dkim: bool | None = None
    """None when not checked; True when a DKIM signature of the sender's domain verified."""
    in_reply_to: str = ""
    """The In-Reply-To header: the answer threads under it."""
    forwarded: bool = False
    """The mail forwards a notice instead of replying to it (a ``Fwd:``/``WG:``/``Továbbítás:``
    subject, or a body that opens a forwarded-message block): the desk refuses it and says so."""
    auth_results: tuple[str, ...] = ()
    """The ``Authentication-Results`` headers at the top of the message (those our own MTA adds,
    service.delivery.inbound.auth_headers); the desk trusts only those of
    ``PORTOLAN_MAIL_AUTHSERV_ID`` (service.play.mail.sender_auth)."""


class MailDesk(Protocol):
    """The use case that takes every received message (service.play.mail.desk)."""

    def receive(self, mail: InboundMail) -> str:
        """Deal with one message at most once; returns a one-line account for the log."""
        ...
