"""Mail comes in: raw RFC 5322 bytes become an :class:`~service.play.mail.inbound.InboundMail` for the desk.

Two entry points share :func:`deliver_raw`: the SMTP/LMTP receiver (service.delivery.receiver,
``portolan mail-receiver``, started by ``portolan dev``) and ``portolan mail-in`` (one message on
standard input, for an MTA's pipe, procmail or ``.forward``). deploy/README.md "Mail in" says how
to wire either to a mail server.
"""

from __future__ import annotations

from service.delivery.inbound.delivery import MailTooBig, deliver_raw
from service.delivery.inbound.parsing import parse

__all__ = ["MailTooBig", "deliver_raw", "parse"]
