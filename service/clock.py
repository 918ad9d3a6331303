"""One clock for every process (``PORTOLAN_CLOCK``).

Every deadline, reminder and receipt time (``accepted_at``) is read from one source, so the API,
the workers and the scheduler agree on what time it is:

``system`` (the default)
    the machine's clock.
``file:PATH``
    the machine's clock plus an offset in seconds kept in the file ``PATH`` (a missing file is
    an offset of 0). ``portolan clock advance 25h`` grows the offset, and every process that names
    the same file sees the new time at its next reading. Tests and ``portolan dev`` use it to
    move a match past a deadline without waiting.

Time only moves forward: an offset never shrinks (a deadline that passed stays passed, and a
receipt is never older than the one before it). Signed requests are *not* judged by this clock:
their freshness window is about the signer's wall clock (service.api.auth), which an offset
would only break.

This module sits beside ``config.py`` at the root, below everything that reads the time.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SYSTEM = "system"


class ClockError(ValueError):
    """A clock that cannot be used as named (a bad ``PORTOLAN_CLOCK``, a backward move)."""


@dataclass(frozen=True)
class Clock:
    """The time source of one process: the system clock, or it plus the offset in ``path``."""

    path: str | None = None

    @classmethod
    def named(cls, spec: str | None) -> Clock:
        """The clock ``PORTOLAN_CLOCK`` names (``system``, or ``file:PATH``); ClockError otherwise."""
        spec = (spec or SYSTEM).strip()
        if spec == SYSTEM:
            return cls(None)
        if spec.startswith("file:") and spec[5:].strip():
            return cls(spec[5:].strip())
        raise ClockError(f"PORTOLAN_CLOCK must be 'system' or 'file:PATH', not {spec!r}")

    @property
    def movable(self) -> bool:
        """Can ``portolan clock advance`` move this clock? Only a file clock can."""
        return self.path is not None

    def offset(self) -> float:
        """Seconds this clock is ahead of the system clock (0 for the system clock)."""
        if self.path is None:
            return 0.0
        try:
            text = Path(self.path).read_text().strip()
        except FileNotFoundError:
            return 0.0
        try:
            return max(0.0, float(text or 0))
        except ValueError as exc:
            raise ClockError(f"the clock file {self.path} holds {text[:40]!r}, not a number of seconds") from exc

    def timestamp(self) -> float:
        """Seconds since the epoch by this clock."""
        return time.time() + self.offset()

    def now(self) -> datetime:
        """The time by this clock, as an aware UTC datetime."""
        return datetime.fromtimestamp(self.timestamp(), UTC)

    def iso(self) -> str:
        """The time by this clock as the service writes it (``2026-12-01T22:32:12.345Z``)."""
        return iso(self.now())

    def to_system(self, when: datetime) -> datetime:
        """The system-clock moment at which this clock will show ``when``: what RQ's scheduler,
        which knows only the system clock, is given for a job due at ``when`` by this clock."""
        return datetime.fromtimestamp(when.timestamp() - self.offset(), UTC)

    def advance(self, seconds: float) -> float:
        """Move a file clock forward by ``seconds`` (> 0); returns the new offset. The file is
        replaced atomically, so a process reading it meanwhile sees the old or the new offset."""
        if self.path is None:
            raise ClockError("the system clock cannot be moved: set PORTOLAN_CLOCK=file:PATH (tests and "
                             "`portolan dev` only) to use a clock that can")
        if not seconds > 0:
            raise ClockError("time only moves forward: advance by a positive duration such as 25h or 3d")
        new = self.offset() + seconds
        path = Path(self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(f"{new:.3f}\n")
        os.replace(tmp, path)
        return new


def iso(when: datetime) -> str:
    """A datetime as the service writes times: UTC, milliseconds, ``Z``."""
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    """The datetime of a time the service wrote (or any ISO 8601 time with a zone)."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])", re.IGNORECASE)
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``25h``, ``3d``, ``1d12h``, ``90m`` or ``45s``."""
    compact = text.strip().replace(" ", "")
    parts = _DURATION.findall(compact)
    if not compact or "".join(f"{n}{u}" for n, u in parts).lower() != compact.lower():
        raise ClockError(f"{text!r} is not a duration: write e.g. 25h, 3d, 1d12h, 90m or 45s")
    return sum(float(n) * _UNIT[u.lower()] for n, u in parts)
