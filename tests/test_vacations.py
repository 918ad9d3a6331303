"""Vacations (issue 13, item 3): declared ahead in whole UTC days, within a yearly allowance, never
overlapping; cancelled or ended early; and the pauses the match clocks read. Real Redis; a clock
the test moves (no sleeping).
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.clock import iso
from service.play.clock import vacations
from service.play.clock.vacations import VacationBook, book_of, days_by_year
from service.play.errors import BadRequest, Conflict, NotFound, ServiceError, Unavailable, Unprocessable
from service.play.matches import Matches
from tests.conftest import CREATOR_KEY, Player

NOW = datetime(2026, 12, 1, 10, 30, tzinfo=UTC)
KEY = "k" * 43


class Hands:
    """A clock the test moves, for the book and the matches alike."""

    def __init__(self) -> None:
        self.at = NOW

    def moment(self) -> datetime:
        return self.at

    def text(self) -> str:
        return iso(self.at)

    def advance(self, **kw: float) -> None:
        self.at += timedelta(**kw)


@pytest.fixture
def hands() -> Hands:
    return Hands()


@pytest.fixture
def book(service: Matches, hands: Hands) -> VacationBook:
    """The book ``build`` wired into the service, on the test's clock."""
    b = book_of(service)
    b.now = hands.moment
    service.now = hands.text
    return b


def refused(book: VacationBook, kind: type[ServiceError], code: str, call: Any) -> ServiceError:
    """``call`` is refused with ``code`` and nothing of the key's vacations changes."""
    before = book.store.read(KEY)
    with pytest.raises(kind) as exc:
        call()
    assert exc.value.code == code, exc.value.message
    assert book.store.read(KEY) == before
    return exc.value


def test_declare_and_list(book: VacationBook) -> None:
    made = book.declare(KEY, "2026-12-24", 3)
    v = made["vacation"]
    assert (v["start"], v["last_day"], v["days"], v["status"]) == ("2026-12-24", "2026-12-26", 3, "upcoming")
    assert (v["starts_at"], v["ends_at"]) == ("2026-12-24T00:00:00.000Z", "2026-12-27T00:00:00.000Z")
    listed = book.listing(KEY)
    assert listed["vacations"] == [v] and listed["allowance"] == 21 and not listed["on_vacation"]
    assert listed["years"] == [{"year": 2026, "taken": 3, "left": 18}]
    assert book.pauses(KEY) == [(datetime(2026, 12, 24, tzinfo=UTC), datetime(2026, 12, 27, tzinfo=UTC))]
    assert book.pauses("another" + "k" * 36) == []
    # today is allowed (whole days: from midnight, which has passed)
    today = book.declare(KEY, "2026-12-01", 1)["vacation"]
    assert today["status"] == "current" and book.listing(KEY)["on_vacation"]


def test_the_allowance_per_calendar_year(book: VacationBook) -> None:
    book.declare(KEY, "2026-12-02", 15)
    err = refused(book, Unprocessable, "vacation-allowance", lambda: book.declare(KEY, "2026-12-20", 7))
    assert err.extra == {"days_left": 6, "year": 2026} and "6 days of 2026 are left" in err.message
    book.declare(KEY, "2026-12-20", 6)  # exactly what is left
    assert book.listing(KEY)["years"] == [{"year": 2026, "taken": 21, "left": 0}]
    err = refused(book, Unprocessable, "vacation-allowance", lambda: book.declare(KEY, "2026-12-31", 1))
    assert err.extra["days_left"] == 0
    # over New Year: each day counts in its own year; 2027 has its own 21
    other = "o" * 43
    book.declare(other, "2026-12-29", 7)
    assert book.listing(other)["years"] == [{"year": 2026, "taken": 3, "left": 18}, {"year": 2027, "taken": 4, "left": 17}]
    assert dict(days_by_year(datetime(2026, 12, 29, tzinfo=UTC), datetime(2027, 1, 5, tzinfo=UTC))) == {2026: 3, 2027: 4}
    # more days than a whole year's allowance at once
    err = refused(book, Unprocessable, "vacation-allowance", lambda: book.declare(KEY, "2027-02-01", 22))
    assert err.extra == {"days_left": 21, "year": 2027}


def test_no_allowance_at_all(book: VacationBook) -> None:
    book.allowance = 0
    err = refused(book, Unprocessable, "vacation-allowance", lambda: book.declare(KEY, "2026-12-02", 1))
    assert "grants no vacation days" in err.message


def test_vacations_never_overlap(book: VacationBook) -> None:
    first = book.declare(KEY, "2026-12-10", 5)["vacation"]  # the 10th to the 14th
    for start, days in (("2026-12-14", 2), ("2026-12-08", 3), ("2026-12-11", 1), ("2026-12-01", 14)):
        err = refused(book, Conflict, "vacation-overlap", lambda s=start, d=days: book.declare(KEY, s, d))
        assert err.extra == {"overlaps": first["id"]} and "2026-12-10 to 2026-12-14" in err.message
    book.declare(KEY, "2026-12-15", 2)  # back to back is fine
    book.declare(KEY, "2026-12-08", 2)
    assert [v["start"] for v in book.listing(KEY)["vacations"]] == ["2026-12-08", "2026-12-10", "2026-12-15"]
    book.declare("o" * 43, "2026-12-10", 5)  # another key's vacations are its own


@pytest.mark.parametrize(("start", "days", "field", "says"), [
    ("2026-13-01", 3, "start", "not a date of the calendar"),
    ("tomorrow", 3, "start", "YYYY-MM-DD"),
    ("2026-12-1", 3, "start", "YYYY-MM-DD"),
    (20261224, 3, "start", "YYYY-MM-DD"),
    ("2028-01-01", 3, "start", "at most 366 days ahead"),
    ("2026-12-24", 0, "days", "1 or more"),
    ("2026-12-24", -2, "days", "1 or more"),
    ("2026-12-24", "3", "days", "whole number"),
    ("2026-12-24", True, "days", "whole number"),
    ("2026-12-24", 2.5, "days", "whole number"),
])
def test_bad_input_is_refused_and_changes_nothing(book: VacationBook, start: Any, days: Any, field: str,
                                                  says: str) -> None:
    book.declare(KEY, "2026-12-02", 2)
    err = refused(book, BadRequest, "bad-vacation", lambda: book.declare(KEY, start, days))
    assert err.extra == {"field": field} and says in err.message


def test_a_vacation_starts_today_or_later_by_the_clock(book: VacationBook, hands: Hands) -> None:
    err = refused(book, Unprocessable, "vacation-in-the-past", lambda: book.declare(KEY, "2026-11-30", 2))
    assert "today (2026-12-01)" in err.message
    hands.advance(days=40)  # by the clock it is now January
    refused(book, Unprocessable, "vacation-in-the-past", lambda: book.declare(KEY, "2026-12-24", 2))
    assert book.declare(KEY, "2027-01-12", 2)["vacation"]["status"] == "upcoming"


def test_cancel_an_upcoming_vacation_gives_all_its_days_back(book: VacationBook) -> None:
    v = book.declare(KEY, "2026-12-24", 5)["vacation"]
    done = book.cancel(KEY, v["id"])
    assert done["vacation"]["status"] == "cancelled" and done["vacation"]["days"] == 0
    assert done["vacations"] == [] and done["years"] == [{"year": 2026, "taken": 0, "left": 21}]
    assert book.pauses(KEY) == []
    refused(book, NotFound, "unknown-vacation", lambda: book.cancel(KEY, v["id"]))  # once


def test_cancel_a_current_vacation_ends_it_now(book: VacationBook, hands: Hands) -> None:
    v = book.declare(KEY, "2026-12-02", 10)["vacation"]
    hands.advance(days=2, hours=3)  # 3 Dec, 13:30: the second day of it
    assert book.listing(KEY)["on_vacation"]
    done = book.cancel(KEY, v["id"])
    assert done["vacation"]["status"] == "ended" and done["vacation"]["days"] == 2  # today stays taken
    assert done["vacation"]["ends_at"] == iso(hands.at) and not done["on_vacation"]
    assert done["years"] == [{"year": 2026, "taken": 2, "left": 19}]
    assert book.pauses(KEY) == [(datetime(2026, 12, 2, tzinfo=UTC), hands.at)]
    hands.advance(minutes=1)
    err = refused(book, Conflict, "vacation-over", lambda: book.cancel(KEY, v["id"]))
    assert "ended on 2026-12-03" in err.message
    refused(book, NotFound, "unknown-vacation", lambda: book.cancel(KEY, "v-no-such"))
    # the rest of the days may be declared again, from tomorrow (today is taken)
    refused(book, Conflict, "vacation-overlap", lambda: book.declare(KEY, "2026-12-03", 1))
    assert book.declare(KEY, "2026-12-04", 19)["years"] == [{"year": 2026, "taken": 21, "left": 0}]


def test_a_vacation_that_is_over_is_kept_for_its_year_then_forgotten(book: VacationBook, hands: Hands) -> None:
    book.declare(KEY, "2026-12-02", 3)
    hands.advance(days=10)
    assert book.listing(KEY)["vacations"][0]["status"] == "over"
    hands.advance(days=450)
    book.declare(KEY, "2028-04-01", 1)  # a write forgets what no clock can reach back to
    assert [v["start"] for v in book.listing(KEY)["vacations"]] == ["2028-04-01"]


def test_vacation_off_ends_the_current_one_or_cancels_the_next(service: Matches, book: VacationBook,
                                                               hands: Hands) -> None:
    refused(book, Conflict, "no-vacation", lambda: vacations.off(service, KEY))
    later = book.declare(KEY, "2026-12-20", 2)["vacation"]
    book.declare(KEY, "2026-12-10", 2)
    hands.advance(days=9, hours=2)  # on the 10th
    assert vacations.off(service, KEY)["vacation"]["status"] == "ended"
    done = vacations.off(service, KEY)
    assert done["vacation"]["id"] == later["id"] and done["vacation"]["status"] == "cancelled"


def test_the_functions_for_other_ways_in(service: Matches, book: VacationBook) -> None:
    """What the mail command calls: ``service.play.clock.vacations.declare(matches, key, start, days)``."""
    made = vacations.declare(service, KEY, "2026-12-24", 2)
    assert vacations.listing(service, KEY)["vacations"] == [made["vacation"]]
    assert vacations.cancel(service, KEY, made["vacation"]["id"])["vacation"]["status"] == "cancelled"
    bare = Matches(store=service.store, server_key=service.server_key)
    with pytest.raises(Unavailable):
        vacations.declare(bare, KEY, "2026-12-24", 2)


def test_two_declarations_at_once_cannot_both_pass(book: VacationBook) -> None:
    """The allowance and overlap checks and the write are one transaction (WATCH): of eight
    threads declaring the same days, exactly one gets them."""
    results: list[str] = []
    barrier = threading.Barrier(8)

    def declare() -> None:
        barrier.wait()
        try:
            book.declare(KEY, "2026-12-10", 15)
            results.append("ok")
        except ServiceError as exc:
            results.append(exc.code)

    threads = [threading.Thread(target=declare) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(results) == ["ok"] + ["vacation-overlap"] * 7
    assert book.listing(KEY)["years"] == [{"year": 2026, "taken": 15, "left": 6}]


def test_a_vacation_pauses_the_clocks_of_every_seat_the_key_holds(service: Matches, book: VacationBook,
                                                                  hands: Hands, players: list[Player]) -> None:
    def started() -> tuple[str, int]:
        made = service.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                              creator_key=CREATOR_KEY, time_control={"kind": "per-move", "days": 2, "weekends": True})
        for seat in (0, 1):
            service.claim(made["id"], seat, made["invites"][str(seat)], players[seat].public_key,
                          players[seat].name, f"p{seat}@example.org")
        return made["id"], service.meta(made["id"]).active[0]

    one, seat = started()
    before = service.clock_status(service.meta(one))[seat].deadline
    assert before == NOW + timedelta(days=2)
    key = players[seat].public_key
    book.declare(key, "2026-12-02", 3)  # the 2nd to the 4th: the clock stops for those three days
    status = service.clock_status(service.meta(one))[seat]
    assert status.deadline == before + timedelta(days=3)
    hands.advance(days=1)
    assert service.clock_status(service.meta(one))[seat].on_vacation
    hands.advance(days=3, hours=1)  # past the old deadline and its grace: still not late
    assert not service.clock_status(service.meta(one))[seat].late
    assert service.timeout(one, seat) is None
    # the other seat's player is not on vacation: their clock is not paused
    other = 1 - seat
    assert service.pauses_of(service.meta(one))(other) == []


def test_a_vacation_ended_early_brings_the_next_wake_forward(service: Matches, book: VacationBook, hands: Hands,
                                                            players: list[Player]) -> None:
    from service.storage.clock import Deadlines

    made = service.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                          creator_key=CREATOR_KEY, time_control={"kind": "per-move", "days": 2},
                          timeout_policy={"grace_hours": 0})
    for seat in (0, 1):
        service.claim(made["id"], seat, made["invites"][str(seat)], players[seat].public_key, players[seat].name,
                      f"p{seat}@example.org")
    mid, seat = made["id"], service.meta(made["id"]).active[0]
    index = Deadlines(service.store.r, service.store.ns)
    taken = book.declare(players[seat].public_key, "2026-12-02", 5)  # build() wired the book to replan
    later = index.when(mid)
    assert later is not None
    book.cancel(players[seat].public_key, taken["vacation"]["id"])
    sooner = index.when(mid)
    assert sooner is not None and sooner < later
    assert sooner <= (NOW + timedelta(days=2)).timestamp()


def test_a_vacation_changes_the_views_etag(client: Any, service: Matches, book: VacationBook, hands: Hands,
                                           players: list[Player]) -> None:
    made = service.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                          creator_key=CREATOR_KEY, time_control={"kind": "per-move", "days": 2})
    for seat in (0, 1):
        service.claim(made["id"], seat, made["invites"][str(seat)], players[seat].public_key, players[seat].name,
                      f"p{seat}@example.org")
    mid, seat = made["id"], service.meta(made["id"]).active[0]
    first = client.get(f"/v1/matches/{mid}")
    assert client.get(f"/v1/matches/{mid}", headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    book.declare(players[seat].public_key, "2026-12-02", 3)
    again = client.get(f"/v1/matches/{mid}", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.headers["ETag"] != first.headers["ETag"]
    moved = {s["seat"]: s["deadline"] for s in again.get_json()["clock"]["seats"]}
    assert moved[seat] != {s["seat"]: s["deadline"] for s in first.get_json()["clock"]["seats"]}[seat]
