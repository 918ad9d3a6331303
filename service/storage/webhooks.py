"""Redis persistence of webhooks: the hooks of each owner, their delivery logs, their failures.

An owner is a player's public key (``k:<key>``: all the matches that key holds seats in) or a
match (``m:<id>``: set by its creator). All of an owner's keys share the hash tag ``{owner}``, so
one owner's hooks live in one Redis Cluster slot and the scripts below touch one slot:

===================================  ==============================================================
``<ns>hooks:{owner}``                hash: hook id -> the hook as JSON (url, created_at, disabled, ...)
``<ns>hooks:{owner}:fails``          hash: hook id -> consecutive failed attempts (0 after a success)
``<ns>hooks:{owner}:log:<hook id>``  list: the newest delivery attempts first, at most ``LOG_SIZE``
===================================  ==============================================================
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

import redis

LOG_SIZE = 50

# KEYS: the owner's hooks hash. ARGV: hook id, hook JSON, the most hooks one owner may have.
# Returns 1 when stored, 0 when the owner already has the most hooks.
_ADD = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

# One attempt, recorded at once: the log entry (trimmed), the consecutive failure count, and the
# switch-off when the count reaches the threshold. KEYS: hooks hash, fails hash, the hook's log.
# ARGV: hook id, attempt JSON, 1 for a success / 0 for a failure, threshold, disabled_at, reason,
# log size, 1 when a success switches a disabled hook back on (a ping that got through). Returns {failures, 1 if this attempt disabled the hook else 0}; {-1, 0} when the hook is gone.
_ATTEMPT = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return {-1, 0} end
redis.call('LPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[7]) - 1)
local hook = cjson.decode(raw)
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[2], ARGV[1], 0)
  if ARGV[8] == '1' and hook['disabled'] then
    hook['disabled'] = false
    hook['disabled_at'] = cjson.null
    hook['disabled_reason'] = cjson.null
    redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hook))
  end
  return {0, 0}
end
local fails = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
if fails >= tonumber(ARGV[4]) and not hook['disabled'] then
  hook['disabled'] = true
  hook['disabled_at'] = ARGV[5]
  hook['disabled_reason'] = ARGV[6]
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hook))
  return {fails, 1}
end
return {fails, 0}
"""


@dataclass(frozen=True)
class Attempt:
    """What one recorded delivery attempt left: the consecutive failure count after it, and
    whether it was the attempt that switched the hook off."""

    failures: int
    disabled_now: bool


class WebhookStore:
    """The webhooks of every owner over one Redis connection pool, under a key namespace."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.ns = namespace
        self._add = self.r.register_script(_ADD)
        self._attempt = self.r.register_script(_ATTEMPT)

    def _k(self, owner: str, part: str = "") -> str:
        return f"{self.ns}hooks:{{{owner}}}{part}"

    def add(self, owner: str, hook: dict[str, Any], limit: int) -> bool:
        """Store ``hook`` (its ``id`` is the field) unless ``owner`` has ``limit`` hooks already."""
        return bool(self._add(keys=[self._k(owner)], args=[hook["id"], json.dumps(hook, separators=(",", ":")), limit]))

    def get(self, owner: str, hook_id: str) -> dict[str, Any] | None:
        """One hook with its current failure count, or None."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hget(self._k(owner), hook_id)
        pipe.hget(self._k(owner, ":fails"), hook_id)
        raw, fails = pipe.execute()
        if raw is None:
            return None
        hook = cast(dict[str, Any], json.loads(raw))
        hook["failures"] = int(fails or 0)
        return hook

    def all(self, owner: str) -> list[dict[str, Any]]:
        """Every hook of ``owner`` with its failure count, oldest first."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hgetall(self._k(owner))
        pipe.hgetall(self._k(owner, ":fails"))
        raw, fails = cast(tuple[dict[bytes, bytes], dict[bytes, bytes]], pipe.execute())
        hooks = []
        for hook_id, blob in raw.items():
            hook = cast(dict[str, Any], json.loads(blob))
            hook["failures"] = int(fails.get(hook_id, b"0"))
            hooks.append(hook)
        return sorted(hooks, key=lambda h: (h["created_at"], h["id"]))

    def owners_with_hooks(self, owners: list[str]) -> set[str]:
        """Which of ``owners`` have at least one hook (one round trip)."""
        pipe = self.r.pipeline(transaction=False)
        for owner in owners:
            pipe.hlen(self._k(owner))
        return {owner for owner, n in zip(owners, pipe.execute(), strict=True) if n}

    def remove(self, owner: str, hook_id: str) -> bool:
        """Delete a hook, its failure count and its log; False when there was no such hook."""
        pipe = self.r.pipeline(transaction=True)
        pipe.hdel(self._k(owner), hook_id)
        pipe.hdel(self._k(owner, ":fails"), hook_id)
        pipe.delete(self._k(owner, f":log:{hook_id}"))
        return bool(pipe.execute()[0])

    def record(self, owner: str, hook_id: str, attempt: dict[str, Any], ok: bool, disable_after: int,
               now: str, reason: str, reenable: bool = False) -> Attempt | None:
        """Log one attempt; on a failure count it, and switch the hook off at ``disable_after``
        consecutive failures (with ``reason``); a success with ``reenable`` switches a disabled hook
        back on. None when the hook was removed meanwhile."""
        keys = [self._k(owner), self._k(owner, ":fails"), self._k(owner, f":log:{hook_id}")]
        args: list[str | int] = [hook_id, json.dumps(attempt, separators=(",", ":")), int(ok), max(1, disable_after),
                                 now, reason, LOG_SIZE, int(reenable)]
        fails, disabled = cast(list[int], self._attempt(keys=keys, args=args))
        return None if fails < 0 else Attempt(int(fails), bool(disabled))

    def deliveries(self, owner: str, hook_id: str) -> list[dict[str, Any]]:
        """The hook's last attempts, newest first."""
        raw = cast(list[bytes], self.r.lrange(self._k(owner, f":log:{hook_id}"), 0, LOG_SIZE - 1))
        return [cast(dict[str, Any], json.loads(e)) for e in raw]

    def mark_once(self, name: str, ttl: int = 7 * 86400) -> bool:
        """Take a one-time mark (a delivery that succeeded, a disable notice sent)."""
        return bool(self.r.set(f"{self.ns}hookmark:{name}", b"1", nx=True, ex=ttl))

    def is_marked(self, name: str) -> bool:
        return bool(self.r.exists(f"{self.ns}hookmark:{name}"))
