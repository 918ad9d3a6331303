"""The game catalog."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from flask import Blueprint, Response

from service import bots, games, i18n
from service.api.languages import language
from service.api.words import said, speaking
from service.games.base import Game
from service.games.editions import package_of
from service.games.words import rules_page
from service.i18n import phrase
from service.play import editions
from service.play.errors import NotFound

_REPOSITORY = Path(__file__).resolve().parents[2]
"""The checkout the service runs from: the rules pages live in its docs/rules (not in the package)."""

bp = Blueprint("games", __name__, url_prefix="/v1/games")


@bp.get("")
def list_games() -> Any:
    """Every hosted game with its player counts and options."""
    out = []
    for g in games.registry().values():
        d = g.describe()
        out.append({"id": d["id"], "title": d["title"], "players": d["players"], "options_schema": d["options_schema"],
                    "provisional_values": len(d["provisional"]), "editions": _editions(g, full=False)})
    return {"games": out}


@bp.get("/<game_id>")
def get_game(game_id: str) -> Any:
    """One game: player counts, options schema, action vocabulary, provisional data values, and the
    bot kinds a match of it may seat."""
    g = games.get(game_id)
    if g is None:
        raise NotFound("unknown-game", phrase("there is no game {game_id!r}; see GET /v1/games", game_id=game_id))
    # the action descriptions are phrases where the game says them so (undo's, at least)
    return said({**g.describe(), "bots": bots.describe(g.id), "editions": _editions(g, full=True)})


def _editions(game: Game[Any], full: bool) -> list[dict[str, Any]]:
    """The installed editions of a game (the shipped data first), each with what it still leaves
    provisional: the count, and with ``full`` the values themselves (docs/editions.md)."""
    shelf = editions.installed()
    out = []
    for e in shelf.of(game):
        left = shelf.game(game, {"digest": e.digest}).provisional()
        row: dict[str, Any] = {"id": e.id, "title": e.title, "digest": e.digest, "default": e is shelf.choose(game, None),
                               "provisional_values": len(left)}
        if full:
            row["provisional"] = [p.path for p in left]
        out.append(row)
    return out


@bp.get("/<game_id>/rules")
def get_rules(game_id: str) -> Any:
    """The game's rules reference page (docs/rules/<game>.md) as Markdown: the sections whose ids
    ("§5.4", "R-7") the server's refusals, events and labels cite. In the request's language when
    the page is written in it (docs/rules/<game>.<language>.md), else in English;
    ``Content-Language`` says which."""
    g = games.get(game_id)
    if g is None:
        raise NotFound("unknown-game", phrase("there is no game {game_id!r}; see GET /v1/games", game_id=game_id))
    wanted = language()
    found = _rules_text(g, wanted) if wanted != i18n.DEFAULT else None
    said_in = wanted if found is not None else i18n.DEFAULT
    text = found if found is not None else _rules_text(g)
    if text is None:
        raise NotFound("no-rules-page", phrase("{title} has no rules reference page on this server", title=g.title))
    speaking(said_in)
    return Response(text, mimetype="text/markdown")


def _rules_text(g: Game[Any], code: str = i18n.DEFAULT) -> str | None:
    """The page's Markdown in language ``code``: from the game's package (``rules.md``, a link to
    docs/rules that an installed wheel carries as a file; ``rules.<code>.md`` in another language),
    else from the checkout's docs/rules (``<game>.md``, ``<game>.<code>.md``)."""
    page = rules_page(g.id)
    if page is None:
        return None
    suffix = ".md" if code == i18n.DEFAULT else f".{code}.md"
    package = package_of(g)
    try:
        packaged = resources.files(package).joinpath("rules" + suffix)
        if packaged.is_file():
            return packaged.read_text(encoding="utf-8")
    except (ModuleNotFoundError, OSError):
        pass
    path = _REPOSITORY / (page.removesuffix(".md") + suffix)
    return path.read_text(encoding="utf-8") if path.is_file() else None
