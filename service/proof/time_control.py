"""Time controls: what a match's clock allows each seat, as pure arithmetic over times.

Shared by the service (deadlines, reminders, the views) and the offline verifier (which checks
that a timeout was taken after the deadline the record's own receipts imply). No clock here:
every function takes the times it needs.

A time control is one of (``check_time_control`` gives the normal form)::

    {"kind": "none"}
    {"kind": "per-move", "days": 3, "weekends": true, "reminders": ["half", 24]}
    {"kind": "bank", "initial_days": 7, "increment_days": 1, "cap_days": 14, "weekends": false,
     "reminders": ["half", 24]}

``weekends: false`` means Saturdays and Sundays (UTC) do not count. A seat's clock runs from
the moment it must act (it became active, or it moved and must act again) until it moves.
*Per move*: each move has ``days``. *Bank*: the seat starts with ``initial_days``; the time a
move took is taken from its bank, and ``increment_days`` is added when its turn ends (it moved
and need not act any more), never above ``cap_days``. A seat that timed out has its bank
refilled to one increment (at least a day), so a player who comes back has time to move.

Pauses (a player's vacation) stop the clock; the verifier does not know them, so it checks the
lower bound that a deadline without pauses gives (a pause only ever moves a deadline later).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

DAY = 86400.0
Pause = tuple[datetime, datetime]
NONE: dict[str, Any] = {"kind": "none"}
DEFAULT_REMINDERS: tuple[str | int, ...] = ("half", 24)
PER_MOVE_DAYS = (1, 14)
BANK_INITIAL_DAYS = (1, 60)
BANK_INCREMENT_DAYS = (0, 14)
BANK_CAP_DAYS = (1, 90)


class TimeControlError(ValueError):
    """A time control or timeout policy out of range; ``field`` names the offending part."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _number(value: Any, field: str, low: float, high: float, *, whole_hours: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TimeControlError(field, f"{field} must be a number of days from {low:g} to {high:g}")
    if not low <= value <= high:
        raise TimeControlError(field, f"{field} must be from {low:g} to {high:g} days, not {value:g}")
    if whole_hours and abs(value * 24 - round(value * 24)) > 1e-9:
        raise TimeControlError(field, f"{field} must be a whole number of hours (days × 24), not {value:g} days")
    return int(value) if float(value).is_integer() else float(value)


def _reminders(value: Any) -> list[str | int]:
    if value is None:
        return list(DEFAULT_REMINDERS)
    if not isinstance(value, list) or len(value) > 4:
        raise TimeControlError("reminders", 'reminders is a list of at most 4 entries, each "half" or hours left (1-336)')
    out: list[str | int] = []
    for r in value:
        if r == "half" or (isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= 336):
            out.append(r)
        else:
            raise TimeControlError("reminders", f'a reminder is "half" or a whole number of hours left (1-336), not {r!r}')
    return out


def check_time_control(value: Any) -> dict[str, Any]:
    """The normal form of a requested time control (None: no time control), or
    :class:`TimeControlError` saying which part is out of range."""
    if value is None:
        return dict(NONE)
    if not isinstance(value, Mapping) or not isinstance(value.get("kind"), str):
        raise TimeControlError("kind", 'a time control is an object with "kind": "none", "per-move" or "bank"')
    kind = value["kind"]
    weekends = value.get("weekends", True)
    if not isinstance(weekends, bool):
        raise TimeControlError("weekends", "weekends is true (they count) or false (Saturdays and Sundays do not)")
    if kind == "none":
        extra = set(value) - {"kind"}
        if extra:
            raise TimeControlError(sorted(extra)[0], "a time control of kind none takes no other fields")
        return dict(NONE)
    if kind == "per-move":
        extra = set(value) - {"kind", "days", "weekends", "reminders"}
        if extra:
            raise TimeControlError(sorted(extra)[0], f"a per-move time control has days, weekends and reminders, not {sorted(extra)[0]}")
        if not isinstance(value.get("days"), int) or isinstance(value.get("days"), bool):
            raise TimeControlError("days", f"days per move is a whole number from {PER_MOVE_DAYS[0]} to {PER_MOVE_DAYS[1]}")
        days = _number(value["days"], "days", *PER_MOVE_DAYS)
        return {"kind": "per-move", "days": days, "weekends": weekends, "reminders": _reminders(value.get("reminders"))}
    if kind == "bank":
        extra = set(value) - {"kind", "initial_days", "increment_days", "cap_days", "weekends", "reminders"}
        if extra:
            raise TimeControlError(sorted(extra)[0], "a bank time control has initial_days, increment_days, cap_days, "
                                                     f"weekends and reminders, not {sorted(extra)[0]}")
        initial = _number(value.get("initial_days"), "initial_days", *BANK_INITIAL_DAYS)
        increment = _number(value.get("increment_days", 0), "increment_days", *BANK_INCREMENT_DAYS)
        # default: twice the initial bank, within range (a long bank with no cap given is valid)
        cap = _number(value["cap_days"] if "cap_days" in value else min(initial * 2, BANK_CAP_DAYS[1]),
                      "cap_days", *BANK_CAP_DAYS)
        if cap < initial:
            raise TimeControlError("cap_days", f"cap_days ({cap:g}) cannot be below initial_days ({initial:g})")
        return {"kind": "bank", "initial_days": initial, "increment_days": increment, "cap_days": cap,
                "weekends": weekends, "reminders": _reminders(value.get("reminders"))}
    raise TimeControlError("kind", f'a time control is "none", "per-move" or "bank", not {kind!r}')


# -- counting time -----------------------------------------------------------------------------

def _weekends(start: datetime, stop: datetime) -> Iterator[Pause]:
    """The weekends (Saturday 00:00 to Monday 00:00 UTC) that touch [start, stop)."""
    day = start.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    day -= timedelta(days=(day.weekday() - 5) % 7)  # the Saturday on or before
    while day < stop:
        yield day, day + timedelta(days=2)
        day += timedelta(days=7)


def _stopped(start: datetime, stop: datetime, weekends: bool, pauses: Iterable[Pause]) -> list[Pause]:
    """The merged intervals of [start, stop) during which the clock does not run."""
    spans = [(max(a, start), min(b, stop)) for a, b in pauses if b > start and a < stop]
    if not weekends:
        spans += [(max(a, start), min(b, stop)) for a, b in _weekends(start, stop)]
    merged: list[Pause] = []
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def counted(start: datetime, end: datetime, weekends: bool = True, pauses: Iterable[Pause] = ()) -> float:
    """Seconds the clock ran between ``start`` and ``end`` (0 when end is not after start)."""
    if end <= start:
        return 0.0
    stopped = sum((b - a).total_seconds() for a, b in _stopped(start, end, weekends, pauses))
    return (end - start).total_seconds() - stopped


def deadline_after(start: datetime, allowance_s: float, weekends: bool = True, pauses: Sequence[Pause] = ()) -> datetime:
    """The moment by which ``allowance_s`` seconds will have run on a clock started at ``start``."""
    left = max(0.0, allowance_s)
    paused = sum((b - a).total_seconds() for a, b in pauses if b > start)
    at = start
    while True:
        # look ahead far enough for the weekends and pauses the allowance usually spans; pauses
        # that leave only uncounted weekends free can stretch it further: then look again
        horizon = at + timedelta(seconds=left * 7 / 5 + paused + 14 * DAY)
        for a, b in _stopped(at, horizon, weekends, pauses):
            gap = (a - at).total_seconds()
            if gap >= left:
                return at + timedelta(seconds=left)
            left -= max(0.0, gap)
            at = max(at, b)
        if at + timedelta(seconds=left) <= horizon:
            return at + timedelta(seconds=left)
        left -= (horizon - at).total_seconds()  # the clock ran from at to the horizon
        at = horizon


# -- seat clocks -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatClock:
    """One seat's clock: running ``since`` (None: the seat need not act) with ``bank_s`` seconds
    left in its bank (None unless the time control is a bank)."""

    since: datetime | None = None
    bank_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"since": _iso(self.since) if self.since else None, "bank_s": self.bank_s}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatClock:
        since = data.get("since")
        return cls(_parse(since) if since else None, data.get("bank_s"))


def timed(tc: Mapping[str, Any]) -> bool:
    """Does this time control run a clock at all?"""
    return bool(tc.get("kind", "none") != "none")


def start_clocks(tc: Mapping[str, Any], players: int, started_at: datetime, active: Iterable[int]) -> list[SeatClock]:
    """Every seat's clock at the start of the match (the active seats' run from ``started_at``)."""
    bank = float(tc["initial_days"]) * DAY if tc.get("kind") == "bank" else None
    on = set(active)
    return [SeatClock(started_at if s in on and timed(tc) else None, bank) for s in range(players)]


def step(tc: Mapping[str, Any], clocks: Sequence[SeatClock], at: datetime, mover: int, before: Iterable[int],
         after: Iterable[int], *, timed_out: bool = False, pauses: Mapping[int, Sequence[Pause]] | None = None,
         match_action: bool = False) -> list[SeatClock]:
    """The clocks after ``mover``'s entry accepted ``at``: the seats active ``before`` it and
    ``after`` it. ``timed_out``: the entry is the mover's timeout (its bank is refilled).
    ``match_action``: the entry is a seat's match action (a vote to abort, a resignation, a
    return), not a move: it restarts no clock and takes nothing from a bank, so the seat to act
    cannot buy itself time by voting (issue 28, F10)."""
    if not timed(tc):
        return list(clocks)
    was, now = set(before), set(after)
    weekends = bool(tc.get("weekends", True))
    moved = mover if not (match_action and not timed_out) else -1  # -1: nobody moved, every clock runs on
    out: list[SeatClock] = []
    for seat, c in enumerate(clocks):
        bank = c.bank_s
        if seat == moved and bank is not None:
            if timed_out:
                bank = max(float(tc["increment_days"]) * DAY, DAY)
            elif seat in was and c.since is not None:
                bank = max(0.0, bank - counted(c.since, at, weekends, (pauses or {}).get(seat, ())))
                if seat not in now:
                    bank = min(float(tc["cap_days"]) * DAY, bank + float(tc["increment_days"]) * DAY)
        since = (at if seat not in was or seat == moved or c.since is None else c.since) if seat in now else None
        out.append(SeatClock(since, bank))
    return out


def allowance_s(tc: Mapping[str, Any], clock: SeatClock) -> float | None:
    """Seconds the seat has for its current move (None: no time control)."""
    if tc.get("kind") == "per-move":
        return float(tc["days"]) * DAY
    if tc.get("kind") == "bank":
        return float(clock.bank_s or 0.0)
    return None


def deadline(tc: Mapping[str, Any], clock: SeatClock, pauses: Sequence[Pause] = ()) -> datetime | None:
    """When the seat's current move is due (None: its clock is not running)."""
    allowed = allowance_s(tc, clock)
    if clock.since is None or allowed is None:
        return None
    return deadline_after(clock.since, allowed, bool(tc.get("weekends", True)), pauses)


def remaining_s(tc: Mapping[str, Any], clock: SeatClock, now: datetime, pauses: Sequence[Pause] = ()) -> float | None:
    """Seconds left on the seat's clock at ``now`` (its bank when not running; None: untimed)."""
    allowed = allowance_s(tc, clock)
    if allowed is None:
        return None
    if clock.since is None:
        return allowed if tc.get("kind") == "bank" else None
    return max(0.0, allowed - counted(clock.since, now, bool(tc.get("weekends", True)), pauses))


def reminder_times(tc: Mapping[str, Any], clock: SeatClock, pauses: Sequence[Pause] = ()) -> list[tuple[str, datetime]]:
    """The reminders due before the seat's deadline, as (name, when): ``half`` when half the
    allowance has run, ``24h`` when 24 hours of clock time are left. A reminder that would fall
    at or before the clock's start is left out (a one-day move gets no 24-hour reminder)."""
    allowed = allowance_s(tc, clock)
    if clock.since is None or allowed is None:
        return []
    weekends = bool(tc.get("weekends", True))
    out: list[tuple[str, datetime]] = []
    for r in tc.get("reminders", DEFAULT_REMINDERS):
        run = allowed / 2 if r == "half" else allowed - float(r) * 3600
        if run <= 0:
            continue
        out.append(("half" if r == "half" else f"{r}h", deadline_after(clock.since, run, weekends, pauses)))
    return sorted(out, key=lambda x: x[1])


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse(text: str) -> datetime:
    when = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)
