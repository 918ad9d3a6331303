"""A custodial seat takes a key of its own (docs/record-format.md, "Key changes").

A player who joined by mail has a seat whose key the server holds. Mailed a one-time *attach
token* (the ``key`` mail command), they can hand the seat to a key of their own: the new key signs
the seat key body for the current ply (proof of possession), the server countersigns it with the
custodial key, and from that ply on the seat is the player's. The record lists the change, so a
verifier sees exactly which moves the server's key signed and which the player's.

The token is stored only as its hash, in the seat row, with its expiry; using it spends it.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from service.i18n import phrase
from service.play.errors import BadRequest, Conflict, NotFound, Unauthorized
from service.proof import signing
from service.proof.delegation import seat_key_body
from service.proof.match_record import MatchMeta, SeatRow

if TYPE_CHECKING:
    from service.play.context import MatchContext

TOKEN_TTL = timedelta(days=1)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _when(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _custodial_row(meta: MatchMeta, seat: int) -> SeatRow:
    if not 0 <= seat < len(meta.seats):
        raise NotFound("unknown-seat", phrase("match {match_id} has no seat {seat}", match_id=meta.id, seat=seat))
    row = meta.seats[seat]
    if not row.is_custodial:
        raise Conflict("not-custodial", phrase("seat {seat} of match {match_id} is not custodial: it already signs with the player's own key, so there is no key to attach", seat=seat, match_id=meta.id))
    if meta.status not in ("waiting", "active"):
        raise Conflict("match-over", phrase("match {match_id} is {status}: its seats no longer change keys", match_id=meta.id, status=meta.status))
    return row


def attach_token(ctx: MatchContext, match_id: str, seat: int) -> str:
    """A fresh one-time token (valid a day) that lets the holder attach a key to a custodial
    seat; the previous one stops working. The caller mails it to the seat's address."""
    token = secrets.token_hex(16)  # hex: never starts with a dash, which the CLI would take for an option
    ctx.meta(match_id)

    def change(meta: MatchMeta) -> MatchMeta:
        row = _custodial_row(meta, seat).but(attach_hash=_hash(token),
                                             attach_expires=(_when(ctx.now()) + TOKEN_TTL).isoformat())
        return meta.with_seat(row).but(updated_at=ctx.now())

    ctx.store.update_meta(match_id, change)
    return token


def attach_key(ctx: MatchContext, match_id: str, seat: int, token: str, public_key: str, from_ply: int,
               signature: str) -> dict[str, Any]:
    """Hand a custodial seat to ``public_key`` from ``from_ply`` (the match's current ply) on.
    ``signature`` is the new key's over :func:`service.proof.delegation.seat_key_body`."""
    if not signing.valid_public_key(public_key):
        raise BadRequest("bad-public-key", phrase("public_key must be a base64url Ed25519 public key (32 bytes, a canonical point not of small order)"))
    ctx.meta(match_id)
    body = seat_key_body(match_id, seat, public_key, from_ply)

    def change(meta: MatchMeta) -> MatchMeta:
        row = _custodial_row(meta, seat)
        expires = row.attach_expires or ""
        if (not row.attach_hash or not secrets.compare_digest(row.attach_hash, _hash(token))
                or _when(expires) < _when(ctx.now())):
            raise Unauthorized("bad-attach-token", phrase("that is not a live attach token of seat {seat}: a token works once, for a day; mail `key` to the match's address for a new one", seat=seat))
        if from_ply != meta.ply:
            raise Conflict("stale-ply", phrase("the key change is signed for ply {signed_ply} but the match is at ply {ply}; sign it again for the current ply", signed_ply=from_ply, ply=meta.ply), current_ply=meta.ply)
        if not signing.verify(public_key, body, signature):
            raise Unauthorized("bad-signature", phrase("the signature does not verify under the new key over the seat key body (the proof that you hold the key you attach)"))
        key_change = {"seat": seat, "from_ply": from_ply, "public_key": public_key, "signature": signature,
                  "custodial_signature": signing.sign(ctx.custodial_private_key(match_id, seat), body)}
        row = row.but(key_changes=(*(row.key_changes or ()), key_change),
                      genesis_key=row.genesis_key if row.genesis_key is not None else row.public_key,
                      public_key=public_key, custody="player", key_attached=True, attach_hash="", attach_expires="",
                      mail_key="", mail_delegation="")
        return meta.with_seat(row).but(updated_at=ctx.now())

    meta = ctx.store.update_meta(match_id, change)
    ctx.store.index_seat(public_key, match_id, seat)
    return {"match": match_id, "seat": seat, "public_key": public_key, "from_ply": from_ply,
            "custody": "player", "status": meta.status, "ply": meta.ply}
