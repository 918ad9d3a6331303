"""The clock's deadline index: when each timed match must next be looked at, as data in Redis.

One sorted set per namespace, ``<ns>clock:{wakes}``: match id -> the next wake, in epoch seconds
by the service clock (``PORTOLAN_CLOCK``, not the system clock: a file clock moved forward makes
every entry it passed due at once). The RQ job scheduled for each wake is the fast path; this
index is what survives the loss of every process and every queue: the worker's tick
(workers.clock.tick) wakes every match whose entry is due, so a deadline is never only a timer in
memory. The key has a hash tag of its own (one key, one slot), like the other keys outside a match.
"""

from __future__ import annotations

from typing import cast

import redis


class Deadlines:
    """The next wake of every timed match that still has one."""

    def __init__(self, client: redis.Redis, namespace: str) -> None:
        self.r = client
        self.key = f"{namespace}clock:{{wakes}}"

    def set(self, match_id: str, when: float) -> None:
        """The match's next wake is ``when`` (epoch seconds by the service clock)."""
        self.r.zadd(self.key, {match_id: when})

    def drop(self, match_id: str) -> None:
        """The match has no wake any more (it is over, or its clocks do not run)."""
        self.r.zrem(self.key, match_id)

    def when(self, match_id: str) -> float | None:
        """The match's next wake, or None."""
        score = self.r.zscore(self.key, match_id)
        return None if score is None else float(score)

    def due(self, now: float, limit: int = 1000) -> list[str]:
        """Matches whose wake is at ``now`` or before, the most overdue first."""
        ids = cast(list[bytes], self.r.zrangebyscore(self.key, "-inf", now, 0, limit))
        return [i.decode() for i in ids]

    def count(self) -> int:
        """How many matches have a wake."""
        return int(self.r.zcard(self.key))  # type: ignore[arg-type]
