"""Places and budgets in Redis: a bounded set of running things per owner, and a budget spent in steps.

``Places`` is a sorted set of member ids scored with the moment each was taken; a member is
added only while the set holds fewer than its limit, in one Lua script, so two API processes
racing for the last place cannot both get it. What counts as over is the caller's business:
it reads :meth:`Places.held`, frees the members it finds over, then takes
(service.play.throttle.BotLimits). :meth:`Places.spend` keeps a plain counter on its key instead, one
that only grows while it stays within its limit (the same one-script check and add).

Each lives under one key, so each script touches one Redis Cluster slot.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import redis

_TAKE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""

_SPEND = """
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent + tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[1], tonumber(ARGV[2]) + 1, 'EX', ARGV[3])
  return 0
end
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

PLACES_TTL_S = 90 * 86400
"""A set nobody took a place in for this long is dropped (its matches are long over or archived)."""


class Places:
    """The places of one owner (``key``: the full Redis key)."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self.r = client
        self.key = key

    def held(self) -> dict[str, float]:
        """Every member with the moment (epoch seconds) it took its place."""
        pairs = cast(list[tuple[bytes, float]], self.r.zrange(self.key, 0, -1, withscores=True))
        return {member.decode(): score for member, score in pairs}

    def free(self, members: Iterable[str]) -> None:
        """Give back these members' places (a member not holding one is no error)."""
        gone = list(members)
        if gone:
            self.r.zrem(self.key, *gone)

    def take(self, member: str, limit: int, now_s: float) -> bool:
        """Give ``member`` a place if fewer than ``limit`` are held (True also when it holds one)."""
        return bool(self.r.eval(_TAKE, 1, self.key, member, limit, now_s, PLACES_TTL_S))

    def spend(self, amount: int, limit: int, ttl_s: int) -> bool:
        """Count ``amount`` more against ``limit`` on this key (a plain counter, not a set); when that
        would pass the limit, say False and mark the budget spent, so that from then on every spend,
        even of 0, is refused (a smaller amount that would still fit is refused too: spent is spent)."""
        return bool(self.r.eval(_SPEND, 1, self.key, amount, limit, ttl_s))
