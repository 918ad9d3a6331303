"""Reply addresses: where a reply to a Portolan mail goes, and what it is a reply to.

Every mail that may be answered carries a ``Reply-To`` built here, by plus-addressing the
installation's base address (``PORTOLAN_MAIL_REPLY_TO``, e.g. ``turns@example.org``)::

    turns+t-<match>-<seat>-<ply>-<mac>@example.org    a turn notice: seat <seat> to act at <ply>
    turns+i-<match>-<seat>-0-<mac>@example.org        an invitation: reply "join <name>"
    turns+o-<match>-<seat>-0-<mac>@example.org        any other mail about a seat (game over, answers)

The mac is an HMAC of the rest under a key derived from the server's private key, so nobody
can make a valid address without it, and it is bound to match, seat and ply: a reply token
*expires when the ply moves on* without storing anything (the use case compares the ply with
the match's). The whole local part is lower case, digits and dashes (the id alphabet), because
some mail systems fold the case of local parts. 16 mac characters of a 32-letter alphabet are
80 bits. Pure: no I/O, so the notices, the inbound use case and the tests share it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Literal

from service.proof import signing

Kind = Literal["t", "i", "o"]
KINDS: tuple[Kind, ...] = ("t", "i", "o")
ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # the match-id alphabet (service.play.seats.lifecycle.ID_ALPHABET)
MAC_CHARS = 16
_PATTERN = re.compile(rf"^(?P<kind>[tio])-(?P<match>[{ALPHABET}]{{1,32}})-(?P<seat>\d{{1,2}})-(?P<ply>\d{{1,9}})-"
                      rf"(?P<mac>[{ALPHABET}]{{{MAC_CHARS}}})$")


@dataclass(frozen=True)
class ReplyTo:
    """What a reply address names: the kind of mail, the match, the seat and (for a turn
    notice) the ply it was sent for; ``mac`` is the address's authenticator."""

    kind: Kind
    match: str
    seat: int
    ply: int
    mac: str


def _mac_key(server_key: str) -> bytes:
    # a key of its own, derived from the server key: a reply mac is never a signature, nor the reverse
    return hashlib.sha256(signing.b64d(server_key) + b"portolan:reply-address").digest()


def mac_of(server_key: str, kind: Kind, match_id: str, seat: int, ply: int) -> str:
    """The authenticator of one reply address (lower-case, :data:`MAC_CHARS` characters)."""
    raw = hmac.new(_mac_key(server_key), f"{kind}:{match_id}:{seat}:{ply}".encode(), hashlib.sha256).digest()
    bits = int.from_bytes(raw[:10], "big")  # 80 bits, 5 bits a character
    return "".join(ALPHABET[(bits >> (5 * i)) & 31] for i in range(MAC_CHARS))


def reply_address(server_key: str, base: str, kind: Kind, match_id: str, seat: int, ply: int = 0) -> str:
    """The reply address for a mail of ``kind`` about ``seat`` of ``match_id`` (at ``ply`` for a
    turn notice), plus-addressed on ``base`` (``turns@example.org``)."""
    local, _, domain = base.rpartition("@")
    tag = f"{kind}-{match_id}-{seat}-{ply}-{mac_of(server_key, kind, match_id, seat, ply)}"
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
    return ReplyTo(kind, found["match"], int(found["seat"]), int(found["ply"]), found["mac"])


def authentic(server_key: str, reply: ReplyTo) -> bool:
    """Was this address made by the server holding ``server_key`` (constant-time compare)?"""
    want = mac_of(server_key, reply.kind, reply.match, reply.seat, reply.ply)
    return hmac.compare_digest(want, reply.mac)
