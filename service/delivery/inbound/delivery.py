"""One received message, from raw bytes to the desk: what both entry points call."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from service.delivery.inbound.gate import Door
from service.delivery.inbound.parsing import parse
from service.delivery.inbound.prescan import MailUnreadable, prescan
from service.play.mail.inbound import MailDesk

log = logging.getLogger("portolan.mail")

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
"""``PORTOLAN_MAIL_MAX_BYTES``' default: a reply is a few lines, and a 5 MB photo still fits,
so the desk can answer it with a refusal instead of the sender seeing a bounce."""

NOT_FOR_THE_DESK = "dropped: no authentic reply address among the recipients, not answered"
"""The account of a mail the door keeps from the desk (forged or missing reply token)."""


class MailTooBig(ValueError):
    """The message is over ``PORTOLAN_MAIL_MAX_BYTES``: refused before it is parsed (SMTP 552,
    ``mail-in`` exit 65), so a huge message never costs its size in memory twice."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"the message is {size} bytes, over the limit of {limit} bytes (PORTOLAN_MAIL_MAX_BYTES)")
        self.size = size
        self.limit = limit


def deliver_raw(desk: MailDesk, raw: bytes, envelope_recipients: Iterable[str] = (), *,
                envelope_sender: str | None = None, check_dkim: bool = False,
                max_bytes: int = DEFAULT_MAX_BYTES, dnsfunc: Callable[..., bytes | None] | None = None,
                door: Door | None = None) -> str:
    """Parse ``raw`` and hand it to ``desk``; returns the desk's one-line account.

    ``door`` holds the server key and the reply base: with it (both ways in pass it) a mail with no
    authentic reply address among its recipients is dropped here with a log line and never reaches
    the desk, so nothing is ever answered to a forged token (service.delivery.inbound.gate).

    Raises :class:`MailTooBig` over ``max_bytes`` and :class:`MailUnreadable` when the pre-scan's
    limits are passed or the message cannot be parsed: both permanent refusals (the desk never sees
    it). Whatever ``desk.receive`` raises goes up unchanged: the transport answers it as a
    temporary failure, so the MTA keeps the message and delivers it again."""
    if max_bytes and len(raw) > max_bytes:
        raise MailTooBig(len(raw), max_bytes)
    prescan(raw)
    try:
        mail = parse(raw, envelope_recipients=tuple(envelope_recipients), envelope_sender=envelope_sender,
                     check_dkim=check_dkim, dnsfunc=dnsfunc)
    except Exception as exc:  # parsing is meant never to raise; if a mail finds a way, it is the mail's fault
        log.warning("a mail from %s could not be parsed (%s: %s): refused for good", envelope_sender or "?",
                    type(exc).__name__, exc)
        raise MailUnreadable(f"the message cannot be parsed ({type(exc).__name__})") from exc
    if door is not None and not door.lets_in(mail.recipients):
        log.info("mail %s from %s (envelope %s) to %s: %s", mail.message_id or mail.digest[:16], mail.sender or "?",
                 envelope_sender or "?", ", ".join(mail.recipients[:3]) or "nobody", NOT_FOR_THE_DESK)
        return NOT_FOR_THE_DESK
    account = desk.receive(mail)
    log.info("mail %s from %s (%d bytes%s): %s", mail.message_id or mail.digest[:16], mail.sender or "?",
             mail.size, ", automatic" if mail.automatic else "", account)
    return account
