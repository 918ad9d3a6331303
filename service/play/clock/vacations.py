"""Vacations: a player key's declared absences, which pause every clock of every seat it holds.

Rules (issue 13, item 3):

- a vacation is whole UTC days, declared ahead: it starts today or later by the service's clock
  (``PORTOLAN_CLOCK``), at most a year ahead, and lasts 1 day or more;
- each key has ``PORTOLAN_VACATION_DAYS`` days (21) per calendar year; a vacation over New Year
  counts its days in the year each falls in, and one that would take a year past its allowance
  is refused (422 ``vacation-allowance``, saying how many days are left);
- vacations of one key never overlap (409 ``vacation-overlap``); back to back is fine;
- an upcoming vacation can be cancelled (all its days come back); a current one ends now (the
  days not yet begun come back; today counts as taken); one that is over stays as it was.

Every refusal is raised before anything is written. :class:`VacationBook` is also the
:class:`service.play.ports.Pauses` port the match clocks read (``pauses(public_key)``).
"""

from __future__ import annotations

import logging
import re
import secrets
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from service.clock import iso, parse_iso
from service.i18n import phrase
from service.play.errors import BadRequest, Conflict, NotFound, ServiceError, Unavailable, Unprocessable

if TYPE_CHECKING:
    from service.play.context import MatchContext

log = logging.getLogger("portolan.vacations")
DAY = timedelta(days=1)
AHEAD_DAYS = 366
"""How far ahead a vacation may start: the allowance is per year, so a year's worth is plenty."""
KEEP_DAYS = 400
"""A vacation over for longer than this is forgotten: no clock still running can reach back to it."""
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class VacationPort(Protocol):
    """Where the vacation documents live (service.storage.vacations.VacationStore)."""

    def read(self, public_key: str) -> dict[str, Any]: ...

    def update(self, public_key: str, change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> dict[str, Any]: ...


class VacationAllowance(Unprocessable):
    title = phrase("Beyond the vacation allowance")


class VacationInThePast(Unprocessable):
    title = phrase("Vacation in the past")


def days_by_year(start: datetime, end: datetime) -> Counter[int]:
    """The UTC calendar days a period ``[start, end)`` touches, counted per year."""
    counts: Counter[int] = Counter()
    day = start.astimezone(UTC).date()
    while datetime.combine(day, time(), UTC) < end:
        counts[day.year] += 1
        day += DAY
    return counts


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(), UTC)


def _parse_start(text: Any) -> date:
    if not isinstance(text, str) or not _DATE.fullmatch(text):
        raise BadRequest("bad-vacation", phrase("start must be a date written YYYY-MM-DD, not {text!r}", text=str(text)[:40]),
                         field="start")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise BadRequest("bad-vacation", phrase("{text} is not a date of the calendar", text=text), field="start") from None


@dataclass
class VacationBook:
    """The vacation use cases over ``store``, by the clock ``now``, with ``allowance`` days a year.
    ``changed`` (optional) is told the key after each change, so the deadlines of its matches can
    be planned again (a vacation moves them)."""

    store: VacationPort
    now: Callable[[], datetime]
    allowance: int = 21
    changed: Callable[[str], None] | None = None

    # -- the Pauses port ---------------------------------------------------------------------

    def pauses(self, public_key: str) -> list[tuple[datetime, datetime]]:
        """Every vacation of the key as (start, end), oldest first: past, current and upcoming
        (a deadline ahead may fall after a vacation not begun yet)."""
        doc = self.store.read(public_key)
        spans = [(parse_iso(p["start"]), parse_iso(p["end"])) for p in doc["periods"]]
        return sorted(s for s in spans if s[1] > s[0])

    # -- reading -----------------------------------------------------------------------------

    def listing(self, public_key: str) -> dict[str, Any]:
        """The key's vacations and, for this year and each year one falls in, the days taken and left."""
        return self._listing(public_key, self.store.read(public_key), self.now())

    def _listing(self, public_key: str, doc: Mapping[str, Any], now: datetime) -> dict[str, Any]:
        taken = {int(y): int(d) for y, d in doc["taken"].items()}
        years = sorted({now.year, *(y for y, d in taken.items() if d and y >= now.year)})
        periods = sorted(doc["periods"], key=lambda p: str(p["start"]))
        shown = [self._shown(p, now) for p in periods]
        return {"public_key": public_key, "allowance": self.allowance, "now": iso(now),
                "on_vacation": any(v["status"] == "current" for v in shown),
                "years": [{"year": y, "taken": taken.get(y, 0), "left": max(0, self.allowance - taken.get(y, 0))}
                          for y in years],
                "vacations": shown}

    @staticmethod
    def _shown(period: Mapping[str, Any], now: datetime) -> dict[str, Any]:
        start, end = parse_iso(period["start"]), parse_iso(period["end"])
        status = "upcoming" if now < start else "current" if now < end else "over"
        last = (end - timedelta(microseconds=1)).date()
        return {"id": period["id"], "start": start.date().isoformat(), "last_day": last.isoformat(),
                "days": sum(days_by_year(start, end).values()), "starts_at": iso(start), "ends_at": iso(end),
                "status": status, "declared_at": period["declared_at"]}

    # -- changing ----------------------------------------------------------------------------

    def declare(self, public_key: str, start: Any, days: Any) -> dict[str, Any]:
        """Declare a vacation of ``days`` whole UTC days from the date ``start`` (``YYYY-MM-DD``).
        Returns the listing with the new vacation as ``vacation``; refuses (nothing written) a
        malformed date or number of days (400 ``bad-vacation``), a start before today (422
        ``vacation-in-the-past``), one past a year's allowance (422 ``vacation-allowance``) and
        one overlapping another (409 ``vacation-overlap``)."""
        first = _parse_start(start)
        if isinstance(days, bool) or not isinstance(days, int) or days < 1:
            raise BadRequest("bad-vacation", phrase("days must be a whole number of days, 1 or more, not {days!r}", days=str(days)[:20]),
                             field="days")
        now = self.now()
        today = now.astimezone(UTC).date()
        if first < today:
            raise VacationInThePast("vacation-in-the-past", f"a vacation is declared ahead: it may start today "
                                    f"({today.isoformat()}) or later, not on {first.isoformat()}", field="start")
        if first > today + timedelta(days=AHEAD_DAYS):
            raise BadRequest("bad-vacation", phrase("a vacation may start at most {ahead} days ahead (by {by_day}), not on {first}", ahead=AHEAD_DAYS, by_day=(today + timedelta(days=AHEAD_DAYS)).isoformat(), first=first.isoformat()),
                             field="start")
        if days > self.allowance:  # also bounds the day counting below
            taken = int(self.store.read(public_key)["taken"].get(str(first.year), 0))
            raise self._beyond(days, first.year, max(0, self.allowance - taken))
        begin, end = _midnight(first), _midnight(first) + days * DAY
        period = {"id": f"v{secrets.token_hex(5)}", "start": iso(begin), "end": iso(end), "declared_at": iso(now)}

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            for other in doc["periods"]:
                if parse_iso(other["start"]) < end and begin < parse_iso(other["end"]):
                    shown = self._shown(other, now)
                    raise Conflict("vacation-overlap", phrase("this vacation ({first}, {days} days) overlaps vacation {other} ({other_start} to {other_end}); vacations of one key may not overlap: cancel that one first or choose other days", first=first.isoformat(), days=days, other=other['id'], other_start=shown['start'], other_end=shown['last_day']),
                                   overlaps=other["id"])
            taken = Counter({int(y): int(d) for y, d in doc["taken"].items()})
            for year, n in sorted(days_by_year(begin, end).items()):
                if taken[year] + n > self.allowance:
                    raise self._beyond(n, year, max(0, self.allowance - taken[year]))
            return self._document([*doc["periods"], period], now)

        doc = self.store.update(public_key, change)
        self._tell(public_key)
        return {**self._listing(public_key, doc, now), "vacation": self._shown(period, now)}

    def _beyond(self, wanted: int, year: int, left: int) -> ServiceError:
        if self.allowance == 0:
            return VacationAllowance("vacation-allowance", "this server grants no vacation days "
                                     "(PORTOLAN_VACATION_DAYS is 0)", days_left=0, year=year)
        return VacationAllowance(
            "vacation-allowance", f"{wanted} vacation day{'s' if wanted != 1 else ''} in {year} would go past the "
            f"allowance of {self.allowance} days a year: {left} day{'s' if left != 1 else ''} of {year} "
            f"{'is' if left == 1 else 'are'} left", days_left=left, year=year)

    def cancel(self, public_key: str, vacation_id: str) -> dict[str, Any]:
        """Cancel an upcoming vacation (all its days come back) or end the current one now (the
        days not begun come back). Returns the listing with the vacation as it now stands as
        ``vacation`` (``status`` ``cancelled`` when it is gone). 404 ``unknown-vacation``, 409
        ``vacation-over`` for one that has ended."""
        now = self.now()
        result: dict[str, Any] = {}

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            found = next((p for p in doc["periods"] if p["id"] == vacation_id), None)
            if found is None:
                raise NotFound("unknown-vacation", phrase("this key has no vacation {vacation_id!r}; see GET /v1/me/vacations (or `portolan vacation list`)", vacation_id=str(vacation_id)[:40]))
            start, end = parse_iso(found["start"]), parse_iso(found["end"])
            if end <= now:
                raise Conflict("vacation-over", phrase("vacation {vacation_id} ended on {last_day}; a vacation that is over cannot be cancelled", vacation_id=vacation_id, last_day=self._shown(found, now)['last_day']))
            rest = [p for p in doc["periods"] if p["id"] != vacation_id]
            if start < now:  # under way: it ends now, and today stays taken
                ended = {**found, "end": iso(now)}
                result.update(self._shown(ended, now), status="ended")
                rest.append(ended)
            else:
                result.update(self._shown(found, now), status="cancelled", days=0)
            return self._document(rest, now)

        doc = self.store.update(public_key, change)
        self._tell(public_key)
        return {**self._listing(public_key, doc, now), "vacation": result}

    def off(self, public_key: str) -> dict[str, Any]:
        """"I am back" (the mail command ``vacation off``): end the current vacation, or when none
        is under way cancel the next upcoming one. 409 ``no-vacation`` when there is neither."""
        now = self.now()
        periods = sorted(self.store.read(public_key)["periods"], key=lambda p: str(p["start"]))
        ahead = [p for p in periods if parse_iso(p["end"]) > now]
        if not ahead:
            raise Conflict("no-vacation", phrase("this key has no current or upcoming vacation to end"))
        return self.cancel(public_key, ahead[0]["id"])

    def _document(self, periods: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
        """The stored document of ``periods``: long-past ones dropped, days per year recounted."""
        keep = [p for p in periods if parse_iso(p["end"]) > now - timedelta(days=KEEP_DAYS)]
        taken: Counter[int] = Counter()
        for p in keep:
            taken.update(days_by_year(parse_iso(p["start"]), parse_iso(p["end"])))
        return {"periods": sorted(keep, key=lambda p: str(p["start"])),
                "taken": {str(y): n for y, n in sorted(taken.items())}}

    def _tell(self, public_key: str) -> None:
        """Let ``changed`` know; its failure must not undo (or fail) what was committed."""
        if self.changed is None:
            return
        try:
            self.changed(public_key)
        except Exception:
            log.exception("vacation of %s changed, but its matches' deadlines could not be planned again now; "
                          "the clock's sweep plans them", public_key)


# -- for the other ways in (mail commands) ------------------------------------------------------


def book_of(ctx: MatchContext) -> VacationBook:
    """The vacation book the service's clocks read (``MatchContext.pauses``, wired by service.runtime.build);
    503 ``vacations-unavailable`` when this service was built without one."""
    book = ctx.pauses
    if not isinstance(book, VacationBook):
        raise Unavailable("vacations-unavailable", phrase("this server keeps no vacations"), retry_after=3600)
    return book


def declare(ctx: MatchContext, public_key: str, start: Any, days: Any) -> dict[str, Any]:
    """Declare a vacation for ``public_key`` (see :meth:`VacationBook.declare`)."""
    return book_of(ctx).declare(public_key, start, days)


def cancel(ctx: MatchContext, public_key: str, vacation_id: str) -> dict[str, Any]:
    """Cancel or end one vacation of ``public_key`` (see :meth:`VacationBook.cancel`)."""
    return book_of(ctx).cancel(public_key, vacation_id)


def off(ctx: MatchContext, public_key: str) -> dict[str, Any]:
    """End the current vacation of ``public_key``, or cancel its next one (see :meth:`VacationBook.off`)."""
    return book_of(ctx).off(public_key)


def listing(ctx: MatchContext, public_key: str) -> dict[str, Any]:
    """The vacations of ``public_key`` and the days left (see :meth:`VacationBook.listing`)."""
    return book_of(ctx).listing(public_key)
