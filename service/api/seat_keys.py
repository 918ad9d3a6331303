"""The keys behind moves by mail: a seat's mail key and delegation, and a custodial seat
taking a key of its own (issue 11; docs/record-format.md, "Moves by mail")."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from service.api import schemas
from service.api.matches import _signer, service
from service.i18n import phrase
from service.play.seats import key_attach
from service.play.seats import keys as seat_keys

bp = Blueprint("seat_keys", __name__, url_prefix="/v1/matches")


@bp.get("/<match_id>/seats/<int:seat>/mail-key")
def mail_key(match_id: str, seat: int) -> Any:
    """The seat's current mail key and the delegation body its key signs to let replies by
    mail move for it (public: signing it is the player's decision alone)."""
    return seat_keys.mail_key_info(service(), match_id, seat)


@bp.put("/<match_id>/seats/<int:seat>/mail-delegation")
def grant(match_id: str, seat: int) -> Any:
    """Grant the mail delegation: a request signed by the seat's key, whose body carries the
    key's signature over the delegation body."""
    key = _signer(phrase("granting a mail delegation"))
    data = schemas.body(schemas.MailDelegation)
    return seat_keys.grant_mail_delegation(service(), match_id, seat, key, data["signature"])


@bp.delete("/<match_id>/seats/<int:seat>/mail-delegation")
def withdraw(match_id: str, seat: int) -> Any:
    """Withdraw the mail delegation: a request signed by the seat's key, whose body carries the
    key's signature over the withdrawal body; replies by mail are refused from then on."""
    key = _signer(phrase("withdrawing a mail delegation"))
    data = schemas.body(schemas.MailWithdrawal)
    return seat_keys.withdraw_mail_delegation(service(), match_id, seat, key, data["withdrawal"])


@bp.post("/<match_id>/seats/<int:seat>/key")
def attach(match_id: str, seat: int) -> Any:
    """A custodial seat takes the player's own key, with the attach token mailed to them and the
    new key's signature over the seat key body (proof of possession, bound to the ply)."""
    data = schemas.body(schemas.AttachKey)
    return key_attach.attach_key(service(), match_id, seat, data["token"], data["public_key"], data["from_ply"],
                                 data["signature"])
