"""The editions an operator installed, and the one a match is created with (docs/editions.md).

``PORTOLAN_EDITIONS`` lists edition files and folders of them (``os.pathsep``- or comma-separated;
a folder contributes every ``*.json`` in it); ``PORTOLAN_DEFAULT_EDITION`` names the id a match
gets when its creator names none (for the games that have an edition of that id; the others
play their shipped data). Every file is checked when the shelf is first read: a bad file stops
the service with the file and the field at fault, never a match that plays half an edition.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service import games
from service.games import edition_check
from service.games.base import Game
from service.games.edition_check import EditionError, check
from service.games.editions import SHIPPED, Edition, bind, shipped
from service.i18n import phrase, phrase_n
from service.play.errors import Conflict, Unprocessable

ENV = "PORTOLAN_EDITIONS"
DEFAULT_ENV = "PORTOLAN_DEFAULT_EDITION"


@dataclass(frozen=True)
class Shelf:
    """The installed editions by game and id, and the operator's default id ("" for none)."""

    editions: Mapping[tuple[str, str], Edition]
    default: str = ""

    def of(self, game: Game[Any]) -> list[Edition]:
        """The editions of ``game`` a match may choose: the shipped data first, then by id."""
        return [shipped(game), *sorted((e for (g, _), e in self.editions.items() if g == game.id), key=lambda e: e.id)]

    def choose(self, game: Game[Any], edition_id: str | None) -> Edition:
        """The edition a new match of ``game`` plays: ``edition_id``, else the operator's default
        (when the game has it), else the shipped data. An id the game lacks is a 422 listing them."""
        if edition_id is None:
            return self.editions.get((game.id, self.default)) or shipped(game)
        if edition_id == SHIPPED:
            return shipped(game)
        found = self.editions.get((game.id, edition_id)) if isinstance(edition_id, str) else None
        if found is None:
            ids = ", ".join(e.id for e in self.of(game))
            raise Unprocessable("unknown-edition", phrase("{title} has no edition {edition_id!r} on this server (installed: {installed}; see GET /v1/games/{game})", title=game.title, edition_id=edition_id, installed=ids, game=game.id), editions=[e.id for e in self.of(game)])
        return found

    def pinned(self, game: Game[Any], pin: Mapping[str, Any] | None) -> Edition:
        """The edition a match pinned (``meta.edition``; None: a match from before editions,
        which plays the shipped data). The digest decides: an operator who changed the file
        under a running match gets a refusal, never a match whose numbers changed."""
        if pin is None:
            return shipped(game)
        digest = str(pin.get("digest"))
        for edition in self.of(game):
            if edition.digest == digest:
                return edition
        current = shipped(game)
        if pin.get("id") == SHIPPED and pin.get("numbers") == current.numbers:
            return current  # a new build reworded the shipped data's labels; its numbers are the match's
        raise Conflict("edition-missing", phrase("this match plays the edition {edition!r} of {title} (digest {digest}...), which this server no longer has: the operator must install that very file again (docs/editions.md)", edition=pin.get('id'), title=game.title, digest=digest[:12]))

    def game(self, game: Game[Any], pin: Mapping[str, Any] | None) -> Game[Any]:
        """``game`` bound to the edition a match pinned."""
        return bind(game, self.pinned(game, pin))


def read(path: Path, trial: bool = False) -> Edition:
    """One edition file, checked (with ``trial``, also played: :func:`edition_check.trial`);
    :class:`EditionError` names the file and the field at fault."""
    try:
        with path.open("rb") as f:
            raw = f.read(edition_check.MAX_BYTES + 1)  # one byte more says "too large" without reading it all
    except OSError as exc:
        raise EditionError(str(path), f"cannot read a JSON edition: {exc.strerror or exc}") from exc
    try:
        edition = check(edition_check.parse(raw), games.registry())
        if trial:
            edition_check.trial(games.registry()[edition.game], edition)
        return edition
    except EditionError as exc:
        raise EditionError(f"{path}: {exc.field}", exc.message,
                           tuple((f"{path}: {field}", message) for field, message in exc.more)) from exc


def load(spec: str, default: str = "", trial: bool = False) -> Shelf:
    """The shelf of the files and folders listed in ``spec`` (see the module docstring); with
    ``trial`` every edition also plays a match first (``--edition`` does, a process start does not)."""
    found: dict[tuple[str, str], Edition] = {}
    for item in filter(None, (p.strip() for p in re.split(f"[,{re.escape(os.pathsep)}]", spec))):
        where = Path(item)
        files = sorted(where.glob("*.json")) if where.is_dir() else [where]
        for path in files:
            edition = read(path, trial)
            if (edition.game, edition.id) in found:
                raise EditionError(f"{path}: edition", f"a second edition {edition.id!r} of {edition.game}")
            found[(edition.game, edition.id)] = edition
    return Shelf(found, default.strip())


_loaded: dict[tuple[str, str], Shelf] = {}


def installed() -> Shelf:
    """The shelf the environment names (read once per distinct setting)."""
    key = (os.environ.get(ENV, ""), os.environ.get(DEFAULT_ENV, ""))
    shelf = _loaded.get(key)
    if shelf is None:
        shelf = _loaded[key] = load(*key)
    return shelf


def footnote(pin: Mapping[str, Any], game: Game[Any]) -> list[str]:
    """The lines under a board (text, mail, picture) that say which edition the match plays and,
    when some of its numbers are provisional, that the ``*`` values are not yet checked."""
    if not shipped(game).data:  # a game with no data (a plugin, the tests' fixture game) has no edition to name
        return []
    lines: list[str] = [phrase("Edition: {title} ({edition}).", title=pin.get("title") or pin.get("id"), edition=pin.get("id"))]
    count = int(pin.get("provisional_values", len(game.provisional())))
    if count:
        lines.append(phrase_n("* Provisional: {n} value is not yet checked against the printed game (the game's "
                              "catalog lists them: GET /v1/games/{game}).",
                              "* Provisional: {n} values are not yet checked against the printed game (the game's "
                              "catalog lists them: GET /v1/games/{game}).", count, game=game.id))
    return lines
