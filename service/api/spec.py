"""The per-game part of openapi.yaml, generated from the games themselves.

Each registered game publishes its options (from its marshmallow schema) and the JSON Schema of
every action (``Game.action_schemas``). ``python -m service.api.spec --write`` rewrites the block
between the markers in openapi.yaml; ``--check`` (and the contract tests) fail when the file
has drifted from the code.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from service import games
from service.games.base import options_json_schema

BEGIN = "    # BEGIN generated game schemas (python -m service.api.spec --write)\n"
END = "    # END generated game schemas\n"
SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"


def camel(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def game_schemas() -> dict[str, Any]:
    """components/schemas entries for every game in the package registry."""
    out: dict[str, Any] = {}
    for game in sorted(games.registry().values(), key=lambda g: g.id):
        if game.__module__.split(".")[:2] != ["service", "games"]:
            continue  # plugins and the tests' fixture game are not part of the public contract
        prefix = camel(game.id)
        options = options_json_schema(game.options_schema)
        options["description"] = f"Match options of {game.title} (`options` of POST /v1/matches)."
        out[f"{prefix}Options"] = options
        refs = []
        for kind, description in game.actions.items():
            name = f"{prefix}{camel(kind)}Action"
            schema = dict(game.action_schemas.get(kind) or {"type": "object"})
            schema.setdefault("description", description)
            out[name] = schema
            refs.append({"$ref": f"#/components/schemas/{name}"})
        out[f"{prefix}Action"] = {"description": f"Any action of {game.title}.", "oneOf": refs}
    return out


def block() -> str:
    schemas = game_schemas()
    body = yaml.safe_dump(schemas, sort_keys=False, allow_unicode=True, width=110) if schemas else ""
    return BEGIN + "".join(f"    {line}\n" if line else "\n" for line in body.splitlines()) + END


def current(text: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{SPEC}: the generated-schema markers are missing")
    return text[text.index(BEGIN): text.index(END) + len(END)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--write", action="store_true", help="rewrite the block in openapi.yaml")
    p.add_argument("--check", action="store_true", help="exit 1 if openapi.yaml is out of date")
    args = p.parse_args(argv)
    text = SPEC.read_text()
    fresh = block()
    if args.write:
        SPEC.write_text(text.replace(current(text), fresh))
        print(f"{SPEC}: game schemas written")
        return 0
    if current(text) != fresh:
        print(f"{SPEC} is out of date: run python -m service.api.spec --write", file=sys.stderr)
        return 1
    print("openapi.yaml game schemas are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
