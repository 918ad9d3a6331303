"""Redis for presence: which seats have their player live on the match page right now.

=======================================  ==========================================================
``<ns>presence:{<match>}:<seat>``        sorted set: one member per open event stream that proved
                                         the seat's key (a random stream id), scored with the
                                         moment (unix seconds) its presence lapses unless renewed
=======================================  ==========================================================

A stream renews its member while it is open and removes it when it closes; a stream whose API
process was killed leaves its member behind, which lapses by its score (and the whole key by its
TTL), so a dead process never keeps a notice back for longer than one presence TTL. Several
streams of one seat (two tabs) are several members: closing one leaves the seat present. The
scores are by the writer's clock; the API processes and the workers share a host's clock, or NTP
keeps them far closer than a TTL apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import redis


class Presence:
    """The presence records of the seats whose players watch their match live (see the module)."""

    def __init__(self, client: redis.Redis, namespace: str, clock: Callable[[], float] = time.time) -> None:
        self.r = client
        self.ns = namespace
        self.clock = clock

    def _key(self, match_id: str, seat: int) -> str:
        return f"{self.ns}presence:{{{match_id}}}:{seat}"

    def here(self, match_id: str, seat: int, stream: str, ttl_s: float) -> None:
        """Stream ``stream`` of the seat is open: the seat is present for ``ttl_s`` more seconds."""
        key = self._key(match_id, seat)
        now = self.clock()
        pipe = self.r.pipeline(transaction=True)
        pipe.zremrangebyscore(key, "-inf", now)  # lapsed members of streams whose process died
        pipe.zadd(key, {stream: now + ttl_s})
        pipe.expire(key, max(1, int(ttl_s) + 1))
        pipe.execute()

    def gone(self, match_id: str, seat: int, stream: str) -> None:
        """Stream ``stream`` of the seat closed."""
        self.r.zrem(self._key(match_id, seat), stream)

    def live_until(self, match_id: str, seat: int) -> float | None:
        """Until when the seat is present (the latest lapse of its open streams), or None when
        no stream of the seat is open now."""
        rows = self.r.zrevrangebyscore(self._key(match_id, seat), "+inf", f"({self.clock()}", start=0, num=1,
                                       withscores=True)
        return float(rows[0][1]) if rows else None  # type: ignore[index]
