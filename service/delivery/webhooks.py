"""Webhook delivery: the RQ queue adapter, the outbox handler, the signature and the POST itself.

Headers follow Standard Webhooks (https://www.standardwebhooks.com/, docs/webhooks.md):
``webhook-id`` (stable per event and hook, the same on every retry), ``webhook-timestamp`` (unix
seconds of this attempt) and ``webhook-signature: v1a,<base64 Ed25519 signature>`` by the server
key over ``{id}.{timestamp}.{body}``.

The POST connects to the address :func:`service.play.outward.hook_urls.resolve_checked` has just
checked (never resolving the name again, so DNS rebinding cannot send it elsewhere, and the peer
it reached is checked to be that address), checks the TLS certificate against the URL's host name,
follows no redirect and gives the receiver ``PORTOLAN_WEBHOOK_TIMEOUT`` seconds in all, wall clock,
the name's lookup and the answer included (:mod:`service.delivery.deadline` cuts a receiver that
drips). The job's RQ timeout is that deadline with room to spare, so RQ never kills an attempt
the deadline would have ended. Jobs are named by dotted path, as in :mod:`service.delivery.dispatch`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import certifi
import redis
import urllib3
from rq import Queue, Retry

from service.config import Settings
from service.delivery.deadline import Deadline, DeadlineHTTPConnection, DeadlineHTTPSConnection
from service.observe.metrics import WEBHOOKS
from service.play.errors import NotFound, ServiceError
from service.play.matches import Matches
from service.play.outward.hook_urls import Resolver, Target, resolve_checked, system_resolver
from service.play.outward.webhooks import Webhooks
from service.proof import signing
from service.storage.webhooks import WebhookStore

log = logging.getLogger("portolan.webhooks")
DELIVER_JOB = "workers.webhooks.deliver"
DISABLED_JOB = "workers.webhooks.send_disabled_notice"
MAX_ERROR_TEXT = 300
JOB_TIMEOUT_MARGIN_S = 30


class DeliveryFailed(Exception):
    """An attempt failed (the job raises it so RQ retries it with backoff)."""


def signature(server_key: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value: ``v1a,`` and the standard base64 (padded) Ed25519
    signature of ``{msg_id}.{timestamp}.{body}``."""
    raw = signing.b64d(signing.sign_bytes(server_key, f"{msg_id}.{timestamp}.".encode() + body))
    return "v1a," + base64.b64encode(raw).decode()


def body_of(event: dict[str, Any]) -> bytes:
    """The exact bytes sent (and signed): compact JSON, UTF-8."""
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()


def headers(server_key: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {"content-type": "application/json", "user-agent": "Portolan-Webhooks/1", "webhook-id": msg_id,
            "webhook-timestamp": str(timestamp), "webhook-signature": signature(server_key, msg_id, timestamp, body)}


def post(target: Target, head: dict[str, str], body: bytes, timeout: float, ca_certs: str | None = None) -> int:
    """POST ``body`` to the checked ``target`` (its checked address, its host's TLS name); the
    status code. ``timeout``: the wall-clock seconds the whole exchange may take, connect, TLS,
    request, status line and the first KiB of the answer (:mod:`service.delivery.deadline` cuts the
    connection when they are up, however slowly the receiver drips). Raises :class:`AttemptTimedOut`
    past it, urllib3's errors (refused, TLS) as they come. ``ca_certs``: the CA bundle to trust
    (certifi's by default)."""
    with Deadline(timeout) as deadline:
        try:
            return _exchange(target, head, body, deadline, ca_certs)
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            if deadline.passed():  # the cut (or a timeout at its edge): say so, not "connection reset"
                raise AttemptTimedOut(f"no whole answer within {timeout:g} s") from exc
            raise


class AttemptTimedOut(TimeoutError):
    """The receiver did not finish its answer within the attempt's deadline."""


def _exchange(target: Target, head: dict[str, str], body: bytes, deadline: Deadline, ca_certs: str | None) -> int:
    # urllib3's own timeouts still bound each wait (and the connect, which no socket exists to
    # cut yet); the deadline bounds the sum
    limits = urllib3.Timeout(connect=deadline.left(), read=deadline.left(), total=deadline.left())
    pool: urllib3.HTTPConnectionPool
    watched: dict[str, Any] = {"deadline": deadline, "checked_address": target.address}
    if target.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(target.address, target.port, timeout=limits, retries=False, maxsize=1,
                                           server_hostname=target.host, assert_hostname=target.host,
                                           cert_reqs="CERT_REQUIRED", ca_certs=ca_certs or certifi.where(), **watched)
        pool.ConnectionCls = DeadlineHTTPSConnection
    else:
        pool = urllib3.HTTPConnectionPool(target.address, target.port, timeout=limits, retries=False, maxsize=1,
                                          **watched)
        pool.ConnectionCls = DeadlineHTTPConnection
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    try:
        resp = pool.urlopen("POST", target.path, body=body, headers={**head, "host": host if target.port == default
                                                                     else f"{host}:{target.port}"},
                            redirect=False, retries=False, assert_same_host=False, preload_content=False)
        try:
            resp.read(1024)  # enough to end a short answer cleanly; the rest is not ours to wait for
        finally:
            resp.release_conn()
        if deadline.passed():  # it came, but too late: a late answer is a failed attempt
            raise AttemptTimedOut(f"the answer took longer than {deadline.seconds:g} s")
        return int(resp.status)
    finally:
        pool.close()


@dataclass
class Delivery:
    """What a delivery job needs: the hooks, the server key and the operator's settings."""

    hooks: Webhooks
    server_key: str
    settings: Settings
    queue: RQWebhookQueue | None = None
    resolve: Resolver = system_resolver
    clock: Callable[[], float] = time.time
    ca_certs: str | None = None

    def run(self, owner: str, hook_id: str, msg_id: str, event: dict[str, Any], attempt: int = 1) -> str:
        """One attempt at one (hook, event); logs it and returns what happened, or raises
        :class:`DeliveryFailed` so the job is retried. A hook switched off (or removed) meanwhile
        is skipped; a ping goes to a switched-off hook too, and switches it back on if it gets through."""
        store = self.hooks.store
        hook = store.get(owner, hook_id)
        if hook is None:
            return "skipped: the webhook was removed"
        is_ping = event.get("type") == "ping"
        if hook.get("disabled") and not is_ping:
            return "skipped: the webhook is switched off"
        if store.is_marked(f"{hook_id}:{msg_id}"):
            return "skipped: already delivered"
        body = body_of(event)
        ts = int(self.clock())
        status: int | None = None
        error: str | None = None
        started = time.monotonic()
        try:
            target = resolve_checked(hook["url"], self.settings.webhooks_allow_private, self.resolve)
            # the name's lookup counts against the attempt's time too
            left = self.settings.webhook_timeout - (time.monotonic() - started)
            if left <= 0:
                raise AttemptTimedOut("the host's name took the whole attempt's time to resolve")
            status = post(target, headers(self.server_key, msg_id, ts, body), body, left, self.ca_certs)
        except ServiceError as exc:  # the URL's host now resolves somewhere no webhook may go
            error = exc.message
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            error = _describe(exc, self.settings.webhook_timeout)
        latency_ms = round((time.monotonic() - started) * 1000, 1)
        ok = status is not None and 200 <= status < 300
        WEBHOOKS.labels("delivered" if ok else ("failed" if attempt == 1 else "failed-again")).inc()
        if status is not None and not ok:
            error = f"answered {status}" + (" (a redirect: webhooks follow none)" if 300 <= status < 400 else "")
        now = self.hooks.ctx.now()
        record = {"event": event.get("id"), "webhook_id": msg_id, "type": event.get("type"), "at": now,
                  "attempt": attempt, "status": status, "latency_ms": latency_ms, "ok": ok, "error": error}
        result = store.record(owner, hook_id, record, ok, self.settings.webhook_disable_after, now,
                              f"{self.settings.webhook_disable_after} failed deliveries in a row; last: {error}",
                              reenable=is_ping)
        if result is None:
            return "skipped: the webhook was removed"
        if ok:
            store.mark_once(f"{hook_id}:{msg_id}")
            return f"delivered: {status} in {latency_ms} ms"
        log.info("webhook %s: %s failed (%s)", hook_id, msg_id, error)
        if result.disabled_now:
            log.warning("webhook %s switched off after %d failures", hook_id, result.failures)
            if self.queue is not None:
                self.queue.disabled(owner, hook_id)
            return f"failed: {error}; the webhook is now switched off"
        raise DeliveryFailed(f"webhook {hook_id}: {error}")


def _describe(exc: BaseException, timeout: float) -> str:
    """A short reason for the delivery log (no stack, no response body)."""
    if isinstance(exc, (urllib3.exceptions.TimeoutError, TimeoutError)):
        return f"timed out (the receiver has {timeout:g} s for the whole answer)"
    text = str(getattr(exc, "reason", None) or exc)
    return f"{type(exc).__name__}: {text}"[:MAX_ERROR_TEXT]


class RQWebhookQueue:
    """Deliveries as RQ jobs on the ``webhooks`` queue, retried with the operator's backoff."""

    def __init__(self, client: redis.Redis, settings: Settings) -> None:
        self.client = client
        self.queue = Queue(settings.queue_name("webhooks"), connection=client)
        self.notices = Queue(settings.queue_name("notices"), connection=client)
        self.retries = list(settings.webhook_retries)
        # RQ kills a job past its timeout (180 s by default); the attempt's own deadline must
        # always come first, so a slow receiver is a recorded failed attempt, not a killed job
        self.job_timeout = int(settings.webhook_timeout) + JOB_TIMEOUT_MARGIN_S

    def deliver(self, owner: str, hook_id: str, msg_id: str, event: dict[str, Any]) -> None:
        self.deliver_many([(owner, hook_id, msg_id, event)])

    def deliver_many(self, deliveries: list[tuple[str, str, str, dict[str, Any]]]) -> None:
        """Enqueue the deliveries in one MULTI/EXEC pipeline (one round trip, as RQDispatcher does)."""
        if not deliveries:
            return
        retry = Retry(max=len(self.retries), interval=self.retries) if self.retries else None
        with self.client.pipeline(transaction=True) as pipe:
            for owner, hook_id, msg_id, event in deliveries:
                # deterministic job id (RQ wants [A-Za-z0-9_-]): the same entry handled twice is one job
                job_id = "hook-" + hashlib.sha256(f"{owner}|{hook_id}|{msg_id}".encode()).hexdigest()[:40]
                self.queue.enqueue_call(DELIVER_JOB, args=(owner, hook_id, msg_id, event), job_id=job_id,
                                        retry=retry, failure_ttl=7 * 86400, result_ttl=3600, pipeline=pipe,
                                        timeout=self.job_timeout)
            pipe.execute()

    def disabled(self, owner: str, hook_id: str) -> None:
        """Tell the owner (by mail, when an address is known) that a hook was switched off."""
        job_id = "hookoff-" + hashlib.sha256(f"{owner}|{hook_id}".encode()).hexdigest()[:40]
        self.notices.enqueue_call(DISABLED_JOB, args=(owner, hook_id), job_id=job_id,
                                  retry=Retry(max=5, interval=[1, 5, 30, 120, 600]), failure_ttl=30 * 86400)


def webhooks_of(m: Matches, settings: Settings, resolve: Resolver = system_resolver) -> Webhooks:
    """The webhook use cases beside ``m`` (same Redis, same namespace), queuing to RQ."""
    return Webhooks(ctx=m, store=WebhookStore(m.store.r, m.store.ns), queue=RQWebhookQueue(m.store.q, settings),
                    allow_private=settings.webhooks_allow_private, per_owner=settings.webhooks_per_owner,
                    resolve=resolve)


class Entry(Protocol):
    """What the handler reads of an outbox entry (``service.delivery.outbox.OutboxEntry``)."""

    @property
    def kind(self) -> str: ...
    @property
    def match(self) -> str: ...
    @property
    def ply(self) -> int: ...
    @property
    def data(self) -> dict[str, Any]: ...


GROUP = "webhooks"


def outbox_handler(settings: Settings) -> Callable[[Matches, Entry], None]:
    """The handler of the ``webhooks`` consumer group: one queued delivery per (hook, event) of
    the entry. Quick (reads the meta, one log entry and the owners' hooks, enqueues) and
    idempotent (the job ids and message ids are derived from the entry)."""

    def handle(m: Matches, entry: Entry) -> None:
        try:
            n = webhooks_of(m, settings).fan_out(entry.kind, entry.match, entry.ply, entry.data)
        except NotFound:  # the match is gone (archived): nothing left to tell; retrying would not help
            return
        if n:
            log.debug("outbox %s %s.%s: %d webhook deliveries queued", entry.kind, entry.match, entry.ply, n)

    return handle
