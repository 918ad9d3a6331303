"""Webhooks: a player's (all the matches of the signing key) and a match's (its creator's).

Every route is a signed request: by the player's key under ``/v1/me/webhooks``, by the match's
creator key under ``/v1/matches/{id}/webhooks``. The signature is checked before anything else,
so an unsigned request learns nothing, not even whether a match or a hook exists.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from service.api import schemas
from service.api.auth import signed_key
from service.play.outward.webhooks import Webhooks, player_owner

bp = Blueprint("webhooks", __name__, url_prefix="/v1")


def hooks() -> Webhooks:
    h: Webhooks = current_app.extensions["portolan.webhooks"]
    return h


def _player() -> str:
    return player_owner(signed_key())


def _match(match_id: str) -> str:
    return hooks().owner_of_match(match_id, signed_key())


def _created(owner: str, hook: dict[str, Any], base: str) -> Response:
    resp = jsonify(hook)
    resp.status_code = 201
    resp.headers["Location"] = f"{base}/{hook['id']}/deliveries"
    return resp


def _add(owner: str, base: str) -> Response:
    data = schemas.body(schemas.AddWebhook)
    return _created(owner, hooks().add(owner, data["url"], data["description"]), base)


def _ping(owner: str, hook_id: str) -> Response:
    resp = jsonify(hooks().ping(owner, hook_id))
    resp.status_code = 202
    return resp


def _remove(owner: str, hook_id: str) -> Response:
    hooks().remove(owner, hook_id)
    return Response(status=204)


# -- a player's webhooks ------------------------------------------------------------------------

@bp.get("/me/webhooks")
def my_hooks() -> Any:
    """The signing key's webhooks."""
    return {"webhooks": hooks().all(_player())}


@bp.post("/me/webhooks")
def add_my_hook() -> Any:
    """Register a webhook for every match the signing key holds a seat in."""
    return _add(_player(), "/v1/me/webhooks")


@bp.delete("/me/webhooks/<hook_id>")
def remove_my_hook(hook_id: str) -> Any:
    return _remove(_player(), hook_id)


@bp.post("/me/webhooks/<hook_id>/ping")
def ping_my_hook(hook_id: str) -> Any:
    return _ping(_player(), hook_id)


@bp.get("/me/webhooks/<hook_id>/deliveries")
def my_hook_deliveries(hook_id: str) -> Any:
    return hooks().deliveries(_player(), hook_id)


# -- a match's webhooks (its creator's) -----------------------------------------------------------

@bp.get("/matches/<match_id>/webhooks")
def match_hooks(match_id: str) -> Any:
    """The match's webhooks (signed by its creator)."""
    return {"webhooks": hooks().all(_match(match_id))}


@bp.post("/matches/<match_id>/webhooks")
def add_match_hook(match_id: str) -> Any:
    """Register a webhook for the public events of one match."""
    return _add(_match(match_id), f"/v1/matches/{match_id}/webhooks")


@bp.delete("/matches/<match_id>/webhooks/<hook_id>")
def remove_match_hook(match_id: str, hook_id: str) -> Any:
    return _remove(_match(match_id), hook_id)


@bp.post("/matches/<match_id>/webhooks/<hook_id>/ping")
def ping_match_hook(match_id: str, hook_id: str) -> Any:
    return _ping(_match(match_id), hook_id)


@bp.get("/matches/<match_id>/webhooks/<hook_id>/deliveries")
def match_hook_deliveries(match_id: str, hook_id: str) -> Any:
    return hooks().deliveries(_match(match_id), hook_id)
