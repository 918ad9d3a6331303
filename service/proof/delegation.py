"""What a seat's key signs so that moves by mail still prove who moved (docs/record-format.md).

A player who moves by replying to mail does not sign each reply: their key signs, once, a *mail
delegation* naming this match, this seat and a mail key the server holds for the seat; the server
then signs each mail move with that mail key, and the log entry carries the delegation. Withdrawing
signs a *withdrawal* of that mail key. A player with no key at all gets a *custodial* seat whose
key the server holds; attaching a key of their own later is a *seat key change*, signed by the new
key (proof of possession) and countersigned by the custodial key.

Shared by the use cases (service.play.seats.keys), which make and check these bodies, and the
offline verifier, which checks them again from the record alone. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from typing import Any

from service.proof import signing

DELEGATION = "portolan-mail-delegation/1"
WITHDRAWAL = "portolan-mail-withdrawal/1"
SEAT_KEY = "portolan-seat-key/1"


def delegation_body(match_id: str, seat: int, mail_key: str) -> dict[str, Any]:
    """What the seat's key signs to let the server move for it by mail with ``mail_key``."""
    return {"type": DELEGATION, "match": match_id, "seat": seat, "mail_key": mail_key}


def withdrawal_body(match_id: str, seat: int, mail_key: str) -> dict[str, Any]:
    """What the seat's key signs to take back the delegation of ``mail_key``."""
    return {"type": WITHDRAWAL, "match": match_id, "seat": seat, "mail_key": mail_key}


def seat_key_body(match_id: str, seat: int, public_key: str, from_ply: int) -> dict[str, Any]:
    """What a custodial seat's new key signs (and the custodial key countersigns) to take the
    seat over from ply ``from_ply`` on."""
    return {"type": SEAT_KEY, "match": match_id, "seat": seat, "public_key": public_key, "from_ply": from_ply}


def _derived(server_key: str, label: str) -> str:
    # the same derivation as the bot keys: sha256 of the server key's bytes and a label, so a
    # key is reproducible from the server key alone and never needs storing
    return signing.private_key_from_seed(signing.b64d(server_key) + label.encode())


def mail_private_key(server_key: str, match_id: str, seat: int, generation: int) -> str:
    """The server-held key that signs a delegated seat's mail moves. Each withdrawal moves the
    seat to the next ``generation``, so a withdrawn mail key is never used again."""
    return _derived(server_key, f"mail:{match_id}:{seat}:{generation}")


def custodial_private_key(server_key: str, match_id: str, seat: int) -> str:
    """The server-held key of a custodial seat (a player who joined by mail with no key)."""
    return _derived(server_key, f"custody:{match_id}:{seat}")


def mail_nonce(message_digest: str) -> str:
    """The envelope nonce of a mail move: from the message's digest, so the same message
    delivered again makes the very same envelope (and is answered as a replay)."""
    return "mail-" + message_digest[:32]


def message_digest(raw: bytes) -> str:
    """The digest a mail move records of the message it came in (hex SHA-256 of its bytes)."""
    return hashlib.sha256(raw).hexdigest()
