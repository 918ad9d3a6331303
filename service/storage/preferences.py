"""Per-address notice preferences: every turn (the default), a daily digest, or none.

Kept by normalised email address, because that is what a notice goes to and what a mail
command (``stop notices``) can prove. The key holds a digest of the address, not the address:
key names show up in monitoring and dumps.
"""

from __future__ import annotations

import hashlib
from typing import Literal

import redis

Preference = Literal["every", "digest", "off"]
PREFERENCES: tuple[Preference, ...] = ("every", "digest", "off")
DEFAULT: Preference = "every"


def address_digest(email: str) -> str:
    """The digest an address is kept under (the same mailbox however its case is spelled)."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


class NoticePreferences:
    """Read and set one address's preference (Redis hash ``<ns>notices:pref``)."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.key = f"{namespace}notices:pref"

    def get(self, email: str) -> Preference:
        """The address's preference, :data:`DEFAULT` when it never set one."""
        raw = self.r.hget(self.key, address_digest(email))
        value = raw.decode() if isinstance(raw, bytes) else raw
        return value if value in PREFERENCES else DEFAULT

    def set(self, email: str, preference: Preference) -> None:
        """Set it (ValueError for anything but every, digest, off)."""
        if preference not in PREFERENCES:
            raise ValueError(f"a notice preference is one of {', '.join(PREFERENCES)}, not {preference!r}")
        self.r.hset(self.key, address_digest(email), preference)
