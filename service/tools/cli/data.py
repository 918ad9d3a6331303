"""``portolan data``: the data editions of the games (docs/editions.md).

``portolan data template GAME`` prints the file a box owner fills in (the shipped numbers, the
provisional ones listed); ``portolan data check FILE`` checks one (schema, consistency with the
game, the paths it marks verified, a trial match for every player count) and prints what it changes against the shipped data: exit 0
when it can be installed, 2 with the field at fault when it cannot; ``portolan data schema GAME``
prints the JSON Schema of a game's data.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from service import games
from service.games import edition_check
from service.games import editions as editions_of_games
from service.games.editions import bind
from service.play import editions
from service.tools.cli.common import CommandMaker
from service.tools.terminal import say


def _game(game_id: str) -> Any:
    game = games.get(game_id)
    if game is None:
        raise SystemExit(f"there is no game {game_id!r} (games: {', '.join(games.registry())})")
    return game


def _values(n: int) -> str:
    return f"{n} value" if n == 1 else f"{n} values"


def cmd_template(args: argparse.Namespace) -> int:
    """Print the edition file to fill in for a game."""
    print(json.dumps(edition_check.template(_game(args.game)), indent=1, ensure_ascii=False))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema of a game's data (``--derive``: derived again from its data.json)."""
    game = _game(args.game)
    schema = edition_check.data_schema(game)
    if args.derive:
        derived = edition_check.shape_schema(dict(editions_of_games.shipped(game).data))
        schema = {k: v for k, v in schema.items() if k in ("$schema", "title", "description")} | derived
    print(json.dumps(schema, indent=1, ensure_ascii=False))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check an edition file; print what it changes and what it leaves provisional."""
    try:
        edition = editions.read(Path(args.file), trial=True)
    except edition_check.EditionError as exc:  # one line per problem, never a traceback
        for line in exc.lines("error: "):
            say(line, file=sys.stderr)
        return 2
    game = _game(edition.game)
    changes = edition_check.diff(edition, game)
    bound = bind(game, edition)
    if args.json:
        say(json.dumps({"edition": edition.id, "game": edition.game, "digest": edition.digest, "changes": changes,
                        "provisional": [p.path for p in bound.provisional()]}, indent=2, ensure_ascii=False))
        return 0
    say(f"{args.file}: edition {edition.id!r} of {game.title} is valid (digest {edition.digest})")
    say(f"{_values(len(changes))} {'differs' if len(changes) == 1 else 'differ'} from the shipped data:" if changes
        else "no value differs from the shipped data")
    for c in changes:
        say(f"  {c['field']}: {json.dumps(c['shipped'])} -> {json.dumps(c['edition'])}")
    left = len(bound.provisional())
    say(f"{_values(left)} {'stays' if left == 1 else 'stay'} provisional ({len(edition.verified)} marked verified)")
    say(f"install it: {editions.ENV}={os.path.abspath(args.file)} (or portolan dev --edition {args.file})")
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``portolan data``."""
    sp = cmd("data", lambda a: a.data_fn(a), "data editions: the printed numbers of your box (docs/editions.md)")
    sub = sp.add_subparsers(dest="data_command", required=True)
    t = sub.add_parser("template", help="print an edition file to fill in (the shipped data)")
    t.add_argument("game")
    t.set_defaults(data_fn=cmd_template)
    c = sub.add_parser("check", help="check an edition file and show what it changes (exit 2 when it is not valid)")
    c.add_argument("file")
    c.set_defaults(data_fn=cmd_check)
    s = sub.add_parser("schema", help="print the JSON Schema of a game's data")
    s.add_argument("game")
    s.add_argument("--derive", action="store_true", help="derive it again from the shipped data.json "
                                                         "(to rewrite data.schema.json after the data changed shape)")
    s.set_defaults(data_fn=cmd_schema)


def install_editions(files: list[str]) -> None:
    """``--edition FILE`` (repeatable): add the files to PORTOLAN_EDITIONS, which the API and the
    workers read, after checking them here so a bad file stops the start with the field at fault."""
    if not files:
        return
    spec = os.pathsep.join([*filter(None, [os.environ.get(editions.ENV, "")]), *map(os.path.abspath, files)])
    try:
        editions.load(spec, trial=True)
    except edition_check.EditionError as exc:
        raise SystemExit(f"error: {exc.field}: {exc.message}") from exc
    os.environ[editions.ENV] = spec
