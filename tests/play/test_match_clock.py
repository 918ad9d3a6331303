"""The match clock in the use cases: deadlines, each timeout policy, stand-in and hand-back,
resignation and abort votes, with a clock the test moves (no sleeping). Real Redis.

The workers that call :meth:`Matches.timeout` at the right moment are tested in tests/workers;
here the test calls it itself, before and after the deadline.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from service.clock import iso
from service.play.errors import BadRequest, Conflict, Forbidden
from service.play.matches import Matches
from service.proof.verify import verify_record
from tests.conftest import CREATOR_KEY, Player
from tests.helpers.clock_helpers import START, Hands, move, started


@pytest.fixture
def hands(service: Matches) -> Hands:
    h = Hands()
    service.now = h
    return h


def test_per_move_deadline_and_the_stand_in_then_hand_back(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 2}, timeout_policy={"grace_hours": 12})
    seat = service.meta(mid).active[0]
    status = service.clock_status(service.meta(mid))[seat]
    assert status.running and status.deadline == START + timedelta(days=2)
    assert status.acts_at == START + timedelta(days=2, hours=12)
    assert [n for n, _ in status.reminders] == ["half", "24h"]
    hands.advance(days=2, hours=11)
    assert service.clock_status(service.meta(mid))[seat].late
    assert service.timeout(mid, seat) is None  # late, but the grace has not run out
    hands.advance(hours=1)
    done = service.timeout(mid, seat)
    assert done is not None
    assert {k: done["events"][0][k] for k in ("type", "seat", "policy")} == {"type": "timed-out", "seat": seat,
                                                                             "policy": "stand-in"}
    assert "stand-in plays" in done["events"][0]["text"]
    assert service.timeout(mid, seat) is None  # twice: nothing more
    entry = service.log(mid)[-1]
    assert entry["by"] == "clock" and entry["clock"]["policy"] == "stand-in"
    meta = service.meta(mid)
    assert meta.standing["controllers"][seat] == "stand-in"
    # the stand-in plays the seat's later turns (the other seat plays too); the player's own
    # signed action takes it back
    for _ in range(200):
        if any(e["by"].startswith("stand-in:") for e in service.log(mid)) or service.meta(mid).status != "active":
            break
        meta = service.meta(mid)
        if seat in meta.active:
            assert service.server_move(mid, seat, meta.ply) is not None
        else:
            other = meta.active[0]
            move(service, players[other], mid, other, [{"type": "roll"}])
    assert any(e["by"].startswith("stand-in:") for e in service.log(mid))
    assert all(e["by"] == "human" for e in service.log(mid) if e["seat"] != seat)
    back = move(service, players[seat], mid, seat, [{"type": "match:return"}])
    assert [(e["type"], e["seat"]) for e in back["events"]] == [("returned", seat)]
    assert service.meta(mid).standing["controllers"][seat] == "player"


def test_a_timeout_before_the_deadline_or_after_the_move_does_nothing(service: Matches, hands: Hands,
                                                                      players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 1}, timeout_policy={"grace_hours": 0})
    seat = service.meta(mid).active[0]
    hands.advance(hours=23)
    assert service.timeout(mid, seat) is None
    move(service, players[seat], mid, seat, [{"type": "roll"}])
    hands.advance(hours=2)  # past the old deadline, but the seat moved (or its clock restarted)
    ply = service.meta(mid).ply
    assert service.timeout(mid, seat) is None or service.log(mid)[ply - 1]["by"] == "human"
    assert all(e["by"] == "human" for e in service.log(mid)[:ply])


@pytest.mark.parametrize("policy,controller,status", [
    ("skip", "player", "active"), ("forfeit", "forfeited", "active"), ("abort", "player", "aborted"),
])
def test_each_policy(service: Matches, hands: Hands, players: list[Player], policy: str, controller: str,
                     status: str) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 1},
                  timeout_policy={"policy": policy, "grace_hours": 0})
    seat = service.meta(mid).active[0]
    hands.advance(days=1)
    assert service.timeout(mid, seat) is not None
    meta = service.meta(mid)
    assert meta.status == status
    if status == "active":
        if policy == "skip":  # the skip ends with the turn (harbour race: a roll may keep the turn)
            while meta.standing["controllers"][seat] == "skip":
                service.server_move(mid, seat, meta.ply)
                meta = service.meta(mid)
        assert meta.standing["controllers"][seat] == controller
    record = service.record(mid)
    if status == "aborted":
        assert record["seed"] is not None and record["outcome"] is None
    assert verify_record(record).ok, verify_record(record).text()


def test_forfeit_then_end_ranks_the_late_player_last(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 1},
                  timeout_policy={"policy": "forfeit", "after_forfeit": "end", "grace_hours": 0})
    seat = service.meta(mid).active[0]
    hands.advance(days=1)
    service.timeout(mid, seat)
    meta = service.meta(mid)
    assert meta.status == "finished"
    assert meta.outcome["ranks"][seat] == 2 and meta.outcome["ranks"][1 - seat] == 1
    assert verify_record(service.record(mid)).ok


def test_resign_and_abort_votes(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, n=3)
    out = move(service, players[2], mid, 2, [{"type": "match:abort"}])
    assert out["events"][0]["waiting_for"] == [0, 1]
    with pytest.raises(Conflict) as twice:
        move(service, players[2], mid, 2, [{"type": "match:abort"}])
    assert twice.value.code == "already-voted"
    move(service, players[1], mid, 1, [{"type": "match:resign"}])  # a resigned seat needs no vote
    assert service.meta(mid).status == "active"
    move(service, players[0], mid, 0, [{"type": "match:abort"}])
    meta = service.meta(mid)
    assert meta.status == "aborted" and meta.outcome is None
    assert verify_record(service.record(mid)).ok


def test_refusals_change_nothing(service: Matches, hands: Hands, players: list[Player]) -> None:
    with pytest.raises(BadRequest) as bad:
        service.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                       creator_key=CREATOR_KEY, time_control={"kind": "per-move", "days": 15})
    assert bad.value.code == "bad-time-control" and bad.value.extra["field"] == "days"
    with pytest.raises(BadRequest) as bad:
        service.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                       creator_key=CREATOR_KEY, timeout_policy="zombie")
    assert bad.value.code == "bad-timeout-policy"
    mid = started(service, players)
    ply = service.meta(mid).ply
    with pytest.raises(Forbidden) as forged:  # seat 1's key signs a resignation for seat 0
        signed = players[1].envelope(mid, 0, ply, [{"type": "match:resign"}])
        service.submit(mid, signed["envelope"], signed["signature"])
    assert forged.value.code == "not-your-seat"
    with pytest.raises(Forbidden) as clock_only:
        move(service, players[0], mid, 0, [{"type": "match:forfeit"}])
    assert clock_only.value.code == "clock-only"
    with pytest.raises(BadRequest) as alone:
        move(service, players[0], mid, 0, [{"type": "match:resign"}, {"type": "roll"}])
    assert alone.value.code == "match-action-alone"
    with pytest.raises(BadRequest):
        service.submit(mid, {"match": mid, "seat": 0, "ply": ply, "actions": [{"type": "roll"}], "nonce": "x"}, "sig",
                       by="clock")
    assert service.meta(mid).ply == ply


def test_bank_time_control(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "bank", "initial_days": 2, "increment_days": 1,
                                                  "cap_days": 3})
    seat = service.meta(mid).active[0]
    hands.advance(hours=12)
    move(service, players[seat], mid, seat, [{"type": "roll"}])
    while seat in service.meta(mid).active:  # play the turn out (a roll of 1, or bank)
        legal = service.view(mid, seat)["legal_actions"]
        move(service, players[seat], mid, seat, [legal[-1]["action"]])
    bank = service.meta(mid).clocks[seat]["bank_s"]
    assert bank == pytest.approx((2 - 0.5 + 1) * 86400)  # 12 h used, a day added at the turn's end
    view = service.view(mid)
    assert view["clock"]["seats"][seat]["bank_s"] == round(bank)


def test_a_stream_of_a_match_aborted_by_vote_tells_the_moves_then_the_abort(service: Matches, hands: Hands,
                                                                             players: list[Player]) -> None:
    from service.play.outward.streams import Feed, parse_match_event_id

    mid = started(service, players)
    move(service, players[0], mid, 0, [{"type": "match:abort"}])
    move(service, players[1], mid, 1, [{"type": "match:abort"}])
    meta = service.meta(mid)
    found, done = Feed(mid, None).since(service, None, float("inf"))
    assert done and [e["type"] for _, e in found] == ["started", "move", "move", "aborted"]
    assert [p for p, _ in found] == [0, 1, 2, 2]
    assert parse_match_event_id("1", meta) == 1  # a stream that saw the first vote resumes after it
    resumed, _ = Feed(mid, None).since(service, 1, float("inf"))
    assert [e["type"] for _, e in resumed] == ["move", "aborted"]


def test_reminders_reach_their_seat_and_late_notes_everyone(service: Matches, hands: Hands,
                                                            players: list[Player]) -> None:
    from service.play.outward.streams import inbox_events

    mid = started(service, players, time_control={"kind": "per-move", "days": 2})
    since = iso(START)
    to_seat = inbox_events(service, "reminder", mid, 0, {"seat": 1, "reminder": "half", "day": 0, "since": since})
    assert [(key, ev["type"], ev["seat"]) for key, ev in to_seat] == [(players[1].public_key, "reminder", 1)]
    late = inbox_events(service, "reminder", mid, 0, {"seat": 1, "reminder": "late", "day": 1, "since": since})
    assert sorted(key for key, _ in late) == sorted(p.public_key for p in players[:2])
    assert late[0][1]["id"] != to_seat[0][1]["id"] and late[0][1]["id"].startswith(f"{mid}.clock.1.")
    again = inbox_events(service, "reminder", mid, 0, {"seat": 1, "reminder": "late", "day": 1, "since": since})
    assert [ev["id"] for _, ev in again] == [ev["id"] for _, ev in late]  # the same note: the same id


def test_rebuild_replays_a_match_aborted_after_its_start(service: Matches, hands: Hands, players: list[Player]) -> None:
    from service.tools.rebuild import rebuild

    mid = started(service, players)
    move(service, players[0], mid, 0, [{"type": "match:abort"}])
    move(service, players[1], mid, 1, [{"type": "match:abort"}])
    line = rebuild(service, mid)
    assert line.ok and "2 moves replayed" in line.detail


def test_a_vote_of_the_seat_to_act_keeps_its_deadline_and_the_record_verifies(service: Matches, hands: Hands,
                                                                              players: list[Player]) -> None:
    """Issue 28, F10: the timeout comes at the deadline from before the vote; the verifier walks
    the clocks the same way."""
    mid = started(service, players, time_control={"kind": "per-move", "days": 2}, timeout_policy={"policy": "abort", "grace_hours": 0})
    seat = service.meta(mid).active[0]
    hands.advance(days=1, hours=12)
    move(service, players[seat], mid, seat, [{"type": "match:abort"}])
    assert service.clock_status(service.meta(mid))[seat].deadline == START + timedelta(days=2)
    hands.advance(hours=12)
    assert service.timeout(mid, seat) is not None
    assert service.meta(mid).status == "aborted"  # the seed is out: the verifier walks the clocks
    assert verify_record(service.record(mid)).ok, verify_record(service.record(mid)).text()


def test_a_record_from_a_server_that_restarted_the_voters_clock_still_verifies(
        service: Matches, hands: Hands, players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    """Records made before the fix restarted the voter's clock; their timeouts came later, and
    the verifier still accepts them (it keeps that walk beside the current one)."""
    from service.play.moves import commit
    from service.proof import time_control as tcs

    class OldServer:  # the service's time control as before the fix; the verifier keeps the current one
        def __getattr__(self, name: str) -> Any:
            return getattr(tcs, name)

        @staticmethod
        def step(*a: Any, **kw: Any) -> Any:
            return tcs.step(*a, **{**kw, "match_action": False})

    monkeypatch.setattr(commit, "tcs", OldServer())
    mid = started(service, players, time_control={"kind": "per-move", "days": 2}, timeout_policy={"policy": "abort", "grace_hours": 0})
    seat = service.meta(mid).active[0]
    hands.advance(days=1, hours=12)
    move(service, players[seat], mid, seat, [{"type": "match:abort"}])
    hands.advance(days=2)
    assert service.timeout(mid, seat) is not None
    assert service.log(mid)[-1]["clock"]["since"] == iso(START + timedelta(days=1, hours=12))
    assert service.meta(mid).status == "aborted"  # the seed is out: the verifier walks the clocks
    assert verify_record(service.record(mid)).ok, verify_record(service.record(mid)).text()
