"""``portolan vacation add --from YYYY-MM-DD --days N``, ``portolan vacation list`` and
``portolan vacation cancel ID``: a player key's vacations over the API (``/v1/me/vacations``),
signed with the key. A vacation pauses every clock of every seat the key holds.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from service.i18n import DEFAULT, tr, tr_n
from service.tools.cli.common import CommandMaker, api_client, language, load_key, out
from service.tools.terminal import say

_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")

def _days(n: int, lang: str = DEFAULT) -> str:
    return tr_n(lang, "{n} day", "{n} days", n)


def _line(v: dict[str, Any], lang: str = DEFAULT) -> str:
    """One vacation in plain words."""
    span = v["start"] if v["start"] == v["last_day"] else tr(lang, "{start} to {last}", start=v["start"], last=v["last_day"])
    return f"{v['id']}  {span} ({_days(v['days'], lang)}, {v['status']})"


def _left(book: dict[str, Any], lang: str = DEFAULT) -> str:
    return "; ".join(tr(lang, "{days} of vacation left in {year}", days=_days(y["left"], lang), year=y["year"])
                     for y in book["years"])


def cmd_vacation(args: argparse.Namespace) -> int:
    """``add``, ``list`` or ``cancel`` the vacations of the key (``--key``, default ``default``)."""
    client = api_client(args)
    key = load_key(args.key)
    L = language()
    if args.action == "add":
        if args.start is None or args.days is None:
            raise SystemExit(tr(L, "portolan vacation add --from YYYY-MM-DD --days N: give both the first day and the "
                                   "number of days"))
        book = client._signed("POST", "/v1/me/vacations", key, {"start": args.start, "days": args.days})
        v = book["vacation"]
        text = tr(L, "vacation {id}: {start} to {last} ({days}); your clocks in every match stop for it. {left}. "
                     "To cancel it: portolan vacation cancel {id}", id=v["id"], start=v["start"], last=v["last_day"],
                  days=_days(v["days"], L), left=_left(book, L))
    elif args.action == "list":
        book = client._signed_get("/v1/me/vacations", key)
        lines = [_line(v, L) for v in book["vacations"]] or [tr(L, "no vacations declared")]
        text = "\n".join([*lines, tr(L, "{left} (allowance: {days} a year)", left=_left(book, L),
                                     days=_days(book["allowance"], L))])
    else:
        if not args.target or not _ID.fullmatch(args.target):
            raise SystemExit(tr(L, "portolan vacation cancel ID: which vacation? (the ids are in `portolan vacation "
                                   "list`)"))
        book = client._signed("DELETE", f"/v1/me/vacations/{args.target}", key)
        v = book["vacation"]
        done = (tr(L, "vacation {id} cancelled", id=v["id"]) if v["status"] == "cancelled"
                else tr(L, "vacation {id} ended now (today counts as taken)", id=v["id"]))
        text = f"{done}; {_left(book, L)}"
    if args.json:
        out(book, True)
    else:
        say(text)
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``vacation`` with the CLI's ``cmd(name, fn, help)`` sub-parser maker."""
    L = language()
    sp = cmd("vacation", cmd_vacation, tr(L, "declare, list or cancel vacations: they pause your clocks in every match"))
    sp.add_argument("action", choices=["add", "list", "cancel"])
    sp.add_argument("target", nargs="?", help=tr(L, "the vacation id (cancel)"))
    sp.add_argument("--from", dest="start", metavar="YYYY-MM-DD", help=tr(L, "the first day of the vacation (add; UTC)"))
    sp.add_argument("--days", type=int, help=tr(L, "how many whole days (add)"))
    sp.add_argument("--key", default="default", help=tr(L, "the key whose clocks stop (the one holding your seats)"))
