"""The match clock as the service sees it: each seat's deadline, whether it is late, and the view
of it that every match view and notice carries.

Pure over a match's meta, the time and the players' pauses (vacations, through the
:class:`Pauses` port): no store here. The arithmetic is service.proof.time_control's, shared with
the offline verifier; who plays each seat is service.proof.standing's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from service.clock import iso, parse_iso
from service.proof import standing as standings
from service.proof import time_control as tcs
from service.proof.match_record import MatchMeta
from service.proof.standing import Standing
from service.proof.time_control import Pause, SeatClock

if TYPE_CHECKING:
    from service.play.context import MatchContext


PausesOf = Callable[[int], Sequence[Pause]]
"""A seat's pauses (its player's vacations)."""


def time_control_of(meta: MatchMeta) -> dict[str, Any]:
    """The match's time control (matches from before clocks have none)."""
    return dict(meta.time_control or tcs.NONE)


def policy_of(meta: MatchMeta) -> dict[str, Any]:
    """The match's timeout policy (matches from before clocks: the default)."""
    return dict(meta.timeout_policy or standings.DEFAULT_POLICY)


def standing_of(meta: MatchMeta) -> Standing:
    """Who plays each seat (a match from before clocks: everyone as seated)."""
    data = meta.standing
    if data:
        return Standing.from_json(data)
    return Standing.start([s.kind for s in meta.seats])


def clocks_of(meta: MatchMeta) -> list[SeatClock]:
    """Each seat's clock as stored (untimed matches: stopped clocks)."""
    stored = meta.clocks
    if stored:
        return [SeatClock.from_json(c) for c in stored]
    return [SeatClock() for _ in range(int(meta.players))]


def grace(meta: MatchMeta) -> timedelta:
    """How long after its deadline a late seat's timeout policy acts."""
    return timedelta(hours=int(policy_of(meta).get("grace_hours", 0)))


@dataclass(frozen=True)
class SeatClockStatus:
    """One seat's clock now: who plays it, whether its clock runs, since when, its deadline, when the
    timeout policy acts (``acts_at``), the time left, whether it is late or on vacation, and the
    reminders due before its deadline."""

    seat: int
    controller: str
    running: bool
    since: datetime | None = None
    deadline: datetime | None = None
    acts_at: datetime | None = None
    remaining_s: float | None = None
    allowance_s: float | None = None
    bank_s: float | None = None
    late: bool = False
    on_vacation: bool = False
    reminders: list[tuple[str, datetime]] = field(default_factory=list)
    vacations: list[Pause] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The seat's clock as the views show it. Nothing here depends on the moment the view is
        read (a view is cached by its ETag): the time left is ``deadline`` minus now, and a seat
        is late once now is past its ``deadline``; ``allowance_s`` is what the move had when its
        clock started (``since``)."""
        # ``vacations``: the player's declared vacations that end after the match started (they
        # stop this clock; a client tells "on vacation" from them and its own reading of the time)
        return {
            "seat": self.seat, "controller": self.controller, "running": self.running,
            "since": iso(self.since) if self.since else None,
            "deadline": iso(self.deadline) if self.deadline else None,
            "acts_at": iso(self.acts_at) if self.acts_at else None,
            "allowance_s": None if self.allowance_s is None else round(self.allowance_s),
            "bank_s": None if self.bank_s is None else round(self.bank_s),
            "vacations": [[iso(a), iso(b)] for a, b in self.vacations],
        }


def clock_status(meta: MatchMeta, now: datetime, pauses_of: PausesOf) -> list[SeatClockStatus]:
    """Every seat's clock at ``now``. Only a seat its player plays can be late or time out: a seat
    the server plays has no deadline (its moves are made at once)."""
    tc = time_control_of(meta)
    standing = standing_of(meta)
    out: list[SeatClockStatus] = []
    timed = tcs.timed(tc) and meta.status == "active"
    for seat, clock in enumerate(clocks_of(meta)):
        controller = standing.controllers[seat] if seat < len(standing.controllers) else "player"
        if not timed or controller != "player":
            out.append(SeatClockStatus(seat, controller, False, bank_s=clock.bank_s if timed else None))
            continue
        pauses = list(pauses_of(seat))
        on_vacation = any(a <= now < b for a, b in pauses)
        start = parse_iso(str(meta.started_at or meta.created_at))
        shown = [(a, b) for a, b in pauses if b > start][:10]
        running = clock.since is not None and seat in meta.active
        if not running:
            out.append(SeatClockStatus(seat, controller, False, bank_s=clock.bank_s, on_vacation=on_vacation,
                                       remaining_s=tcs.remaining_s(tc, clock, now, pauses), vacations=shown))
            continue
        due = tcs.deadline(tc, clock, pauses)
        acts = due + grace(meta) if due else None
        out.append(SeatClockStatus(
            seat, controller, True, since=clock.since, deadline=due, acts_at=acts,
            remaining_s=tcs.remaining_s(tc, clock, now, pauses), allowance_s=tcs.allowance_s(tc, clock),
            bank_s=clock.bank_s, late=due is not None and now >= due, on_vacation=on_vacation,
            reminders=tcs.reminder_times(tc, clock, pauses), vacations=shown))
    return out


def clock_view(meta: MatchMeta, now: datetime, pauses_of: PausesOf) -> dict[str, Any]:
    """The ``clock`` block of every match view: the time control, the timeout policy and each
    seat's clock (JSON; see :meth:`SeatClockStatus.to_json`)."""
    return {
        "time_control": time_control_of(meta),
        "timeout_policy": policy_of(meta),
        "seats": [s.to_json() for s in clock_status(meta, now, pauses_of)],
    }


# -- the same, read through a use case's context (its clock and its pauses port) ----------------


def pauses_of(ctx: MatchContext, meta: MatchMeta) -> PausesOf:
    """Each seat's pauses: its player's vacations (read only for a timed match's human seats)."""
    port = ctx.pauses
    rows = meta.seats

    def of(seat: int) -> list[Pause]:
        key = rows[seat].public_key if seat < len(rows) and rows[seat].kind == "human" else ""
        return port.pauses(key) if port is not None and key else []

    return of


def status_now(ctx: MatchContext, meta: MatchMeta, now: datetime | None = None) -> list[SeatClockStatus]:
    """Every seat's clock (deadline, late, reminders) at ``now`` (default: the context's clock now)."""
    return clock_status(meta, ctx.moment() if now is None else now, pauses_of(ctx, meta))


def view_now(ctx: MatchContext, meta: MatchMeta, now: datetime | None = None) -> dict[str, Any]:
    """The ``clock`` block of the match views at ``now`` (default: the context's clock now)."""
    return clock_view(meta, ctx.moment() if now is None else now, pauses_of(ctx, meta))
