"""The match clock's jobs with a real Redis, a real RQ worker (burst, with its scheduler) and a
real SMTP conversation, on a file clock the test moves forward (``Clock.advance``; no sleeping).

What the workers add to the play core's clock (tests/play/test_match_clock.py): they notice, by
themselves, when something is due (the ``clock`` outbox group schedules each match's next wake;
the tick wakes what is due in the deadline index), send each reminder and late note once, take
the timeout at ``acts_at`` once, let the stand-in play, and send the end mail of a match that
ended before its rules ended it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.clock import Clock
from service.config import Settings
from service.delivery import clock as scheduling
from service.play.matches import Matches
from service.runtime import build
from service.storage.clock import Deadlines
from tests.conftest import Player, SmtpSink, worker_burst
from tests.helpers import clock_helpers
from tests.helpers.clock_helpers import move
from workers import clock as clock_jobs
from workers import jobs
from workers import worker as worker_module


@dataclasses.dataclass
class Pauses:
    """A vacation book the test fills: public key -> [(start, end)]."""

    book: dict[str, list[tuple[datetime, datetime]]] = dataclasses.field(default_factory=dict)

    def pauses(self, public_key: str) -> list[tuple[datetime, datetime]]:
        return list(self.book.get(public_key, []))


@dataclasses.dataclass
class Rig:
    settings: Settings
    clock: Clock
    m: Matches
    sink: SmtpSink
    pauses: Pauses

    def settle(self) -> None:
        """Let the workers do everything there is to do now (outbox, tick, queues)."""
        worker_burst(self.settings)

    def advance_to(self, when: datetime, past_s: float = 60.0) -> None:
        self.clock.advance(max(1.0, (when - self.clock.now()).total_seconds() + past_s))

    def mails(self, prefix: str) -> list[Any]:
        return [msg for msg in self.sink.messages if str(msg["X-Portolan-Notice"]).startswith(prefix)]

    def status(self, mid: str, seat: int) -> Any:
        return self.m.clock_status(self.m.meta(mid))[seat]


def on_clock(m: Matches, clock: Clock, pauses: Pauses) -> Matches:
    m.now = clock.iso
    m.pauses = pauses
    return m


@pytest.fixture
def rig(settings: Settings, smtp_sink: SmtpSink, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    clock = Clock(str(tmp_path / "clock"))
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url)
    if "clock" in Settings.__dataclass_fields__:  # the settings know the clock: every build reads it
        s = dataclasses.replace(s, clock=f"file:{clock.path}", clock_allow_file=True)  # type: ignore[call-arg]
    env = {"REDIS_URL": s.redis_url, "SMTP_URL": s.smtp_url, "PORTOLAN_NS": s.namespace, "PUBLIC_URL": s.public_url,
           "OUTBOX_DIR": s.outbox_dir, "PORTOLAN_CLOCK": f"file:{clock.path}", "PORTOLAN_CLOCK_ALLOW_FILE": "on"}
    for name, value in env.items():
        monkeypatch.setenv(name, str(value))
    pauses = Pauses()
    # every Matches the jobs and the worker build reads the test's clock and vacation book
    real_build = worker_module.build
    monkeypatch.setattr(worker_module, "build", lambda st: on_clock(real_build(st), clock, pauses))
    jobs.settings.cache_clear()
    jobs.service.cache_clear()
    clock_jobs.scheduler.cache_clear()
    on_clock(jobs.service(), clock, pauses)
    yield Rig(s, clock, on_clock(build(s), clock, pauses), smtp_sink, pauses)
    jobs.settings.cache_clear()
    jobs.service.cache_clear()
    clock_jobs.scheduler.cache_clear()


def started(m: Matches, players: list[Player], n: int = 2, target: int = 100, **kw: Any) -> str:
    """A started match of the fixture game; its target is far enough that one stand-in's turn
    (or a bot's) does not end the game."""
    return clock_helpers.started(m, players, n, target, **kw)


def text(msg: Any) -> str:
    """The plain body with its lines joined (the letters wrap at 72 columns)."""
    return " ".join(str(msg.get_body(preferencelist=("plain",)).get_content()).split())


def timeouts(m: Matches, mid: str) -> list[dict[str, Any]]:
    return [e for e in m.store.log(mid) if e["by"] == "clock"]


def test_reminders_then_daily_late_notes_each_once(rig: Rig, players: list[Player]) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 3}, timeout_policy={"grace_hours": 48})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    st = rig.status(mid, seat)
    [notice] = [msg for msg in rig.mails("notice:") if msg["To"] == f"p{seat}@example.org"]
    assert "Your move is due in 2 days 23 hours" in text(notice) or "Your move is due in 3 days" in text(notice)
    assert "a stand-in bot plays your moves" in text(notice)
    half, day_left = dict(st.reminders)["half"], dict(st.reminders)["24h"]
    assert Deadlines(rig.m.store.r, rig.settings.namespace).when(mid) == pytest.approx(half.timestamp())

    rig.advance_to(half)
    rig.settle()
    [first] = rig.mails("reminded:")
    assert first["To"] == f"p{seat}@example.org"
    assert "is due in 1 day 11 hours" in first["Subject"]
    assert "by " in text(first) and " UTC)" in text(first)
    rig.settle()  # nothing new is due: nothing more is sent
    assert len(rig.mails("reminded:")) == 1

    rig.advance_to(day_left)
    rig.settle()
    assert len(rig.mails("reminded:")) == 2 and "due in 23 hours" in rig.mails("reminded:")[1]["Subject"]

    rig.advance_to(st.deadline)  # the deadline: a late note to everyone in the match
    rig.settle()
    notes = rig.mails("late-sent:")
    assert sorted(msg["To"] for msg in notes) == ["p0@example.org", "p1@example.org"]
    other = next(msg for msg in notes if msg["To"] != f"p{seat}@example.org")
    assert f"{players[seat].name} (" in text(other) and "has not moved by the deadline" in text(other)
    assert "stand-in bot plays their moves" in text(other)
    rig.settle()
    assert len(rig.mails("late-sent:")) == 2

    rig.advance_to(st.deadline + timedelta(days=1))  # a day later: the second note, "late by 1 day"
    rig.settle()
    notes = rig.mails("late-sent:")
    assert len(notes) == 4 and all("late by 1 day" in text(msg) or "are late by 1 day" in text(msg) for msg in notes[2:])
    assert not timeouts(rig.m, mid)  # the grace has not run out
    rig.m.store.ensure_group("test-reader")
    kinds = [r.data.get("reminder") for r in rig.m.store.read_outbox("test-reader", "t", count=1000)
             if r.kind == "reminder"]
    assert kinds == ["half", "24h", "late", "late"]  # each one announced once, for webhooks and streams


def test_the_timeout_at_acts_at_then_the_stand_in_plays_and_hands_back(rig: Rig, players: list[Player]) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 1}, timeout_policy={"grace_hours": 6})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    acts_at = rig.status(mid, seat).acts_at
    rig.advance_to(acts_at - timedelta(hours=1), past_s=0)
    rig.settle()
    assert not timeouts(rig.m, mid)
    rig.advance_to(acts_at)
    rig.settle()
    [entry] = timeouts(rig.m, mid)
    assert entry["seat"] == seat and entry["clock"]["policy"] == "stand-in"
    # the stand-in played the rest of the seat's turn (bot jobs), and no notice went to the seat for it
    meta = rig.m.meta(mid)
    assert seat not in meta.active or meta.status != "active"
    assert all(e["by"].startswith("stand-in:") for e in rig.m.store.log(mid)[int(entry["ply"]) + 1:]
               if e["seat"] == seat)
    seat_notices = [msg for msg in rig.mails("notice:") if msg["To"] == f"p{seat}@example.org"]
    assert len(seat_notices) == 1  # the first turn's only
    move(rig.m, players[seat], mid, seat, [{"type": "match:return"}])
    assert rig.m.meta(mid).standing["controllers"][seat] == "player"
    rig.settle()
    assert len(timeouts(rig.m, mid)) == 1


def test_a_wake_twice_late_or_after_the_move_changes_nothing(rig: Rig, players: list[Player]) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 1}, timeout_policy={"grace_hours": 0})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    sched = scheduling.scheduler_of(rig.m, rig.settings)
    rig.advance_to(dict(rig.status(mid, seat).reminders)["half"])
    clock_jobs.wake_with(rig.m, sched, mid)
    clock_jobs.wake_with(rig.m, sched, mid)  # twice: one reminder job, one announcement
    rig.settle()
    assert len(rig.mails("reminded:")) == 1
    # the player moves; then a wake past the old deadline, run late, takes no timeout
    ply = rig.m.meta(mid).ply
    move(rig.m, players[seat], mid, seat, [{"type": "roll"}])  # its clock starts again (or its turn ends)
    rig.advance_to(rig.clock.now() + timedelta(hours=13), past_s=0)
    assert "nothing due" in clock_jobs.wake_with(rig.m, sched, mid) or not timeouts(rig.m, mid)
    assert rig.m.store.log(mid)[ply]["by"] == "human"
    assert not [e for e in rig.m.store.log(mid) if e["by"] == "clock" and e["seat"] == seat]


@pytest.mark.parametrize("policy,after", [("skip", "player"), ("forfeit", "forfeited"), ("abort", None)])
def test_each_policy_through_the_workers(rig: Rig, players: list[Player], policy: str, after: str | None) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 1},
                  timeout_policy={"policy": policy, "grace_hours": 0})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    rig.advance_to(rig.status(mid, seat).acts_at)
    rig.settle()
    assert len(timeouts(rig.m, mid)) == 1
    meta = rig.m.meta(mid)
    if after is None:
        assert meta.status == "aborted"
        ends = rig.mails("over:")
        assert sorted(msg["To"] for msg in ends) == ["p0@example.org", "p1@example.org"]
        assert "was aborted" in ends[0]["Subject"] and "no result" in text(ends[0])
        assert Deadlines(rig.m.store.r, rig.settings.namespace).when(mid) is None
    else:  # skip: passed and the seat is the player's again; forfeit: the bot plays it on
        assert meta.standing["controllers"][seat] == after
        assert seat not in meta.active or meta.status != "active"


def test_forfeit_then_end_sends_the_end_mail_saying_why(rig: Rig, players: list[Player]) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 1},
                  timeout_policy={"policy": "forfeit", "after_forfeit": "end", "grace_hours": 0})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    rig.advance_to(rig.status(mid, seat).acts_at)
    rig.settle()
    assert rig.m.meta(mid).status == "finished"
    ends = rig.mails("over:")
    assert len(ends) == 2 and "ended early" in text(ends[0]) and "(left the match)" in text(ends[0])


@pytest.mark.parametrize("policy", ["stand-in", "forfeit", "abort"])
def test_resign_in_each_policy(rig: Rig, players: list[Player], policy: str) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 2}, timeout_policy=policy)
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    move(rig.m, players[seat], mid, seat, [{"type": "match:resign"}])
    rig.settle()
    meta = rig.m.meta(mid)
    if policy == "abort":
        assert meta.status == "aborted" and len(rig.mails("over:")) == 2
    else:  # the departed seat's bot plays its turns: the match goes on to the other player
        assert meta.standing["controllers"][seat] == "forfeited"
        assert seat not in meta.active or meta.status != "active"
        assert rig.status(mid, seat).deadline is None  # the server's seat has no clock to run out
    assert not timeouts(rig.m, mid)


def test_abort_by_vote_ends_with_the_mail_and_no_wake(rig: Rig, players: list[Player]) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 2})
    rig.settle()
    assert Deadlines(rig.m.store.r, rig.settings.namespace).when(mid) is not None
    move(rig.m, players[0], mid, 0, [{"type": "match:abort"}])
    move(rig.m, players[1], mid, 1, [{"type": "match:abort"}])
    rig.settle()
    assert rig.m.meta(mid).status == "aborted"
    ends = rig.mails("over:")
    assert len(ends) == 2 and "every remaining player voted to abort" in text(ends[0])
    assert Deadlines(rig.m.store.r, rig.settings.namespace).when(mid) is None


def test_bank_deadline_and_vacation_pause_move_the_wake(rig: Rig, players: list[Player]) -> None:
    mid = started(rig.m, players, time_control={"kind": "bank", "initial_days": 2, "increment_days": 1, "cap_days": 3,
                                                "reminders": []}, timeout_policy={"grace_hours": 0})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    index = Deadlines(rig.m.store.r, rig.settings.namespace)
    deadline = rig.status(mid, seat).deadline
    assert index.when(mid) == pytest.approx(deadline.timestamp())  # no reminders, no grace: the timeout
    # the late player takes three days off, starting now: the deadline moves with it
    now = rig.clock.now()
    rig.pauses.book[players[seat].public_key] = [(now, now + timedelta(days=3))]
    moved = rig.status(mid, seat).deadline
    assert moved == deadline + timedelta(days=3)
    rig.advance_to(deadline)
    rig.settle()
    assert not timeouts(rig.m, mid)  # the old deadline passed while on vacation: nothing happens
    assert index.when(mid) == pytest.approx(moved.timestamp())
    rig.advance_to(moved)
    rig.settle()
    assert len(timeouts(rig.m, mid)) == 1


def test_tick_now_enqueues_a_tick_that_finds_the_overdue_match(rig: Rig, players: list[Player]) -> None:
    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 1}, timeout_policy={"grace_hours": 0})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    rig.advance_to(rig.status(mid, seat).acts_at)
    jid = scheduling.tick_now(rig.settings)
    assert jid.startswith("clock-tick-")
    rig.settle()
    assert len(timeouts(rig.m, mid)) == 1


def test_the_seat_to_act_voting_to_abort_keeps_its_deadline_and_times_out_on_time(rig: Rig,
                                                                                  players: list[Player]) -> None:
    """Issue 28, F10: a vote is no move. The seat to act votes to abort over HTTP a day and a
    half into its two days: its deadline stays where it was, and the workers take its timeout at
    the first ``acts_at``, not two days after the vote."""
    from service.api import create_app

    mid = started(rig.m, players, time_control={"kind": "per-move", "days": 2}, timeout_policy={"grace_hours": 0})
    seat = rig.m.meta(mid).active[0]
    rig.settle()
    first = rig.status(mid, seat)
    since_before = rig.m.meta(mid).active_since
    rig.advance_to(first.since + timedelta(days=1, hours=12), past_s=0)
    client = create_app(rig.settings, rig.m, TESTING=True).test_client()
    ply = rig.m.meta(mid).ply
    vote = players[seat].envelope(mid, seat, ply, [{"type": "match:abort"}], nonce="vote")
    answer = client.post(f"/v1/matches/{mid}/moves", json=vote)
    assert answer.status_code == 201, answer.get_json()
    assert [e["type"] for e in answer.get_json()["events"]] == ["abort-voted"]
    rig.settle()
    after = rig.status(mid, seat)
    assert (after.since, after.deadline, after.acts_at) == (first.since, first.deadline, first.acts_at)
    assert rig.m.meta(mid).active_since == since_before
    assert Deadlines(rig.m.store.r, rig.settings.namespace).when(mid) == pytest.approx(first.acts_at.timestamp())
    rig.advance_to(first.acts_at)
    rig.settle()
    [entry] = timeouts(rig.m, mid)
    assert entry["seat"] == seat and entry["clock"]["deadline"] == first.deadline.isoformat(
        timespec="milliseconds").replace("+00:00", "Z")
