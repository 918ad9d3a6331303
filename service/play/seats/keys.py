"""Use cases of the keys behind moves by mail: mail delegation, custodial seats, key changes.

A seat row of the match meta carries, besides its ``public_key``:

- ``mail_key``: the public mail key the seat's key delegated to ("" when none),
- ``mail_generation``: which mail key is next (it goes up with every withdrawal),
- ``mail_delegation``: the seat key's signature over the delegation body ("" when none),
- ``custody``: ``"server"`` for a custodial seat (joined by mail with no key), else absent or
  ``"player"``.

The bodies signed and the key derivations live in :mod:`service.proof.delegation`, which the
offline verifier shares; the server's keys are derived by :class:`service.play.context.MatchContext`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.i18n import phrase
from service.play.envelopes import check_envelope
from service.play.errors import BadRequest, Conflict, Forbidden, NotFound, Unauthorized
from service.play.moves.commit import replayed, submit_checked
from service.play.seats.claims import claim_seat
from service.proof import signing
from service.proof.delegation import (
    custodial_private_key,
    delegation_body,
    mail_nonce,
    mail_private_key,
    withdrawal_body,
)
from service.proof.match_record import MatchMeta, SeatRow

if TYPE_CHECKING:
    from service.play.context import MatchContext

DIGEST = re.compile(r"[0-9a-f]{32,128}")


def is_custodial(row: SeatRow) -> bool:
    """Does the server hold this seat's key (a player who joined by mail with no key)?"""
    return row.is_custodial


def mail_ready(meta: MatchMeta, seat: int) -> str | None:
    """None when ``seat`` may move by mail now, else the sentence saying why not (the answer
    mail shows it to the player, the refusal ``no-mail-delegation`` carries it)."""
    match_id = meta.id
    rows = meta.seats
    if not 0 <= seat < len(rows):
        return phrase("match {match_id} has no seat {seat}", match_id=match_id, seat=seat)
    row = rows[seat]
    if row.kind != "human":
        return phrase("seat {seat} of match {match_id} is played by a bot, not by mail", seat=seat, match_id=match_id)
    if not row.claimed:
        return phrase("seat {seat} of match {match_id} has not been claimed yet: claim it, or reply "
                      "`join Your Name` to the invitation", seat=seat, match_id=match_id)
    if is_custodial(row):
        return None  # the server holds the seat's own key: nothing to delegate
    if row.mail_delegation and row.mail_key:
        return None
    grant = f"`portolan mail-delegation {match_id} --seat {seat} grant`"  # a command: the same in every language
    if row.key_attached:
        return phrase("seat {seat} of match {match_id} now signs with the player's own key, which has not delegated "
                      "moves by mail: without a mail delegation signed by that key no reply can move for the seat; "
                      "grant one with {grant}", seat=seat, match_id=match_id, grant=grant)
    if row.generation > 0:
        return phrase("seat {seat} of match {match_id} withdrew its mail delegation, so a reply by mail cannot move "
                      "for it; grant it again with {grant}", seat=seat, match_id=match_id, grant=grant)
    return phrase("seat {seat} of match {match_id} has not delegated moves by mail: only a mail delegation signed by "
                  "the seat's key lets a reply move for it; grant one with {grant} (`portolan claim` does by default)",
                  seat=seat, match_id=match_id, grant=grant)


@dataclass(frozen=True)
class MailProof:
    """How a mail move is signed and what its log entry carries (:func:`service.play.moves.commit.commit` asks it
    for the key to verify under, against whichever meta the submit ends up judging)."""

    server_key: str
    digest: str

    def signer(self, meta: MatchMeta, seat: int) -> tuple[str, dict[str, Any]]:
        """The public key the move must verify under and the fields the entry gains; refuses
        (403 ``no-mail-delegation``) when the seat may not move by mail."""
        reason = mail_ready(meta, seat)
        if reason is not None:
            raise Forbidden("no-mail-delegation", reason)
        row = meta.seats[seat]
        extra: dict[str, Any] = {"mail": {"digest": self.digest}}
        if is_custodial(row):
            return str(row.public_key), extra
        extra["delegation"] = {"body": delegation_body(meta.id, seat, row.mail_key or ""),
                               "signature": row.mail_delegation}
        return str(row.mail_key), extra

    def private_key(self, meta: MatchMeta, seat: int) -> str:
        """The server-held key that signs this seat's mail move."""
        row = meta.seats[seat]
        if is_custodial(row):
            return custodial_private_key(self.server_key, meta.id, seat)
        return mail_private_key(self.server_key, meta.id, seat, row.generation)


def submit_by_mail(ctx: MatchContext, match_id: str, seat: int, ply: int, actions: list[dict[str, Any]], *,
                   message_digest: str) -> dict[str, Any]:
    """Move for ``seat`` at ``ply`` from a reply the caller has authenticated (sender and reply
    address checked). The envelope's nonce comes from ``message_digest``, so the same message
    delivered again is the same envelope and answers ``replayed: true`` without a second move."""
    if not isinstance(message_digest, str) or not DIGEST.fullmatch(message_digest):
        raise BadRequest("bad-message-digest", phrase("the message digest must be 32 to 128 lowercase hex digits"))
    env, raw = check_envelope({"match": match_id, "seat": seat, "ply": ply, "actions": actions,
                               "nonce": mail_nonce(message_digest)})
    meta = ctx.meta(match_id)
    earlier = ctx.store.accepted_ply(match_id, hashlib.sha256(raw).hexdigest(), ply)
    if earlier is not None:
        # already moved by this very message: the same answer again, even if the delegation has
        # been withdrawn since (the move was made while it stood)
        return replayed(ctx, match_id, earlier, seat, proven=True)
    proof = MailProof(ctx.server_key, message_digest)
    proof.signer(meta, seat)  # refuse before signing anything
    signature = signing.sign_bytes(proof.private_key(meta, seat), raw)
    return submit_checked(ctx, match_id, env, raw, signature, "email", proof)


def join_by_mail(ctx: MatchContext, match_id: str, seat: int, name: str, email: str) -> dict[str, Any]:
    """Claim an invited seat for a player with no key, who replied ``join`` to the invitation
    (the caller has checked the invitation's reply address and that ``email`` is the invited
    address). The seat's key is a custodial key the server holds; the record marks it so."""
    public_key = signing.public_key_of(ctx.custodial_private_key(match_id, seat))
    return claim_seat(ctx, match_id, seat, public_key, name, email, token=None, custody="server")


def _row(meta: MatchMeta, seat: int) -> SeatRow:
    """The seat's row, or 404 ``unknown-seat``."""
    if not 0 <= seat < len(meta.seats):
        raise NotFound("unknown-seat", phrase("match {match_id} has no seat {seat}", match_id=meta.id, seat=seat))
    return meta.seats[seat]


def mail_key_info(ctx: MatchContext, match_id: str, seat: int) -> dict[str, Any]:
    """What a player's key signs to delegate moves by mail (public: the mail key is the
    server's, and signing its delegation body is the player's own decision)."""
    meta = ctx.meta(match_id)
    if not _row(meta, seat).is_human:
        raise Conflict("bot-seat", phrase("seat {seat} of match {match_id} is a bot's: it does not move by mail", seat=seat, match_id=match_id))
    return mail_key_info_of(ctx, meta, seat)


def _may_change(meta: MatchMeta, seat: int, signer_key: str) -> SeatRow:
    """The seat row a signed request by ``signer_key`` may change the mail delegation of."""
    row = _row(meta, seat)
    if not row.claimed or row.public_key != signer_key:
        raise Forbidden("not-your-seat", phrase("that key does not hold seat {seat} of match {match_id}: only the seat's key may grant or withdraw its mail delegation", seat=seat, match_id=meta.id))
    if meta.status not in ("waiting", "active"):
        raise Conflict("match-over", phrase("match {match_id} is {status}: its mail delegations no longer change", match_id=meta.id, status=meta.status))
    return row


def grant_mail_delegation(ctx: MatchContext, match_id: str, seat: int, signer_key: str, signature: str) -> dict[str, Any]:
    """Let replies by mail move for the seat: ``signature`` is the seat key's over the delegation
    body of the seat's current mail key. Granting what is already granted changes nothing."""
    ctx.meta(match_id)

    def change(meta: MatchMeta) -> MatchMeta:
        row = _may_change(meta, seat, signer_key)
        mail_key = ctx.mail_public_key(match_id, seat, row.generation)
        if not signing.verify(signer_key, delegation_body(match_id, seat, mail_key), signature):
            raise Unauthorized("bad-mail-delegation", phrase("the signature does not verify under seat {seat}'s key over the delegation body of its mail key {mail_key} (see GET /v1/matches/{match_id}/seats/{seat}/mail-key)", seat=seat, mail_key=mail_key, match_id=match_id))
        if row.mail_key == mail_key and row.mail_delegation:
            return meta  # granted already (a retry): keep the first signature
        return meta.with_seat(row.but(mail_key=mail_key, mail_delegation=signature)).but(updated_at=ctx.now())

    meta = ctx.store.update_meta(match_id, change)
    return mail_key_info_of(ctx, meta, seat)


def withdraw_mail_delegation(ctx: MatchContext, match_id: str, seat: int, signer_key: str, withdrawal: str) -> dict[str, Any]:
    """Take back the seat's mail delegation: ``withdrawal`` is the seat key's signature over the
    withdrawal body of the delegated mail key. That key never signs again (the generation goes
    up, so a new grant delegates to a new key) and the record lists the withdrawal."""
    ctx.meta(match_id)

    def change(meta: MatchMeta) -> MatchMeta:
        row = _may_change(meta, seat, signer_key)
        mail_key = row.mail_key or ""
        if not mail_key or not row.mail_delegation:
            raise Conflict("no-mail-delegation", phrase("seat {seat} of match {match_id} has no mail delegation to withdraw", seat=seat, match_id=match_id))
        if not signing.verify(signer_key, withdrawal_body(match_id, seat, mail_key), withdrawal):
            raise Unauthorized("bad-withdrawal", phrase("the withdrawal does not verify under seat {seat}'s key over the withdrawal body of its mail key {mail_key}", seat=seat, mail_key=mail_key))
        withdrawn = {"seat": seat, "ply": meta.ply, "mail_key": mail_key, "signature": withdrawal}
        row = row.but(mail_withdrawals=(*(row.mail_withdrawals or ()), withdrawn), mail_key="", mail_delegation="",
                      mail_generation=row.generation + 1)
        return meta.with_seat(row).but(updated_at=ctx.now())

    meta = ctx.store.update_meta(match_id, change)
    return mail_key_info_of(ctx, meta, seat)


def mail_key_info_of(ctx: MatchContext, meta: MatchMeta, seat: int) -> dict[str, Any]:
    """:func:`mail_key_info` from a meta already read."""
    row = meta.seats[seat]
    generation = row.generation
    mail_key = ctx.mail_public_key(meta.id, seat, generation)
    return {"match": meta.id, "seat": seat, "mail_key": mail_key, "generation": generation,
            "delegation_body": delegation_body(meta.id, seat, mail_key),
            "delegated": bool(row.mail_delegation) and row.mail_key == mail_key,
            "custody": row.custody or "player"}
