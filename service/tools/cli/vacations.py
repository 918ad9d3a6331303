"""``portolan vacation add --from YYYY-MM-DD --days N``, ``portolan vacation list`` and
``portolan vacation cancel ID``: a player key's vacations over the API (``/v1/me/vacations``),
signed with the key. A vacation pauses every clock of every seat the key holds.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from service.tools.cli.common import CommandMaker, api_client, load_key, out
from service.tools.terminal import say

_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


def _days(n: int) -> str:
    return f"{n} day{'s' if n != 1 else ''}"


def _line(v: dict[str, Any]) -> str:
    """One vacation in plain words."""
    span = v["start"] if v["start"] == v["last_day"] else f"{v['start']} to {v['last_day']}"
    return f"{v['id']}  {span} ({_days(v['days'])}, {v['status']})"


def _left(book: dict[str, Any]) -> str:
    return "; ".join(f"{_days(y['left'])} of vacation left in {y['year']}" for y in book["years"])


def cmd_vacation(args: argparse.Namespace) -> int:
    """``add``, ``list`` or ``cancel`` the vacations of the key (``--key``, default ``default``)."""
    client = api_client(args)
    key = load_key(args.key)
    if args.action == "add":
        if args.start is None or args.days is None:
            raise SystemExit("portolan vacation add --from YYYY-MM-DD --days N: give both the first day and the "
                             "number of days")
        book = client._signed("POST", "/v1/me/vacations", key, {"start": args.start, "days": args.days})
        v = book["vacation"]
        text = (f"vacation {v['id']}: {v['start']} to {v['last_day']} ({_days(v['days'])}); your clocks in every "
                f"match stop for it. {_left(book)}. To cancel it: portolan vacation cancel {v['id']}")
    elif args.action == "list":
        book = client._signed_get("/v1/me/vacations", key)
        lines = [_line(v) for v in book["vacations"]] or ["no vacations declared"]
        text = "\n".join([*lines, f"{_left(book)} (allowance: {_days(book['allowance'])} a year)"])
    else:
        if not args.target or not _ID.fullmatch(args.target):
            raise SystemExit("portolan vacation cancel ID: which vacation? (the ids are in `portolan vacation list`)")
        book = client._signed("DELETE", f"/v1/me/vacations/{args.target}", key)
        v = book["vacation"]
        done = (f"vacation {v['id']} cancelled" if v["status"] == "cancelled"
                else f"vacation {v['id']} ended now (today counts as taken)")
        text = f"{done}; {_left(book)}"
    if args.json:
        out(book, True)
    else:
        say(text)
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``vacation`` with the CLI's ``cmd(name, fn, help)`` sub-parser maker."""
    sp = cmd("vacation", cmd_vacation, "declare, list or cancel vacations: they pause your clocks in every match")
    sp.add_argument("action", choices=["add", "list", "cancel"])
    sp.add_argument("target", nargs="?", help="the vacation id (cancel)")
    sp.add_argument("--from", dest="start", metavar="YYYY-MM-DD", help="the first day of the vacation (add; UTC)")
    sp.add_argument("--days", type=int, help="how many whole days (add)")
    sp.add_argument("--key", default="default", help="the key whose clocks stop (the one holding your seats)")
