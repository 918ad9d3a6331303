"""Connecting to Redis: one pool per URL and process, a cluster client where the server is a node of a
Redis Cluster.

Below everything that talks to Redis (the wiring in service.runtime, the workers, the clock's
tick in service.delivery.clock), so each of them asks for a connection here and none needs the
wiring for it (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from functools import lru_cache
from typing import cast

import redis

# Connections per process. A blocking pool: when all are busy a request waits (up to
# POOL_TIMEOUT_S, then 503 storage-unavailable) instead of failing at once. Under the gevent worker
# hundreds of streams may wake on one commit and read together; redis-py's default pool then
# raised "Too many connections" past 100, ending streams (found by the 300-stream test).
POOL_SIZE = 64
POOL_TIMEOUT_S = 10


@lru_cache(maxsize=8)
def connect(url: str) -> redis.Redis:
    """One connection pool per URL and process; a ``RedisCluster`` client when the server at
    ``url`` is a node of a Redis Cluster (asked once, with ``INFO cluster``; a server that does not
    answer is taken for a plain one, as every command would fail on it anyway).

    The cluster client has every command method of ``redis.Redis`` that the store uses (it
    routes each to the node of its key's slot), so it is typed as one: the store's keys are
    built so that what must be atomic shares a slot (service.storage.store, "keys")."""
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=POOL_SIZE, timeout=POOL_TIMEOUT_S,
                                                 health_check_interval=30)
    plain = redis.Redis(connection_pool=pool)
    if not is_cluster_node(plain):
        return plain
    pool.disconnect()
    cluster = redis.RedisCluster.from_url(url, max_connections=POOL_SIZE, health_check_interval=30)
    return cast(redis.Redis, cluster)


def is_cluster_node(client: redis.Redis) -> bool:
    """Whether ``client`` talks to a Redis with cluster mode on (False when it does not answer)."""
    try:
        return bool(client.info("cluster").get("cluster_enabled"))
    except redis.RedisError:
        return False
