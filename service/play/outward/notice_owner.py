"""Who may set an address's notice preference over the API: a key holding a seat whose mail
goes to that address (the mail route proves the address by the sender and reply token instead)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.i18n import phrase
from service.play.errors import Forbidden
from service.play.seats.people import normal_email

if TYPE_CHECKING:
    from service.play.context import MatchContext


def held_address(ctx: MatchContext, public_key: str, email: str) -> str:
    """``email`` normalised, if a seat held by ``public_key`` has it as its notice address;
    otherwise 403 ``not-your-address`` (400 ``bad-email`` when it is no address at all).

    Why a seat and not just a signature: keys cost nothing to make, and an address's preference
    decides whether its owner hears of their turns, so only someone who plays under that address
    may change it."""
    address = normal_email(email, "email")
    held = ctx.store.seats_of_key(public_key)
    metas = ctx.store.metas([mid for mid, _ in held], ("seats",))
    for (_, seat), meta in zip(held, metas, strict=True):
        rows = () if meta is None else meta.seats
        if seat < len(rows) and rows[seat].email.lower() == address.lower():
            return address
    raise Forbidden("not-your-address", phrase('the signing key holds no seat whose notices go to {address}; sign with the key of a seat you claimed with that address (or reply "stop notices" to one of its mails)', address=address))
