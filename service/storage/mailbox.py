"""Received mail's bookkeeping in Redis: each message dealt with at most once, refusals counted.

==================================  ============================================================
``<ns>mail:lease:<identity>``       the processing lease of one message (SET NX EX, minutes)
``<ns>mail:done:<identity>``        the message was dealt with (kept for days: an MTA retries a
                                    message for up to about five days)
``<ns>mail:limits:...<digest>``     refusal answers sent to one sender in the current window
                                    (the ``limits`` library's fixed window)
``<ns>mail:limits:...same-text...`` answers sent to one sender for one text about one turn in
                                    the current day (issue 28: no mail loops)
==================================  ============================================================

The sender is kept as a digest of the address, like the notice preferences: key names show up
in monitoring and dumps.
"""

from __future__ import annotations

from typing import Literal

import redis
from limits import RateLimitItemPerSecond
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from service.storage.counters import limits_storage
from service.storage.preferences import address_digest


class Mailbox:
    """The desk's :class:`service.play.mail.ports.MailboxPort` over Redis."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.ns = namespace
        uri, options = limits_storage(client, f"{namespace}mail:limits")
        self._limiter = FixedWindowRateLimiter(storage_from_string(uri, **options))

    def _key(self, part: str) -> str:
        return f"{self.ns}mail:{part}"

    def begin(self, identity: str, lease_s: int) -> Literal["new", "busy", "done"]:
        """Take the processing lease of a message never dealt with."""
        if self.r.exists(self._key(f"done:{identity}")):
            return "done"
        if not self.r.set(self._key(f"lease:{identity}"), b"1", nx=True, ex=max(1, lease_s)):
            return "busy"
        # the last lease holder may have marked it done just before we took the lease
        if self.r.exists(self._key(f"done:{identity}")):
            self.r.delete(self._key(f"lease:{identity}"))
            return "done"
        return "new"

    def finish(self, identity: str, keep_s: int) -> None:
        """Mark the message dealt with for ``keep_s`` seconds, then drop the lease."""
        # one after the other, not in one transaction (the two keys may be in different Cluster
        # slots): a crash between the two leaves a lease that runs out, and the mark already says done
        self.r.set(self._key(f"done:{identity}"), b"1", ex=max(1, keep_s))
        self.r.delete(self._key(f"lease:{identity}"))

    def abandon(self, identity: str) -> None:
        """Drop the lease: the message was not dealt with, its redelivery will be."""
        self.r.delete(self._key(f"lease:{identity}"))

    def take_refusal(self, sender: str, limit: int, window_s: int) -> bool:
        """Count one refusal to ``sender`` in a fixed window of ``window_s`` seconds (the
        ``limits`` library's fixed-window limiter on this Redis); False once ``limit`` were counted."""
        item = RateLimitItemPerSecond(max(0, limit), max(1, window_s))
        return bool(self._limiter.hit(item, "refusals", address_digest(sender)))

    def take_answer(self, sender: str, text_key: str, limit: int, window_s: int) -> bool:
        """Count one answer to ``sender`` for the same text (``text_key``, a digest the desk
        makes of the normalised text and the turn it answers) in a fixed window of ``window_s``
        seconds; False once ``limit`` were counted."""
        item = RateLimitItemPerSecond(max(0, limit), max(1, window_s))
        return bool(self._limiter.hit(item, "same-text", address_digest(sender), text_key))
