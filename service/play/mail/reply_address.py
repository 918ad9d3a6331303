"""Reply addresses: where a reply to a Portolan mail goes, and what it is a reply to.

Every mail that may be answered carries a ``Reply-To`` built here, by plus-addressing the
installation's base address (``PORTOLAN_MAIL_REPLY_TO``, e.g. ``turns@example.org``)::

    turns+t-<match>-<seat>-<ply>-<day>-<mac>@example.org  a turn notice: seat <seat> to act at <ply>
    turns+i-<match>-<seat>-0-<day>-<mac>@example.org      an invitation: reply "join <name>"
    turns+o-<match>-<seat>-0-<day>-<mac>@example.org      any other mail about a seat (game over, answers)

The mac is an HMAC of the rest under a key derived from the server's private key, so nobody
can make a valid address without it, and it is bound to match, seat and ply: a turn token
*expires when the ply moves on* without storing anything (the use case compares the ply with
the match's). Every token also expires by the calendar (issue 28): ``<day>`` is the last UTC day
(days since 1970-01-01) it is good for, and it is inside the mac, so a sender cannot extend it.
Lifetimes come from the settings (``PORTOLAN_MAIL_TOKEN_DAYS``, ``PORTOLAN_MAIL_GAME_OVER_TOKEN_DAYS``);
the day is coarse on purpose: it says nothing finer about when the mail was sent.

Tokens made before expiry existed (``<kind>-<match>-<seat>-<ply>-<mac>``, no day) are honoured
until :data:`LEGACY_UNTIL_DAY` (2027-01-31) and refused after it: long enough for the replies to
mails already in mailboxes, and every mail sent since carries a token with its day.

The whole local part is lower case, digits and dashes (the id alphabet), because some mail
systems fold the case of local parts. 16 mac characters of a 32-letter alphabet are 80 bits.
:func:`check` is the one verdict on an address (the SMTP receiver's ``RCPT TO`` and the desk
both ask it). Pure: no I/O, so the notices, the inbound use case and the tests share it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from email.utils import parseaddr
from typing import Literal

from service.proof import signing

Kind = Literal["t", "i", "o"]
KINDS: tuple[Kind, ...] = ("t", "i", "o")
ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # the match-id alphabet (service.play.seats.lifecycle.ID_ALPHABET)
MAC_CHARS = 16
_PATTERN = re.compile(rf"^(?P<kind>[tio])-(?P<match>[{ALPHABET}]{{1,32}})-(?P<seat>\d{{1,2}})-(?P<ply>\d{{1,9}})-"
                      rf"(?:(?P<day>\d{{1,6}})-)?(?P<mac>[{ALPHABET}]{{{MAC_CHARS}}})$")
DAY_S = 86400
DEFAULT_DAYS = 30
"""A token's lifetime when the caller names none (``PORTOLAN_MAIL_TOKEN_DAYS``' default)."""
LEGACY_UNTIL_DAY = (date(2027, 1, 31) - date(1970, 1, 1)).days
"""The last day a token without a day of its own (made before issue 28) is honoured."""
Verdict = Literal["ok", "not-ours", "forged", "expired"]


@dataclass(frozen=True)
class ReplyTo:
    """What a reply address names: the kind of mail, the match, the seat and (for a turn
    notice) the ply it was sent for; ``mac`` is the address's authenticator."""

    kind: Kind
    match: str
    seat: int
    ply: int
    mac: str
    expires: int | None = None
    """The last UTC day (days since the epoch) the token is good for; None in a token made
    before tokens expired (honoured until :data:`LEGACY_UNTIL_DAY`)."""


@dataclass(frozen=True)
class Checked:
    """:func:`check`'s verdict on one address: ``ok`` (made by this server, not expired),
    ``not-ours`` (not a reply address at all), ``forged`` (its mac is wrong) or ``expired``;
    ``reply`` is what it names (None when ``not-ours``)."""

    verdict: Verdict
    reply: ReplyTo | None = None

    @property
    def ok(self) -> bool:
        """Authentic and not expired."""
        return self.verdict == "ok"


def day_of(now: float) -> int:
    """The UTC day number (days since 1970-01-01) of a POSIX time."""
    return int(now // DAY_S)


def _mac_key(server_key: str) -> bytes:
    # a key of its own, derived from the server key: a reply mac is never a signature, nor the reverse
    return hashlib.sha256(signing.b64d(server_key) + b"portolan:reply-address").digest()


def mac_of(server_key: str, kind: Kind, match_id: str, seat: int, ply: int, expires: int | None = None) -> str:
    """The authenticator of one reply address (lower-case, :data:`MAC_CHARS` characters); the
    expiry day is part of what it authenticates (a token without one is a legacy token)."""
    text = f"{kind}:{match_id}:{seat}:{ply}" + ("" if expires is None else f":{expires}")
    raw = hmac.new(_mac_key(server_key), text.encode(), hashlib.sha256).digest()
    bits = int.from_bytes(raw[:10], "big")  # 80 bits, 5 bits a character
    return "".join(ALPHABET[(bits >> (5 * i)) & 31] for i in range(MAC_CHARS))


def reply_address(server_key: str, base: str, kind: Kind, match_id: str, seat: int, ply: int = 0, *,
                  days: int = DEFAULT_DAYS, now: float | None = None) -> str:
    """The reply address for a mail of ``kind`` about ``seat`` of ``match_id`` (at ``ply`` for a
    turn notice), plus-addressed on ``base`` (``turns@example.org``), good for ``days`` days from
    ``now`` (POSIX seconds, the system clock when None: mailboxes live in real time, whatever
    clock the matches run on)."""
    local, _, domain = base.rpartition("@")
    expires = day_of(time.time() if now is None else now) + max(0, days)
    tag = f"{kind}-{match_id}-{seat}-{ply}-{expires}-{mac_of(server_key, kind, match_id, seat, ply, expires)}"
    return f"{local}+{tag}@{domain}"


def parse_reply_address(address: str) -> ReplyTo | None:
    """The :class:`ReplyTo` an address (or a header value holding one) names, unchecked; None
    when it is not a Portolan reply address at all. Check it with :func:`authentic`."""
    _, addr = parseaddr(address)
    local = addr.rpartition("@")[0].lower()
    _, plus, tag = local.partition("+")
    found = _PATTERN.match(tag) if plus else None
    if found is None:
        return None
    kind: Kind = "t" if found["kind"] == "t" else "i" if found["kind"] == "i" else "o"
    day = int(found["day"]) if found["day"] else None
    return ReplyTo(kind, found["match"], int(found["seat"]), int(found["ply"]), found["mac"], day)


def authentic(server_key: str, reply: ReplyTo) -> bool:
    """Was this address made by the server holding ``server_key`` (constant-time compare)? Says
    nothing of its expiry: :func:`check` says both."""
    want = mac_of(server_key, reply.kind, reply.match, reply.seat, reply.ply, reply.expires)
    return hmac.compare_digest(want, reply.mac)


def expired(reply: ReplyTo, now: float) -> bool:
    """Is the token past its last day at ``now`` (POSIX seconds)? A legacy token (no day) lasts
    until :data:`LEGACY_UNTIL_DAY`."""
    last = LEGACY_UNTIL_DAY if reply.expires is None else reply.expires
    return day_of(now) > last


def check(server_key: str, address: str, now: float) -> Checked:
    """The verdict on a recipient: a whole address (``turns+t-...@example.org``, a header value
    holding one) or only its local part (``turns+t-...``). ``ok`` only when this server made it
    (the mac) and it has not expired at ``now`` (POSIX seconds). Whether the turn it names is
    still the match's is the desk's question, not the address's."""
    reply = parse_reply_address(address if "@" in address else f"{address}@local.invalid")
    if reply is None:
        return Checked("not-ours")
    if not authentic(server_key, reply):
        return Checked("forged", reply)
    if expired(reply, now):
        return Checked("expired", reply)
    return Checked("ok", reply)


def check_any(server_key: str, recipients: Iterable[str], now: float) -> Checked:
    """The first good reply address among the recipients (authentic, not expired), else the
    verdict on the first that only looks like one, else ``not-ours``."""
    first: Checked | None = None
    for address in recipients:
        checked = check(server_key, address, now)
        if checked.ok:
            return checked
        if checked.reply is not None:
            first = first or checked
    return first or Checked("not-ours")
