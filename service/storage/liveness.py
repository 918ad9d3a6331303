"""Which worker processes are alive, and the mails' sending leases they hold (issue 28, item 9).

A worker beats ``<ns>alive:<worker name>`` with a short time to live (``PORTOLAN_WORKER_ALIVE_S``)
on the queues' Redis, beside RQ's own records of it; a worker killed with SIGKILL stops beating,
and its key is gone that many seconds later. A mail's "sending" lease holds the name of the worker
that sends it, so a job that finds the lease held asks whether its holder still beats: a dead
holder's lease is taken over at once instead of waiting out its time to live (the job timeout).
The watchdog asks the same question of every job RQ lists as started (service.delivery.watchdog).
"""

from __future__ import annotations

from typing import Any, cast

import redis

# Take a lease over from the holder we saw (compare and set): of several takers, one wins.
_TAKE_OVER = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""

# Give a lease back only if it is still ours (a taker may hold it by now).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Liveness:
    """Worker heartbeats (on the queues' Redis ``q``) and owned leases (on the matches' ``r``)."""

    def __init__(self, r: redis.Redis, q: redis.Redis, namespace: str) -> None:
        self.r = r
        self.q = q
        self.ns = namespace
        self._take_over: Any = r.register_script(_TAKE_OVER)
        self._release: Any = r.register_script(_RELEASE)

    def _alive_key(self, worker: str) -> str:
        return f"{self.ns}alive:{worker}"

    def beat(self, worker: str, ttl_s: float) -> None:
        """``worker`` is alive for ``ttl_s`` more seconds."""
        self.q.set(self._alive_key(worker), b"1", px=max(1, int(ttl_s * 1000)))

    def gone(self, worker: str) -> None:
        """``worker`` stopped in order: it is dead from now on."""
        self.q.delete(self._alive_key(worker))

    def alive(self, workers: list[str]) -> list[bool]:
        """Which of ``workers`` beat within their time to live (one round trip)."""
        if not workers:
            return []
        pipe = self.q.pipeline(transaction=False)
        for worker in workers:
            pipe.exists(self._alive_key(worker))
        return [bool(n) for n in pipe.execute()]

    def take_lease(self, name: str, owner: str, ttl_s: int) -> str | None:
        """Take the lease ``name`` for ``owner`` (SET NX EX): None when it is now ``owner``'s, else
        who holds it ("" for a lease of an older version, which named nobody)."""
        key = f"{self.ns}{name}"
        for _ in range(3):  # the holder may give it back between our SET and our GET
            if self.r.set(key, owner.encode(), nx=True, ex=ttl_s):
                return None
            held = cast(bytes | None, self.r.get(key))
            if held is not None:
                return "" if held == b"1" else held.decode()
        return None if self.r.set(key, owner.encode(), nx=True, ex=ttl_s) else ""

    def take_over(self, name: str, holder: str, owner: str, ttl_s: int) -> bool:
        """Take the lease ``name`` from ``holder`` (whom the caller found dead) for ``owner``;
        False when someone else took or released it meanwhile."""
        seen = "1" if holder == "" else holder
        return bool(self._take_over(keys=[f"{self.ns}{name}"], args=[seen, owner, ttl_s]))

    def release(self, name: str, owner: str) -> None:
        """Give the lease ``name`` back if ``owner`` still holds it."""
        self._release(keys=[f"{self.ns}{name}"], args=[owner])
