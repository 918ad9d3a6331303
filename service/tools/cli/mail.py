"""Moves by mail from the player's side: ``portolan mail-delegation`` and ``portolan attach-key``
(``portolan claim`` delegates by default; see docs/fairness.md)."""

from __future__ import annotations

import argparse
from shlex import join as shell_line

from service.i18n import DEFAULT, tr
from service.tools.cli.common import (
    CommandMaker,
    api_client,
    ensure_key,
    language,
    load_key,
    out,
    remember_seat,
    seat_and_key,
)


def delegation_line(match: str, seat: int, delegated: bool, lang: str = DEFAULT) -> str:
    """What ``claim`` says about moves by mail, and how to change it."""
    if delegated:
        return tr(lang, "moves by mail: your key signed a mail delegation, so a reply to a turn notice moves for seat "
                        "{seat}; to stop that: {command}", seat=seat,
                  command=shell_line(["portolan", "mail-delegation", match, "--seat", str(seat), "withdraw"]))
    return tr(lang, "moves by mail: off (--no-mail), replies to turn notices will not move for seat {seat}; to allow "
                    "them: {command}", seat=seat,
              command=shell_line(["portolan", "mail-delegation", match, "--seat", str(seat), "grant"]))


def cmd_mail_delegation(args: argparse.Namespace) -> int:
    """Grant or withdraw the seat's mail delegation, signed with the seat's key."""
    seat, key = seat_and_key(args)
    client = api_client(args)
    if args.action == "grant":
        result = client.grant_mail_delegation(args.match, seat, load_key(key))
        text = tr(language(), "mail delegation granted: a reply to a turn notice of match {match} now moves for seat "
                              "{seat} (signed by mail key {mail_key}, under your key's delegation)",
                  match=args.match, seat=seat, mail_key=result["mail_key"])
    else:
        result = client.withdraw_mail_delegation(args.match, seat, load_key(key))
        text = tr(language(), "mail delegation withdrawn: replies by mail no longer move for seat {seat} of match "
                              "{match}; moves need your own signature again (portolan move)", seat=seat, match=args.match)
    out(result if args.json else text, args.json)
    return 0


def cmd_attach_key(args: argparse.Namespace) -> int:
    """Hand a custodial seat (joined by mail) to the user's own key with the mailed token."""
    ensure_key(args.key)
    result = api_client(args).attach_key(args.match, args.seat, args.token, load_key(args.key))
    remember_seat(args.match, args.seat, args.key)
    text = tr(language(), "seat {seat} of match {match} now signs with your key {key} from ply {ply} on; to move by "
                          "replying to mail again, delegate: {command}", seat=args.seat, match=args.match,
              key=repr(args.key), ply=result["from_ply"],
              command=shell_line(["portolan", "mail-delegation", args.match, "--seat", str(args.seat), "grant"]))
    out(result if args.json else text, args.json)
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``mail-delegation`` and ``attach-key``."""
    L = language()
    sp = cmd("mail-delegation", cmd_mail_delegation,
             tr(L, "let replies to your turn notices move for your seat, or stop that"))
    sp.add_argument("match")
    sp.add_argument("action", choices=["grant", "withdraw"])
    sp.add_argument("--seat", type=int)
    sp.add_argument("--key")
    sp = cmd("attach-key", cmd_attach_key,
             tr(L, "a seat you joined by mail takes your own key (with the token mailed to you)"))
    sp.add_argument("match")
    sp.add_argument("--seat", type=int, required=True)
    sp.add_argument("--token", required=True, help=tr(L, "the attach token from the answer to your `key` mail"))
    sp.add_argument("--key", default="default", help=tr(L, "your key (made if missing)"))
