"""Who signed a request: a signed request's nonce spent once, and the seat its key holds.

The API verifies a request's signature itself (service.api.auth); what it needs of the use cases
is reached through here: the nonce store (so a replayed request is refused) and the check that
the verified key holds the seat it speaks for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.i18n import phrase
from service.play.errors import Forbidden, NotFound
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.play.context import MatchContext


def spend_request_nonce(ctx: MatchContext, public_key: str, nonce: str, ttl: int) -> bool:
    """Use up a signed request's nonce: True the first time within ``ttl`` seconds, False
    for a replay (the port the API's signature check reaches the store through)."""
    return ctx.store.spend_request_nonce(public_key, nonce, ttl)


def spend_request_nonce_reading_meta(ctx: MatchContext, public_key: str, nonce: str, ttl: int,
                                     match_id: str) -> tuple[bool, MatchMeta | None]:
    """:func:`spend_request_nonce`, and the match's meta (None when there is no such match)
    read in the same round trip: a signed read of a match needs both (a seat's view)."""
    if not (isinstance(match_id, str) and match_id.isascii()):
        return spend_request_nonce(ctx, public_key, nonce, ttl), None
    return ctx.store.spend_request_nonce_reading_meta(public_key, nonce, ttl, match_id)


def release_request_nonce(ctx: MatchContext, public_key: str, nonce: str) -> None:
    """Give a spent nonce back: the request that spent it was not served (storage failed)."""
    ctx.store.release_request_nonce(public_key, nonce)


def authenticate(ctx: MatchContext, match_id: str, seat: int, public_key: str,
                 meta: MatchMeta | None = None) -> MatchMeta:
    """Check that ``public_key`` holds ``seat`` of the match (signature already verified);
    returns the meta, read here unless the caller read it (``meta``)."""
    if meta is None:
        meta = ctx.meta(match_id)
    if not 0 <= seat < meta.players:
        raise NotFound("unknown-seat", phrase("match {match_id} has no seat {seat}", match_id=match_id, seat=seat))
    if meta.seats[seat].public_key != public_key:
        raise Forbidden("not-your-seat", phrase("that key does not hold seat {seat} of match {match_id}", seat=seat, match_id=match_id))
    return meta
