"""Where the ``limits`` library keeps its counters: in the store's own Redis.

Both users of ``limits`` (the API's request limits, service.api.limits, and the mail desk's
refusal counter, service.storage.mailbox) count in the Redis the matches are in, under their
own key prefix, so that a Redis Cluster is used the same way by both.
"""

from __future__ import annotations

from typing import Any

import redis


def limits_storage(client: redis.Redis, prefix: str) -> tuple[str, dict[str, Any]]:
    """The ``limits`` storage URI and options that count in ``client``'s Redis under ``prefix``.

    On a single Redis the URI only picks limits' Redis storage and the store's own connection
    pool is what it talks to; on a Redis Cluster limits makes its own cluster client from one
    node (a cluster client has no single pool to share)."""
    if isinstance(client, redis.RedisCluster):
        node = client.get_default_node()
        return f"redis+cluster://{node.host}:{node.port}", {"key_prefix": prefix}
    return "redis://", {"connection_pool": client.connection_pool, "key_prefix": prefix}
