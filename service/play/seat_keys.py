"""Use cases of the keys behind moves by mail: mail delegation, custodial seats, key changes.

A seat row of the match meta carries, besides its ``public_key``:

- ``mail_key``: the public mail key the seat's key delegated to ("" when none),
- ``mail_generation``: which mail key is next (it goes up with every withdrawal),
- ``mail_delegation``: the seat key's signature over the delegation body ("" when none),
- ``custody``: ``"server"`` for a custodial seat (joined by mail with no key), else absent or
  ``"player"``.

The bodies signed and the key derivations live in :mod:`service.proof.delegation`, which the
offline verifier shares. :class:`service.play.matches.Matches` keeps thin methods over these.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.play.envelopes import check_envelope
from service.play.errors import BadRequest, Forbidden
from service.proof import signing
from service.proof.delegation import (
    custodial_private_key,
    delegation_body,
    mail_nonce,
    mail_private_key,
)

if TYPE_CHECKING:
    from service.play.matches import Matches

DIGEST = re.compile(r"[0-9a-f]{32,128}")


def is_custodial(row: Mapping[str, Any]) -> bool:
    """Does the server hold this seat's key (a player who joined by mail with no key)?"""
    return row.get("custody") == "server"


def mail_ready(meta: Mapping[str, Any], seat: int) -> str | None:
    """None when ``seat`` may move by mail now, else the sentence saying why not (the answer
    mail shows it to the player, the refusal ``no-mail-delegation`` carries it)."""
    match_id = meta["id"]
    rows = meta["seats"]
    if not 0 <= seat < len(rows):
        return f"match {match_id} has no seat {seat}"
    row = rows[seat]
    if row["kind"] != "human":
        return f"seat {seat} of match {match_id} is played by a bot, not by mail"
    if not row["claimed"]:
        return (f"seat {seat} of match {match_id} has not been claimed yet: claim it, or reply "
                "`join Your Name` to the invitation")
    if is_custodial(row):
        return None  # the server holds the seat's own key: nothing to delegate
    if row.get("mail_delegation") and row.get("mail_key"):
        return None
    grant = f"`portolan mail-delegation {match_id} --seat {seat} grant`"
    if row.get("key_attached"):
        return (f"seat {seat} of match {match_id} now signs with the player's own key, which has not delegated "
                f"moves by mail: without a mail delegation signed by that key no reply can move for the seat; "
                f"grant one with {grant}")
    if int(row.get("mail_generation") or 0) > 0:
        return (f"seat {seat} of match {match_id} withdrew its mail delegation, so a reply by mail cannot move for "
                f"it; grant it again with {grant}")
    return (f"seat {seat} of match {match_id} has not delegated moves by mail: only a mail delegation signed by the "
            f"seat's key lets a reply move for it; grant one with {grant} (`portolan claim` does by default)")


@dataclass(frozen=True)
class MailProof:
    """How a mail move is signed and what its log entry carries (``Matches._submit`` asks it for
    the key to verify under, against whichever meta the submit ends up judging)."""

    server_key: str
    digest: str

    def signer(self, meta: Mapping[str, Any], seat: int) -> tuple[str, dict[str, Any]]:
        """The public key the move must verify under and the fields the entry gains; refuses
        (403 ``no-mail-delegation``) when the seat may not move by mail."""
        reason = mail_ready(meta, seat)
        if reason is not None:
            raise Forbidden("no-mail-delegation", reason)
        row = meta["seats"][seat]
        extra: dict[str, Any] = {"mail": {"digest": self.digest}}
        if is_custodial(row):
            return str(row["public_key"]), extra
        extra["delegation"] = {"body": delegation_body(meta["id"], seat, row["mail_key"]),
                               "signature": row["mail_delegation"]}
        return str(row["mail_key"]), extra

    def private_key(self, meta: Mapping[str, Any], seat: int) -> str:
        """The server-held key that signs this seat's mail move."""
        row = meta["seats"][seat]
        if is_custodial(row):
            return custodial_private_key(self.server_key, meta["id"], seat)
        return mail_private_key(self.server_key, meta["id"], seat, int(row.get("mail_generation") or 0))


def mail_key_of(m: Matches, match_id: str, seat: int, generation: int) -> str:
    """The public mail key of ``seat`` at ``generation``."""
    return signing.public_key_of(mail_private_key(m.server_key, match_id, seat, generation))


def submit_by_mail(m: Matches, match_id: str, seat: int, ply: int, actions: list[dict[str, Any]], *,
                   message_digest: str) -> dict[str, Any]:
    """Move for ``seat`` at ``ply`` from a reply the caller has authenticated (sender and reply
    address checked). The envelope's nonce comes from ``message_digest``, so the same message
    delivered again is the same envelope and answers ``replayed: true`` without a second move."""
    if not isinstance(message_digest, str) or not DIGEST.fullmatch(message_digest):
        raise BadRequest("bad-message-digest", "the message digest must be 32 to 128 lowercase hex digits")
    env, raw = check_envelope({"match": match_id, "seat": seat, "ply": ply, "actions": actions,
                               "nonce": mail_nonce(message_digest)})
    meta = m.meta(match_id)
    earlier = m.store.accepted_ply(match_id, hashlib.sha256(raw).hexdigest())
    if earlier is not None:
        # already moved by this very message: the same answer again, even if the delegation has
        # been withdrawn since (the move was made while it stood)
        return m.replayed(match_id, earlier, seat, proven=True)
    proof = MailProof(m.server_key, message_digest)
    proof.signer(meta, seat)  # refuse before signing anything
    signature = signing.sign_bytes(proof.private_key(meta, seat), raw)
    return m.submit_checked(match_id, env, raw, signature, "email", proof)


def join_by_mail(m: Matches, match_id: str, seat: int, name: str, email: str) -> dict[str, Any]:
    """Claim an invited seat for a player with no key, who replied ``join`` to the invitation
    (the caller has checked the invitation's reply address and that ``email`` is the invited
    address). The seat's key is a custodial key the server holds; the record marks it so."""
    public_key = signing.public_key_of(custodial_private_key(m.server_key, match_id, seat))
    return m.claim_seat(match_id, seat, public_key, name, email, token=None, custody="server")
