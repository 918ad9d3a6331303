"""Dates, times and durations in the reader's language (Babel's CLDR data).

"3 days 4 hours" is "3 nap 4 óra"; a deadline reads "Dec 5, 2026 4:40 PM UTC" or
"2026. dec. 5. 16:40 UTC". Times are shown in UTC unless a reader's zone is known: the service keeps
no time zone per player yet.
"""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date, format_time
from babel.units import format_unit

__all__ = ["duration", "moment"]

_UNITS = (("duration-day", 86400), ("duration-hour", 3600), ("duration-minute", 60), ("duration-second", 1))


def duration(seconds: float, language: str, *, parts: int = 2) -> str:
    """A length of time in words, its ``parts`` largest units: ``duration(273600, "hu")`` is "3 nap 4 óra".

    Below a second it is "0 seconds" in the language; negative lengths read as their size."""
    left = int(abs(seconds))
    words: list[str] = []
    for unit, size in _UNITS:
        amount, left = divmod(left, size)
        if amount and len(words) < parts:
            words.append(format_unit(amount, unit, length="long", locale=language))
        elif words:
            # parts are consecutive: "1 day 4 minutes" would hide the hours; stop at the first gap
            break
    return " ".join(words) or format_unit(0, "duration-second", length="long", locale=language)


def moment(when: dt.datetime | float, language: str) -> str:
    """A point in time as the reader writes dates and times, in UTC and saying so."""
    if not isinstance(when, dt.datetime):
        when = dt.datetime.fromtimestamp(when, dt.UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    when = when.astimezone(dt.UTC)
    day = format_date(when, "medium", locale=language)
    return f"{day} {format_time(when, 'short', tzinfo=dt.UTC, locale=language)} UTC"
