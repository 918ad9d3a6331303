"""The verifier knows the clock (issue 13): records of matches with timeouts under every policy,
stand-ins and hand-back, resignations and abort votes verify offline; a timeout moved earlier
than its deadline fails and names the ply, even when the forger re-hashes and re-signs the
entry with the server's own key so that only the time is wrong. Real Redis, a clock the test
moves (no sleeping)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.clock import iso, parse_iso
from service.play.matches import Matches
from service.proof import signing
from service.proof.chain import RECORD_FORMAT_3
from service.proof.signers import Signers
from service.proof.verify import verify_record
from tests.conftest import Player
from tests.helpers.clock_helpers import START, Hands, move, started
from tests.helpers.verify_clock import controller, earlier, play, rechain, time_out

DAY = timedelta(days=1)


class Vacations:
    """The pauses port: one player's vacation."""

    def __init__(self) -> None:
        self.by_key: dict[str, list[tuple[datetime, datetime]]] = {}

    def pauses(self, public_key: str) -> list[tuple[datetime, datetime]]:
        return self.by_key.get(public_key, [])


@pytest.fixture
def hands(service: Matches) -> Hands:
    h = Hands()
    service.now = h
    return h


def assert_verifies(record: dict[str, Any]) -> str:
    report = verify_record(record)
    assert report.ok, report.text()
    return report.text()


# -- records that verify -----------------------------------------------------------------------

def test_stand_in_then_hand_back_verifies_and_an_earlier_timeout_fails_naming_the_ply(
        service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 2}, timeout_policy={"grace_hours": 12})
    ply = time_out(service, hands, mid)
    seat = service.log(mid)[ply]["seat"]
    assert controller(service, mid, seat) == "stand-in"
    # the stand-in plays the seat's turns until it has made a move of its own, then the player is back
    play(service, hands, players, mid, until=lambda meta: any(e["by"].startswith("stand-in:") for e in service.log(mid)))
    hands.advance(timedelta(hours=3))
    move(service, players[seat], mid, seat, [{"type": "match:return"}])
    assert controller(service, mid, seat) == "player"
    play(service, hands, players, mid)
    record = service.record(mid)
    assert record["status"] == "finished"
    text = assert_verifies(record)
    assert "the timeout was taken after its seat's deadline plus the grace" in text and "lower bound" in text
    assert "signed by the match's clock key" in text

    entry = record["entries"][ply]
    since = parse_iso(entry["clock"]["since"])
    assert parse_iso(entry["accepted_at"]) >= since + timedelta(days=2, hours=12)
    forged = earlier(record, service.server_key, ply, since + timedelta(days=1))
    report = verify_record(forged)
    assert not report.ok and report.failure is not None
    assert report.failure.startswith(f"ply {ply}: the timeout of seat {seat} was taken at "
                                     f"{iso(since + timedelta(days=1))}, before its deadline {iso(since + 2 * DAY)}")
    assert "plus 12 hours' grace" in report.failure
    # the forger moves the deadline and acts_at as well: the walk of the clocks still knows better
    forged = earlier(record, service.server_key, ply, since + DAY, deadline=since + DAY / 2, acts_at=since + DAY)
    report = verify_record(forged)
    assert not report.ok and report.failure and report.failure.startswith(f"ply {ply}: the timeout of seat {seat} "
                                                                          "says its deadline was")
    # ... and the clock's start too, so that the field holds together in itself
    forged = earlier(record, service.server_key, ply, since + DAY, since=since - 2 * DAY, deadline=since,
                     acts_at=since + timedelta(hours=12))
    report = verify_record(forged)
    assert not report.ok and report.failure and "says its clock ran since" in report.failure


@pytest.mark.parametrize(("policy", "status"), [
    ({"policy": "skip"}, "finished"),
    ({"policy": "forfeit"}, "finished"),
    ({"policy": "forfeit", "after_forfeit": "end"}, "finished"),
    ({"policy": "abort"}, "aborted"),
])
def test_each_policy_verifies_and_its_timeout_cannot_be_moved_earlier(
        service: Matches, hands: Hands, players: list[Player], policy: dict[str, Any], status: str) -> None:
    mid = started(service, players, n=3 if policy.get("after_forfeit") != "end" else 2,
                  time_control={"kind": "per-move", "days": 1}, timeout_policy=dict(policy, grace_hours=6))
    play(service, hands, players, mid, moves=3)  # a few moves first: the clock starts where the walk says
    ply = time_out(service, hands, mid)
    play(service, hands, players, mid)
    record = service.record(mid)
    assert record["status"] == status
    text = assert_verifies(record)
    if status == "aborted":
        assert record["outcome"] is None and "aborted" in text and "no result" in text
    elif policy["policy"] == "forfeit":
        seat = record["entries"][ply]["seat"]
        assert record["outcome"]["ranks"][seat] == record["header"]["players"]
        assert f"seats {seat} ranked last for leaving" in text
    since = parse_iso(record["entries"][ply]["clock"]["since"])
    report = verify_record(earlier(record, service.server_key, ply, since + timedelta(hours=20)))
    assert not report.ok and report.failure and report.failure.startswith(f"ply {ply}: the timeout of seat ")
    assert "before its deadline" in report.failure


def test_resign_and_the_bot_plays_on_verifies(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, n=3, time_control={"kind": "per-move", "days": 3})
    play(service, hands, players, mid, moves=2)
    move(service, players[1], mid, 1, [{"type": "match:resign"}])
    play(service, hands, players, mid)
    record = service.record(mid)
    assert record["outcome"]["ranks"][1] == 3
    text = assert_verifies(record)
    assert "no timeouts" in text and "seats 1 ranked last" in text


def test_abort_by_vote_verifies(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, n=3, time_control={"kind": "bank", "initial_days": 2, "increment_days": 1})
    play(service, hands, players, mid, moves=2)
    for seat in (2, 0, 1):
        hands.advance(timedelta(hours=5))
        move(service, players[seat], mid, seat, [{"type": "match:abort"}])
    record = service.record(mid)
    assert record["status"] == "aborted" and record["seed"] is not None
    text = assert_verifies(record)
    assert "the match was aborted (every remaining player voted to abort): no result" in text


def test_a_bank_over_weekends_and_a_vacation_verifies_and_its_own_deadline_is_checked(
        service: Matches, hands: Hands, players: list[Player]) -> None:
    """A vacation makes the deadline later than the record can show: the timeout verifies (its
    deadline is after the lower bound), and one taken before the deadline it names still fails."""
    vacations = Vacations()
    service.pauses = vacations
    mid = started(service, players, time_control={"kind": "bank", "initial_days": 1, "increment_days": 1,
                                                  "weekends": False}, timeout_policy={"grace_hours": 0})
    seat = service.meta(mid).active[0]
    vacations.by_key[players[seat].public_key] = [(START + timedelta(hours=2), START + timedelta(days=1, hours=2))]
    ply = time_out(service, hands, mid)
    entry = service.log(mid)[ply]
    assert parse_iso(entry["clock"]["deadline"]) == START + 2 * DAY  # a day of weekday time, a day of vacation
    play(service, hands, players, mid, until=lambda meta: meta.ply > ply + 4)
    # the seat's next turns run over a weekend (Saturday and Sunday do not count)
    hands.at = max(hands.at, datetime(2026, 12, 4, 20, 0, tzinfo=UTC))
    play(service, hands, players, mid)
    record = service.record(mid)
    assert_verifies(record)
    # after the lower bound (no vacation: Wednesday noon), before the acts_at it names (Thursday noon)
    report = verify_record(earlier(record, service.server_key, ply, START + DAY + timedelta(hours=1)))
    assert not report.ok and report.failure == (
        f"ply {ply}: the timeout of seat {seat} was taken at {iso(START + DAY + timedelta(hours=1))}, before its "
        f"deadline {entry['clock']['deadline']}")


def test_a_live_record_checks_the_clock_key_and_says_the_deadlines_come_later(
        service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 1})
    ply = time_out(service, hands, mid)
    record = service.record(mid)
    assert record["seed"] is None
    report = verify_record(record)
    assert report.ok and any("timeouts' deadlines" in p for p in report.pending), report.text()
    forged = copy.deepcopy(record)
    forged["entries"][ply]["signature"] = signing.sign(service.server_key, forged["entries"][ply]["envelope"])
    rechain(forged, service.server_key, ply)
    report = verify_record(forged)
    assert not report.ok and report.failure == (f"ply {ply}: the signature of this move by clock for seat "
                                                f"{record['entries'][ply]['seat']} does not verify under the match's "
                                                "clock key")


# -- what a forger might try besides ---------------------------------------------------------

def test_acceptance_times_may_not_go_backwards(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 2})
    play(service, hands, players, mid, moves=4)
    record = service.record(mid)
    assert_verifies(record)
    forged = earlier(record, service.server_key, 2, parse_iso(record["entries"][1]["accepted_at"]) - timedelta(minutes=1))
    report = verify_record(forged)
    assert not report.ok and report.failure and report.failure.startswith("ply 2: the entry was accepted at ")
    assert "before the entry before it" in report.failure and "go backwards" in report.failure
    forged = earlier(record, service.server_key, 0, START - timedelta(minutes=1))
    report = verify_record(forged)
    assert not report.ok and report.failure and "before the match started" in report.failure


def test_a_clock_field_or_clock_by_elsewhere_fails(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 1}, timeout_policy="forfeit")
    ply = time_out(service, hands, mid)
    record = service.record(mid)
    forged = copy.deepcopy(record)
    del forged["entries"][ply]["clock"]
    rechain(forged, service.server_key, ply)
    report = verify_record(forged)
    assert not report.ok and report.failure and report.failure.startswith(f"ply {ply}: a timeout (by clock) carries")
    # a server-signed entry in a record from before the clock proves nothing
    header = dict(record["header"], format=RECORD_FORMAT_3)
    trouble = Signers.of(header).check_entry(record["entries"][ply])
    assert trouble and "has no match clock" in trouble
    # the timeout's policy must be the header's
    forged = copy.deepcopy(record)
    forged["entries"][ply]["clock"]["policy"] = "stand-in"
    rechain(forged, service.server_key, ply)
    report = verify_record(forged)
    assert not report.ok and report.failure and "the header's is 'forfeit'" in report.failure


def test_a_past_board_replays_through_match_actions(service: Matches, hands: Hands, players: list[Player]) -> None:
    """The pictures of past plies use the same replay: a resignation or a timeout in the log must
    not stop it (service.play.views.boards.state_at gives it the format, the policy and each ``by``)."""
    from service.play.views.boards import position

    mid = started(service, players, n=3, time_control={"kind": "per-move", "days": 1})
    gone = next(s for s in range(3) if s not in service.meta(mid).active)
    move(service, players[gone], mid, gone, [{"type": "match:resign"}])
    time_out(service, hands, mid)
    play(service, hands, players, mid, moves=2)
    ply = service.meta(mid).ply
    for at in range(ply):
        assert position(service, mid, None, at).ply == at


def test_the_clock_header_is_checked_first(service: Matches, hands: Hands, players: list[Player]) -> None:
    mid = started(service, players, time_control={"kind": "per-move", "days": 1})
    time_out(service, hands, mid)
    record = service.record(mid)
    for name, value, words in [
        ("clock_key", signing.b64e(bytes(32)), "the match's clock key is not a valid Ed25519 key"),
        ("started_at", "yesterday", 'started_at "yesterday" is not a time with a zone'),
        ("time_control", {"kind": "per-move", "days": 1}, "the time control is not in the normal form"),
        ("time_control", {"kind": "per-move", "days": 99}, "the header's days is not one a match can have"),
        ("timeout_policy", "stand-in", "the timeout policy is not in the normal form"),
    ]:
        forged = copy.deepcopy(record)
        forged["header"][name] = value
        report = verify_record(forged)
        assert not report.ok and report.failure and report.failure.startswith(f"header: {words}"), (name, report.failure)
