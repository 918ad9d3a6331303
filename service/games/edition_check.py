"""Checking an edition document: its schema, its consistency with the game, and what it changes.

Three layers, each refusing with the path of the field at fault (``data.cities[3].track[2]``):

1. the envelope: ``edition`` (an id), ``game`` (a hosted game), ``title``, ``verified``, ``data``;
2. the game's JSON Schema (``data.schema.json`` beside its ``data.json``, checked with the
   ``jsonschema`` library): every field there, of its type, counts and prices not negative;
3. consistency: an edition corrects the printed numbers of the same box, so it keeps the shape of
   the shipped data: every list its length (twelve track sites, the number of cards), every id and
   every name the rules look things up by. Only numbers and booleans (and the ``name``, ``note``
   and ``status`` words) may differ. ``verified`` may name only values the game has provisional.

:func:`trial` then plays a seeded random match for every player count with the edition's numbers
(``portolan data check`` and ``--edition`` run it), :func:`diff` lists the numbers an edition
changes and :func:`template` is the file a box owner fills in.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from .base import Game, Rng
from .editions import FREE_WORDS, SHIPPED, Edition, bind, data_file, make, package_of, shipped

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
MAX_BYTES = 1 << 20
"""The largest edition file read (1 MiB): the biggest game's template is about 100 kB."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects an edition may have: the games' data nest 5 deep, an
edition one more. Refused before parsing, so a 200,000-deep document is one line, not a
``RecursionError``."""
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


class EditionError(ValueError):
    """An edition document the service cannot use: ``field`` names where (``data.cities[2].track``)."""

    def __init__(self, field: str, message: str, more: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.more = more
        """Further (field, message) problems found in the same pass (the schema's, the game's rules)."""

    def lines(self, prefix: str = "") -> list[str]:
        """One line per problem: ``prefix`` (a file), the field and what rule it breaks."""
        return [f"{prefix}{field}: {message}" for field, message in ((self.field, self.message), *self.more)]


def parse(raw: bytes | str) -> Any:
    """The JSON document in ``raw``, refused with one :class:`EditionError` (never a traceback)
    when it is larger than :data:`MAX_BYTES`, nested deeper than :data:`MAX_DEPTH`, not JSON, has
    a key twice, or has a number that is not a plain integer (``2.0``, ``1e308``, ``NaN``: the
    rules count in whole numbers, and JSON would hand them a float)."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    if len(data) > MAX_BYTES:
        raise EditionError("(the document)", f"{len(data):,} bytes; an edition is at most {MAX_BYTES:,} bytes")
    depth = deepest = 0
    # strings first (a bracket inside one does not nest), then a running count: no recursion
    for bracket in _BRACKET.findall(_STRING.sub(b"", data)):
        depth += 1 if bracket in b"[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            raise EditionError("(the document)", f"nested more than {MAX_DEPTH} deep; an edition's data nests a "
                                                 "few levels (portolan data template)")
    try:
        return json.loads(data.decode("utf-8"), parse_float=_no_fraction, parse_constant=_no_fraction,
                          object_pairs_hook=_no_twice)
    except EditionError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError; so is a 5,000-digit int
        raise EditionError("(the document)", f"not valid JSON: {' '.join(str(exc).split())}") from exc


def _no_fraction(text: str) -> Any:
    raise EditionError("(the document)", f"the number {text[:40]} is not an integer: every number of an edition "
                                         "is written without a fraction or an exponent")


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise EditionError("(the document)", f"the key {key[:40]!r} appears twice in one object")
        out[key] = value
    return out


def _plain(document: Any) -> None:
    """Refuse, naming the field, a document (parsed elsewhere: a record's) with a float or nested
    deeper than :data:`MAX_DEPTH`; walked with a stack, not recursion."""
    stack: list[tuple[Any, list[Any]]] = [(document, [])]
    while stack:
        value, at = stack.pop()
        if len(at) > MAX_DEPTH:
            raise EditionError(field_path(at), f"nested more than {MAX_DEPTH} deep")
        if isinstance(value, float):
            raise EditionError(field_path(at), f"{value!r} is not an integer: every number of an edition is an integer")
        if isinstance(value, Mapping):
            stack.extend((v, [*at, k]) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, [*at, i]) for i, v in enumerate(value))


def schema_file(game: Game[Any]) -> Path:
    """The JSON Schema of a game's data (beside its ``data.json``)."""
    return data_file(game).with_name("data.schema.json")


def data_schema(game: Game[Any]) -> dict[str, Any]:
    """The JSON Schema of ``game``'s data."""
    loaded: dict[str, Any] = json.loads(schema_file(game).read_text(encoding="utf-8"))
    return loaded


def shape_schema(value: Any) -> dict[str, Any]:
    """A JSON Schema of the shape of ``value``: how ``data.schema.json`` was first written, and
    what ``portolan data schema GAME --derive`` prints when the shipped data changed shape (the
    editions test fails until the schema is written again)."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer", "minimum": 0} if value >= 0 else {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if value is None:
        return {"type": "null"}
    if isinstance(value, list):
        out: dict[str, Any] = {"type": "array"}
        if value:
            out["items"] = _merged([shape_schema(v) for v in value])
        return out
    return {"type": "object", "properties": {k: shape_schema(v) for k, v in value.items()},
            "required": sorted(value), "additionalProperties": False}


def _merged(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """One schema that every item of a list meets (objects: the keys all items have are required)."""
    kinds = {json.dumps(s, sort_keys=True): s for s in schemas}
    if len(kinds) == 1:
        return schemas[0]
    if all(s.get("type") == "object" for s in schemas):
        props: dict[str, list[dict[str, Any]]] = {}
        for s in schemas:
            for k, v in s["properties"].items():
                props.setdefault(k, []).append(v)
        required = sorted(set.intersection(*(set(s["required"]) for s in schemas)))
        return {"type": "object", "properties": {k: _merged(v) for k, v in props.items()},
                "required": required, "additionalProperties": False}
    if all(s.get("type") == "integer" for s in schemas):
        return {"type": "integer"}
    if all(s.get("type") == "array" for s in schemas):
        items = [s["items"] for s in schemas if "items" in s]
        return {"type": "array", "items": _merged(items)} if items else {"type": "array"}
    return {"anyOf": list(kinds.values())}


def field_path(parts: Any) -> str:
    """``["data", "cities", 3, "track"]`` -> ``data.cities[3].track``."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(the document)"


def check(document: Any, hosted: Mapping[str, Game[Any]]) -> Edition:
    """The :class:`Edition` of ``document``; raises :class:`EditionError` naming the field at fault."""
    if not isinstance(document, Mapping):
        raise EditionError("(the document)", "an edition is a JSON object with edition, game, title and data")
    _plain(document)
    unknown = sorted(set(document) - {"edition", "game", "title", "verified", "provisional", "data"})
    if unknown:
        raise EditionError(unknown[0], "not a field of an edition (edition, game, title, verified, provisional, data)")
    game_id = document.get("game")
    game = hosted.get(game_id) if isinstance(game_id, str) else None
    if game is None:
        raise EditionError("game", f"{game_id!r} is not a game this server hosts ({', '.join(sorted(hosted))})")
    eid = document.get("edition")
    if not isinstance(eid, str) or not ID_PATTERN.match(eid):
        raise EditionError("edition", "the id must be 1-64 lower-case letters, digits, '.', '_' or '-'")
    if not schema_file(game).exists():
        raise EditionError("game", f"{game.title} has no data an edition could change")
    if eid == SHIPPED:
        raise EditionError("edition", f"{SHIPPED!r} is the data each game ships; give your edition its own id")
    if not isinstance(document.get("title", ""), str):
        raise EditionError("title", "the title must be a string")
    if "data" not in document:
        raise EditionError("data", "missing: the game's data, the shape of its data.json (portolan data template)")
    errors = sorted(Draft202012Validator(data_schema(game)).iter_errors(document["data"]),
                    key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        found = [(field_path(["data", *e.absolute_path]), e.message) for e in errors]
        raise EditionError(*found[0], more=tuple(found[1:]))
    ship = shipped(game)
    for where, message in _shape_changes(ship.data, document["data"], ["data"]):
        raise EditionError(where, message)
    broken = list(game_rules(game, document["data"]))
    if broken:
        raise EditionError(*broken[0], more=tuple(broken[1:]))
    provisional = {p.path for p in game.provisional()}
    verified = document.get("verified", [])
    if not isinstance(verified, list) or not all(isinstance(v, str) for v in verified):
        raise EditionError("verified", "a list of data paths (the 'path' of a provisional value)")
    for i, path in enumerate(verified):
        if path not in provisional:
            raise EditionError(f"verified[{i}]", f"{path!r} is not a provisional value of {game.title} "
                                                 "(portolan data template lists them)")
    return make(document)


def game_rules(game: Game[Any], data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """What the game's own ``edition_rules.check`` says of ``data`` (a schema, and a check of the
    shape, already passed): the rules between numbers that a schema cannot say, such as a track
    with no value or a deck too small for the player count. A game without one has none."""
    name = f"{package_of(game)}.edition_rules"
    if importlib.util.find_spec(name) is None:
        return
    yield from importlib.import_module(name).check(data)


def _shape_changes(ship: Any, mine: Any, at: list[Any]) -> Iterator[tuple[str, str]]:
    """Where ``mine`` departs from the shape of the shipped data (see the module docstring)."""
    if isinstance(ship, dict):
        for k, v in ship.items():
            yield from _shape_changes(v, mine[k], [*at, k])
    elif isinstance(ship, list):
        if len(mine) != len(ship):
            yield field_path(at), f"has {len(mine)} entries; the game has {len(ship)} (an edition changes values, not counts)"
            return
        for i, (a, b) in enumerate(zip(ship, mine, strict=True)):
            yield from _shape_changes(a, b, [*at, i])
    elif isinstance(ship, str) and ship != mine and at[-1] not in FREE_WORDS:
        yield field_path(at), f"is {mine!r}; it names something the rules look up and must stay {ship!r}"


def diff(edition: Edition, game: Game[Any]) -> list[dict[str, Any]]:
    """Every value the edition changes against the shipped data: ``{"field", "shipped", "edition"}``."""
    out: list[dict[str, Any]] = []

    def walk(a: Any, b: Any, at: list[Any]) -> None:
        if isinstance(a, dict):
            for k in a:
                walk(a[k], b[k], [*at, k])
        elif isinstance(a, list) and len(a) == len(b) and not all(isinstance(x, int | float) for x in a):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, [*at, i])
        elif a != b:
            out.append({"field": field_path(at), "shipped": a, "edition": b})

    walk(shipped(game).data, edition.data, ["data"])
    return out


def template(game: Game[Any]) -> dict[str, Any]:
    """The edition file a box owner fills in: the shipped data, and the values still provisional
    listed with their notes (``provisional`` is only a guide; ``verified`` is what counts)."""
    ship = shipped(game)
    return {"edition": "my-box", "game": game.id, "title": f"{game.title}, checked against my box",
            "verified": [],
            "provisional": [p.to_json() for p in game.provisional()],
            "data": copy.deepcopy(dict(ship.data))}


def trial(game: Game[Any], edition: Edition, plies: int = 10_000) -> None:
    """Play one match of the bound game with seeded random legal moves, for every player count:
    numbers that pass the schema may still leave the rules unable to play (no display, no phase,
    a seat with nothing legal to do). :class:`EditionError` on ``data`` names what went wrong."""
    bound = bind(game, edition)
    for players in bound.players:
        pick = Rng.from_seed(f"trial:{players}")
        try:
            state, _ = bound.setup(players, bound.validate_options({}, players), Rng.from_seed(f"setup:{players}"))
            for ply in range(plies):
                seats = bound.active_seats(state)
                bound.outcome(state)  # the service scores after every move: a division by zero shows here
                if not seats:
                    bound.view(state, None)
                    break
                legal = bound.legal_actions(state, seats[0])
                if not legal:
                    raise EditionError("data", f"with {players} players, seat {seats[0]} has nothing legal to do "
                                               f"at ply {ply}: the rules cannot play with these numbers")
                state, _ = bound.apply(state, seats[0], legal[pick.randbelow(len(legal))], Rng.from_seed(f"{ply}"))
            else:
                raise EditionError("data", f"with {players} players a match did not end in {plies} moves: "
                                           "check the counts that end the game")
        except EditionError:
            raise
        except Exception as exc:  # any failure of the rules on these numbers is the edition's to explain
            raise EditionError("data", f"with {players} players the rules failed on these numbers: "
                                       f"{type(exc).__name__}: {exc}") from exc
