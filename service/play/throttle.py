"""Invitation quotas: how much mail one creator may cause, and one address may receive.

Inviting a seat sends mail to an address the creator names, so creation is a way to make the
server send mail to anyone. Two fixed-window quotas bound it (issue 9): invitations per creator
key per hour, and invitations per recipient address per day. Both are taken at once or not at
all, before anything of the match is stored, so a refused creation stores nothing and sends
nothing. The counters live in Redis through the store (:meth:`Store.take_quota`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from service.play.errors import TooManyRequests

if TYPE_CHECKING:  # injected, as in service.play.context
    from service.storage.store import Store

HOUR_S = 3600
DAY_S = 86400


@dataclass(frozen=True)
class InviteLimits:
    """The operator's quotas (service/config.py); 0 switches one off."""

    per_creator_hour: int = 60
    per_recipient_day: int = 20

    def take(self, store: Store, creator_key: str, emails: Iterable[str]) -> None:
        """Count one invitation per address in ``emails`` against both quotas, or raise
        :class:`TooManyRequests` (code ``invite-throttled``) and count nothing."""
        addresses = [e.strip().lower() for e in emails if e]  # the same mailbox however it is spelled
        if not addresses:
            return
        counters: list[tuple[str, int, int, int]] = []
        if self.per_creator_hour:
            counters.append((f"creator:{creator_key}", len(addresses), self.per_creator_hour, HOUR_S))
        if self.per_recipient_day:
            per_address: dict[str, int] = {}
            for a in addresses:
                per_address[a] = per_address.get(a, 0) + 1
            # a digest, not the address: key names show up in monitoring and dumps
            counters += [(f"recipient:{hashlib.sha256(a.encode()).hexdigest()}", n, self.per_recipient_day, DAY_S)
                         for a, n in per_address.items()]
        refused = store.take_quota("invites", counters)
        if refused is None:
            return
        index, retry_after = refused
        if counters[index][0].startswith("creator:"):
            why = f"this key may send at most {self.per_creator_hour} invitations per hour"
        else:
            why = f"one address may receive at most {self.per_recipient_day} invitations per day"
        raise TooManyRequests("invite-throttled", f"the match was not created and no invitation was sent: {why} "
                              f"(operator quota); try again in {retry_after} s", retry_after)
