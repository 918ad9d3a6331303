"""Redis for the live streams: the wake-up listener and the per-key inboxes.

=================================  ==============================================================
``<ns>events``                     pub/sub channel: every commit PUBLISHes ``{"match", "ply",
                                   "kind"}`` (the store's scripts), every inbox append
                                   ``{"inbox": <public key>}`` (below); a wake-up only, never
                                   the truth: a waiter re-reads the log or the inbox
``<ns>inbox:{<key>}``              stream: the events for one public key (``GET /v1/me/events``),
                                   capped at about :data:`INBOX_MAXLEN` entries
``<ns>inbox:{<key>}:seen:<event>`` one-time mark: this event is already in this key's inbox
=================================  ==============================================================

Both inbox keys of a public key share its hash tag, so the append script touches one Cluster slot.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from typing import Any, cast

import redis

log = logging.getLogger("portolan.streams")
INBOX_MAXLEN = 1000
SEEN_TTL_S = 30 * 86400  # far longer than any redelivery of an outbox entry can be late

# Append an event once: KEYS = (stream, seen mark); ARGV = (mark TTL, maxlen, event JSON,
# channel, wake-up). Returns the new entry's id, or false when the event was there already.
_APPEND = """
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[1]) then return false end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'event', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return id
"""

STREAM_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")


def _id_key(stream_id: str) -> tuple[int, int]:
    ms, _, seq = stream_id.partition("-")
    return int(ms), int(seq)


class Inboxes:
    """The per-key event inboxes (written by the "inboxes" outbox consumer, read by the me stream)."""

    def __init__(self, client: redis.Redis, namespace: str, maxlen: int = INBOX_MAXLEN) -> None:
        self.r = client
        self.ns = namespace
        self.maxlen = maxlen
        self._append = self.r.register_script(_APPEND)

    def _stream(self, public_key: str) -> str:
        return f"{self.ns}inbox:{{{public_key}}}"

    def channel(self) -> str:
        """The wake-up channel (the same one the match commits publish on)."""
        return f"{self.ns}events"

    def append(self, public_key: str, event: dict[str, Any]) -> str | None:
        """Add ``event`` to the key's inbox unless an event with its ``id`` is there already
        (an outbox entry may be handled twice); returns the inbox entry id, or None for a duplicate."""
        stream = self._stream(public_key)
        keys = [stream, f"{stream}:seen:{event['id']}"]
        args: list[str | int] = [SEEN_TTL_S, self.maxlen, json.dumps(event, separators=(",", ":")), self.channel(),
                json.dumps({"inbox": public_key})]
        got = self._append(keys=keys, args=args)
        return None if got is None else cast(bytes, got).decode()

    def read(self, public_key: str, after: str | None, count: int = 100) -> list[tuple[str, dict[str, Any]]]:
        """Up to ``count`` entries after the entry id ``after`` (None: from the oldest kept)."""
        start = "-" if after is None else f"({after}"
        rows = cast(list[tuple[bytes, dict[bytes, bytes]]], self.r.xrange(self._stream(public_key), start, "+", count))
        return [(sid.decode(), json.loads(fields[b"event"])) for sid, fields in rows]

    def newest(self, public_key: str) -> str | None:
        """The id of the newest entry of the key's inbox, if it has one."""
        rows = cast(list[tuple[bytes, Any]], self.r.xrevrange(self._stream(public_key), "+", "-", 1))
        return rows[0][0].decode() if rows else None

    @staticmethod
    def later(a: str, b: str) -> bool:
        """Whether stream id ``a`` comes after ``b``."""
        return _id_key(a) > _id_key(b)


class _Waiter:
    """One waiting request's flag: set by the listener when its topic is published."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for a wake-up since the last wait; True if one came."""
        woke = self.event.wait(max(0.0, timeout))
        self.event.clear()
        return woke


class Wakeups:
    """One pub/sub listener per process that wakes the requests waiting on a topic.

    Topics: ``m:<match id>`` (a commit of that match) and ``i:<public key>`` (an inbox append).
    Every waiting stream or long-poll of the process shares the one subscription: under gunicorn's
    gevent worker a waiter is a greenlet blocked on an :class:`threading.Event` (patched), so an
    idle connection costs no thread and no Redis connection. The listener starts at the first
    :meth:`watch` in each process (after gunicorn's fork); when its connection drops it wakes
    every waiter (they re-check, so nothing published meanwhile is missed) and subscribes again;
    after a minute without waiters it stops, and the next :meth:`watch` starts it again.
    """

    def __init__(self, client: redis.Redis, channel: str, idle_s: float = 60.0) -> None:
        # its own connection, not one of the shared pool's: the subscription holds it for as
        # long as it listens, and a pool slot held for ever is one fewer for the requests
        if isinstance(client, redis.RedisCluster):
            # a cluster propagates every PUBLISH to all its nodes: listening on one is enough
            node = client.get_default_node()
            self.r: redis.Redis = redis.Redis(host=node.host, port=node.port, max_connections=2)
        else:
            pool = client.connection_pool
            self.r = redis.Redis(connection_pool=redis.ConnectionPool(
                connection_class=pool.connection_class, max_connections=2, **pool.connection_kwargs))
        self.channel = channel
        self.idle_s = idle_s
        self._lock = threading.Lock()
        self._waiters: dict[str, set[_Waiter]] = {}
        self._pid: int | None = None  # the process whose listener is running, if one is
        self.subscribed = threading.Event()

    @contextlib.contextmanager
    def watch(self, topic: str) -> Iterator[_Waiter]:
        """Register a waiter for ``topic`` for the ``with`` block. Register first, then check
        what you wait for, then wait: a wake-up between the check and the wait is not lost."""
        waiter = _Waiter()
        with self._lock:  # with the listener's stop check: a waiter is never left without a listener
            self._waiters.setdefault(topic, set()).add(waiter)
            if self._pid != os.getpid():  # none yet, stopped when idle, or the parent's before a fork
                self._pid = os.getpid()
                self.subscribed.clear()
                threading.Thread(target=self._listen, name="portolan-wakeups", daemon=True).start()
        try:
            yield waiter
        finally:
            with self._lock:
                group = self._waiters.get(topic)
                if group is not None:
                    group.discard(waiter)
                    if not group:
                        del self._waiters[topic]

    def waiting(self) -> int:
        """How many waiters are registered (for the health of the process, and the tests)."""
        with self._lock:
            return sum(len(g) for g in self._waiters.values())

    def _idle_stop(self, idle_since: float) -> bool:
        """Stop listening after ``idle_s`` without a waiter (the next :meth:`watch` starts it
        again, and whoever waits then re-reads first): an app built and left, as tests do by
        the hundred, must not keep a thread and a connection."""
        if time.monotonic() - idle_since < self.idle_s:
            return False
        with self._lock:
            if self._waiters:
                return False
            self._pid = None
            self.subscribed.clear()
            return True

    def _wake(self, topics: list[str] | None) -> None:
        with self._lock:
            groups = list(self._waiters.values()) if topics is None else [self._waiters.get(t, set()) for t in topics]
            waiters = [w for g in groups for w in g]
        for w in waiters:
            w.event.set()

    def _dispatch(self, data: bytes) -> None:
        try:
            msg = json.loads(data)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        topics = []
        if isinstance(msg.get("match"), str):
            topics.append(f"m:{msg['match']}")
        if isinstance(msg.get("inbox"), str):
            topics.append(f"i:{msg['inbox']}")
        self._wake(topics)

    def _listen(self) -> None:
        backoff = 0.5
        idle_since = time.monotonic()
        while True:
            pubsub = self.r.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
            try:
                pubsub.subscribe(self.channel)
                pubsub.get_message(timeout=5)  # the subscribe confirmation: from here on nothing is missed
                self._wake(None)  # whatever was published while we were not subscribed
                self.subscribed.set()
                backoff = 0.5
                while True:
                    msg = pubsub.get_message(timeout=min(30.0, self.idle_s))
                    if msg is not None and msg.get("type") == "message":
                        self._dispatch(cast(bytes, msg["data"]))
                    if self.waiting():
                        idle_since = time.monotonic()
                    elif self._idle_stop(idle_since):
                        return
            except (redis.RedisError, OSError) as exc:
                self.subscribed.clear()
                log.warning("wake-up listener lost Redis (%s); waiters fall back to re-checking", exc)
                self._wake(None)
                if self._idle_stop(idle_since):
                    return
                time.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
            finally:
                with contextlib.suppress(Exception):
                    pubsub.close()
