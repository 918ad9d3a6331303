"""Redis persistence: the only module that speaks Redis commands.

Every key of a match carries the hash tag of its **bucket**, the first character of its id (one
of 32, see :data:`BUCKETS`), so a match and its bucket's outbox live in one Redis Cluster slot
and one commit can write both:

==============================  =====================================================================
``<ns>m:{b}:<id>:meta``         hash: game, options, status, ply, seats, active seats, chain head, ...
``<ns>m:{b}:<id>:state``        the rules state at the current ply (a cache of replaying the log)
``<ns>m:{b}:<id>:log``          list of accepted entries: signed envelope, receipt, events (the truth),
                                each packed by :mod:`service.storage.log_codec` (about a third of its JSON)
``<ns>m:{b}:<id>:envs``         hash: digest of an accepted envelope -> its ply; only matches from before
                                the codec have one: an envelope names its ply, so a resubmission is
                                found by comparing it with the log entry at that ply
``<ns>m:{b}:<id>:seed``         the secret seed (never served while the match runs)
``<ns>ended:{b}``               sorted set: the bucket's ended matches by end time, until archived
``<ns>outbox:{b}``              stream: what every commit in the bucket announces (docs/architecture.md, "The way out")
``<ns>key:<public key>``        set of ``id:seat`` a key holds (the "my turns" listing)
``<ns>matches``                 sorted set of every match id by creation time
``<ns>quota:{scope}:<name>``    a fixed-window counter (invitations per creator, per recipient)
``<ns>jobs:due`` / ``:spec``    the dispatched jobs not yet done: when to look again, what to run
==============================  =====================================================================

Why buckets and not the match id as the tag: the outbox must be written in the same atomic step
as the move (a committed move can never lose its notices; an uncommitted one never has any), so it
must share the match's slot; and its consumers must be able to find every outbox. A fixed number
of buckets gives both: 32 streams to read, spread over up to 32 slots of a cluster.

A move is committed by one Lua script that checks the ply, stores the state, appends the log
entry, updates the meta and appends the outbox entry at once: either all of it happens or none.
Every commit also publishes a wake-up on :meth:`Store.events_channel` (fire and forget: the log
and the outbox are the truth; listeners re-check now and then for a wake-up they missed).

A match that ended can be **archived** (:meth:`Store.archive`, :mod:`service.storage.archive`):
its meta, state, log, envelope index and seed go to the archive as one document and Redis keeps a
*tombstone*: the meta hash cut down to what listings read, plus ``archived`` (where the document
is) and ``archived_digest`` (its SHA-256). Every read here falls back to the document when the
match's keys are gone, so callers never learn the difference; only a read of an archived match
pays one extra round trip (and a document read, cached for the last few matches).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

import redis

from service.proof import signing
from service.proof.match_record import MatchMeta
from service.storage.archive import Archive, FolderArchive
from service.storage.archived import ArchivedMatches
from service.storage.keys import BUCKETS, OUTBOX_DAYS, bucket_of, decode_meta, encode_meta, epoch_of, lrange
from service.storage.log_codec import pack_entry, unpack_entry
from service.storage.outbox_streams import OutboxStreams
from service.storage.places import Places

_APPLY = """
local cur = redis.call('HGET', KEYS[1], 'ply')
if not cur then return {-1, 0} end
cur = tonumber(cur)
local seen = redis.call('HGET', KEYS[4], ARGV[4])
if seen then return {-3, tonumber(seen)} end
if redis.call('HGET', KEYS[1], 'status') ~= 'active' then return {-2, cur} end
if cur ~= tonumber(ARGV[1]) then return {0, cur} end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[1], 'ply', cur + 1, 'status', ARGV[5], 'active', ARGV[6],
           'head', ARGV[7], 'updated_at', ARGV[8], 'outcome', ARGV[9], 'active_since', ARGV[10])
for field, value in pairs(cjson.decode(ARGV[16])) do redis.call('HSET', KEYS[1], field, value) end
redis.call('XADD', KEYS[5], 'MINID', '~', ARGV[11], '*', 'kind', 'moved', 'match', ARGV[12], 'ply', cur + 1,
           'data', ARGV[13])
redis.call('PUBLISH', ARGV[14], ARGV[15])
if ARGV[5] ~= 'active' then redis.call('ZADD', KEYS[6], ARGV[17], ARGV[12]) end
return {1, cur + 1}
"""

# Take every counter's amount, or none: KEYS are the counters, ARGV (amount, limit, window s)
# per key. Returns {0, 0} when taken, else {index (1-based) of the first full counter, its TTL}.
_TAKE_QUOTA = """
for i, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  if used + tonumber(ARGV[3 * i - 2]) > tonumber(ARGV[3 * i - 1]) then
    local ttl = redis.call('TTL', key)
    if ttl < 1 then ttl = tonumber(ARGV[3 * i]) end
    return {i, ttl}
  end
end
for i, key in ipairs(KEYS) do
  if redis.call('INCRBY', key, ARGV[3 * i - 2]) == tonumber(ARGV[3 * i - 2]) then
    redis.call('EXPIRE', key, ARGV[3 * i])
  end
end
return {0, 0}
"""

# Postpone a promise only if it is still overdue: of several watchdogs, one takes each.
_POSTPONE = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if (not due) or tonumber(due) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""

class Conflict(Exception):
    """A compare-and-set lost: someone else changed the match first."""


Announcement = tuple[str, dict[str, Any]]
"""An outbox entry to append in the same atomic step as a change: its ``kind`` (created, started,
moved, aborted) and its ``data``. A plain tuple, so the use cases need not import this module."""


@dataclass(frozen=True)
class ApplyResult:
    """``status`` is one of "applied", "stale", "duplicate", "not-active", "missing";
    ``ply`` is the new ply when applied, the current ply when stale, the original ply of the
    earlier acceptance when duplicate."""

    status: str
    ply: int


class Store(OutboxStreams, ArchivedMatches):
    """Match persistence over one Redis connection pool, under a key namespace."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:", archive: Archive | None = None,
                 queue_client: redis.Redis | None = None) -> None:
        self.r = client
        self.q = client if queue_client is None else queue_client
        """Where RQ's jobs are (``QUEUE_REDIS_URL``): the promises of jobs live beside them, so that a
        job and its promise are written in one MULTI even when the matches are on a cluster."""
        self.ns = namespace
        self.archive_to: Archive = archive if archive is not None else FolderArchive("var/archive")
        self._docs: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._docs_lock = threading.Lock()
        self._apply = self.r.register_script(_APPLY)
        self._take_quota = self.r.register_script(_TAKE_QUOTA)
        self._postpone = self.q.register_script(_POSTPONE)

    # -- keys ------------------------------------------------------------------------------

    def _k(self, match_id: str, part: str) -> str:
        return f"{self.ns}m:{{{bucket_of(match_id)}}}:{match_id}:{part}"

    def outbox_key(self, bucket: str) -> str:
        """The outbox stream of one bucket."""
        return f"{self.ns}outbox:{{{bucket}}}"

    def outbox_keys(self) -> list[str]:
        """Every outbox stream: what a consumer reads."""
        return [self.outbox_key(b) for b in BUCKETS]

    def matches_key(self, bucket: str) -> str:
        """The sorted set of one bucket's match ids by creation time: one per bucket, so that a
        match's creation is one MULTI in one Cluster slot (its meta, seed, index and outbox entry)."""
        return f"{self.ns}matches:{{{bucket}}}"

    def ended_key(self, bucket: str) -> str:
        """The sorted set of one bucket's ended, not yet archived matches, by end time."""
        return f"{self.ns}ended:{{{bucket}}}"

    def events_channel(self) -> str:
        """The pub/sub channel every commit publishes ``{"match", "ply", "kind"}`` on (a wake-up)."""
        return f"{self.ns}events"

    def key(self, name: str) -> str:
        """A namespaced key outside any match (dedupe marks, the server key)."""
        return f"{self.ns}{name}"

    # -- health ----------------------------------------------------------------------------

    def ping(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    # -- matches ---------------------------------------------------------------------------

    def create(self, meta: MatchMeta, seed: bytes, created: float, announce: Announcement | None = None) -> None:
        """Store a new match's meta and its secret seed (and its outbox entry, in the same MULTI)."""
        mid = meta.id
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self._k(mid, "meta"), mapping=encode_meta(meta.to_dict()))  # type: ignore[arg-type]
        pipe.set(self._k(mid, "seed"), seed.hex())
        pipe.zadd(self.matches_key(bucket_of(mid)), {mid: created})
        wake = None if announce is None else self._announce(pipe, mid, meta.ply, announce)
        pipe.execute()
        self._wake(wake)

    def _announce(self, pipe: Any, match_id: str, ply: int, announce: Announcement) -> str:
        """Queue an outbox entry on a MULTI pipeline; returns its wake-up, which the caller
        publishes once the MULTI is done (:meth:`_wake`)."""
        pipe.xadd(self.outbox_key(bucket_of(match_id)),
                  {"kind": announce[0], "match": match_id, "ply": ply, "data": _json(announce[1])},
                  minid=_outbox_cutoff(), approximate=True)
        return _json({"match": match_id, "ply": ply, "kind": announce[0]})

    def _wake(self, message: str | None) -> None:
        """Publish a wake-up after its commit. Not inside the MULTI: a Redis Cluster refuses
        PUBLISH in a transaction, and a wake-up is only a hint (waiters re-read what they wait
        for), so one lost to a crash right after the commit costs a waiter its timeout, nothing
        more. (The move script publishes from inside: a script may.)"""
        if message is not None:
            self.r.publish(self.events_channel(), message)

    def announce(self, match_id: str, kind: str, data: dict[str, Any]) -> None:
        """Append an outbox entry no commit carries, at the match's current ply (the clock's
        reminders: they change nothing in the match, yet webhooks and streams may carry them)."""
        pipe = self.r.pipeline(transaction=True)
        wake = self._announce(pipe, match_id, self.ply(match_id) or 0, (kind, data))
        pipe.execute()
        self._wake(wake)

    def meta(self, match_id: str) -> MatchMeta | None:
        """The meta of a match, parsed, or None when there is no such match."""
        return self._meta_of(cast(dict[bytes, bytes], self.r.hgetall(self._k(match_id, "meta"))))

    def _whole_meta(self, tombstone: dict[str, Any]) -> MatchMeta:
        """An archived match's meta: the archived one, under what the tombstone holds now."""
        doc = self._document(tombstone["id"], tombstone)
        return MatchMeta.from_dict({**doc["meta"], **tombstone})

    def meta_and_state(self, match_id: str) -> tuple[MatchMeta | None, dict[str, Any] | None]:
        """:meth:`meta` and :meth:`state` in one round trip, read together (MULTI), so both are
        of the same ply: what a move needs when this process does not hold the match."""
        pipe = self.r.pipeline(transaction=True)
        pipe.hgetall(self._k(match_id, "meta"))
        pipe.get(self._k(match_id, "state"))
        raw, state = pipe.execute()
        meta = self._meta_of(raw)
        if state is None and meta is not None and meta.is_archived:
            return meta, self.state(match_id)
        return meta, None if state is None else cast(dict[str, Any], json.loads(cast(bytes, state)))

    def _meta_of(self, raw: dict[bytes, bytes]) -> MatchMeta | None:
        """A meta hash as read, parsed (an archived match's whole meta from its document)."""
        if not raw:
            return None
        meta = decode_meta(raw)
        return self._whole_meta(meta) if "archived" in meta else MatchMeta.from_dict(meta)

    def ply(self, match_id: str) -> int | None:
        raw = self.r.hget(self._k(match_id, "meta"), "ply")
        return None if raw is None else int(cast(bytes, raw))

    def update_meta(self, match_id: str, change: Callable[[MatchMeta], MatchMeta],
                    state: dict[str, Any] | None = None,
                    announce: Callable[[MatchMeta, MatchMeta], Announcement | None] | None = None,
                    ) -> MatchMeta:
        """Read-modify-write of a match's meta under WATCH. ``change`` gets the current meta and
        returns the new one (it may raise to abort); the fields whose stored form differs are
        written. An optional ``state`` blob is written in the same transaction, and so is the
        outbox entry ``announce(before, after)`` returns (None: nothing to announce). Retries on
        a lost race; returns the new meta."""
        key = self._k(match_id, "meta")
        while True:
            with self.r.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]
                    raw = cast(dict[bytes, bytes], pipe.hgetall(key))
                    if not raw:
                        raise KeyError(match_id)
                    stored = decode_meta(raw)
                    current = self._whole_meta(stored) if "archived" in stored else MatchMeta.from_dict(stored)
                    after = change(current)
                    before_form, after_form = current.to_dict(), after.to_dict()
                    # only what changed is written, as the hash holds it (a field is never removed)
                    fields = {k: v for k, v in after_form.items() if k not in before_form or before_form[k] != v}
                    entry = announce(current, after) if announce is not None else None
                    pipe.multi()
                    if fields:  # an empty HSET is an error; nothing new is nothing to write
                        pipe.hset(key, mapping=encode_meta(fields))  # type: ignore[arg-type]
                    if after.ended and not current.ended and not after.is_archived:
                        pipe.zadd(self.ended_key(bucket_of(match_id)), {match_id: epoch_of(after.updated_at)})
                    if state is not None:
                        pipe.set(self._k(match_id, "state"), json.dumps(state, separators=(",", ":")))
                    wake = None if entry is None else self._announce(pipe, match_id, after.ply, entry)
                    pipe.execute()
                    self._wake(wake)
                    return after
                except redis.WatchError:
                    continue

    def set_state(self, match_id: str, blob: dict[str, Any]) -> None:
        self.r.set(self._k(match_id, "state"), json.dumps(blob, separators=(",", ":")))

    def state(self, match_id: str) -> dict[str, Any] | None:
        raw = self.r.get(self._k(match_id, "state"))
        if raw is not None:
            return cast(dict[str, Any], json.loads(cast(bytes, raw)))
        doc = self._archived(match_id)
        return None if doc is None else cast(dict[str, Any] | None, doc["state"])

    def seed(self, match_id: str) -> bytes:
        raw = self.r.get(self._k(match_id, "seed"))
        if raw is None:
            doc = self._archived(match_id)
            if doc is None:
                raise KeyError(match_id)
            return bytes.fromhex(doc["seed"])
        return bytes.fromhex(cast(bytes, raw).decode())

    def match_ids(self, newest_first: bool = False, limit: int = -1) -> list[str]:
        """Every match id by creation time (or the ``limit`` newest), over every bucket (and the
        single index that matches created before the buckets were kept in)."""
        stop = -1 if limit < 0 else limit - 1
        pipe = self.r.pipeline(transaction=False)
        for key in [self.key("matches"), *(self.matches_key(b) for b in BUCKETS)]:
            if newest_first:
                pipe.zrevrange(key, 0, stop, withscores=True)
            else:
                pipe.zrange(key, 0, stop, withscores=True)
        rows = {m.decode(): score for answer in pipe.execute() for m, score in answer}
        ordered = sorted(rows, key=lambda m: (rows[m], m), reverse=newest_first)
        return ordered if limit < 0 else ordered[:limit]

    # -- moves -----------------------------------------------------------------------------

    def apply(self, match_id: str, expected_ply: int, state_blob: dict[str, Any], entry: dict[str, Any],
              envelope_digest: str, status: str, active: list[int], head: str, updated_at: str,
              outcome: dict[str, Any] | None, active_since: dict[str, int],
              announce: Announcement, extra: dict[str, Any] | None = None) -> ApplyResult:
        """Commit one accepted move atomically (check-and-set on the ply), with its outbox entry
        (kind ``moved``) and wake-up. ``extra``: more meta fields the move changes (the match
        clock's ``standing`` and ``clocks``), set in the same script."""
        keys = ([self._k(match_id, p) for p in ("meta", "state", "log", "envs")]
                + [self.outbox_key(bucket_of(match_id)), self.ended_key(bucket_of(match_id))])
        args: list[str | int | bytes] = [
            expected_ply,
            json.dumps(state_blob, separators=(",", ":")),
            pack_entry(entry, match_id),
            envelope_digest,
            status,
            json.dumps(active),
            head,
            updated_at,
            json.dumps(outcome),
            json.dumps(active_since),
            _outbox_cutoff(),
            match_id,
            _json(announce[1]),
            self.events_channel(),
            _json({"match": match_id, "ply": expected_ply + 1, "kind": "moved"}),
            _json(encode_meta(extra or {})),
            repr(epoch_of(updated_at)),
        ]
        code, ply = cast(list[int], self._apply(keys=keys, args=args))
        return ApplyResult({1: "applied", 0: "stale", -1: "missing", -2: "not-active", -3: "duplicate"}[code], ply)

    def accepted_ply(self, match_id: str, envelope_digest: str, ply: int) -> int | None:
        """The ply at which an envelope with this digest was accepted, if it was: an envelope
        names its ``ply``, so it can only have been accepted there (matches from before the log
        codec also keep an index of every digest, still asked)."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hget(self._k(match_id, "envs"), envelope_digest)
        pipe.lindex(self._k(match_id, "log"), ply if ply >= 0 else -(1 << 62))
        indexed, raw = pipe.execute()
        if indexed is not None:
            return int(cast(bytes, indexed))
        if raw is not None:
            entry = unpack_entry(cast(bytes, raw), match_id)
        else:
            doc = self._archived(match_id)
            if doc is None:
                return None
            if envelope_digest in doc.get("envs", {}):
                return int(doc["envs"][envelope_digest])
            entry = doc["log"][ply] if 0 <= ply < len(doc["log"]) else {}
        return ply if "envelope" in entry and signing.digest(entry["envelope"]) == envelope_digest else None

    def log(self, match_id: str, start: int = 0, stop: int = -1) -> list[dict[str, Any]]:
        """Log entries ``start..stop`` (inclusive, Redis list semantics)."""
        raw = cast(list[bytes], self.r.lrange(self._k(match_id, "log"), start, stop))
        if not raw:
            doc = self._archived(match_id)
            return [] if doc is None else lrange(doc["log"], start, stop)
        return [unpack_entry(e, match_id) for e in raw]

    def log_length(self, match_id: str) -> int:
        n = int(self.r.llen(self._k(match_id, "log")))  # type: ignore[arg-type]
        if n == 0:
            doc = self._archived(match_id)
            return 0 if doc is None else len(doc["log"])
        return n

    # -- keys and seats --------------------------------------------------------------------

    def index_seat(self, public_key: str, match_id: str, seat: int) -> None:
        self.r.sadd(self.key(f"key:{public_key}"), f"{match_id}:{seat}")

    def seats_of_key(self, public_key: str) -> list[tuple[str, int]]:
        out = []
        for item in cast(Iterable[bytes], self.r.smembers(self.key(f"key:{public_key}"))):
            mid, _, seat = item.decode().rpartition(":")
            out.append((mid, int(seat)))
        return sorted(out)

    def metas(self, match_ids: list[str], fields: tuple[str, ...]) -> list[MatchMeta | None]:
        """Selected meta fields of many matches in one round trip (None for a match that is not
        there). The fields not selected read as their defaults: a listing reads only what it asked."""
        pipe = self.r.pipeline(transaction=False)
        for mid in match_ids:
            pipe.hmget(self._k(mid, "meta"), list(fields))
        out: list[MatchMeta | None] = []
        for mid, values in zip(match_ids, pipe.execute(), strict=True):
            raw = {f.encode(): v for f, v in zip(fields, values, strict=True) if v is not None}
            out.append(MatchMeta.from_dict({"id": mid, **decode_meta(raw)}) if raw else None)
        return out

    # -- quotas ----------------------------------------------------------------------------

    def take_quota(self, scope: str, counters: list[tuple[str, int, int, int]]) -> tuple[int, int] | None:
        """Add ``amount`` to each counter ``(name, amount, limit, window_s)`` of ``scope``, all
        or none, atomically. A counter starts its window of ``window_s`` seconds at its first
        use (fixed windows). Returns None when taken, else ``(index of the first counter that
        would pass its limit, seconds until it resets)``."""
        if not counters:
            return None
        # one hash tag per scope: the script touches several keys, which must share a Cluster slot
        keys = [self.key(f"quota:{{{scope}}}:{name}") for name, *_ in counters]
        args = [v for _, amount, limit, window in counters for v in (amount, limit, window)]
        index, ttl = cast(list[int], self._take_quota(keys=keys, args=args))
        return None if index == 0 else (index - 1, int(ttl))

    def places(self, name: str) -> Places:
        """The places (or the spend counter) called ``name``, outside any match (service.storage.places)."""
        return Places(self.r, self.key(f"places:{name}"))

    # -- small utilities for workers -------------------------------------------------------

    def marked(self, names: list[str]) -> list[bool]:
        """Which of these one-time marks are taken (one round trip)."""
        pipe = self.r.pipeline(transaction=False)
        for name in names:
            pipe.exists(self.key(name))
        return [bool(n) for n in pipe.execute()]

    def claim_once(self, name: str, ttl: int = 7 * 86400) -> bool:
        """Take a one-time mark (SET NX); False if someone already holds it."""
        return bool(self.r.set(self.key(name), b"1", nx=True, ex=ttl))

    def claim_for(self, name: str, owner: str, ttl: int = 7 * 86400) -> bool:
        """Take a mark for ``owner`` (SET NX with the owner as its value); True when it is now
        ``owner``'s, or already was: the same owner asking again (a retried job, a redelivered
        mail) gets the same answer, anyone else gets False."""
        key = self.key(name)
        if self.r.set(key, owner.encode(), nx=True, ex=ttl):
            return True
        held = cast(bytes | None, self.r.get(key))
        return held is not None and held.decode() == owner

    def spend_request_nonce(self, public_key: str, nonce: str, ttl: int) -> bool:
        """Remember a signed request's (key, nonce) for ``ttl`` seconds (SET NX EX); False when
        it was already used, which makes the request a replay."""
        return bool(self.r.set(self._request_nonce_key(public_key, nonce), b"1", nx=True, ex=ttl))

    def spend_request_nonce_reading_meta(self, public_key: str, nonce: str, ttl: int,
                                         match_id: str) -> tuple[bool, MatchMeta | None]:
        """:meth:`spend_request_nonce` and :meth:`meta` in one round trip (a pipeline, not a
        transaction: the two keys are unrelated): a signed read of a match needs both."""
        pipe = self.r.pipeline(transaction=False)
        pipe.set(self._request_nonce_key(public_key, nonce), b"1", nx=True, ex=ttl)
        pipe.hgetall(self._k(match_id, "meta"))
        fresh, raw = pipe.execute()
        return bool(fresh), self._meta_of(raw)

    def release_request_nonce(self, public_key: str, nonce: str) -> None:
        """Forget a spent (key, nonce), so the identical signed request may be sent again."""
        self.r.delete(self._request_nonce_key(public_key, nonce))

    def _request_nonce_key(self, public_key: str, nonce: str) -> str:
        return self.key("req:" + hashlib.sha256(f"{public_key}:{nonce}".encode()).hexdigest())

    def release(self, name: str) -> None:
        self.r.delete(self.key(name))

    def get_or_create(self, name: str, make: Callable[[], str]) -> str:
        """A namespaced value created once (SET NX), e.g. the server's signing key."""
        key = self.key(name)
        self.r.set(key, make().encode(), nx=True)
        return cast(bytes, self.r.get(key)).decode()



def _outbox_cutoff() -> str:
    """The oldest stream id an append keeps (MINID): OUTBOX_DAYS ago, by this process's clock."""
    return f"{int((time.time() - OUTBOX_DAYS * 86400) * 1000)}-0"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


