"""What a key holder asks about themselves."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app

from service.api.auth import signed_key
from service.play import listings
from service.play.matches import Matches

bp = Blueprint("players", __name__, url_prefix="/v1/me")


@bp.get("/turns")
def turns() -> Any:
    """Matches where a seat held by the signing key must act now."""
    m: Matches = current_app.extensions["portolan"]
    key = signed_key()
    return {"public_key": key, "turns": listings.my_turns(m, key)}
