"""``portolan clock show`` and ``portolan clock advance 25h``: the service's clock, read and moved.

They act on the clock file itself (``PORTOLAN_CLOCK=file:PATH``, or ``--clock file:PATH``), not
over HTTP: every process that names the same file sees the new time at its next reading. With
neither given, the clock of ``portolan dev`` in ``./var`` (``var/clock``) is used when that file
exists, so the command works beside ``portolan dev`` out of the box; else it is the system
clock, which nothing moves (``advance`` exits 2 saying so).

After an advance the workers are asked to look at the deadlines at once (a "clock tick",
``service.delivery.clock.tick_now``); without a reachable Redis they find them at their next sweep.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from service.clock import SYSTEM, Clock, ClockError, parse_duration
from service.tools.cli.common import CommandMaker, out
from service.tools.terminal import say

DEV_CLOCK = Path("var") / "clock"
"""Where ``portolan dev`` keeps its clock with its default ``--data var`` (service.tools.devserver)."""
EX_USAGE = 2


def clock_spec(given: str | None) -> tuple[str, str]:
    """The clock to act on and where that choice came from: ``--clock``, ``PORTOLAN_CLOCK``, the
    file of ``portolan dev`` in ``./var``, or the system clock."""
    if given:
        return given.strip(), "--clock"
    if os.environ.get("PORTOLAN_CLOCK", "").strip():
        return os.environ["PORTOLAN_CLOCK"].strip(), "PORTOLAN_CLOCK"
    if DEV_CLOCK.is_file():
        return f"file:{DEV_CLOCK.resolve()}", "the clock of `portolan dev` in ./var (PORTOLAN_CLOCK is not set)"
    return SYSTEM, "PORTOLAN_CLOCK is not set"


def describe_offset(seconds: float) -> str:
    """An offset in plain words: ``1 day 1 hour``, ``90 seconds``, ``none``."""
    left = round(seconds)
    if left <= 0:
        return "none"
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        n, left = divmod(left, size)
        if n:
            parts.append(f"{n} {unit}{'s' if n != 1 else ''}")
    return " ".join(parts)


def _facts(clock: Clock, spec: str, source: str) -> dict[str, Any]:
    offset = clock.offset()
    return {"clock": spec, "source": source, "movable": clock.movable, "now": clock.iso(),
            "system_now": Clock().iso(), "offset_s": round(offset, 3)}


def cmd_clock(args: argparse.Namespace) -> int:
    """``show`` the clock, or ``advance`` a file clock by a duration (forward only)."""
    spec, source = clock_spec(args.clock)
    try:
        clock = Clock.named(spec)
        if args.action == "show":
            facts = _facts(clock, spec, source)
            text = (f"{facts['now']} by the file clock {clock.path}: {describe_offset(facts['offset_s'])} ahead of "
                    f"the system clock ({facts['offset_s']:g} s; {source})" if clock.movable
                    else f"{facts['now']} by the system clock ({source})")
            out(facts if args.json else text, args.json)
            return 0
        if not args.duration:
            say("error: say how far to move the clock, e.g. `portolan clock advance 25h`", file=sys.stderr)
            return EX_USAGE
        seconds = parse_duration(args.duration)
        if not clock.movable:
            say("error: the system clock cannot be moved; `portolan clock advance` moves only a file clock "
                "(PORTOLAN_CLOCK=file:PATH, which tests and `portolan dev` use): set PORTOLAN_CLOCK or pass "
                "--clock file:PATH", file=sys.stderr)
            return EX_USAGE
        clock.advance(seconds)
    except ClockError as exc:
        say(f"error: {exc}", file=sys.stderr)
        return EX_USAGE
    facts = _facts(clock, spec, source)
    ticked = _tick(spec)
    facts["tick"] = ticked
    if args.json:
        out(facts, True)
        return 0
    say(f"moved the clock forward by {describe_offset(seconds)}: it is now {facts['now']}, "
        f"{describe_offset(facts['offset_s'])} ahead of the system clock ({clock.path})")
    say("the workers were asked to check deadlines now" if ticked == "sent" else
        f"deadlines are checked at the next sweep ({ticked})")
    return 0


def _tick(spec: str) -> str:
    """Ask the workers for a clock tick now: "sent", or why not."""
    try:
        module = importlib.import_module("service.delivery.clock")
    except ImportError:
        return "this server has no clock tick to send"
    tick_now = getattr(module, "tick_now", None)
    if tick_now is None:
        return "this server has no clock tick to send"
    from redis.exceptions import RedisError

    from service.config import Settings

    try:
        settings = replace(Settings.from_env(), clock=spec, clock_allow_file=True)
        settings = _beside_dev(settings, Clock.named(spec))
        tick_now(settings)
    except (RedisError, OSError) as exc:
        return f"no Redis reachable: {type(exc).__name__}"
    except ValueError as exc:  # a setting the workers would refuse too
        return f"the settings are not valid: {exc}"
    return "sent"


def _beside_dev(settings: Any, clock: Clock) -> Any:
    """With no ``REDIS_URL`` set, the Redis of the ``portolan dev`` whose clock this is, if one runs
    (its ``dev.json`` beside the clock file): that is where its workers wait for the tick."""
    if os.environ.get("REDIS_URL") or clock.path is None:
        return settings
    facts_file = Path(clock.path).parent / "dev.json"
    try:
        facts = json.loads(facts_file.read_text())
    except (OSError, ValueError):
        return settings
    if not isinstance(facts, dict) or not isinstance(facts.get("redis_url"), str):
        return settings
    return replace(settings, redis_url=facts["redis_url"], namespace=str(facts.get("namespace") or settings.namespace))


def add_commands(cmd: CommandMaker) -> None:
    """Register ``clock`` with the CLI's ``cmd(name, fn, help)`` sub-parser maker."""
    sp = cmd("clock", cmd_clock, "show the service's clock, or move a test clock forward (`portolan clock advance 25h`)")
    sp.add_argument("action", choices=["show", "advance"])
    sp.add_argument("duration", nargs="?", help="how far to move it (advance): 25h, 3d, 1d12h, 90m, 45s")
    sp.add_argument("--clock", help="the clock, file:PATH (default: PORTOLAN_CLOCK, else ./var/clock of `portolan dev`)")
