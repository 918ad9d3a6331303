"""The clock's CLI (docs/clock.md): ``create``'s clock flags, ``show``'s clock lines, ``resign``,
``abort`` (the creator's before the start, a vote after it) and ``back``, run as the ``portolan``
command in a subprocess against the app served over real HTTP. The service and the commands read
one file clock (``PORTOLAN_CLOCK=file:PATH``) that the test moves, so deadlines and timeouts
come without waiting."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.clock import Clock, parse_iso
from service.play.matches import Matches
from service.tools.cli import time_control as tc

ROOT = Path(__file__).resolve().parents[1]


# -- the flags, parsed (no server) ---------------------------------------------------------------


@pytest.mark.parametrize(("spec", "weekends", "reminders", "want"), [
    ("none", True, None, {"kind": "none"}),
    ("per-move:3", True, None, {"kind": "per-move", "days": 3}),
    ("per-move:2", False, "half,24", {"kind": "per-move", "days": 2, "weekends": False, "reminders": ["half", 24]}),
    ("bank:7+1/14", True, None, {"kind": "bank", "initial_days": 7, "increment_days": 1, "cap_days": 14}),
    ("bank:7", True, "none", {"kind": "bank", "initial_days": 7, "reminders": []}),
    ("bank:1.5+0.25/3", True, "12h", {"kind": "bank", "initial_days": 1.5, "increment_days": 0.25, "cap_days": 3,
                                      "reminders": [12]}),
])
def test_time_control_flags_become_the_json_forms(spec: str, weekends: bool, reminders: str | None,
                                                  want: dict[str, Any]) -> None:
    assert tc.parse_time_control(spec, weekends=weekends, reminders=reminders) == want


@pytest.mark.parametrize(("spec", "says"), [
    ("per-move:15", "days must be from 1 to 14"),
    ("per-move:x", "a number of days"),
    ("per-move", "--time-control is none, per-move:DAYS"),
    ("hourly:3", "--time-control is none, per-move:DAYS"),
    ("bank:7+1/3", "cap_days (3) cannot be below initial_days (7)"),
    ("bank:1.01", "whole number of hours"),
])
def test_a_bad_time_control_flag_says_what_is_wrong(spec: str, says: str) -> None:
    with pytest.raises(SystemExit) as exc:
        tc.parse_time_control(spec)
    assert isinstance(exc.value.code, str) and says in exc.value.code, exc.value.code


def test_timeout_flags_become_the_json_forms() -> None:
    assert tc.parse_timeout(None, None) is None
    assert tc.parse_timeout("skip", None) == "skip"
    assert tc.parse_timeout("forfeit-end", None) == {"policy": "forfeit", "after_forfeit": "end"}
    assert tc.parse_timeout(None, "2d") == {"policy": "stand-in", "grace_hours": 48}
    assert tc.parse_timeout("abort", "0h") == {"policy": "abort", "grace_hours": 0}
    for grace, says in (("90m", "whole number of hours"), ("15d", "grace_hours is a whole number of hours from 0 to 336"),
                        ("soon", "not a duration")):
        with pytest.raises(SystemExit) as exc:
            tc.parse_timeout("skip", grace)
        assert says in str(exc.value.code), exc.value.code
    with pytest.raises(SystemExit) as exc:
        tc.parse_reminders("half,later")
    assert "--reminders" in str(exc.value.code)


def test_words_of_the_clock() -> None:
    assert tc.duration_text(2 * 86400 + 3 * 3600 + 59) == "2d 3h"
    assert tc.duration_text(5 * 3600 + 600) == "5h 10m" and tc.duration_text(59) == "0m"
    assert tc.time_control_text({"kind": "per-move", "days": 1, "weekends": False}) == \
        "1 day per move (weekends do not count)"
    assert tc.time_control_text({"kind": "bank", "initial_days": 7, "increment_days": 1, "cap_days": 14}) == \
        "a bank of 7 days, +1 per move, at most 14"
    assert tc.policy_text({"policy": "forfeit", "after_forfeit": "end", "grace_hours": 48}) == \
        "a late seat forfeits (the match ends when fewer than 2 remain), 48 h after its deadline"


# -- the commands, as a subprocess against the served app ------------------------------------------


class Portolan:
    """The ``portolan`` command of one person (their own config folder, so their own keys)."""

    def __init__(self, server: str, home: Path, clock: Clock) -> None:
        self.env = {**os.environ, "PORTOLAN_HOME": str(home), "PORTOLAN_URL": server, "PYTHONPATH": str(ROOT),
                    "PORTOLAN_CLOCK": f"file:{clock.path}"}
        self("keygen")  # now, so that no later command's output starts with the new key's lines

    def __call__(self, *argv: str, ok: int = 0, stdin: str = "") -> str:
        done = subprocess.run([sys.executable, "-m", "service.tools.cli", *argv], env=self.env, cwd=ROOT, input=stdin,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == ok, (argv, done.returncode, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout + done.stderr


@pytest.fixture
def table(served: str, service: Matches, tmp_path: Path) -> tuple[Portolan, Portolan, Clock]:
    """Ana's and Bea's commands, and the file clock they and the service read (the test moves it)."""
    clock = Clock(str(tmp_path / "clock"))
    service.now = clock.iso
    return Portolan(served, tmp_path / "ana", clock), Portolan(served, tmp_path / "bea", clock), clock


def create(ana: Portolan, bea: Portolan, *flags: str) -> str:
    """Ana creates a match for herself and Bea with ``flags``; both claim their seats."""
    made = json.loads(ana("--json", "create", "harbour-race", "--invite", "ana@example.org", "--invite",
                          "bea@example.org", *flags))
    mid = str(made["id"])
    ana("claim", mid, "0", made["invites"]["0"], "--name", "Ana")
    bea("claim", mid, "1", made["invites"]["1"], "--name", "Bea")
    return mid


@pytest.mark.processes  # every command a `portolan` process
def test_create_with_a_clock_and_show_it(table: tuple[Portolan, Portolan, Clock], service: Matches) -> None:
    ana, bea, clock = table
    mid = create(ana, bea, "--time-control", "per-move:3", "--no-weekends", "--reminders", "half,24",
                 "--timeout", "forfeit-end", "--grace", "48h")
    meta = service.meta(mid)
    assert meta.time_control == {"kind": "per-move", "days": 3, "weekends": False, "reminders": ["half", 24]}
    assert meta.timeout_policy == {"policy": "forfeit", "after_forfeit": "end", "grace_hours": 48}
    mover = meta.active[0]
    seat_clock = service.view(mid)["clock"]["seats"][mover]
    shown = ana("show", mid)
    assert ("Clock: 3 days per move (weekends do not count); a late seat forfeits (the match ends when fewer than "
            "2 remain), 48 h after its deadline") in shown
    name = ("Ana", "Bea")[mover]
    deadline = tc.when_text(seat_clock["deadline"])
    assert re.search(rf"  seat {mover} \({name}\): to act, \d+d( \d+h)? left, deadline {deadline}\n", shown), shown
    assert f"  seat {1 - mover} ({('Ana', 'Bea')[1 - mover]})\n" in shown
    assert "Or: portolan resign " in shown and f"portolan abort {mid}" in shown
    clock.advance((parse_iso(seat_clock["deadline"]) - clock.now()).total_seconds() + 3600)
    assert (f"  seat {mover} ({name}): LATE: the deadline was {deadline}; the timeout acts at "
            f"{tc.when_text(seat_clock['acts_at'])}") in ana("show", mid)


@pytest.mark.processes  # every command a `portolan` process
def test_bad_clock_flags_send_nothing(table: tuple[Portolan, Portolan, Clock], service: Matches) -> None:
    ana, _, _ = table
    before = list(service.store.match_ids())
    for flags, says, status in ((["--time-control", "per-move:20"], "days must be from 1 to 14", 1),
                                (["--no-weekends"], "need --time-control", 1),
                                (["--timeout", "sudden-death"], "invalid choice", 2),  # argparse's own
                                (["--grace", "forever"], "not a duration", 1)):
        out = ana("create", "harbour-race", "--invite", "a@example.org", "--bot", "random", *flags, ok=status)
        assert says in out, out
    assert list(service.store.match_ids()) == before


@pytest.mark.processes  # every command a `portolan` process
def test_abort_is_the_creators_while_waiting_then_a_vote(table: tuple[Portolan, Portolan, Clock],
                                                         service: Matches) -> None:
    ana, bea, _ = table
    made = json.loads(ana("--json", "create", "harbour-race", "--invite", "x@example.org", "--bot", "random"))
    assert ana("abort", made["id"]).strip() == f"match {made['id']} is aborted"
    mid = create(ana, bea)
    assert "still needed: 1 vote (seat 1)" in ana("abort", mid)
    assert "error 409 already-voted" in ana("abort", mid, ok=2)
    assert service.meta(mid).status == "active"
    assert "your vote was the last one needed" in bea("abort", mid)
    assert service.meta(mid).status == "aborted"


@pytest.mark.processes  # every command a `portolan` process
def test_resign_asks_first(table: tuple[Portolan, Portolan, Clock], service: Matches) -> None:
    ana, bea, _ = table
    mid = create(ana, bea, "--timeout", "forfeit-end")
    ply = service.meta(mid).ply
    assert "not resigned (nothing was sent)" in bea("resign", mid, ok=1, stdin="no\n")
    assert "not resigned" in bea("resign", mid, ok=1)  # end of input is no
    assert service.meta(mid).ply == ply
    out = bea("resign", mid, stdin="yes\n")
    assert "seat 1 of match" in out and "resigned; the match is now finished" in out
    assert "- Seat 1 resigned and is ranked last." in out and "- The match ends: fewer than 2 players remain." in out
    assert service.meta(mid).outcome["ranks"] == [1, 2]
    assert "error 409 match-not-active" in ana("resign", mid, "--yes", ok=2)
    # a seat that is not yours: refused by the server, nothing changes
    other = create(ana, bea)
    assert "error 403 not-your-seat" in ana("resign", other, "--seat", "1", "--yes", ok=2)
    assert service.meta(other).ply == 0


@pytest.mark.processes  # every command a `portolan` process
def test_back_takes_the_seat_from_the_stand_in(table: tuple[Portolan, Portolan, Clock], service: Matches) -> None:
    ana, bea, clock = table
    mid = create(ana, bea, "--time-control", "per-move:1", "--grace", "0h")
    seat = service.meta(mid).active[0]
    player = (ana, bea)[seat]
    assert "error 409 no-stand-in" in player("back", mid, ok=2)
    clock.advance(86400 + 60)
    assert service.timeout(mid, seat) is not None
    assert service.meta(mid).standing["controllers"][seat] == "stand-in"
    if seat in service.meta(mid).active:  # the stand-in's roll kept the turn: no worker plays on here
        assert "played by a stand-in bot, until its player is back" in ana("show", mid)
    assert f"seat {seat} of match {mid} is yours again" in player("back", mid)
    assert service.meta(mid).standing["controllers"][seat] == "player"
