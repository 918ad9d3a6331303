"""Wiring: build the store and the use cases from settings.

The API's app factory and the workers both call :func:`build`, so a job sees exactly the
service a request sees.
"""

from __future__ import annotations

from functools import lru_cache

import redis

from service.config import Settings
from service.delivery.dispatch import RQDispatcher
from service.delivery.webhooks import webhooks_of
from service.play.by_mail import desk_of
from service.play.mail_in import MailDesk
from service.play.matches import Matches
from service.play.throttle import InviteLimits
from service.play.webhooks import Webhooks
from service.proof import signing
from service.storage.mailbox import Mailbox
from service.storage.preferences import NoticePreferences
from service.storage.store import Store

# Connections per process. A blocking pool: when all are busy a request waits (up to
# POOL_TIMEOUT_S, then 503 storage-unavailable) instead of failing at once. Under the gevent worker
# hundreds of streams may wake on one commit and read together; redis-py's default pool then
# raised "Too many connections" past 100, ending streams (found by the 300-stream test).
POOL_SIZE = 64
POOL_TIMEOUT_S = 10


@lru_cache(maxsize=8)
def connect(url: str) -> redis.Redis:
    """One connection pool per URL and process."""
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=POOL_SIZE, timeout=POOL_TIMEOUT_S,
                                                 health_check_interval=30)
    return redis.Redis(connection_pool=pool)


def build(settings: Settings) -> Matches:
    """The use cases over Redis (what they commit goes out through the outbox: service.delivery.outbox)."""
    client = connect(settings.redis_url)
    store = Store(client, settings.namespace)
    key = settings.server_key or store.get_or_create("server:key", signing.generate_private_key)
    return Matches(store=store, server_key=key, public_url=settings.public_url,
                   invite_limits=InviteLimits(settings.invites_per_creator_hour, settings.invites_per_recipient_day))


def build_webhooks(settings: Settings, matches: Matches) -> Webhooks:
    """The webhook use cases beside ``matches`` (same store), queuing deliveries to RQ."""
    return webhooks_of(matches, settings)


def build_desk(settings: Settings, matches: Matches) -> MailDesk:
    """The mail desk beside ``matches`` (same Redis and namespace): what both ways in (the SMTP/LMTP
    receiver and ``portolan mail-in``) hand each received message to; its answers go out as RQ jobs."""
    client = connect(settings.redis_url)
    return desk_of(matches, settings, mailbox=Mailbox(client, settings.namespace),
                   preferences=NoticePreferences(client, settings.namespace),
                   post=RQDispatcher(client, settings, matches.store))
