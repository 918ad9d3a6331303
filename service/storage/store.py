"""Redis persistence: the only module that speaks Redis commands.

Every key of a match shares the hash tag ``{id}``, so a match lives in one Redis Cluster slot:

=========================  =====================================================================
``<ns>m:{id}:meta``        hash: game, options, status, ply, seats, active seats, chain head, ...
``<ns>m:{id}:state``       the rules state at the current ply (a cache of replaying the log)
``<ns>m:{id}:log``         list of accepted entries: signed envelope, receipt, events (the truth)
``<ns>m:{id}:envs``        hash: digest of an accepted envelope -> its ply (idempotent resubmits)
``<ns>m:{id}:seed``        the secret seed (never served while the match runs)
``<ns>key:<public key>``   set of ``id:seat`` a key holds (the "my turns" listing)
``<ns>matches``            sorted set of every match id by creation time
``<ns>quota:{scope}:<name>``  a fixed-window counter (invitations per creator, per recipient)
=========================  =====================================================================

A move is committed by one Lua script that checks the ply, stores the state, appends the log
entry and updates the meta at once: either all of it happens or none.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

import redis

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
redis.call('HSET', KEYS[4], ARGV[4], cur)
redis.call('HSET', KEYS[1], 'ply', cur + 1, 'status', ARGV[5], 'active', ARGV[6],
           'head', ARGV[7], 'updated_at', ARGV[8], 'outcome', ARGV[9], 'active_since', ARGV[10])
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

META_JSON_FIELDS = ("options", "seats", "active", "outcome", "setup_events", "active_since")


class Conflict(Exception):
    """A compare-and-set lost: someone else changed the match first."""


@dataclass(frozen=True)
class ApplyResult:
    """``status`` is one of "applied", "stale", "duplicate", "not-active", "missing";
    ``ply`` is the new ply when applied, the current ply when stale, the original ply of the
    earlier acceptance when duplicate."""

    status: str
    ply: int


class Store:
    """Match persistence over one Redis connection pool, under a key namespace."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.ns = namespace
        self._apply = self.r.register_script(_APPLY)
        self._take_quota = self.r.register_script(_TAKE_QUOTA)

    # -- keys ------------------------------------------------------------------------------

    def _k(self, match_id: str, part: str) -> str:
        return f"{self.ns}m:{{{match_id}}}:{part}"

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

    def create(self, meta: dict[str, Any], seed: bytes, created: float) -> None:
        """Store a new match's meta and its secret seed."""
        mid = meta["id"]
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(self._k(mid, "meta"), mapping=_encode(meta))  # type: ignore[arg-type]
        pipe.set(self._k(mid, "seed"), seed.hex())
        pipe.zadd(self.key("matches"), {mid: created})
        pipe.execute()

    def meta(self, match_id: str) -> dict[str, Any] | None:
        """The decoded meta of a match, or None when there is no such match."""
        raw = cast(dict[bytes, bytes], self.r.hgetall(self._k(match_id, "meta")))
        return _decode(raw) if raw else None

    def ply(self, match_id: str) -> int | None:
        raw = self.r.hget(self._k(match_id, "meta"), "ply")
        return None if raw is None else int(cast(bytes, raw))

    def update_meta(self, match_id: str, change: Callable[[dict[str, Any]], dict[str, Any]],
                    state: dict[str, Any] | None = None) -> dict[str, Any]:
        """Read-modify-write of a match's meta under WATCH. ``change`` gets the current meta and
        returns the fields to write (it may raise to abort); an optional ``state`` blob is written
        in the same transaction. Retries on a lost race; returns the new meta."""
        key = self._k(match_id, "meta")
        while True:
            with self.r.pipeline() as pipe:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]
                    raw = cast(dict[bytes, bytes], pipe.hgetall(key))
                    if not raw:
                        raise KeyError(match_id)
                    current = _decode(raw)
                    fields = change(current)
                    pipe.multi()
                    pipe.hset(key, mapping=_encode(fields))  # type: ignore[arg-type]
                    if state is not None:
                        pipe.set(self._k(match_id, "state"), json.dumps(state, separators=(",", ":")))
                    pipe.execute()
                    current.update(fields)
                    return current
                except redis.WatchError:
                    continue

    def set_state(self, match_id: str, blob: dict[str, Any]) -> None:
        self.r.set(self._k(match_id, "state"), json.dumps(blob, separators=(",", ":")))

    def state(self, match_id: str) -> dict[str, Any] | None:
        raw = self.r.get(self._k(match_id, "state"))
        return None if raw is None else cast(dict[str, Any], json.loads(cast(bytes, raw)))

    def seed(self, match_id: str) -> bytes:
        raw = self.r.get(self._k(match_id, "seed"))
        if raw is None:
            raise KeyError(match_id)
        return bytes.fromhex(cast(bytes, raw).decode())

    def match_ids(self, newest_first: bool = False, limit: int = -1) -> list[str]:
        """Every match id by creation time (or the ``limit`` newest)."""
        stop = -1 if limit < 0 else limit - 1
        ids = self.r.zrevrange(self.key("matches"), 0, stop) if newest_first else self.r.zrange(self.key("matches"), 0, stop)
        return [m.decode() for m in cast(list[bytes], ids)]

    # -- moves -----------------------------------------------------------------------------

    def apply(self, match_id: str, expected_ply: int, state_blob: dict[str, Any], entry: dict[str, Any],
              envelope_digest: str, status: str, active: list[int], head: str, updated_at: str,
              outcome: dict[str, Any] | None, active_since: dict[str, int]) -> ApplyResult:
        """Commit one accepted move atomically (check-and-set on the ply)."""
        keys = [self._k(match_id, p) for p in ("meta", "state", "log", "envs")]
        args: list[str | int] = [
            expected_ply,
            json.dumps(state_blob, separators=(",", ":")),
            json.dumps(entry, separators=(",", ":")),
            envelope_digest,
            status,
            json.dumps(active),
            head,
            updated_at,
            json.dumps(outcome),
            json.dumps(active_since),
        ]
        code, ply = cast(list[int], self._apply(keys=keys, args=args))
        return ApplyResult({1: "applied", 0: "stale", -1: "missing", -2: "not-active", -3: "duplicate"}[code], ply)

    def accepted_ply(self, match_id: str, envelope_digest: str) -> int | None:
        """The ply at which an envelope with this digest was accepted, if it was."""
        raw = self.r.hget(self._k(match_id, "envs"), envelope_digest)
        return None if raw is None else int(cast(bytes, raw))

    def log(self, match_id: str, start: int = 0, stop: int = -1) -> list[dict[str, Any]]:
        """Log entries ``start..stop`` (inclusive, Redis list semantics)."""
        raw = cast(list[bytes], self.r.lrange(self._k(match_id, "log"), start, stop))
        return [json.loads(e) for e in raw]

    def log_length(self, match_id: str) -> int:
        return int(self.r.llen(self._k(match_id, "log")))  # type: ignore[arg-type]

    # -- keys and seats --------------------------------------------------------------------

    def index_seat(self, public_key: str, match_id: str, seat: int) -> None:
        self.r.sadd(self.key(f"key:{public_key}"), f"{match_id}:{seat}")

    def seats_of_key(self, public_key: str) -> list[tuple[str, int]]:
        out = []
        for item in cast(Iterable[bytes], self.r.smembers(self.key(f"key:{public_key}"))):
            mid, _, seat = item.decode().rpartition(":")
            out.append((mid, int(seat)))
        return sorted(out)

    def metas(self, match_ids: list[str], fields: tuple[str, ...]) -> list[dict[str, Any]]:
        """Selected meta fields of many matches in one round trip."""
        pipe = self.r.pipeline(transaction=False)
        for mid in match_ids:
            pipe.hmget(self._k(mid, "meta"), list(fields))
        out = []
        for values in pipe.execute():
            raw = {f.encode(): v for f, v in zip(fields, values, strict=True) if v is not None}
            out.append(_decode(raw))
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

    def spend_request_nonce(self, public_key: str, nonce: str, ttl: int) -> bool:
        """Remember a signed request's (key, nonce) for ``ttl`` seconds (SET NX EX); False when
        it was already used, which makes the request a replay."""
        return bool(self.r.set(self._request_nonce_key(public_key, nonce), b"1", nx=True, ex=ttl))

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


def _encode(fields: dict[str, Any]) -> dict[str | bytes, str | bytes]:
    out: dict[str | bytes, str | bytes] = {}
    for k, v in fields.items():
        out[k] = json.dumps(v, separators=(",", ":")) if k in META_JSON_FIELDS else str(v)
    return out


def _decode(raw: dict[bytes, bytes]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in raw.items():
        key = k.decode()
        text = v.decode()
        if key in META_JSON_FIELDS:
            out[key] = json.loads(text)
        elif key in ("ply", "players"):
            out[key] = int(text)
        else:
            out[key] = text
    return out
