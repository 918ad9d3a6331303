"""What a format-4 record's own times prove about its timeouts (docs/record-format.md, "The
match clock").

The verifier walks every seat's clock the way the service does (service.proof.time_control's
``start_clocks`` and ``step``), from the header's ``started_at`` through every entry's
``accepted_at`` (the times the receipts sign), with the seats that had to act before and after
each entry as the replay gives them. For each timeout (``by: "clock"``) it then checks the
``clock`` field the entry carries against that walk: the clock ran since the moment the walk
derives, and the timeout was taken no earlier than the deadline the time control gives from
there, plus the policy's grace.

Vacations are not in the record: they pause a player's clocks, and a pause only ever moves a
deadline later (and leaves more in a bank). So the walk without pauses gives the *earliest*
deadline the record allows: a timeout before it is certainly too early; one after it is as
early as the record can show, and a vacation the server ignored cannot be detected here.
Pure: no clock of its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from service.games.base import Game
from service.proof import signing
from service.proof import time_control as tcs
from service.proof.standing import CLOCK, check_timeout_policy, is_match_action

CLOCK_FIELD = ("policy", "since", "deadline", "acts_at", "allowance_s", "grace_hours")
"""What a timeout's ``clock`` field holds: the deadline it acted on and how it was reached."""
SLACK = timedelta(milliseconds=1)
"""Times are written to the millisecond (cut, not rounded): a computed deadline may lie up to a
millisecond after the one written down."""


def moment(text: Any) -> datetime | None:
    """A time as the record writes it (RFC 3339 with a zone), or None when it is not one."""
    if not isinstance(text, str):
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.astimezone(UTC) if when.tzinfo else None


def iso(when: datetime) -> str:
    """A time as the record writes it (UTC, milliseconds, ``Z``)."""
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_header(header: Mapping[str, Any]) -> str | None:
    """The clock part of a format-4 header: None when it holds, else what is wrong."""
    if not signing.valid_public_key(str(header.get("clock_key", ""))):
        return "the match's clock key is not a valid Ed25519 key (not a canonical point, or one of small order)"
    if moment(header.get("started_at")) is None:
        return f"started_at {json.dumps(header.get('started_at'))} is not a time with a zone"
    try:
        if tcs.check_time_control(header.get("time_control")) != header.get("time_control"):
            return "the time control is not in the normal form the service writes"
        if check_timeout_policy(header.get("timeout_policy")) != header.get("timeout_policy"):
            return "the timeout policy is not in the normal form the service writes"
    except tcs.TimeControlError as exc:
        return f"the header's {exc.field} is not one a match can have: {exc.message}"
    return None


@dataclass
class Times:
    """The acceptance times along the chain: from the start on, never backwards; and each
    timeout's clock field in itself (the header's policy, acts_at its deadline plus the grace,
    accepted no earlier than that). Checked with or without the seed: a live record shows its
    times too. What the deadline must be comes from :func:`walk`, which needs the replay."""

    last: datetime
    policy: Mapping[str, Any]
    after: str = "the match started"
    entries: int = 0

    @classmethod
    def of(cls, header: Mapping[str, Any]) -> Times:
        started = moment(header["started_at"])
        assert started is not None  # check_header came first
        return cls(started, dict(header["timeout_policy"]))

    def check(self, entry: Mapping[str, Any]) -> str | None:
        """None when the entry was accepted no earlier than the one before (or the start) and,
        for a timeout, its clock field holds together."""
        at = moment(entry.get("accepted_at"))
        if at is None:
            return f"accepted_at {json.dumps(entry.get('accepted_at'))} is not a time with a zone"
        if at < self.last:
            return (f"the entry was accepted at {iso(at)}, before {self.after} ({iso(self.last)}): the record's times "
                    "go backwards")
        self.last, self.after, self.entries = at, "the entry before it", self.entries + 1
        return _clock_field(self.policy, int(entry["seat"]), at, entry.get("clock")) if entry["by"] == CLOCK else None

    def note(self) -> str:
        return (f"the acceptance times of all {self.entries} entries never go backwards, from the match's start "
                "(started_at) on")


@dataclass
class Walk:
    """What the walk of the seat clocks found: the first failure (place, sentence), if any."""

    timed: bool
    timeouts: int = 0
    failure: tuple[str, str] | None = None

    def note(self) -> str:
        if not self.timed:
            return "the match has no time control: no seat could time out, and none did"
        if not self.timeouts:
            return "no timeouts: every move was made by its seat (or the server for a seat it plays)"
        which = "the timeout was" if self.timeouts == 1 else f"each of the {self.timeouts} timeouts was"
        return (f"{which} taken after its seat's deadline plus the grace. The deadline is walked from the start and the receipts' times without vacations: a "
                "vacation only makes a deadline later, so this is the earliest the record allows (a lower bound)")


def walk(header: Mapping[str, Any], entries: Sequence[Mapping[str, Any]], game: Game[Any],
         steps: Sequence[Any]) -> Walk:
    """Walk the seat clocks through the record. ``steps`` are the replay's
    (:func:`service.proof.replay.replay`: after setup, then after every entry)."""
    tc = dict(header["time_control"])
    policy = dict(header["timeout_policy"])
    started = moment(header["started_at"])
    assert started is not None  # check_header came first
    before = game.active_seats(steps[0].state)
    clocks = tcs.start_clocks(tc, int(header["players"]), started, before)
    # a server from before issue 28 restarted the voter's clock on a match action: its records'
    # timeouts hold together by that walk, so it is kept beside the current one and either will do
    legacy = clocks
    out = Walk(tcs.timed(tc))
    for i, entry in enumerate(entries):
        after_step = steps[i + 1]
        # as the service: a match that ended outside its rules has nobody left to act
        after = [] if after_step.standing.ended else game.active_seats(after_step.state)
        at = moment(entry["accepted_at"])
        assert at is not None  # Times checked every entry in the chain walk
        seat = int(entry["seat"])
        timed_out = entry["by"] == CLOCK
        if timed_out:
            trouble = _timeout(tc, policy, clocks[seat], seat, at, entry["clock"])
            if trouble and _timeout(tc, policy, legacy[seat], seat, at, entry["clock"]) is None:
                trouble = None
            if trouble:
                out.failure = (f"ply {i}", trouble)
                return out
            out.timeouts += 1
        # as the service (moves/commit.py): an entry with a match action is no move
        vote = any(is_match_action(a) for a in entry["envelope"]["actions"])
        clocks = tcs.step(tc, clocks, at, seat, before, after, timed_out=timed_out, match_action=vote)
        legacy = tcs.step(tc, legacy, at, seat, before, after, timed_out=timed_out)
        before = after
    return out


def _clock_field(policy: Mapping[str, Any], seat: int, at: datetime, field: Any) -> str | None:
    """Does a timeout's clock field hold together: the header's policy, acts_at no earlier than
    its deadline plus the grace, and the timeout taken (``at``) no earlier than acts_at?"""
    if not isinstance(field, Mapping) or set(field) != set(CLOCK_FIELD):
        return f"the timeout's clock field must hold exactly {', '.join(CLOCK_FIELD)}"
    if field["policy"] != policy["policy"] or field["grace_hours"] != policy["grace_hours"]:
        return (f"the timeout says policy {field['policy']!r} with {field['grace_hours']} hours' grace, but the header's "
                f"is {policy['policy']!r} with {policy['grace_hours']}")
    since, due, acts = moment(field["since"]), moment(field["deadline"]), moment(field["acts_at"])
    if since is None or due is None or acts is None:
        return "the timeout's since, deadline and acts_at must be times with a zone"
    grace = timedelta(hours=float(policy["grace_hours"]))
    with_grace = f" plus {policy['grace_hours']} hours' grace ({iso(due + grace)})" if policy["grace_hours"] else ""
    if acts < due + grace - SLACK:
        return (f"the timeout of seat {seat} says it acts at {field['acts_at']}, before its deadline {field['deadline']}"
                f"{with_grace}")
    if at < due + grace - SLACK:
        return f"the timeout of seat {seat} was taken at {iso(at)}, before its deadline {field['deadline']}{with_grace}"
    if at < acts - SLACK:
        return f"the timeout of seat {seat} was taken at {iso(at)}, before the time it says it acts at ({field['acts_at']})"
    return None


def _timeout(tc: Mapping[str, Any], policy: Mapping[str, Any], clock: tcs.SeatClock, seat: int, at: datetime,
             field: Mapping[str, Any]) -> str | None:
    """Is a timeout of ``seat`` accepted ``at`` consistent with its clock as walked? (The field
    itself was checked in the chain walk: :func:`_clock_field`.)"""
    if not tcs.timed(tc):
        return f"a timeout of seat {seat}, but the match has no time control: nothing can time out"
    if clock.since is None:
        return f"seat {seat}'s clock was not running by the record's times (it did not have to act), so it cannot time out"
    if moment(field["since"]) != clock.since:
        return (f"the timeout of seat {seat} says its clock ran since {field['since']}, but the record's times give "
                f"{iso(clock.since)}")
    walked = tcs.allowance_s(tc, clock) or 0.0
    allowed = field["allowance_s"]
    if isinstance(allowed, bool) or not isinstance(allowed, int | float) or allowed < walked - 1e-3:
        return (f"the timeout of seat {seat} says the seat had {allowed!r} seconds, but the record's times give it at "
                f"least {walked:g}")
    grace = timedelta(hours=float(policy["grace_hours"]))
    earliest_due = tcs.deadline_after(clock.since, walked, bool(tc.get("weekends", True)))  # no pauses: a lower bound
    earliest = earliest_due + grace
    due = moment(field["deadline"])
    if due is None or due < earliest_due - SLACK:
        return (f"the timeout of seat {seat} says its deadline was {field['deadline']}, before {iso(earliest_due)}, the "
                "earliest the record's times allow")
    with_grace = f" plus {policy['grace_hours']} hours' grace ({iso(earliest)})" if policy["grace_hours"] else ""
    if at < earliest - SLACK:  # follows from the above and the chain walk's checks; said plainly all the same
        return (f"the timeout of seat {seat} was taken at {iso(at)}, before its deadline {iso(earliest_due)}{with_grace}"
                ": the earliest the record's own times allow")
    return None
