"""The front of the use cases for the API, the workers and the CLI (docs/architecture.md, "Use cases").

:class:`Matches` is a :class:`service.play.context.MatchContext` (the same store, clock, keys and
lookups) whose methods each call one use case of the modules below it, so a caller holds one
object and never needs to know which module a use case lives in. It decides nothing itself: every
method is one call downward. No module of service.play imports it; the use cases take the context
and call each other as functions.

No Flask here: the API and the workers both call these. Every refusal raises a
:class:`service.play.errors.ServiceError` before anything is written, so a refused request never
changes stored state; every change others must hear of is committed by one atomic store call
together with its outbox entry, which the dispatcher (service.delivery.outbox) fans out.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from service.i18n import DEFAULT
from service.play.clock import clocks
from service.play.context import MatchContext, utcnow
from service.play.moves import commit, timeouts
from service.play.seats import claims, key_attach, keys, lifecycle, signers
from service.play.seats.lifecycle import ID_ALPHABET, new_match_id
from service.play.views import match as views
from service.proof import delegation
from service.proof.match_record import MatchMeta

__all__ = ["ID_ALPHABET", "Matches", "new_match_id", "utcnow"]


class Matches(MatchContext):
    """The use cases over one store, as one object (see the module). Built like the context:
    ``Matches(store=..., server_key=...)``."""

    # -- seats: create, claim, start, abort ---------------------------------------------------------

    def create(self, game_id: str, options: Mapping[str, Any] | None, seats: list[dict[str, Any]], *,
               creator_key: str, creator_name: str = "", time_control: Any = None,
               timeout_policy: Any = None, edition: str | None = None, client: str = "",
               language: str = "en") -> dict[str, Any]:
        """Create a match (see :func:`service.play.seats.lifecycle.create`)."""
        return lifecycle.create(self, game_id, options, seats, creator_key=creator_key, creator_name=creator_name,
                                time_control=time_control, timeout_policy=timeout_policy, edition=edition,
                                client=client, language=language)

    def claim(self, match_id: str, seat: int, token: str, public_key: str, name: str, email: str,
              nonce: str = "", mail_delegation: str = "") -> dict[str, Any]:
        """Claim an invited seat with its invite token (see :func:`service.play.seats.claims.claim`)."""
        return claims.claim(self, match_id, seat, token, public_key, name, email, nonce, mail_delegation)

    def claim_seat(self, match_id: str, seat: int, public_key: str, name: str, email: str, *, token: str | None,
                   nonce: str = "", custody: str = "player", mail: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The claim itself (see :func:`service.play.seats.claims.claim_seat`)."""
        return claims.claim_seat(self, match_id, seat, public_key, name, email, token=token, nonce=nonce,
                                 custody=custody, mail=mail)

    def finish_start(self, match_id: str) -> bool:
        """Start a waiting match whose seats are all claimed (see :func:`service.play.seats.lifecycle.finish_start`)."""
        return lifecycle.finish_start(self, match_id)

    def abort(self, match_id: str, signer_key: str) -> dict[str, Any]:
        """The creator cancels a match that has not started (see :func:`service.play.seats.lifecycle.abort`)."""
        return lifecycle.abort(self, match_id, signer_key)

    # -- seats: the keys behind moves by mail --------------------------------------------------------

    def delegation_body(self, match_id: str, seat: int, mail_key: str) -> dict[str, Any]:
        """What the seat's key signs to let replies by mail move for it with ``mail_key``."""
        return delegation.delegation_body(match_id, seat, mail_key)

    def mail_ready(self, meta: MatchMeta, seat: int) -> str | None:
        """None when the seat may move by mail now, else the sentence saying why not."""
        return keys.mail_ready(meta, seat)

    def submit_by_mail(self, match_id: str, seat: int, ply: int, actions: list[dict[str, Any]], *,
                       message_digest: str) -> dict[str, Any]:
        """A move from an authenticated reply (see :func:`service.play.seats.keys.submit_by_mail`)."""
        return keys.submit_by_mail(self, match_id, seat, ply, actions, message_digest=message_digest)

    def join_by_mail(self, match_id: str, seat: int, name: str, email: str) -> dict[str, Any]:
        """Claim an invited seat for a keyless player who replied ``join`` (custodial seat)."""
        return keys.join_by_mail(self, match_id, seat, name, email)

    def attach_token(self, match_id: str, seat: int) -> str:
        """A one-time token (a day) to attach a key to a custodial seat (mailed on ``key``)."""
        return key_attach.attach_token(self, match_id, seat)

    # -- signed requests -----------------------------------------------------------------------------

    def spend_request_nonce(self, public_key: str, nonce: str, ttl: int) -> bool:
        """Use up a signed request's nonce (see :func:`service.play.seats.signers.spend_request_nonce`)."""
        return signers.spend_request_nonce(self, public_key, nonce, ttl)

    def spend_request_nonce_reading_meta(self, public_key: str, nonce: str, ttl: int,
                                         match_id: str) -> tuple[bool, MatchMeta | None]:
        """:meth:`spend_request_nonce` and the match's meta in one round trip."""
        return signers.spend_request_nonce_reading_meta(self, public_key, nonce, ttl, match_id)

    def release_request_nonce(self, public_key: str, nonce: str) -> None:
        """Give a spent nonce back: the request that spent it was not served (storage failed)."""
        signers.release_request_nonce(self, public_key, nonce)

    def authenticate(self, match_id: str, seat: int, public_key: str,
                     meta: MatchMeta | None = None) -> MatchMeta:
        """Check that ``public_key`` holds ``seat`` (see :func:`service.play.seats.signers.authenticate`)."""
        return signers.authenticate(self, match_id, seat, public_key, meta)

    # -- moves ---------------------------------------------------------------------------------------

    def submit(self, match_id: str, envelope: Mapping[str, Any], signature: str, by: str = "human",
               caller_key: str | None = None, with_view: bool = True) -> dict[str, Any]:
        """Verify, apply and commit one signed move (see :func:`service.play.moves.commit.submit`)."""
        return commit.submit(self, match_id, envelope, signature, by, caller_key, with_view)

    def submit_checked(self, match_id: str, env: dict[str, Any], raw: bytes, signature: str, by: str,
                       mail: commit.MailSigner | None, caller_key: str | None = None,
                       with_view: bool = True) -> dict[str, Any]:
        """:meth:`submit` of an envelope already checked (see :func:`service.play.moves.commit.submit_checked`)."""
        return commit.submit_checked(self, match_id, env, raw, signature, by, mail, caller_key, with_view)

    def replayed(self, match_id: str, ply: int, seat: int, proven: bool, with_view: bool = True) -> dict[str, Any]:
        """The original result of an envelope accepted at ``ply`` (see :func:`service.play.moves.commit.replayed`)."""
        return commit.replayed(self, match_id, ply, seat, proven, with_view)

    def sign_as_bot(self, match_id: str, seat: int, ply: int, actions: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
        """An envelope for a bot seat, signed with its server-held key."""
        return commit.sign_as_bot(self, match_id, seat, ply, actions)

    def timeout(self, match_id: str, seat: int) -> dict[str, Any] | None:
        """Commit the seat's timeout if its policy is due (see :func:`service.play.moves.timeouts.timeout`)."""
        return timeouts.timeout(self, match_id, seat)

    def server_move(self, match_id: str, seat: int, ply: int) -> dict[str, Any] | None:
        """The server's move for a seat it plays (see :func:`service.play.moves.timeouts.server_move`)."""
        return timeouts.server_move(self, match_id, seat, ply)

    # -- reading -------------------------------------------------------------------------------------

    def public_meta(self, meta: MatchMeta) -> dict[str, Any]:
        """What anyone may know about a match (no emails, no token hashes)."""
        return views.public_meta(self, meta)

    def view(self, match_id: str, seat: int | None = None, meta: MatchMeta | None = None,
             language: str = DEFAULT) -> dict[str, Any]:
        """The spectator view or a seat's private view (see :func:`service.play.views.match.view`)."""
        return views.view(self, match_id, seat, meta, language)

    def log(self, match_id: str, start: int = 0, viewer: int | None = None) -> list[dict[str, Any]]:
        """Accepted moves from ply ``start`` on, with signatures, receipts and visible events."""
        return views.log(self, match_id, start, viewer)

    def header(self, meta: MatchMeta, setup_events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The public header of the record; its digest starts the hash chain."""
        return views.header(self, meta, setup_events)

    def record(self, match_id: str) -> dict[str, Any]:
        """The verifiable record (see :func:`service.play.views.match.record`)."""
        return views.record(self, match_id)

    def pauses_of(self, meta: MatchMeta) -> clocks.PausesOf:
        """Each seat's pauses: its player's vacations (see :func:`service.play.clock.clocks.pauses_of`)."""
        return clocks.pauses_of(self, meta)

    def clock_status(self, meta: MatchMeta, now: datetime | None = None) -> list[clocks.SeatClockStatus]:
        """Every seat's clock (deadline, late, reminders) at ``now`` (default: the clock now)."""
        return clocks.status_now(self, meta, now)

    def clock_view(self, meta: MatchMeta, now: datetime | None = None) -> dict[str, Any]:
        """The ``clock`` block of the match views at ``now`` (default: the clock now)."""
        return clocks.view_now(self, meta, now)
