"""The match clock at the terminal (docs/clock.md): ``create``'s clock flags read into the time
control and timeout policy the server checks, and the clock in words (the lines of ``portolan
show``, what ``create`` says of the clock it asked for)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from service.clock import Clock, ClockError, parse_duration, parse_iso
from service.i18n import DEFAULT, duration, moment, phrase, phrase_in, render, tr, tr_n
from service.proof.standing import check_timeout_policy
from service.proof.time_control import TimeControlError, check_time_control
from service.tools.cli.common import language

TIMEOUTS = ("stand-in", "skip", "forfeit", "forfeit-end", "abort")


# -- create: the clock flags -------------------------------------------------------------------


def _days(text: str, what: str) -> int | float:
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(tr(language(), "--time-control: {what} is a number of days, not {given}", what=what,
                            given=repr(text))) from None
    return int(value) if value.is_integer() else value


def parse_time_control(text: str, *, weekends: bool = True, reminders: str | None = None) -> dict[str, Any]:
    """``none``, ``per-move:DAYS`` or ``bank:INITIAL+INCREMENT/CAP`` (``+INCREMENT`` and ``/CAP``
    optional) as the JSON time control, checked by the server's own rule (SystemExit saying what
    is wrong otherwise)."""
    kind, _, rest = text.strip().partition(":")
    value: dict[str, Any]
    if kind == "none" and not rest:
        if not weekends or reminders:
            raise SystemExit(tr(language(), "--no-weekends and --reminders need a time control (per-move:DAYS or bank:...)"))
        value = {"kind": "none"}
    elif kind == "per-move" and rest:
        value = {"kind": "per-move", "days": _days(rest, "per-move:DAYS")}
    elif kind == "bank" and rest:
        head, _, cap = rest.partition("/")
        initial, _, increment = head.partition("+")
        value = {"kind": "bank", "initial_days": _days(initial, tr(language(), "the initial bank"))}
        if increment:
            value["increment_days"] = _days(increment, tr(language(), "the increment"))
        if cap:
            value["cap_days"] = _days(cap, tr(language(), "the cap"))
    else:
        raise SystemExit(tr(language(), "--time-control is none, per-move:DAYS (e.g. per-move:3) or "
                                        "bank:INITIAL+INCREMENT/CAP (e.g. bank:7+1/14), not {given}", given=repr(text)))
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
            raise SystemExit(tr(language(), '--reminders is a list such as half,24 ("half" or hours left), not {given}',
                                given=repr(text)))
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
            raise SystemExit(tr(language(), "--grace is a whole number of hours (such as 24h or 2d), not {given}",
                                given=repr(grace)))
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
        raise SystemExit(tr(language(), "--no-weekends and --reminders need --time-control per-move:DAYS or bank:..."))
    policy = parse_timeout(args.timeout, args.grace)
    if policy is not None:
        fields["timeout_policy"] = policy
    return fields


def clock_summary(fields: Mapping[str, Any], lang: str = DEFAULT) -> str:
    """What ``create`` says of the clock it asked for (the server's defaults where none was given)."""
    tc = check_time_control(fields.get("time_control"))
    return tr(lang, "clock: {time_control}; {policy}", time_control=time_control_text(tc, lang),
              policy=policy_text(check_timeout_policy(fields.get("timeout_policy")), lang))


def add_create_flags(sp: argparse.ArgumentParser, lang: str = DEFAULT) -> None:
    """``create``'s clock flags (their help in ``lang``)."""
    sp.add_argument("--time-control", metavar="SPEC",
                    help=tr(lang, "none (default), per-move:DAYS (1-14) or bank:INITIAL+INCREMENT/CAP in days "
                                  "(e.g. bank:7+1/14)"))
    sp.add_argument("--no-weekends", action="store_true", help=tr(lang, "Saturdays and Sundays (UTC) do not count"))
    sp.add_argument("--reminders", metavar="LIST", help=tr(lang, "when to remind before a deadline: \"half\" and/or "
                                                                 "hours left (default half,24; none for no reminders)"))
    sp.add_argument("--timeout", choices=TIMEOUTS, help=tr(lang, "what happens to a late seat: a stand-in bot plays it "
                    "(default), it skips, it forfeits (a bot plays on; forfeit-end: the match ends when fewer than 2 "
                    "remain), or the match is aborted"))
    sp.add_argument("--grace", metavar="HOURS", help=tr(lang, "how long after the deadline the timeout acts "
                                                              "(default 24h)"))


# -- the clock in words --------------------------------------------------------------------------


def duration_text(seconds: float, lang: str = DEFAULT) -> str:
    """``2d 3h``, ``5h 10m``, ``45m``, ``0m`` (in Hungarian "2 nap 3 óra", as :func:`service.i18n.duration`)."""
    s = max(0, int(seconds))
    days, hours, minutes = s // 86400, s % 86400 // 3600, s % 3600 // 60
    if lang != DEFAULT:  # whole minutes, as in English; the units in the language's own words
        return duration(s - s % 60, lang) if s >= 60 else tr_n(lang, "{n} minute", "{n} minutes", 0)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    return f"{minutes}m"


def when_text(stamp: str | None, lang: str = DEFAULT) -> str:
    """A time the server wrote, as ``2026-12-04 12:00 UTC`` (in Hungarian "2026. dec. 4. 12:00 UTC")."""
    if not stamp:
        return "-"
    return parse_iso(stamp).strftime("%Y-%m-%d %H:%M UTC") if lang == DEFAULT else moment(parse_iso(stamp), lang)


def time_control_text(tc: Mapping[str, Any], lang: str = DEFAULT) -> str:
    """The time control in words."""
    if tc.get("kind") == "per-move":
        days = tc["days"]
        text = tr_n(lang, "{days} day per move", "{days} days per move", days if days == 1 else 2, days=format(days, "g"))
    elif tc.get("kind") == "bank":
        text = tr(lang, "a bank of {initial} days, +{increment} per move, at most {cap}",
                  initial=format(tc["initial_days"], "g"), increment=format(tc["increment_days"], "g"), cap=format(tc["cap_days"], "g"))
    else:
        return tr(lang, "no time control")
    return text + ("" if tc.get("weekends", True) else tr(lang, " (weekends do not count)"))


def policy_text(policy: Mapping[str, Any], lang: str = DEFAULT) -> str:
    """The timeout policy in words."""
    what = {"stand-in": phrase("a stand-in bot plays a late seat"), "skip": phrase("a late seat passes"),
            "abort": phrase("the match is aborted when a seat is late"),
            "forfeit": phrase("a late seat forfeits (the match ends when fewer than 2 remain)")
            if policy.get("after_forfeit") == "end" else phrase("a late seat forfeits (a bot plays on)")}
    name = str(policy.get("policy"))
    return tr(lang, "{what}, {hours} h after its deadline", what=render(what.get(name, name), lang),
              hours=policy.get("grace_hours", 0))


SEAT_KIND = {"human": phrase_in("seat kind", "human"), "bot": phrase_in("seat kind", "bot")}
"""What names a seat that has no player's name yet."""


def seat_name(seat: Mapping[str, Any], lang: str = DEFAULT) -> str:
    """A seat of a view by its player's name, else by its kind (``human``, ``bot``) in words."""
    return str(seat["name"]) if seat.get("name") else render(SEAT_KIND.get(seat["kind"], seat["kind"]), lang)


_PLAYED_BY = {"bot": phrase("a bot"), "stand-in": phrase("a stand-in bot, until its player is back"),
              "skip": phrase("the server, passing this turn"),
              "forfeited": phrase("the server's bot (the player left the match)")}


def seat_clock_text(clock: Mapping[str, Any], name: str, now: datetime, lang: str = DEFAULT) -> str:
    """One seat's line at ``now``: who plays it, and its clock (time to its deadline, late)."""
    controller = str(clock.get("controller", "player"))
    who = name if controller == "player" else tr(lang, "{name}, played by {who}", name=name,
                                                   who=render(_PLAYED_BY.get(controller, controller), lang))
    parts: list[str] = []
    if clock.get("on_vacation"):  # views that know of vacations say so
        parts.append(tr(lang, "on vacation (clock paused)"))
    deadline = clock.get("deadline")
    if clock.get("running") and deadline:
        due = parse_iso(deadline)
        if now >= due:
            parts.append(tr(lang, "LATE: the deadline was {deadline}; the timeout acts at {acts_at}",
                            deadline=when_text(deadline, lang), acts_at=when_text(clock.get("acts_at"), lang)))
        else:
            parts.append(tr(lang, "to act, {left} left, deadline {deadline}",
                            left=duration_text((due - now).total_seconds(), lang), deadline=when_text(deadline, lang)))
    elif clock.get("running"):
        parts.append(tr(lang, "to act"))
    line = tr(lang, "seat {seat} ({who})", seat=clock["seat"], who=who)
    return "  " + line + (": " + "; ".join(parts) if parts else "")


def clock_lines(view: Mapping[str, Any], now: datetime | None = None, lang: str = DEFAULT) -> list[str]:
    """What ``portolan show`` prints of the clock: the time control, the policy, and a line per
    seat (who plays it, time left, deadline, late). ``now`` is the service clock's time (the
    answer's ``Portolan-Now``: a view holds no "now"), else the clock ``PORTOLAN_CLOCK`` names here."""
    clock = view.get("clock")
    if not clock:
        return []
    if now is None:
        now = Clock.named(os.environ.get("PORTOLAN_CLOCK")).now()
    tc = clock.get("time_control") or {"kind": "none"}
    names = {s["seat"]: seat_name(s, lang) for s in view.get("seats", [])}
    lines = [tr(lang, "Clock: {time_control}; {policy}", time_control=time_control_text(tc, lang),
                policy=policy_text(clock.get("timeout_policy") or {}, lang))]
    if view.get("status") in ("active", "finished", "aborted"):
        lines += [seat_clock_text(c, names.get(c["seat"], "?"), now, lang) for c in clock.get("seats", [])]
    return lines
