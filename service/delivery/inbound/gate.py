"""The door: which recipient addresses may bring a mail in at all (issue 28, no backscatter).

Portolan takes mail only at its reply addresses, ``<base>+<kind>-<match>-<seat>-<ply>-<mac>@<domain>``
(service.play.mail.reply_address). Anybody can write such an address, but only the server can
make its MAC, so a recipient is judged here, before anything is read or answered:

- the SMTP/LMTP receiver asks :func:`judge` at ``RCPT TO`` and refuses a recipient that is not
  authentic with ``550 5.1.1``, so the *sending* server bounces it to whoever sent it, and we
  never mail a refusal to a forged From;
- :func:`service.delivery.inbound.deliver_raw` asks :meth:`Door.lets_in` before the desk, so
  neither way in (the receiver, ``portolan mail-in``) ever hands the desk a mail without one.

``postmaster@`` and ``abuse@`` of the domain are accepted at ``RCPT TO`` as they always were
(RFC 5321 4.5.1 wants postmaster to take mail), but no desk reads them: such mail is logged and
dropped, never answered.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Literal

from service.play.mail import reply_address as tokens
from service.play.mail.reply_address import KINDS, authentic, parse_reply_address

Verdict = Literal["reply", "role", "refused"]

ROLE_ACCOUNTS = frozenset({"postmaster", "abuse"})
"""Local parts taken for the domain whatever the token (RFC 2142); logged, never sent to the desk."""


@dataclass(frozen=True)
class Judgement:
    """What the door says of one recipient address: ``reply`` (an authentic reply address, for the
    desk), ``role`` (postmaster/abuse: taken, logged, not answered) or ``refused`` with a short
    ``reason`` fit for an SMTP reply line."""

    verdict: Verdict
    reason: str = ""

    @property
    def taken(self) -> bool:
        """Whether the recipient is accepted at ``RCPT TO``."""
        return self.verdict != "refused"


REPLY = Judgement("reply")
ROLE = Judgement("role")


def judge(server_key: str, base: str, address: str, now: float | None = None) -> Judgement:
    """Judge one recipient of the reply base's domain (the caller checks the domain: a foreign one
    is relaying, refused before this). ``base`` is the reply base, ``turns@play.example.org``;
    ``now`` (POSIX seconds, the system clock when None: mailboxes live in real time) is when
    expiry is judged."""
    local = parseaddr(address)[1].rpartition("@")[0].lower() or address.rpartition("@")[0].lower()
    own, plus, tag = local.partition("+")
    if not plus:
        if own in ROLE_ACCOUNTS:
            return ROLE
        return Judgement("refused", "unknown local part: this domain takes only replies to Portolan mails")
    if own != base.rpartition("@")[0].lower():
        return Judgement("refused", "unknown local part: not this server's reply address")
    kind, dash, _ = tag.partition("-")
    if not dash or kind not in KINDS:
        return Judgement("refused", "unknown reply token prefix: not an address made by this server")
    reply = parse_reply_address(address)
    if reply is None:
        return Judgement("refused", "malformed reply token: not an address made by this server")
    if not authentic(server_key, reply):
        return Judgement("refused", "bad reply token: its MAC was not made by this server")
    # expired: refused here rather than dropped by the desk, so a player replying to an old mail
    # hears it from their own mail server's bounce (nobody else is mailed: the sender's MTA bounces)
    if tokens.expired(reply, time.time() if now is None else now):
        return Judgement("refused", "expired reply token: reply to a newer Portolan mail")
    return REPLY


@dataclass(frozen=True)
class Door:
    """The server key that makes reply tokens and the reply base they are plus-addressed on."""

    server_key: str
    base: str

    def judge(self, address: str) -> Judgement:
        """:func:`judge` of one recipient."""
        return judge(self.server_key, self.base, address)

    def lets_in(self, addresses: Iterable[str]) -> bool:
        """Whether one of ``addresses`` is an authentic reply address of this server: the only
        mail the desk may see (the envelope recipients first, then the message's own headers, as
        the desk reads them)."""
        return any(self.judge(address).verdict == "reply" for address in addresses)
