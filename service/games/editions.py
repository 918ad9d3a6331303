"""Data editions: a game's board and card numbers as one checked, content-addressed document.

Each game ships its numbers in ``data.json`` (the *shipped* edition, provisional where the rules
research could not verify them). A box owner who has the printed game can supply an *edition*:

    {"edition": "my-box", "game": "el-capitan", "title": "...", "verified": [paths],
     "data": {... the whole data.json, with the printed values ...}}

(docs/editions.md). :func:`service.games.edition_check.check` validates one; :func:`bind` gives
the game playing with its numbers.

How the numbers reach the rules while the rules stay pure: a game's modules read their numbers
into module constants when they are imported (``data.py``). :func:`bind` imports the game's
package a second time under its own name (``service.games.el_capitan.edition_<digest>``) and
hands that copy the edition's data (:func:`edition_data`), so the copy's constants are the
edition's and the rules code stays exactly as it is. The copies are memoised by digest: the same
document always gives the same game, a new document a new one, and nothing already bound ever
changes (no mutable global the rules read).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import json
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import Game, Provisional

SHIPPED = "shipped"
"""The id of the edition each game ships (its ``data.json``)."""
FREE_WORDS = frozenset({"name", "note", "status", "title", "source"})
"""String fields an edition may reword (labels and provenance notes); every other string is an id
or a key the rules look things up by."""
NOT_PLAYED = frozenset({"provenance", "provisional"})
"""Top-level parts of a game's data that say how sure a value is, not what the rules play with."""

_DATA: dict[str, dict[str, Any]] = {}
"""The data each bound copy of a game package reads at import, by the copy's package name."""
_BOUND: dict[str, Game[Any]] = {}
"""Bound games by edition digest (a memo: an entry is written once and never changed)."""
_BINDING = threading.Lock()
"""Two requests binding the same new edition at once import its copy once."""
_SHIPPED: dict[str, Edition] = {}
"""Each game's shipped edition (a memo of its data.json)."""


def canonical(value: Any) -> bytes:
    """The canonical JSON bytes the digest is taken over (sorted keys, no spaces, UTF-8)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class Edition:
    """A checked edition of one game's data. ``document`` is the whole file as given (what a
    record carries); ``digest`` pins it: sha256 over the canonical JSON of game, id, verified
    paths and data (the title is only a label and is left out)."""

    game: str
    id: str
    title: str
    verified: frozenset[str]
    document: Mapping[str, Any]
    digest: str

    @property
    def data(self) -> Mapping[str, Any]:
        """The game's data (the shape of its ``data.json``)."""
        data: Mapping[str, Any] = self.document["data"]
        return data

    @property
    def numbers(self) -> str:
        """The digest of what the rules play with (:func:`numbers_digest`)."""
        return numbers_digest(self.data)

    def pin(self) -> dict[str, str]:
        """What a match stores of its edition: id and digest, the digest of its numbers (so a
        new build whose shipped data changed only in words still plays the match) and the title."""
        return {"id": self.id, "digest": self.digest, "numbers": self.numbers, "title": self.title}


def digest_of(document: Mapping[str, Any]) -> str:
    """The digest of an edition document (see :class:`Edition`)."""
    pinned = {"game": document["game"], "edition": document["edition"],
              "verified": sorted(document.get("verified", [])), "data": document["data"]}
    return hashlib.sha256(canonical(pinned)).hexdigest()


def numbers_digest(data: Mapping[str, Any]) -> str:
    """sha256 of the data without its words: labels and notes (:data:`FREE_WORDS`, keys starting
    with ``_``) and the provenance lists left out. Two data with the same numbers digest play the
    same game; a rewording of a name in a new build does not change it."""
    def strip(value: Any, top: bool = False) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()
                    if not (k in FREE_WORDS or k.startswith("_") or (top and k in NOT_PLAYED))}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return hashlib.sha256(canonical(strip(dict(data), top=True))).hexdigest()


def make(document: Mapping[str, Any]) -> Edition:
    """An :class:`Edition` of a document already checked (see :func:`edition_check.check`)."""
    doc = copy.deepcopy(dict(document))
    return Edition(game=str(doc["game"]), id=str(doc["edition"]), title=str(doc.get("title") or doc["edition"]),
                   verified=frozenset(doc.get("verified", [])), document=doc, digest=digest_of(doc))


def data_file(game: Game[Any]) -> Path:
    """The shipped ``data.json`` of a game of this package."""
    return Path(sys.modules[package_of(game)].__file__ or "").with_name("data.json")


def shipped(game: Game[Any]) -> Edition:
    """The edition a game ships: its ``data.json``, provisional where it says so."""
    found = _SHIPPED.get(game.id)
    if found is None:
        found = _SHIPPED[game.id] = _shipped(game)
    return found


def _shipped(game: Game[Any]) -> Edition:
    path = data_file(game)
    # a game without a data.json (a plugin, the tests' fixture game) has nothing an edition could change
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return make({"edition": SHIPPED, "game": game.id, "title": f"{game.title}, shipped data",
                 "verified": [], "data": data})


def edition_data(module_name: str, shipped_file: Path) -> dict[str, Any]:
    """The data a game's ``data.py`` (``module_name``) reads: the bound edition's for a copy
    made by :func:`bind`, else the shipped ``data.json``. A deep copy: the module owns it."""
    bound = _DATA.get(module_name.rpartition(".")[0])
    if bound is not None:
        return copy.deepcopy(bound)
    loaded: dict[str, Any] = json.loads(shipped_file.read_text(encoding="utf-8"))
    return loaded


def module_of(module: ModuleType, digest: str | None) -> ModuleType:
    """``module`` (a module of a game package, e.g. its ``data``) as bound to the edition of
    ``digest`` in this process, else ``module`` itself (the shipped data, or an edition this
    process has not bound). Pictures draw a match's numbers from it."""
    if digest:
        package, _, leaf = module.__name__.rpartition(".")
        bound = sys.modules.get(f"{package}.edition_{digest[:16]}.{leaf}")
        if bound is not None:
            return bound
    return module


def package_of(game: Game[Any]) -> str:
    """The name of the package ``game`` was imported from: the shipped one
    (``service.games.el_capitan``) or the copy :func:`bind` imported for an edition
    (``service.games.el_capitan.edition_<digest16>``)."""
    # the game class lives in <package>.game (a bound copy keeps the copy's name in __module__);
    # the package's __init__ holds GAME
    return type(game).__module__.rpartition(".")[0]


def rules_module(game: Game[Any], name: str) -> ModuleType:
    """The module ``name`` (``"data"``, ``"payday"``, ...) of the package ``game`` was imported
    from: the shipped package for a shipped game, the edition's bound copy for a game
    :func:`bind` gave.

    Code outside a game's package that needs its numbers (the bots' knowledge, say) asks this
    rather than importing ``service.games.<game>.data`` at module level: such an import is always
    the shipped data, and a bound game's constants live in its copy's modules
    (``service.games.ophir.edition_<digest16>.data``). A module of the copy that nothing has
    imported yet is imported now, under the copy's name, so it too reads the edition's data.
    Raises :class:`ModuleNotFoundError` for a name the package does not have.

    ``rules_module(bind(ophir, edition), "data").DONATION_VP`` is the edition's donation VP;
    ``rules_module(ophir, "data")`` is :mod:`service.games.ophir.data` itself.
    """
    qualified = f"{package_of(game)}.{name}"
    # the bots ask this on every estimate: the common case is one dict lookup
    module = sys.modules.get(qualified)
    if module is None:
        module = importlib.import_module(qualified)
    return module


def bind(game: Game[Any], edition: Edition) -> Game[Any]:
    """``game`` playing with the numbers of ``edition`` (the shipped game for the shipped data).

    The result is a game of the same class and rules, whose provisional values are the ones the
    edition leaves provisional: the data's own provisional list minus the edition's ``verified``."""
    if edition.game != game.id:
        raise ValueError(f"the edition {edition.id!r} is for {edition.game}, not {game.id}")
    if edition.id == SHIPPED and edition.digest == shipped(game).digest:
        return game
    found = _BOUND.get(edition.digest)
    if found is not None:
        return found
    with _BINDING:
        found = _BOUND.get(edition.digest)
        if found is None:
            found = _BOUND[edition.digest] = _bound_copy(game, edition)
    return found


def _bound_copy(game: Game[Any], edition: Edition) -> Game[Any]:
    """Import ``game``'s package again under its own name, reading ``edition``'s data."""
    package = package_of(game)
    name = f"{package}.edition_{edition.digest[:16]}"
    parent = sys.modules[package]
    spec = importlib.util.spec_from_file_location(name, parent.__file__,
                                                  submodule_search_locations=list(parent.__path__))
    if spec is None or spec.loader is None:  # pragma: no cover - the package is on disk
        raise ImportError(f"cannot load a copy of {package}")
    module = importlib.util.module_from_spec(spec)
    _DATA[name] = copy.deepcopy(dict(edition.data))
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return _with_verified(module.GAME, edition)


def _with_verified(game: Game[Any], edition: Edition) -> Game[Any]:
    """The copy's game, reporting as provisional only what the edition did not verify."""
    cls = type(game)
    verified = edition.verified

    def provisional(self: Game[Any]) -> list[Provisional]:
        return [p for p in cls.provisional(self) if p.path not in verified]

    edition_cls = type(cls.__name__, (cls,), {"provisional": provisional, "__module__": cls.__module__})
    bound: Game[Any] = edition_cls()
    return bound
