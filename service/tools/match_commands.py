"""The CLI commands of the match clock (docs/clock.md): ``create``'s clock flags, ``portolan
resign``, ``abort`` (the creator's before the start, a vote after it), ``back``, and the clock
lines of ``portolan show``.

Kept out of cli.py, which is long already; the helpers for keys and remembered seats are cli's,
imported when a command runs (cli imports this module to build its parser).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from shlex import join as shell_line
from typing import Any

from service.clock import Clock, ClockError, parse_duration, parse_iso
from service.play.mail.match_words import abort_votes_waiting, event_text, votes_needed_text
from service.proof.standing import check_timeout_policy
from service.proof.time_control import TimeControlError, check_time_control

TIMEOUTS = ("stand-in", "skip", "forfeit", "forfeit-end", "abort")


# -- create: the clock flags -------------------------------------------------------------------


def _days(text: str, what: str) -> int | float:
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(f"--time-control: {what} is a number of days, not {text!r}") from None
    return int(value) if value.is_integer() else value


def parse_time_control(text: str, *, weekends: bool = True, reminders: str | None = None) -> dict[str, Any]:
    """``none``, ``per-move:DAYS`` or ``bank:INITIAL+INCREMENT/CAP`` (``+INCREMENT`` and ``/CAP``
    optional) as the JSON time control, checked by the server's own rule (SystemExit saying what
    is wrong otherwise)."""
    kind, _, rest = text.strip().partition(":")
    value: dict[str, Any]
    if kind == "none" and not rest:
        if not weekends or reminders:
            raise SystemExit("--no-weekends and --reminders need a time control (per-move:DAYS or bank:...)")
        value = {"kind": "none"}
    elif kind == "per-move" and rest:
        value = {"kind": "per-move", "days": _days(rest, "per-move:DAYS")}
    elif kind == "bank" and rest:
        head, _, cap = rest.partition("/")
        initial, _, increment = head.partition("+")
        value = {"kind": "bank", "initial_days": _days(initial, "the initial bank")}
        if increment:
            value["increment_days"] = _days(increment, "the increment")
        if cap:
            value["cap_days"] = _days(cap, "the cap")
    else:
        raise SystemExit(f"--time-control is none, per-move:DAYS (e.g. per-move:3) or bank:INITIAL+INCREMENT/CAP "
                         f"(e.g. bank:7+1/14), not {text!r}")
    if value["kind"] != "none":
        if not weekends:
            value["weekends"] = False
        if reminders is not None:
            value["reminders"] = parse_reminders(reminders)
    try:
        check_time_control(value)
    except TimeControlError as exc:
        raise SystemExit(f"--time-control {text}: {exc.message}") from exc
    return value


def parse_reminders(text: str) -> list[str | int]:
    """``half,24``: reminders at half time and 24 hours before the deadline; ``none``: no reminders."""
    if text.strip() in ("", "none"):
        return []
    out: list[str | int] = []
    for part in text.split(","):
        part = part.strip().lower().removesuffix("h")
        if part == "half":
            out.append("half")
        elif part.isdigit() and part.isascii():
            out.append(int(part))
        else:
            raise SystemExit(f'--reminders is a list such as half,24 ("half" or hours left), not {text!r}')
    return out


def parse_timeout(policy: str | None, grace: str | None) -> str | dict[str, Any] | None:
    """``--timeout`` and ``--grace`` as the JSON timeout policy (None: neither given, the server's
    default), checked by the server's own rule."""
    if policy is None and grace is None:
        return None
    value: dict[str, Any] = {"policy": "stand-in" if policy is None else policy}
    if value["policy"] == "forfeit-end":
        value = {"policy": "forfeit", "after_forfeit": "end"}
    if grace is not None:
        try:
            seconds = parse_duration(grace)
        except ClockError as exc:
            raise SystemExit(f"--grace: {exc}") from exc
        if seconds % 3600:
            raise SystemExit(f"--grace is a whole number of hours (such as 24h or 2d), not {grace!r}")
        value["grace_hours"] = int(seconds // 3600)
    try:
        check_timeout_policy(value)
    except TimeControlError as exc:
        raise SystemExit(f"--timeout/--grace: {exc.message}") from exc
    return value if set(value) != {"policy"} else value["policy"]


def clock_request(args: argparse.Namespace) -> dict[str, Any]:
    """The ``time_control`` and ``timeout_policy`` fields ``create``'s flags ask for."""
    fields: dict[str, Any] = {}
    if args.time_control is not None:
        fields["time_control"] = parse_time_control(args.time_control, weekends=not args.no_weekends,
                                                    reminders=args.reminders)
    elif args.no_weekends or args.reminders is not None:
        raise SystemExit("--no-weekends and --reminders need --time-control per-move:DAYS or bank:...")
    policy = parse_timeout(args.timeout, args.grace)
    if policy is not None:
        fields["timeout_policy"] = policy
    return fields


def clock_summary(fields: Mapping[str, Any]) -> str:
    """What ``create`` says of the clock it asked for (the server's defaults where none was given)."""
    tc = check_time_control(fields.get("time_control"))
    return f"clock: {time_control_text(tc)}; {policy_text(check_timeout_policy(fields.get('timeout_policy')))}"


def add_create_flags(sp: argparse.ArgumentParser) -> None:
    """``create``'s clock flags."""
    sp.add_argument("--time-control", metavar="SPEC",
                    help="none (default), per-move:DAYS (1-14) or bank:INITIAL+INCREMENT/CAP in days (e.g. bank:7+1/14)")
    sp.add_argument("--no-weekends", action="store_true", help="Saturdays and Sundays (UTC) do not count")
    sp.add_argument("--reminders", metavar="LIST", help='when to remind before a deadline: "half" and/or hours left '
                                                         "(default half,24; none for no reminders)")
    sp.add_argument("--timeout", choices=TIMEOUTS, help="what happens to a late seat: a stand-in bot plays it (default), "
                    "it skips, it forfeits (a bot plays on; forfeit-end: the match ends when fewer than 2 remain), "
                    "or the match is aborted")
    sp.add_argument("--grace", metavar="HOURS", help="how long after the deadline the timeout acts (default 24h)")


# -- the clock in words --------------------------------------------------------------------------


def duration_text(seconds: float) -> str:
    """``2d 3h``, ``5h 10m``, ``45m``, ``0m``."""
    s = max(0, int(seconds))
    days, hours, minutes = s // 86400, s % 86400 // 3600, s % 3600 // 60
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    return f"{minutes}m"


def when_text(stamp: str | None) -> str:
    """A time the server wrote, as ``2026-12-04 12:00 UTC``."""
    return parse_iso(stamp).strftime("%Y-%m-%d %H:%M UTC") if stamp else "-"


def time_control_text(tc: Mapping[str, Any]) -> str:
    """The time control in words."""
    if tc.get("kind") == "per-move":
        text = f"{tc['days']:g} day{'' if tc['days'] == 1 else 's'} per move"
    elif tc.get("kind") == "bank":
        text = (f"a bank of {tc['initial_days']:g} days, +{tc['increment_days']:g} per move, "
                f"at most {tc['cap_days']:g}")
    else:
        return "no time control"
    return text + ("" if tc.get("weekends", True) else " (weekends do not count)")


def policy_text(policy: Mapping[str, Any]) -> str:
    """The timeout policy in words."""
    what = {"stand-in": "a stand-in bot plays a late seat", "skip": "a late seat passes",
            "abort": "the match is aborted when a seat is late",
            "forfeit": "a late seat forfeits" + (" (the match ends when fewer than 2 remain)"
                                                 if policy.get("after_forfeit") == "end" else " (a bot plays on)")}
    return f"{what.get(str(policy.get('policy')), str(policy.get('policy')))}, {policy.get('grace_hours', 0)} h after its deadline"


_PLAYED_BY = {"bot": "a bot", "stand-in": "a stand-in bot, until its player is back",
              "skip": "the server, passing this turn", "forfeited": "the server's bot (the player left the match)"}


def seat_clock_text(clock: Mapping[str, Any], name: str, now: datetime) -> str:
    """One seat's line at ``now``: who plays it, and its clock (time to its deadline, late)."""
    controller = str(clock.get("controller", "player"))
    who = name if controller == "player" else f"{name}, played by {_PLAYED_BY.get(controller, controller)}"
    parts: list[str] = []
    if clock.get("on_vacation"):  # views that know of vacations say so
        parts.append("on vacation (clock paused)")
    deadline = clock.get("deadline")
    if clock.get("running") and deadline:
        due = parse_iso(deadline)
        if now >= due:
            parts.append(f"LATE: the deadline was {when_text(deadline)}; the timeout acts at "
                         f"{when_text(clock.get('acts_at'))}")
        else:
            parts.append(f"to act, {duration_text((due - now).total_seconds())} left, deadline {when_text(deadline)}")
    elif clock.get("running"):
        parts.append("to act")
    return f"  seat {clock['seat']} ({who})" + (": " + "; ".join(parts) if parts else "")


def clock_lines(view: Mapping[str, Any], now: datetime | None = None) -> list[str]:
    """What ``portolan show`` prints of the clock: the time control, the policy, and a line per
    seat (who plays it, time left, deadline, late). ``now`` is the service clock's time (the
    answer's ``Portolan-Now``: a view holds no "now"), else the clock ``PORTOLAN_CLOCK`` names here."""
    clock = view.get("clock")
    if not clock:
        return []
    if now is None:
        now = Clock.named(os.environ.get("PORTOLAN_CLOCK")).now()
    tc = clock.get("time_control") or {"kind": "none"}
    names = {s["seat"]: (s["name"] or s["kind"]) for s in view.get("seats", [])}
    lines = [f"Clock: {time_control_text(tc)}; {policy_text(clock.get('timeout_policy') or {})}"]
    if view.get("status") in ("active", "finished", "aborted"):
        lines += [seat_clock_text(c, names.get(c["seat"], "?"), now) for c in clock.get("seats", [])]
    return lines


# -- resign, abort, back -----------------------------------------------------------------------


def _events_text(events: Sequence[Mapping[str, Any]]) -> list[str]:
    return [f"- {event_text(e)}" for e in events]


def _send(args: argparse.Namespace, kind: str) -> tuple[int, dict[str, Any]]:
    """Send the match action for the caller's seat (flags, else the seat ``claim`` remembered)."""
    from service.tools.cli import _client, load_key, seat_and_key

    seat, key = seat_and_key(args)
    return seat, _client(args).match_action(args.match, seat, load_key(key), kind)


def confirmed(question: str) -> bool:
    """Ask on the terminal; only ``yes`` is yes (an empty answer or end of input is no)."""
    print(question, end=" ", flush=True)
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        return False
    return answer.strip().lower() == "yes"


def cmd_resign(args: argparse.Namespace) -> int:
    """Give up a seat: ranked last; the match's timeout policy says what follows."""
    from service.tools.cli import out, seat_and_key
    from service.tools.terminal import say

    seat, _ = seat_and_key(args)
    if not args.yes and not confirmed(f"Resign seat {seat} of match {args.match}? You are ranked last and cannot take "
                                      "the seat back. Type yes to resign:"):
        say("not resigned (nothing was sent)")
        return 1
    seat, result = _send(args, "match:resign")
    if args.json:
        out(result, True)
        return 0
    say(f"seat {seat} of match {args.match} resigned; the match is now {result['status']}")
    for line in _events_text(result["events"]):
        say(line)
    return 0


def cmd_abort(args: argparse.Namespace) -> int:
    """While the match waits: the creator cancels it. Once it runs: a vote for the caller's seat."""
    from service.tools.cli import _client, load_key, out
    from service.tools.terminal import say

    client = _client(args)
    if client.show(args.match)["status"] == "waiting":
        result = client.abort(args.match, private_key=load_key(args.key or "default"))
        out(result if args.json else f"match {args.match} is {result['status']}", args.json)
        return 0
    seat, result = _send(args, "match:abort")
    if args.json:
        out(result, True)
        return 0
    waiting = abort_votes_waiting(result["events"])
    if result["status"] == "aborted" or not waiting:
        say(f"your vote was the last one needed: match {args.match} is {result['status']}, with no result")
    else:
        say(f"seat {seat} voted to abort match {args.match}; still needed: {votes_needed_text(waiting)} "
            f"(each remaining player runs {shell_line(['portolan', 'abort', args.match])})")
    return 0


def cmd_back(args: argparse.Namespace) -> int:
    """Take a seat back from its stand-in (any move signed for the seat does so too)."""
    from service.tools.cli import out
    from service.tools.terminal import say

    seat, result = _send(args, "match:return")
    out(result if args.json else f"seat {seat} of match {args.match} is yours again: no stand-in plays it", args.json)
    if not args.json and result["view"].get("legal_actions"):
        say(f"it is your turn: {shell_line(['portolan', 'actions', args.match])}")
    return 0


def add_commands(cmd: Any) -> None:
    """Register the commands with the CLI's ``cmd(name, fn, help)`` sub-parser maker."""
    sp = cmd("abort", cmd_abort, "cancel a match: yours while it waits for players; once it runs, your vote to "
             "abort it (it is aborted, with no result, when every remaining player voted)")
    sp.add_argument("match")
    sp.add_argument("--seat", type=int, help="your seat (a vote; default: the seat claim remembered)")
    sp.add_argument("--key", help="the key that created the match (waiting) or holds your seat (default: "
                                  "'default', or the remembered seat's)")
    sp = cmd("resign", cmd_resign, "give up your seat in a running match (you are ranked last)")
    sp.add_argument("match")
    sp.add_argument("--seat", type=int)
    sp.add_argument("--key")
    sp.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    sp = cmd("back", cmd_back, "take your seat back from the stand-in bot that played it while you were late")
    sp.add_argument("match")
    sp.add_argument("--seat", type=int)
    sp.add_argument("--key")
