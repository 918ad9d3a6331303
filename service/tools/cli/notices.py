"""``portolan notices``: how often an address of the player's hears of its turns (every turn, a daily
digest, or off), and in which language its mail is written (``--language hu``), over the API, signed
with the key holding a seat claimed with that address."""

from __future__ import annotations

import argparse

from service.i18n import phrase, render, tr
from service.tools.cli.common import CommandMaker, api_client, language, load_key, out

MEANING = {"every": phrase("a mail every turn"), "digest": phrase("one mail a day listing every match waiting for you"),
           "off": phrase("no turn notices, game-over mails or invitations")}
"""What each notice preference means, in words."""


def cmd_notices(args: argparse.Namespace) -> int:
    """``portolan notices [every|digest|off] --email ADDR``: show or set how often that address
    hears of its turns (the key must hold a seat claimed with that address)."""
    c = api_client(args)
    key = load_key(args.key)
    if args.language:
        said = c.set_language(args.email, args.language, private_key=key)
        if not args.choice:
            out(said if args.json else tr(language(), "mail language for {email}: {language}", email=said["email"],
                                          language=said["language"]), args.json)
            return 0
    result = c.set_notices(args.email, args.choice, private_key=key) if args.choice else c.notices(args.email, private_key=key)
    L = language()
    out(result if args.json else tr(L, "notices for {email}: {notices} ({meaning})", email=result["email"],
                                    notices=result["notices"], meaning=render(MEANING[result["notices"]], L)),
        args.json)
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``notices``."""
    L = language()
    sp = cmd("notices", cmd_notices, tr(L, "show or set how often an address of yours hears of its turns"))
    sp.add_argument("choice", nargs="?", choices=["every", "digest", "off"],
                    help=tr(L, "every turn (default), a daily digest, or off; none: show the current one"))
    sp.add_argument("--email", required=True, help=tr(L, "the address, as you claimed a seat with it"))
    sp.add_argument("--key", default="default", help=tr(L, "the key holding that seat"))
    sp.add_argument("--language", help=tr(L, "the language of that address's mail from now on: en, hu (or English, magyar)"))
