"""Received mail's bookkeeping in Redis: each message dealt with at most once, refusals counted.

==================================  ============================================================
``<ns>mail:lease:<identity>``       the processing lease of one message (SET NX EX, minutes)
``<ns>mail:done:<identity>``        the message was dealt with (kept for days: an MTA retries a
                                    message for up to about five days)
``<ns>mail:refusals:<digest>``      refusal answers sent to one sender in the current window
==================================  ============================================================

The sender is kept as a digest of the address, like the notice preferences: key names show up
in monitoring and dumps.
"""

from __future__ import annotations

from typing import Literal

import redis

from service.storage.preferences import address_digest


class Mailbox:
    """The desk's :class:`service.play.by_mail_ports.MailboxPort` over Redis."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.ns = namespace

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
        with self.r.pipeline() as pipe:
            pipe.set(self._key(f"done:{identity}"), b"1", ex=max(1, keep_s))
            pipe.delete(self._key(f"lease:{identity}"))
            pipe.execute()

    def abandon(self, identity: str) -> None:
        """Drop the lease: the message was not dealt with, its redelivery will be."""
        self.r.delete(self._key(f"lease:{identity}"))

    def take_refusal(self, sender: str, limit: int, window_s: int) -> bool:
        """Count one refusal to ``sender`` in a fixed window of ``window_s`` seconds (its first
        refusal opens it); False, counting nothing, once ``limit`` were counted."""
        key = self._key(f"refusals:{address_digest(sender)}")
        with self.r.pipeline() as pipe:  # MULTI: the window opens with its first count, never without a TTL
            pipe.set(key, 0, nx=True, ex=max(1, window_s))
            pipe.incr(key)
            _, count = pipe.execute()
        if int(count) > limit:
            self.r.decr(key)  # a refusal not sent is not counted: the window closes on time
            return False
        return True
