"""Per-address notice preferences (every turn, the default; a daily digest; none), each
address's mail language (issue 29), and the seats a digest is to list.

Kept by normalised email address, because that is what a notice goes to and what a mail
command (``stop notices``) can prove. The key holds a digest of the address, not the address:
key names show up in monitoring and dumps.
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

import redis

from service.i18n import DEFAULT as DEFAULT_LANGUAGE
from service.i18n import codes

Preference = Literal["every", "digest", "off"]
PREFERENCES: tuple[Preference, ...] = ("every", "digest", "off")
DEFAULT: Preference = "every"


def address_digest(email: str) -> str:
    """The digest an address is kept under (the same mailbox however its case is spelled)."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


class NoticePreferences:
    """Read and set one address's preference (Redis hash ``<ns>notices:pref``) and its mail language.

    The language is kept twice over: the one the address chose (a reply ``nyelv magyar``, the API,
    the CLI: hash ``<ns>notices:lang``) and the one its latest invitation was written in (the
    creator's language: ``<ns>notices:lang-invited``), which holds only until the address chooses
    (:meth:`language`)."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.key = f"{namespace}notices:pref"
        self.language_key = f"{namespace}notices:lang"
        self.invited_key = f"{namespace}notices:lang-invited"

    def get(self, email: str) -> Preference:
        """The address's preference, :data:`DEFAULT` when it never set one."""
        raw = self.r.hget(self.key, address_digest(email))
        value = raw.decode() if isinstance(raw, bytes) else raw
        return value if value in PREFERENCES else DEFAULT

    def set(self, email: str, preference: Preference) -> None:
        """Set it (ValueError for anything but every, digest, off)."""
        self.set_digest(address_digest(email), preference)

    def set_digest(self, digest: str, preference: Preference) -> None:
        """Set the preference of the address kept under ``digest`` (:func:`address_digest`), for a
        caller that holds the digest and not the address: a one-click unsubscribe token names only
        the digest (service.delivery.unsubscribe)."""
        if preference not in PREFERENCES:
            raise ValueError(f"a notice preference is one of {', '.join(PREFERENCES)}, not {preference!r}")
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ValueError(f"an address digest is 64 lower-case hex digits, not {digest!r}")
        self.r.hset(self.key, digest, preference)

    def chosen_language(self, email: str) -> str | None:
        """The language code the address chose itself, ``None`` when it never chose."""
        raw = self.r.hget(self.language_key, address_digest(email))
        value = raw.decode() if isinstance(raw, bytes) else raw
        return value if value in codes() else None

    def language(self, email: str) -> str:
        """The language the address's mail is written in: its own choice, else the language of
        its latest invitation, else English (:data:`service.i18n.DEFAULT`)."""
        digest = address_digest(email)
        for key in (self.language_key, self.invited_key):
            raw = self.r.hget(key, digest)
            value = raw.decode() if isinstance(raw, bytes) else raw
            if value in codes():
                return str(value)
        return DEFAULT_LANGUAGE

    def set_language(self, email: str, language: str) -> None:
        """The address chooses ``language`` (a code of :func:`service.i18n.codes`; ValueError else)."""
        if language not in codes():
            raise ValueError(f"a mail language is one of {', '.join(codes())}, not {language!r}")
        self.r.hset(self.language_key, address_digest(email), language)

    def invited_in(self, email: str, language: str) -> None:
        """The address was invited in ``language`` (the creator's): its mail is written in that
        language until it chooses one (a later invitation in another language wins over an earlier)."""
        if language in codes():
            self.r.hset(self.invited_key, address_digest(email), language)


class DigestBook:
    """What the daily digest is to list: the seats waiting for each address that chose ``digest``.

    A turn notice for such an address is not sent; the job records the seat here instead
    (:meth:`remember`), and the day's digest job reads the address's seats back, lists those
    still waiting and forgets the rest. Redis: a set of the address digests with something to
    list (``<ns>notices:{digest}:due``) and one hash per address (``<ns>notices:{digest}:<addr
    digest>``, fields ``<match>:<seat>`` = when the turn began, plus ``@to`` = the address
    itself, which the key name does not show). The hash tag ``{digest}`` keeps them in one Redis
    Cluster slot: a note and its due mark are written in one transaction."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.prefix = f"{namespace}notices:{{digest}}:"
        self.due = f"{self.prefix}due"

    def remember(self, email: str, match_id: str, seat: int, since: str) -> None:
        """Note that ``seat`` of ``match_id`` has waited for ``email`` since ``since`` (ISO time);
        a seat already noted keeps its first time (the turn began then)."""
        digest = address_digest(email)
        key = self.prefix + digest
        with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(key, "@to", email.strip())
            pipe.hsetnx(key, f"{match_id}:{seat}", since)
            pipe.sadd(self.due, digest)
            pipe.execute()

    def addresses(self) -> list[str]:
        """The digests of every address with seats noted."""
        return sorted(d.decode() if isinstance(d, bytes) else str(d) for d in self.r.smembers(self.due))

    def seats(self, digest: str) -> tuple[str, list[tuple[str, int, str]]]:
        """The address kept under ``digest`` and its noted seats: (match, seat, since), oldest first."""
        raw = self.r.hgetall(self.prefix + digest)
        rows = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                for k, v in raw.items()}
        to = rows.pop("@to", "")
        seats = []
        for field, since in rows.items():
            match_id, _, seat = field.rpartition(":")
            if match_id and seat.isdigit():
                seats.append((match_id, int(seat), since))
        return to, sorted(seats, key=lambda s: (s[2], s[0], s[1]))

    def forget(self, digest: str, seats: list[tuple[str, int]]) -> None:
        """Drop seats that no longer wait; an address left with none leaves the due set."""
        key = self.prefix + digest
        if seats:
            self.r.hdel(key, *[f"{m}:{s}" for m, s in seats])
        # one script, so a seat remembered meanwhile is never dropped with the emptied hash
        self.r.eval(_DROP_IF_EMPTY, 2, key, self.due, digest)


_DROP_IF_EMPTY = """
if redis.call('HLEN', KEYS[1]) <= 1 then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[1])
end
return 0
"""
