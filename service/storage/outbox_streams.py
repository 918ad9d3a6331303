"""The outbox streams as their consumers read them, and the promises of dispatched jobs.

A mixin of :class:`service.storage.store.Store` (which writes the outbox in the same atomic step
as each change: see there): kept apart so the store's own module holds the matches and their
moves. It uses the store's connection (``r``), namespace and key names.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, cast

import redis

CLUSTER_POLL_S = 0.05
"""How often a consumer on a Redis Cluster looks at the outbox streams while it waits (a blocking
read of many streams is not possible there: see :meth:`OutboxStreams.read_outbox`)."""

UNREAD_COUNT_CAP = 1000
"""Where the server does not report a group's lag (Redis 6.2, the bundled redis-server, has no
``lag`` in XINFO GROUPS), :meth:`OutboxStreams.outbox_backlogs` counts the entries after the
group's last delivered one itself, at most this many a stream: exact while a group keeps up, and
"at least 1000" for the metric when it does not. Without the count, a group that had not yet
read a new entry looked caught up (a test that waited for "caught up" read too early)."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True)
class OutboxRecord:
    """One outbox entry as a consumer reads it: ``stream`` and ``stream_id`` say where it is
    (to acknowledge it), ``ply`` is the match's ply after the change."""

    stream: str
    stream_id: str
    kind: str
    match: str
    ply: int
    data: dict[str, Any]


class OutboxStreams:
    """Reading, claiming and acknowledging outbox entries by consumer group; job promises."""

    r: redis.Redis
    q: redis.Redis
    ns: str
    _postpone: Any

    def key(self, name: str) -> str:
        raise NotImplementedError  # the store's

    def outbox_keys(self) -> list[str]:
        raise NotImplementedError  # the store's

    # -- promised jobs (service.delivery.dispatch, .watchdog) -----------------------------

    def promise_jobs(self, pipe: Any, jobs: list[tuple[str, str, float]]) -> None:
        """Queue on ``pipe`` (the MULTI that enqueues them, on the queues' Redis: :attr:`q`) the
        promises of jobs ``(id, spec, due)``."""
        pipe.zadd(self.key("jobs:due"), {jid: due for jid, _, due in jobs})
        pipe.hset(self.key("jobs:spec"), mapping={jid: spec for jid, spec, _ in jobs})

    def overdue_jobs(self, now: float, limit: int = 200) -> list[tuple[str, str]]:
        """Promised jobs due at ``now`` or before: ``(id, spec)``, oldest first."""
        ids = [i.decode() for i in cast(list[bytes], self.q.zrangebyscore(self.key("jobs:due"), "-inf", now, 0, limit))]
        specs = cast(list[bytes | None], self.q.hmget(self.key("jobs:spec"), ids)) if ids else []
        return [(i, s.decode()) for i, s in zip(ids, specs, strict=True) if s is not None]

    def promise_of(self, jid: str) -> str | None:
        """The spec of the open promise ``jid``; None when it is kept (or was never made)."""
        spec = cast(bytes | None, self.q.hget(self.key("jobs:spec"), jid))
        return None if spec is None else spec.decode()

    def postpone_job(self, jid: str, now: float, due: float) -> bool:
        """Move an overdue promise to ``due``; False when it is not overdue (any more) or kept."""
        return bool(self._postpone(keys=[self.key("jobs:due")], args=[jid, now, due]))

    def job_done(self, jid: str) -> None:
        """A job's work is done (or need not be done): its promise is kept."""
        pipe = self.q.pipeline(transaction=True)
        pipe.zrem(self.key("jobs:due"), jid)
        pipe.hdel(self.key("jobs:spec"), jid)
        pipe.execute()

    def job_due_by(self, jid: str, due: float) -> bool:
        """Have the watchdog look at an open promise again by ``due`` (never later than it was
        due, and a kept promise stays kept: ZADD XX LT); True when it moved. A turn notice kept
        back while its player watches the match live asks for this (workers.jobs.send_turn_notice)."""
        return bool(self.q.zadd(self.key("jobs:due"), {jid: due}, xx=True, lt=True, ch=True))

    def promised_jobs(self) -> int:
        """How many promises are open."""
        return int(self.q.zcard(self.key("jobs:due")))  # type: ignore[arg-type]

    # -- the outbox ------------------------------------------------------------------------

    def ensure_group(self, group: str) -> None:
        """Create the consumer group ``group`` on every outbox (from the start of each stream:
        a group made after entries were written still sees them); existing groups stay."""
        for key in self.outbox_keys():
            try:
                self.r.xgroup_create(key, self._group(group), id="0", mkstream=True)
            except redis.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def _group(self, group: str) -> str:
        return f"{self.ns}{group}"

    def read_outbox(self, group: str, consumer: str, count: int = 100, block_ms: int | None = None) -> list[OutboxRecord]:
        """New entries for ``consumer`` of ``group`` from every outbox (one XREADGROUP; with
        ``block_ms``, wait that long for one). On a Redis Cluster one XREADGROUP cannot name
        streams of several slots, and the buckets are in different slots: there each stream is
        read in one pipeline (redis-py sends it to each node at once) and the wait is a poll."""
        if not isinstance(self.r, redis.RedisCluster):
            answer = self.r.xreadgroup(self._group(group), consumer, {k: ">" for k in self.outbox_keys()},
                                       count=count, block=block_ms)
            return records_of(answer)
        deadline = time.monotonic() + (block_ms or 0) / 1000
        while True:
            pipe = self.r.pipeline(transaction=False)
            for key in self.outbox_keys():
                pipe.xreadgroup(self._group(group), consumer, {key: ">"}, count=count)
            found = [r for answer in pipe.execute() for r in records_of(answer)]
            if found or time.monotonic() >= deadline:
                # up to ``count`` per stream: every entry read is this consumer's now (pending), so
                # all go back to the caller, which handles and acknowledges each
                return found
            time.sleep(CLUSTER_POLL_S)

    def claim_outbox(self, group: str, consumer: str, min_idle_ms: int, count: int = 100) -> list[OutboxRecord]:
        """Entries of ``group`` delivered to some consumer more than ``min_idle_ms`` ago and never
        acknowledged (that consumer died, or its handler failed): now ``consumer``'s (XAUTOCLAIM)."""
        out: list[OutboxRecord] = []
        for key in self.outbox_keys():
            start = "0-0"
            while True:
                nxt, claimed, *_ = self.r.xautoclaim(key, self._group(group), consumer, min_idle_ms,
                                                      start_id=start, count=count)
                out.extend(records_of([[key.encode(), claimed]]))
                start = _text(nxt)
                if start == "0-0" or len(out) >= count:
                    break
            if len(out) >= count:
                break
        return out

    def ack_outbox(self, group: str, record: OutboxRecord) -> None:
        """The entry is handled for ``group``: it will not be delivered to the group again."""
        self.r.xack(record.stream, self._group(group), record.stream_id)

    def outbox_backlogs(self, groups: list[str]) -> dict[str, int]:
        """:meth:`outbox_backlog` of several groups at once: one pipelined round trip, and a
        second where the server does not say a group's lag (see :data:`UNREAD_COUNT_CAP`)."""
        keys = self.outbox_keys()
        pipe = self.r.pipeline(transaction=False)
        for key in keys:
            pipe.xinfo_groups(key)
        totals = dict.fromkeys(groups, 0)
        by_name = {self._group(g): g for g in groups}
        unread: list[tuple[str, str, str]] = []  # (stream, group, last delivered id): lag to count here
        for key, answer in zip(keys, pipe.execute(raise_on_error=False), strict=True):
            if isinstance(answer, Exception):  # no such stream yet
                continue
            for g in answer:
                name = _text(g["name"])
                if name not in by_name:
                    continue
                totals[by_name[name]] += int(g.get("pending") or 0)
                if g.get("lag") is None:  # Redis before 7, or a stream whose deletions hide it
                    unread.append((key, by_name[name], _text(g["last-delivered-id"])))
                else:
                    totals[by_name[name]] += int(g["lag"])
        if unread:
            pipe = self.r.pipeline(transaction=False)
            for key, _, last in unread:
                pipe.xrange(key, min=f"({last}", max="+", count=UNREAD_COUNT_CAP)
            for (_, group, _), entries in zip(unread, pipe.execute(), strict=True):
                totals[group] += len(entries)
        return totals

    def outbox_backlog(self, group: str) -> int:
        """Entries of ``group`` not yet acknowledged (pending) or not yet read (lag), over every
        bucket: zero when the group has caught up."""
        return self.outbox_backlogs([group])[group]


def records_of(answer: Any) -> list[OutboxRecord]:
    out: list[OutboxRecord] = []
    for stream, entries in answer or []:
        name = _text(stream)
        for stream_id, fields in entries:
            if not fields:  # an entry trimmed away while pending: nothing left to handle
                continue
            f = {k.decode(): v.decode() for k, v in fields.items()}
            out.append(OutboxRecord(name, stream_id.decode(), f["kind"], f["match"], int(f["ply"]), json.loads(f["data"])))
    return out
