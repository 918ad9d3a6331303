"""The per-game part of openapi.yaml, generated from the games themselves.

Each hosted game publishes its options (from its marshmallow schema) and the JSON Schema of
every action (``Game.action_schemas``). From them this module builds, for every game, the typed
schemas a client generator turns into models — ``<Game>Options``, one ``<Game><Type>Action`` per
action type, the game's ``<Game>Action`` union (discriminated by ``type``) and the body
``Create<Game>Match`` — and the two unions the rest of the document references:

* ``Action``: any action of any hosted game (``anyOf`` of the per-game unions: ``type`` values
  such as ``end-turn`` recur across games, so no discriminator can span them, and a bare
  ``{"type": "end-turn"}`` is a valid action of two games at once, which ``oneOf`` would refuse);
* ``CreateMatch``: the body of ``POST /v1/matches``, a ``oneOf`` discriminated by ``game`` so
  that ``options`` and the seat count are checked against that game.

``python -m service.api.spec --write`` rewrites the block between the markers in openapi.yaml;
``--check`` (and the contract tests) fail when the file has drifted from the code.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from service import games, i18n
from service.games.base import Game, options_json_schema

BEGIN = "    # BEGIN generated game schemas (python -m service.api.spec --write)\n"
END = "    # END generated game schemas\n"
SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
REF = "#/components/schemas/"


class _Dumper(yaml.SafeDumper):
    """Writes shared sub-schemas out in full: YAML anchors and aliases (``&id001``) are legal but
    make the published contract hard to read and trip some generators."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


# the contract is English: a phrase (an action's description) is written as the English it is
_Dumper.add_representer(i18n.Phrase, lambda dumper, data: dumper.represent_str(str.__str__(data)))


def camel(text: str) -> str:
    """``el-capitan`` -> ``ElCapitan``: the prefix of a game's schema names."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def hosted_games() -> list[Game[Any]]:
    """The games of the public contract: those of the ``service.games`` package, by id.

    Plugins and the tests' fixture game are registered too but are not part of the contract."""
    return sorted((g for g in games.registry().values() if g.__module__.split(".")[:2] == ["service", "games"]),
                  key=lambda g: g.id)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


_BRANCHES = ("if", "then", "else", "not")
_LISTS = ("oneOf", "anyOf", "allOf")


def _declare_required(schema: dict[str, Any], declared: dict[str, Any] | None = None) -> dict[str, Any]:
    """``schema`` with every conditional branch declaring the properties it requires.

    The games write conditions the JSON-Schema way (``if``/``then``/``oneOf`` branches that only
    say ``required: [card]``, the property itself being defined by the enclosing schema). Linters
    read a ``required`` name without a local definition as a typo, and generators that build a
    model per branch then type it as anything; copying the enclosing definition in changes
    nothing a validator accepts, since the enclosing schema checks the same property anyway."""
    out = dict(schema)
    known = {**(declared or {}), **out.get("properties", {})}
    if declared is not None:
        missing = {name: known[name] for name in out.get("required", []) if name not in out.get("properties", {})
                   and name in known}
        if missing:
            out["properties"] = {**out.get("properties", {}), **missing}
    for key in _BRANCHES:
        if isinstance(out.get(key), dict):
            out[key] = _declare_required(out[key], known)
    for key in _LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_declare_required(sub, known) if isinstance(sub, dict) else sub for sub in out[key]]
    return out


def _game_schemas(game: Game[Any]) -> dict[str, Any]:
    prefix = camel(game.id)
    out: dict[str, Any] = {}
    options = options_json_schema(game.options_schema)
    options["description"] = f"Match options of {game.title} (`options` of POST /v1/matches)."
    out[f"{prefix}Options"] = options
    mapping: dict[str, str] = {}
    for kind, description in game.actions.items():
        name = f"{prefix}{camel(kind)}Action"
        schema = dict(game.action_schemas.get(kind) or {
            "type": "object", "required": ["type"], "properties": {"type": {"const": kind}}})
        schema = _declare_required(schema)
        schema.setdefault("title", name)
        schema.setdefault("description", description)
        out[name] = schema
        mapping[kind] = REF + name
    out[f"{prefix}Action"] = {
        "title": f"{prefix}Action",
        "description": f"Any action of {game.title}, told apart by `type`.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    low, high = game.players.start, game.players.stop - 1
    out[f"Create{prefix}Match"] = {
        "type": "object",
        "title": f"Create{prefix}Match",
        "description": f"Create a match of {game.title} ({low} to {high} players).",
        "required": ["game", "seats"],
        "additionalProperties": False,
        "properties": {
            "game": {"type": "string", "const": game.id, "description": "The game id from the catalog."},
            # a bare reference: generators refuse a default on a model-typed property, and an
            # omitted `options` means every option at its default anyway
            "options": _ref(f"{prefix}Options"),
            "seats": {"type": "array", "minItems": low, "maxItems": high,
                      "description": "One entry per seat, in seat order.", "items": _ref("SeatSpec")},
            "creator_name": {"type": "string", "maxLength": 80,
                             "description": "Who invites: the name the invitations and turn notices give as "
                                            "the match's creator (optional; without it they say the creator "
                                            "gave no name)."},
            # the clock's schemas are hand-written (the same for every game): docs/clock.md
            "time_control": _ref("TimeControl"),
            "timeout_policy": _ref("TimeoutPolicy"),
            # the data edition (docs/editions.md): the ids a server has are in its catalog
            "edition": {"type": "string", "minLength": 1, "maxLength": 64,
                        "description": "The data edition to play (`editions` of `GET /v1/games/{game_id}`); "
                                       "absent: the operator's default edition, else the shipped data. The "
                                       "match pins it (id and digest) for good."},
        },
    }
    return out


def game_schemas(hosted: Iterable[Game[Any]] | None = None) -> dict[str, Any]:
    """components/schemas entries for ``hosted`` (default: :func:`hosted_games`) and the unions over them."""
    chosen = list(hosted_games() if hosted is None else hosted)
    out: dict[str, Any] = {}
    for game in chosen:
        out.update(_game_schemas(game))
    prefixes = [camel(g.id) for g in chosen]
    out["Action"] = {
        "title": "Action",
        "description": "One atomic rules step, `{\"type\": ..., ...}`, of one of the hosted games "
                       "(the game's own union lists its vocabulary; `GET /v1/games/{game_id}` describes it).",
        "anyOf": [_ref(f"{p}Action") for p in prefixes],
    }
    out["CreateMatch"] = {
        "title": "CreateMatch",
        "description": "The body of `POST /v1/matches`: the game, its options and one entry per seat.",
        "oneOf": [_ref(f"Create{p}Match") for p in prefixes],
        "discriminator": {"propertyName": "game",
                          "mapping": {g.id: REF + f"Create{camel(g.id)}Match" for g in chosen}},
    }
    return out


def block(hosted: Iterable[Game[Any]] | None = None) -> str:
    """The generated block of openapi.yaml, markers included."""
    body = yaml.dump(game_schemas(hosted), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
    return BEGIN + "".join(f"    {line}\n" if line else "\n" for line in body.splitlines()) + END


def current(text: str) -> str:
    """The generated block as it stands in ``text``."""
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{SPEC}: the generated-schema markers are missing")
    return text[text.index(BEGIN): text.index(END) + len(END)]


def document(hosted: Iterable[Game[Any]]) -> dict[str, Any]:
    """openapi.yaml as a server hosting exactly ``hosted`` would publish it (the tests add their
    fixture game this way, so the contract holds the app to the same rules for it)."""
    text = SPEC.read_text(encoding="utf-8")
    loaded: dict[str, Any] = yaml.safe_load(text.replace(current(text), block(hosted)))
    return loaded


def main(argv: list[str] | None = None) -> int:
    """``--write`` the block into openapi.yaml, or check that it is up to date."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--write", action="store_true", help="rewrite the block in openapi.yaml")
    p.add_argument("--check", action="store_true", help="exit 1 if openapi.yaml is out of date")
    args = p.parse_args(argv)
    text = SPEC.read_text(encoding="utf-8")
    fresh = block()
    if args.write:
        SPEC.write_text(text.replace(current(text), fresh), encoding="utf-8")
        print(f"{SPEC}: game schemas written")
        return 0
    if current(text) != fresh:
        print(f"{SPEC} is out of date: run python -m service.api.spec --write", file=sys.stderr)
        return 1
    print("openapi.yaml game schemas are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
