"""The game catalog."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from service import bots, games
from service.play.errors import NotFound

bp = Blueprint("games", __name__, url_prefix="/v1/games")


@bp.get("")
def list_games() -> Any:
    """Every hosted game with its player counts and options."""
    out = []
    for g in games.registry().values():
        d = g.describe()
        out.append({"id": d["id"], "title": d["title"], "players": d["players"], "options_schema": d["options_schema"],
                    "provisional_values": len(d["provisional"])})
    return {"games": out}


@bp.get("/<game_id>")
def get_game(game_id: str) -> Any:
    """One game: player counts, options schema, action vocabulary, provisional data values, and the
    bot kinds a match of it may seat."""
    g = games.get(game_id)
    if g is None:
        raise NotFound("unknown-game", f"there is no game {game_id!r}; see GET /v1/games")
    return {**g.describe(), "bots": bots.describe(g.id)}
