"""A player key's vacations (``/v1/me/vacations``): declared ahead, they pause every clock of
every seat the key holds (service.play.clock.vacations has the rules).

Every route is a signed request by the player's key; the signature is checked before the body.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify
from marshmallow import Schema, fields, validate

from service.api import schemas
from service.api.auth import signed_key
from service.play.clock.vacations import VacationBook, book_of
from service.play.matches import Matches

bp = Blueprint("vacations", __name__, url_prefix="/v1/me")


class DeclareVacation(Schema):
    # the date is checked by the use case, which says what is wrong with it in words (bad-vacation)
    start = fields.String(required=True, validate=validate.Length(min=1, max=40),
                          metadata={"description": "the first day of the vacation, YYYY-MM-DD (UTC)"})
    days = fields.Integer(required=True, strict=True, metadata={"description": "how many whole days"})


def _book() -> VacationBook:
    m: Matches = current_app.extensions["portolan"]
    return book_of(m)


@bp.get("/vacations")
def my_vacations() -> Any:
    """The signing key's vacations and the days it has left this year (and any later year it booked)."""
    return _book().listing(signed_key())


@bp.post("/vacations")
def declare_vacation() -> Any:
    """Declare a vacation: ``{"start": "YYYY-MM-DD", "days": N}``."""
    key = signed_key()
    data = schemas.body(DeclareVacation)
    resp = jsonify(_book().declare(key, data["start"], data["days"]))
    resp.status_code = 201
    return resp


@bp.delete("/vacations/<vacation_id>")
def cancel_vacation(vacation_id: str) -> Any:
    """Cancel an upcoming vacation, or end the current one now."""
    return _book().cancel(signed_key(), vacation_id)
