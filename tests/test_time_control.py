"""Time controls as pure arithmetic (service/proof/time_control.py): the normal form and its
refusals, counting time over weekends and pauses, deadlines as the inverse of counting, seat
clocks through a match (per move, bank increments, caps, the refill at a timeout), reminders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.proof.time_control import (
    DAY,
    NONE,
    Pause,
    SeatClock,
    TimeControlError,
    allowance_s,
    check_time_control,
    counted,
    deadline,
    deadline_after,
    remaining_s,
    reminder_times,
    start_clocks,
    step,
    timed,
)

MON = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday, 00:00 UTC
H = 3600.0


def at(days: float = 0, hours: float = 0) -> datetime:
    """MON plus some days and hours."""
    return MON + timedelta(days=days, hours=hours)


PER_MOVE = check_time_control({"kind": "per-move", "days": 2})
BANK = check_time_control({"kind": "bank", "initial_days": 3, "increment_days": 1, "cap_days": 5})


# -- the normal form ---------------------------------------------------------------------------

def test_normal_forms_fill_the_defaults() -> None:
    assert check_time_control(None) == NONE
    assert check_time_control({"kind": "none"}) == NONE
    assert PER_MOVE == {"kind": "per-move", "days": 2, "weekends": True, "reminders": ["half", 24]}
    assert check_time_control({"kind": "bank", "initial_days": 7}) == {
        "kind": "bank", "initial_days": 7, "increment_days": 0, "cap_days": 14, "weekends": True,
        "reminders": ["half", 24]}
    assert check_time_control({"kind": "bank", "initial_days": 1.5, "increment_days": 0.25, "cap_days": 2,
                               "weekends": False, "reminders": [48, "half"]}) == {
        "kind": "bank", "initial_days": 1.5, "increment_days": 0.25, "cap_days": 2, "weekends": False,
        "reminders": [48, "half"]}
    assert check_time_control({"kind": "per-move", "days": 14, "reminders": []})["reminders"] == []
    # the normal form is a fixed point
    assert check_time_control(BANK) == BANK and check_time_control(PER_MOVE) == PER_MOVE


def test_the_default_cap_of_a_long_bank_is_within_range() -> None:
    """Twice the initial days, but never above the largest cap (a 60-day bank with no cap given
    is valid, not refused for a cap the player never chose)."""
    assert check_time_control({"kind": "bank", "initial_days": 60})["cap_days"] == 90
    assert check_time_control({"kind": "bank", "initial_days": 45})["cap_days"] == 90
    assert check_time_control({"kind": "bank", "initial_days": 1})["cap_days"] == 2


@pytest.mark.parametrize(("value", "field"), [
    ("per-move", "kind"),
    ({"days": 3}, "kind"),
    ({"kind": 3}, "kind"),
    ({"kind": "blitz"}, "kind"),
    ({"kind": "none", "days": 3}, "days"),
    ({"kind": "per-move"}, "days"),
    ({"kind": "per-move", "days": 0}, "days"),
    ({"kind": "per-move", "days": 15}, "days"),
    ({"kind": "per-move", "days": 1.5}, "days"),
    ({"kind": "per-move", "days": True}, "days"),
    ({"kind": "per-move", "days": "3"}, "days"),
    ({"kind": "per-move", "days": 3, "weekends": "no"}, "weekends"),
    ({"kind": "per-move", "days": 3, "increment_days": 1}, "increment_days"),
    ({"kind": "per-move", "days": 3, "reminders": "half"}, "reminders"),
    ({"kind": "per-move", "days": 3, "reminders": ["half", 1, 2, 3, 4]}, "reminders"),
    ({"kind": "per-move", "days": 3, "reminders": [0]}, "reminders"),
    ({"kind": "per-move", "days": 3, "reminders": [337]}, "reminders"),
    ({"kind": "per-move", "days": 3, "reminders": [True]}, "reminders"),
    ({"kind": "per-move", "days": 3, "reminders": ["quarter"]}, "reminders"),
    ({"kind": "per-move", "days": 3, "reminders": [1.5]}, "reminders"),
    ({"kind": "bank"}, "initial_days"),
    ({"kind": "bank", "initial_days": 0.5}, "initial_days"),
    ({"kind": "bank", "initial_days": 61}, "initial_days"),
    ({"kind": "bank", "initial_days": 1.01}, "initial_days"),  # not a whole number of hours
    ({"kind": "bank", "initial_days": 2, "increment_days": -1}, "increment_days"),
    ({"kind": "bank", "initial_days": 2, "increment_days": 15}, "increment_days"),
    ({"kind": "bank", "initial_days": 2, "increment_days": "1"}, "increment_days"),
    ({"kind": "bank", "initial_days": 2, "cap_days": 91}, "cap_days"),
    ({"kind": "bank", "initial_days": 5, "cap_days": 4}, "cap_days"),
    ({"kind": "bank", "initial_days": 5, "cap_days": None}, "cap_days"),
    ({"kind": "bank", "initial_days": 5, "days": 3}, "days"),
])
def test_out_of_range_names_the_field(value: Any, field: str) -> None:
    with pytest.raises(TimeControlError) as err:
        check_time_control(value)
    assert err.value.field == field
    assert err.value.message and str(err.value) == err.value.message


def test_timed() -> None:
    assert not timed(NONE) and not timed({}) and timed(PER_MOVE) and timed(BANK)


# -- counting time -----------------------------------------------------------------------------

def test_counted_without_weekends_or_pauses_is_the_wall_time() -> None:
    assert counted(at(0), at(9, 3)) == 9 * DAY + 3 * H
    assert counted(at(2), at(1)) == 0.0 and counted(at(1), at(1)) == 0.0


def test_weekends_do_not_count_when_the_control_says_so() -> None:
    # Monday to the next Monday: five weekdays
    assert counted(at(0), at(7), weekends=False) == 5 * DAY
    assert counted(at(0), at(7), weekends=True) == 7 * DAY
    # Friday noon to Monday noon: half of Friday, half of Monday
    assert counted(at(4, 12), at(7, 12), weekends=False) == DAY
    # inside one weekend nothing runs, wherever it starts
    assert counted(at(5, 1), at(6, 23), weekends=False) == 0.0
    # from a Sunday (the Saturday before is found) to Tuesday 06:00
    assert counted(at(6, 12), at(8, 6), weekends=False) == DAY + 6 * H
    # three weeks: fifteen weekdays
    assert counted(at(0), at(21), weekends=False) == 15 * DAY


def test_pauses_stop_the_clock_and_overlaps_count_once() -> None:
    pauses: list[Pause] = [(at(1), at(3)), (at(2), at(4)), (at(-5), at(0, 6))]
    # Monday 06:00 to Tuesday 00:00 runs, Tuesday to Friday is paused, Friday runs
    assert counted(at(0), at(5), pauses=pauses) == 18 * H + DAY
    # a pause that overlaps a weekend does not stop it twice
    assert counted(at(0), at(7), weekends=False, pauses=[(at(4), at(6))]) == 4 * DAY
    # a pause entirely outside the span changes nothing
    assert counted(at(0), at(1), pauses=[(at(3), at(4))]) == DAY
    # aware times in another zone count the same
    assert counted(at(0).astimezone(datetime.now().astimezone().tzinfo), at(7), weekends=False) == 5 * DAY


def test_deadline_after_examples() -> None:
    assert deadline_after(at(0), 2 * DAY) == at(2)
    # Thursday noon, two weekdays: Friday noon is one, then Monday noon
    assert deadline_after(at(3, 12), 2 * DAY, weekends=False) == at(7, 12)
    # started on a Saturday: the clock first runs on Monday
    assert deadline_after(at(5, 10), DAY, weekends=False) == at(8)
    # an allowance that ends exactly when a weekend starts is due then, not on Monday
    assert deadline_after(at(4), DAY, weekends=False) == at(5)
    # a pause moves it later by its length
    assert deadline_after(at(0), 2 * DAY, pauses=[(at(1), at(4))]) == at(5)
    # nothing to run: due at the start; a negative allowance is none
    assert deadline_after(at(1), 0) == at(1) and deadline_after(at(1), -5) == at(1)


def test_a_deadline_past_many_short_pauses_is_still_exact() -> None:
    """Pauses that leave only weekends free (and weekends that do not count) stretch the wall
    time far past the allowance: the answer must still be where the clock reaches it."""
    pauses = [(at(7 * w), at(7 * w + 5)) for w in range(30)]  # every weekday for 30 weeks
    due = deadline_after(at(0), DAY, weekends=False, pauses=pauses)
    assert due == at(7 * 30 + 1)
    assert counted(at(0), due, weekends=False, pauses=pauses) == DAY


# the property the verifier leans on: counting up to a deadline gives the allowance back, the
# deadline is the first such moment, and pauses or uncounted weekends only make it later

moments = st.integers(min_value=0, max_value=60 * 24 * 4).map(lambda q: MON + timedelta(minutes=15 * q))
allowances = st.integers(min_value=0, max_value=30 * 24 * 4).map(lambda q: q * 900.0)


@st.composite
def pause_lists(draw: st.DrawFn) -> list[Pause]:
    out = []
    for _ in range(draw(st.integers(0, 4))):
        start = draw(moments)
        out.append((start, start + timedelta(hours=draw(st.integers(1, 24 * 25)))))
    return out


@settings(max_examples=400, deadline=None)
@given(start=moments, allowed=allowances, weekends=st.booleans(), pauses=pause_lists())
def test_deadline_after_is_the_inverse_of_counted(start: datetime, allowed: float, weekends: bool,
                                                 pauses: list[Pause]) -> None:
    due = deadline_after(start, allowed, weekends, pauses)
    assert due >= start
    assert counted(start, due, weekends, pauses) == pytest.approx(allowed, abs=1e-3)
    if due > start:  # the first such moment: a second earlier, less has run
        assert counted(start, due - timedelta(seconds=1), weekends, pauses) < allowed
    # the lower bound: without the pauses, and with weekends counted, never later
    assert deadline_after(start, allowed, weekends) <= due
    assert deadline_after(start, allowed, True, pauses) <= due
    # a longer allowance is never due earlier
    assert deadline_after(start, allowed + 900, weekends, pauses) > due


# -- seat clocks -------------------------------------------------------------------------------

def test_start_clocks() -> None:
    assert start_clocks(NONE, 3, at(0), [1]) == [SeatClock()] * 3
    assert start_clocks(PER_MOVE, 3, at(0), [1]) == [SeatClock(), SeatClock(at(0)), SeatClock()]
    bank = 3 * DAY
    assert start_clocks(BANK, 2, at(0), [0, 1]) == [SeatClock(at(0), bank), SeatClock(at(0), bank)]


def test_per_move_clock_through_turns() -> None:
    clocks = start_clocks(PER_MOVE, 2, at(0), [0])
    assert deadline(PER_MOVE, clocks[0]) == at(2) and deadline(PER_MOVE, clocks[1]) is None
    # seat 0 moves and keeps the turn: its clock restarts
    clocks = step(PER_MOVE, clocks, at(1), 0, [0], [0])
    assert clocks == [SeatClock(at(1)), SeatClock()]
    # seat 0 passes the turn: seat 1's clock starts
    clocks = step(PER_MOVE, clocks, at(1, 5), 0, [0], [1])
    assert clocks == [SeatClock(), SeatClock(at(1, 5))]
    assert allowance_s(PER_MOVE, clocks[1]) == 2 * DAY
    # a seat that acts out of turn (a match action) does not disturb the running clock
    clocks = step(PER_MOVE, clocks, at(2), 0, [1], [1])
    assert clocks == [SeatClock(), SeatClock(at(1, 5))]
    # both must act (simultaneous): a clock already running keeps its start, a new one starts
    clocks = step(PER_MOVE, clocks, at(2, 1), 1, [1], [0, 1])
    assert clocks == [SeatClock(at(2, 1)), SeatClock(at(2, 1))]
    clocks = step(PER_MOVE, clocks, at(2, 3), 0, [0, 1], [0, 1])
    assert clocks == [SeatClock(at(2, 3)), SeatClock(at(2, 1))]


def test_a_match_action_of_the_seat_to_act_restarts_no_clock() -> None:
    """Issue 28, F10: the seat to act votes to abort (or resigns, or returns): no move, so its
    clock runs on from where it started and its bank loses nothing yet."""
    clocks = start_clocks(PER_MOVE, 2, at(0), [0])
    voted = step(PER_MOVE, clocks, at(1, 12), 0, [0], [0], match_action=True)
    assert voted == clocks and deadline(PER_MOVE, voted[0]) == at(2)
    banked = start_clocks(BANK, 2, at(0), [0])
    assert step(BANK, banked, at(1), 0, [0], [0], match_action=True) == banked
    # a timeout (the clock's own match action) still refills the bank and restarts the clock
    out = step(BANK, banked, at(3), 0, [0], [0], timed_out=True, match_action=True)
    assert out[0] == SeatClock(at(3), DAY)


def test_no_time_control_changes_nothing() -> None:
    clocks = start_clocks(NONE, 2, at(0), [0])
    assert step(NONE, clocks, at(3), 0, [0], [1]) == clocks
    assert allowance_s(NONE, clocks[0]) is None and deadline(NONE, SeatClock(at(0))) is None
    assert remaining_s(NONE, SeatClock(at(0)), at(1)) is None and reminder_times(NONE, SeatClock(at(0))) == []


def test_bank_takes_the_time_used_and_adds_the_increment_up_to_the_cap() -> None:
    clocks = start_clocks(BANK, 2, at(0), [0])
    # 1.5 days used, turn passed: 3 - 1.5 + 1 = 2.5 days
    clocks = step(BANK, clocks, at(1, 12), 0, [0], [1])
    assert clocks[0] == SeatClock(None, 2.5 * DAY) and clocks[1] == SeatClock(at(1, 12), 3 * DAY)
    assert deadline(BANK, clocks[1]) == at(4, 12)
    # seat 1 moves at once, twice, keeping the turn the first time: no increment while it must act
    clocks = step(BANK, clocks, at(1, 12), 1, [1], [1])
    assert clocks[1] == SeatClock(at(1, 12), 3 * DAY)
    clocks = step(BANK, clocks, at(1, 12), 1, [1], [0])
    assert clocks[1] == SeatClock(None, 4 * DAY)
    # again: capped at 5 days
    clocks = step(BANK, clocks, at(1, 12), 0, [0], [1])
    clocks = step(BANK, clocks, at(1, 12), 1, [1], [0])
    clocks = step(BANK, clocks, at(1, 12), 0, [0], [1])
    clocks = step(BANK, clocks, at(1, 12), 1, [1], [0])
    assert clocks[1].bank_s == 5 * DAY
    # an overdrawn bank is empty, not negative, and then the increment
    clocks = step(BANK, clocks, at(30), 0, [0], [1])
    assert clocks[0] == SeatClock(None, 1 * DAY)


def test_bank_counts_only_weekdays_when_weekends_do_not_count() -> None:
    tc = dict(BANK, weekends=False)
    clocks = start_clocks(tc, 2, at(4), [0])  # Friday
    clocks = step(tc, clocks, at(7, 12), 0, [0], [1])  # Monday noon: 1.5 weekdays used
    assert clocks[0].bank_s == (3 - 1.5 + 1) * DAY
    assert deadline(tc, SeatClock(at(4), 3 * DAY)) == at(9)  # Friday, Monday, Tuesday: due Wednesday 00:00


def test_bank_pauses_are_not_taken_from_the_bank() -> None:
    clocks = start_clocks(BANK, 2, at(0), [0])
    clocks = step(BANK, clocks, at(2), 0, [0], [1], pauses={0: [(at(0, 12), at(1, 12))]})
    assert clocks[0].bank_s == (3 - 1 + 1) * DAY


def test_a_timeout_refills_the_bank_to_one_increment_or_a_day() -> None:
    clocks = start_clocks(BANK, 2, at(0), [0])
    out = step(BANK, clocks, at(3), 0, [0], [1], timed_out=True)
    assert out[0] == SeatClock(None, 1 * DAY)
    big = check_time_control({"kind": "bank", "initial_days": 3, "increment_days": 2, "cap_days": 5})
    out = step(big, start_clocks(big, 2, at(0), [0]), at(3), 0, [0], [0], timed_out=True)
    assert out[0] == SeatClock(at(3), 2 * DAY)
    none = check_time_control({"kind": "bank", "initial_days": 3})
    out = step(none, start_clocks(none, 2, at(0), [0]), at(3), 0, [0], [1], timed_out=True)
    assert out[0].bank_s == DAY


def test_remaining_and_deadline() -> None:
    running = SeatClock(at(0), 3 * DAY)
    assert remaining_s(BANK, running, at(1)) == 2 * DAY
    assert remaining_s(BANK, running, at(9)) == 0.0
    assert remaining_s(BANK, SeatClock(None, 2 * DAY), at(9)) == 2 * DAY  # not running: the bank
    assert remaining_s(PER_MOVE, SeatClock(), at(1)) is None
    assert remaining_s(PER_MOVE, SeatClock(at(0)), at(1, 12), pauses=[(at(1), at(2))]) == DAY
    assert deadline(PER_MOVE, SeatClock(at(0)), [(at(1), at(2))]) == at(3)
    assert deadline(BANK, SeatClock(None, DAY)) is None
    assert allowance_s(BANK, SeatClock(at(0), None)) == 0.0


def test_seat_clock_json_round_trip() -> None:
    for c in (SeatClock(), SeatClock(at(0, 1.5), 12.5), SeatClock(None, 3 * DAY)):
        assert SeatClock.from_json(c.to_json()) == c
    assert SeatClock(at(0)).to_json() == {"since": "2026-03-02T00:00:00.000Z", "bank_s": None}
    assert SeatClock.from_json({"since": "2026-03-02T00:00:00"}) == SeatClock(at(0))  # naive means UTC


# -- reminders ---------------------------------------------------------------------------------

def test_reminders_at_half_time_and_a_day_left() -> None:
    assert reminder_times(PER_MOVE, SeatClock(at(0))) == [("half", at(1)), ("24h", at(1))]
    three = check_time_control({"kind": "per-move", "days": 3})
    assert reminder_times(three, SeatClock(at(0))) == [("half", at(1, 12)), ("24h", at(2))]


def test_reminders_skip_weekends_and_pauses_and_are_in_time_order() -> None:
    tc = check_time_control({"kind": "per-move", "days": 3, "weekends": False, "reminders": [48, "half", 1]})
    # Thursday: Thu, Fri, Mon count; due Tuesday 00:00
    got = reminder_times(tc, SeatClock(at(3)))
    assert got == [("48h", at(4)), ("half", at(4, 12)), ("1h", at(7, 23))]
    paused = reminder_times(tc, SeatClock(at(3)), [(at(3), at(4))])
    assert paused[0] == ("48h", at(5))  # Friday runs; due as the weekend starts


def test_reminders_that_would_come_at_the_start_are_left_out() -> None:
    one = check_time_control({"kind": "per-move", "days": 1})
    assert reminder_times(one, SeatClock(at(0))) == [("half", at(0, 12))]
    assert reminder_times(one, SeatClock()) == []
    assert reminder_times(BANK, SeatClock(at(0), 0.0)) == []  # an empty bank: due at once, nothing before
    assert reminder_times(check_time_control({"kind": "per-move", "days": 1, "reminders": []}), SeatClock(at(0))) == []
