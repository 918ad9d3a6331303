"""The SMTP/LMTP receiver (aiosmtpd): replies delivered by a mail server or any mail client.

``portolan mail-receiver --listen 127.0.0.1:8025 [--lmtp]`` runs it; ``portolan dev`` starts it on
``PORTOLAN_MAIL_RECEIVER``. Each message goes through :func:`service.delivery.inbound.deliver_raw`
to the desk, in a worker thread so a slow desk never stalls the other connections, and the answer
to DATA says what became of it:

=====  ======================================================================================
250    the desk took the message (moved, refused by mail, or ignored as automatic), or a mail to
       postmaster@/abuse@ only, logged and not answered
451    the desk raised (Redis down, a bug): the sending server keeps the message and retries
552    over ``PORTOLAN_MAIL_MAX_BYTES`` (also announced as the EHLO SIZE, and cut while receiving)
554    5.6.0: the message cannot be parsed, or is over the pre-scan's part, nesting or header
       limits (service.delivery.inbound.prescan): refused for good, never a 451
550    at RCPT TO, an address outside the reply base's domain (5.7.1: no open relay), or one of
       it that is not an authentic reply address (5.1.1: unknown local part, unknown token
       prefix, malformed token, bad MAC): the *sending* server bounces it, we never mail back
452    at RCPT TO, past 100 recipients of one message
=====  ======================================================================================

Over LMTP (RFC 2033) DATA is answered once per accepted recipient. The message is handed to
the desk once with all of them, so every recipient gets the same status.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from service.config import Settings, parse_listen
from service.delivery.inbound import Door, MailTooBig, MailUnreadable, deliver_raw
from service.play.mail.inbound import MailDesk

log = logging.getLogger("portolan.mail")

MAX_RECIPIENTS = 100
"""RCPT TOs one message may have (RFC 5321 4.5.3.1.8's minimum); a reply has one. 452 past it,
which a sending server answers by sending the rest in another transaction."""

Deliver = Callable[[bytes, tuple[str, ...], str | None], str]
"""What the handler calls per message: (raw bytes, RCPT TO addresses, MAIL FROM) -> account."""


@dataclass
class MailHandler:
    """aiosmtpd's handler: RCPT TO only for ``domains`` and only the authentic reply addresses
    ``door`` lets in, DATA handed to ``deliver`` in a thread."""

    deliver: Deliver
    domains: frozenset[str]
    door: Door
    lmtp: bool = False
    threads: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(4, "mail-in"))

    async def handle_RCPT(self, server: SMTP, session: Any, envelope: Any, address: str, rcpt_options: list[str]) -> str:
        """Accept an authentic reply address of our own domain (and its postmaster); anything else
        is relaying, which we never do, or a forged or unknown address, bounced by the sender's server."""
        domain = address.rpartition("@")[2].strip().rstrip(".").lower()
        if domain not in self.domains:
            return f"550 5.7.1 <{address}>: relay access denied (this server takes mail for @{', @'.join(sorted(self.domains))} only)"
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return f"452 4.5.3 too many recipients (at most {MAX_RECIPIENTS} a message)"
        judgement = self.door.judge(address)
        if not judgement.taken:
            log.info("RCPT TO <%s> from <%s> refused: %s", _one_line(address, 120), _one_line(str(envelope.mail_from), 120),
                     judgement.reason)
            return f"550 5.1.1 <{_one_line(address, 120)}>: {judgement.reason}"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Any, envelope: Any) -> str:
        """Deliver the message to the desk and answer 250, 451 or 552 (see the module doc)."""
        raw = envelope.original_content if envelope.original_content is not None else envelope.content
        raw = raw if isinstance(raw, bytes) else str(raw).encode("utf-8", "surrogateescape")
        mail_from = envelope.mail_from if envelope.mail_from is not None else None
        loop = asyncio.get_running_loop()
        try:
            account = await loop.run_in_executor(self.threads, self.deliver, raw, tuple(envelope.rcpt_tos), mail_from)
            status = f"250 2.0.0 OK: {_one_line(account)}"
        except MailTooBig as exc:
            status = f"552 5.3.4 {exc}"
        except MailUnreadable as exc:  # the mail's own fault: retrying the same bytes cannot help
            status = f"554 5.6.0 {_one_line(str(exc))}"
        except Exception:  # the desk could not deal with it now: the sender's server must retry
            log.exception("a mail from %s could not be delivered to the desk; answered 451", mail_from)
            status = "451 4.3.0 temporary failure, please try again later"
        if self.lmtp:
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status


def _one_line(text: str, limit: int = 200) -> str:
    """The desk's account fit for an SMTP reply line (no line breaks, not too long)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def handler_for(desk: MailDesk, settings: Settings, server_key: str, *, lmtp: bool = False,
                dnsfunc: Callable[..., bytes | None] | None = None) -> MailHandler:
    """The handler that hands every message to ``desk`` with the settings' DKIM rule and size cap,
    taking mail for the reply base's domain (``Settings.reply_base()``) at the reply addresses
    ``server_key`` made (the service's key: ``Matches.server_key``)."""
    door = Door(server_key, settings.reply_base())
    deliver: Deliver = partial(_deliver, desk, settings, door, dnsfunc)
    domain = settings.reply_base().rpartition("@")[2].lower()
    return MailHandler(deliver=deliver, domains=frozenset({domain}), door=door, lmtp=lmtp)


def _deliver(desk: MailDesk, settings: Settings, door: Door, dnsfunc: Callable[..., bytes | None] | None,
             raw: bytes, recipients: tuple[str, ...], mail_from: str | None) -> str:
    return deliver_raw(desk, raw, recipients, envelope_sender=mail_from, check_dkim=settings.mail_require_dkim,
                       max_bytes=settings.mail_max_bytes, dnsfunc=dnsfunc, door=door)


class _LMTPController(Controller):
    """aiosmtpd's threaded controller speaking LMTP instead of SMTP."""

    def factory(self) -> SMTP:
        """An LMTP session with the controller's SMTP settings."""
        return LMTP(self.handler, **self.SMTP_kwargs)


def controller(handler: MailHandler, host: str, port: int, max_bytes: int) -> Controller:
    """A controller (not yet started) serving ``handler`` on ``host:port``."""
    kind = _LMTPController if handler.lmtp else Controller
    return kind(handler, hostname=host, port=port, data_size_limit=max_bytes or None,
                server_hostname="portolan", ident="Portolan mail receiver")


def serve(desk: MailDesk, settings: Settings, server_key: str, listen: str, *, lmtp: bool = False) -> None:
    """Run the receiver on ``listen`` until SIGTERM or SIGINT."""
    host, port = parse_listen(listen)
    server = controller(handler_for(desk, settings, server_key, lmtp=lmtp), host, port, settings.mail_max_bytes)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server.start()
    log.info("receiving %s on %s:%d for @%s", "LMTP" if lmtp else "SMTP", host, port,
             settings.reply_base().rpartition("@")[2])
    try:
        stop.wait()
    finally:
        server.stop()
