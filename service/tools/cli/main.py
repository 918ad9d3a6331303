"""The ``portolan`` command's entry point: the parser, made of every command module's
sub-commands, and :func:`main` (the console script ``portolan``, and ``python -m service.tools.cli``).

Nothing imports this module but the console script, ``__main__`` and tests: the command modules
share :mod:`.common` instead, so the imports run one way, from here down.
"""

from __future__ import annotations

import argparse
import os
import sys

from service.i18n import parse_language, tr
from service.tools.cli import (
    archive,
    bots,
    clock,
    data,
    dkim,
    keys,
    mail,
    matches,
    notices,
    records,
    server,
    vacations,
    webhooks,
)
from service.tools.cli.common import Command, choose_language, lang_argument, language, set_language
from service.tools.terminal import say

DEFAULT_URL = "http://127.0.0.1:8000"


def parser() -> argparse.ArgumentParser:
    """The whole ``portolan`` parser (the sub-commands in the order ``--help`` lists them)."""
    L = language()  # the help texts' language: main() sets it before building the parser
    p = argparse.ArgumentParser(prog="portolan", description=tr(L, "Portolan: play-by-email El Capitán, Nauticus and Ophir."))
    p.add_argument("--server", default=os.environ.get("PORTOLAN_URL", DEFAULT_URL),
                   help=tr(L, "API base URL (env PORTOLAN_URL)"))
    p.add_argument("--json", action="store_true", help=tr(L, "print JSON instead of text"))
    p.add_argument("--lang", type=lang_argument, metavar="LANGUAGE", help=lang_help(L))
    sub = p.add_subparsers(dest="command", required=True)

    def cmd(name: str, fn: Command, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(fn=fn)
        # also after the command, as the lines in mails put it (SUPPRESS: absent, the global one stands)
        sp.add_argument("--server", default=argparse.SUPPRESS, help=tr(L, "API base URL (env PORTOLAN_URL)"))
        sp.add_argument("--lang", type=lang_argument, metavar="LANGUAGE", default=argparse.SUPPRESS, help=lang_help(L))
        return sp

    # The operator's commands first, then the player's, as --help has always listed them.
    server.add_commands(cmd)
    archive.add_commands(cmd)
    keys.add_commands(cmd)
    matches.add_create(cmd)
    matches.add_match_actions(cmd)
    matches.add_claim(cmd)
    mail.add_commands(cmd)
    dkim.add_commands(cmd)
    clock.add_commands(cmd)
    vacations.add_commands(cmd)
    bots.add_commands(cmd)
    matches.add_seat_commands(cmd)
    notices.add_commands(cmd)
    webhooks.add_commands(cmd)
    records.add_commands(cmd)
    data.add_commands(cmd)
    return p


def lang_help(lang: str) -> str:
    """``--lang``'s help text in ``lang``."""
    return tr(lang, "the language of the output: en or hu (default: PORTOLAN_LANG, else the locale, LANG=hu_HU.UTF-8)")


def _given_language(argv: list[str] | None) -> str | None:
    """``--lang`` from the arguments before the parser is built (its help texts are in that language);
    a bad or missing value is left for the parser to refuse."""
    pre = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    pre.add_argument("--lang")
    try:
        known, _ = pre.parse_known_args(sys.argv[1:] if argv is None else argv)
    except argparse.ArgumentError:
        return None
    return parse_language(known.lang)


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names (default: the process's arguments); its exit code.

    The output's language is ``--lang``, else ``PORTOLAN_LANG``, else the locale, else English
    (:func:`.common.choose_language`); the API requests ask for it (``Accept-Language``)."""
    set_language(choose_language(_given_language(argv)))
    p = parser()
    args, extra = p.parse_known_args(argv)
    # `move M --ply 3 '{...}'`: argparse gives the JSON after an option back as "unknown"
    if args.command == "move" and extra and not any(e.startswith("-") for e in extra):
        args.actions = [*args.actions, *extra]
    elif extra:
        p.error(f"unrecognized arguments: {' '.join(extra)}")
    L = language()
    import requests

    from service.games.edition_check import EditionError
    from service.play.editions import ENV as EDITIONS
    from service.tools.client import ApiError

    try:
        return int(args.fn(args))
    except EditionError as exc:  # an installed edition file the server cannot use: one line, no traceback
        for line in exc.lines(f"error: an edition in {EDITIONS} cannot be used: "):
            say(line, file=sys.stderr)
        return 2
    except ApiError as exc:
        say(tr(L, "error {status} {code}: {detail}", status=exc.status, code=exc.code, detail=exc.detail),
            file=sys.stderr)
        return 2
    except requests.ConnectionError:
        say(tr(L, "error: cannot reach the Portolan server at {server} (is `portolan dev` running? set --server or "
                  "PORTOLAN_URL)", server=args.server), file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130

