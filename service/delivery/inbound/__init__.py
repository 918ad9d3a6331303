"""Mail comes in: raw RFC 5322 bytes become an :class:`~service.play.mail.inbound.InboundMail` for the desk.

Two entry points share :func:`deliver_raw`: the SMTP/LMTP receiver (service.delivery.receiver,
``portolan mail-receiver``, started by ``portolan dev``) and ``portolan mail-in`` (one message on
standard input, for an MTA's pipe, procmail or ``.forward``). deploy/README.md "Mail in" says how
to wire either to a mail server. The door (gate) keeps mail without an authentic reply token
from the desk; the pre-scan (prescan) refuses a message too costly to parse before it is parsed.
"""

from __future__ import annotations

from service.delivery.inbound.delivery import NOT_FOR_THE_DESK, MailTooBig, deliver_raw
from service.delivery.inbound.gate import Door
from service.delivery.inbound.parsing import parse
from service.delivery.inbound.prescan import MailUnreadable

__all__ = ["NOT_FOR_THE_DESK", "Door", "MailTooBig", "MailUnreadable", "deliver_raw", "parse"]
