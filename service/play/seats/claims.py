"""Claiming a seat: with the invitation's token and the player's key (the API and the CLI), or
for a keyless player who replied ``join`` to the invitation (custodial, service.play.seats.keys).

Every refusal is raised inside the meta's read-modify-write, before anything is written.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from service.i18n import phrase
from service.play.errors import BadRequest, Conflict, NotFound, Unauthorized
from service.play.seats.lifecycle import finish_start, token_hash
from service.play.seats.people import check_name, normal_email
from service.proof import signing
from service.proof.delegation import delegation_body
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.play.context import MatchContext


def claim(ctx: MatchContext, match_id: str, seat: int, token: str, public_key: str, name: str, email: str,
          nonce: str = "", mail_delegation: str = "") -> dict[str, Any]:
    """Claim an invited seat with its invite token, registering the player's public key.

    The name is refused (400 ``bad-name``) if it has control or format characters and the email
    is normalised by email-validator (400 ``bad-email``). Repeating a claim that succeeded (same
    token and key) is not a conflict: it answers as the first did and, if the match is still
    waiting with every seat claimed (the start failed after the claim was stored), starts it.
    ``mail_delegation``, when given, is the key's signature over the delegation body
    (:func:`service.proof.delegation.delegation_body`) of the seat's first mail key: it lets
    replies by mail move for the seat (401 ``bad-mail-delegation`` when it does not verify)."""
    if not signing.valid_public_key(public_key):
        raise BadRequest("bad-public-key", phrase("public_key must be a base64url Ed25519 public key: 32 bytes encoding a canonical curve point that is not of small order (such a key would accept forged signatures)"))
    mail: dict[str, str] = {}
    if mail_delegation:
        # the seat is checked first: the delegation body names it, and a seat number beyond the
        # match (say 2**54, which the stateful fuzz sent) cannot even be canonical JSON
        if not 0 <= seat < ctx.meta(match_id).players:
            raise NotFound("unknown-seat", phrase("match {match_id} has no seat {seat}", match_id=match_id, seat=seat))
        mail_key = ctx.mail_public_key(match_id, seat, 0)
        if not signing.verify(public_key, delegation_body(match_id, seat, mail_key), mail_delegation):
            raise Unauthorized("bad-mail-delegation", phrase("the mail delegation does not verify under the claiming key: it must sign the delegation body of seat {seat}'s mail key {mail_key} (see GET /v1/matches/{match_id}/seats/{seat}/mail-key)", seat=seat, mail_key=mail_key, match_id=match_id))
        mail = {"mail_key": mail_key, "mail_delegation": mail_delegation}
    return claim_seat(ctx, match_id, seat, public_key, name, email, token=token, nonce=nonce, mail=mail)


def claim_seat(ctx: MatchContext, match_id: str, seat: int, public_key: str, name: str, email: str, *, token: str | None,
               nonce: str = "", custody: str = "player", mail: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The claim itself, for :func:`claim` (``token`` checked against the invitation) and
    :func:`service.play.seats.keys.join_by_mail` (``token=None``: the caller checked the
    invitation's reply address; ``custody="server"``). ``mail``: the seat's first ``mail_key``
    and its ``mail_delegation``, when the claim delegates moves by mail."""
    name = check_name(name)
    email = normal_email(email) if email else ""

    def change(meta: MatchMeta) -> MatchMeta:
        rows = meta.seats
        if not 0 <= seat < len(rows):
            raise NotFound("unknown-seat", phrase("match {match_id} has no seat {seat}", match_id=match_id, seat=seat))
        row = rows[seat]
        same_token = token is None or secrets.compare_digest(row.invite_hash or "", token_hash(token))
        if row.kind == "human" and row.claimed and row.public_key == public_key and same_token:
            # The same claim again (same token, same key): a client retrying after a lost
            # answer or a failure between the claim and the start. Idempotent, and it finishes
            # the start below if that never happened, so no match stays waiting with no open seat.
            return meta  # nothing new
        if row.kind != "human" or row.claimed:
            raise Conflict("seat-taken", phrase("seat {seat} of match {match_id} is already taken", seat=seat, match_id=match_id))
        if meta.status != "waiting":
            raise Conflict("match-not-waiting", phrase("match {match_id} is {status}", match_id=match_id, status=meta.status))
        if not same_token:
            raise Unauthorized("bad-invite-token", phrase("that is not the invite token of seat {seat}", seat=seat))
        row = row.but(claimed=True, public_key=public_key, name=name, nonce=nonce,
                      **({"custody": "server"} if custody == "server" else {}), **(mail or {}),
                      **({"email": email} if email else {}))
        return meta.with_seat(row).but(updated_at=ctx.now())

    ctx.meta(match_id)
    meta = ctx.store.update_meta(match_id, change)
    ctx.store.index_seat(public_key, match_id, seat)  # a set add: a retry repeats it harmlessly
    if meta.status == "waiting" and all(r.claimed for r in meta.seats):
        # the last seat: start now (a concurrent retry of a claim that started it first, or a
        # failed start, leaves the claim standing; the retry or the worker's sweep starts it)
        finish_start(ctx, match_id)
        meta = ctx.meta(match_id)
    return {"id": match_id, "seat": seat, "status": meta.status, "ply": meta.ply}
