"""Prometheus metrics (prometheus_client), served at ``GET /metrics`` by the API.

What is counted, and where:

* ``portolan_moves_total{result, code}``: every move submission the API answered: ``accepted``,
  ``replayed`` (the same envelope again) or ``refused`` with the refusal's code (``stale-ply``,
  ``illegal-action``...: a fixed vocabulary, so the label stays small);
* ``portolan_http_request_seconds{route, method}`` and ``portolan_http_requests_total{route,
  method, status}``: latency and count per Flask route (the rule, never the raw path, so match ids
  do not become labels);
* ``portolan_stream_connections``: event streams open now;
* ``portolan_notices_total{kind, result}`` and ``portolan_webhook_deliveries_total{result}``: mail
  and webhook deliveries, counted by the process that makes them (a worker);
* ``portolan_queue_depth{queue}`` and ``portolan_outbox_backlog{group}``: read from Redis when
  scraped (:class:`QueueCollector`), never per request.

Several processes: gunicorn's workers and the RQ workers each count their own. With
``PROMETHEUS_MULTIPROC_DIR`` set (one folder shared by the processes of a host, emptied when they
all start), ``/metrics`` adds up every process of the host that writes there, workers included
(prometheus_client's multiprocess mode; deploy/gunicorn.conf.py marks a dead gunicorn worker's
files). Without it, each process shows only its own counts; a worker can then serve its own at
``PORTOLAN_WORKER_METRICS_PORT``.

No label ever holds a key, an address, a match id or anything a player wrote.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.registry import Collector

MOVES = Counter("portolan_moves", "Move submissions answered by the API", ["result", "code"])
REQUESTS = Counter("portolan_http_requests", "HTTP requests answered", ["route", "method", "status"])
LATENCY = Histogram("portolan_http_request_seconds", "Time to answer an HTTP request (streams: to the headers)",
                    ["route", "method"],
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0))
STREAMS = Gauge("portolan_stream_connections", "Event streams open now", multiprocess_mode="livesum")
NOTICES = Counter("portolan_notices", "Mail sent by the workers (notices, invitations, answers)", ["kind", "result"])
WEBHOOKS = Counter("portolan_webhook_deliveries", "Webhook delivery attempts", ["result"])

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
"""The text format ``generate_latest`` writes (and openapi.yaml names): prometheus_client 0.26's
``CONTENT_TYPE_LATEST`` says version 1.0.0, which Prometheus would then expect."""


class QueueCollector(Collector):
    """Queue depths and outbox backlogs, read when Prometheus scrapes (two pipelined round
    trips): ``depths()`` returns ``{queue: jobs waiting}``, ``backlogs()`` returns ``{consumer
    group: outbox entries not yet handled}``. When Redis does not answer, the scrape still does,
    with ``portolan_redis_up 0`` and no depths (an outage is when the metrics matter most).

    A backlog counts entries read but not acknowledged (pending) and, on Redis 7 and newer,
    entries not yet read (the group's lag; Redis 6, the embedded one included, has no lag)."""

    def __init__(self, depths: Callable[[], dict[str, int]], backlogs: Callable[[], dict[str, int]],
                 down: type[BaseException] | tuple[type[BaseException], ...] = ()) -> None:
        self.depths = depths
        self.backlogs = backlogs
        self.down = down

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("portolan_redis_up", "1 when Redis answered this scrape, else 0")
        try:
            depths, backlogs = self.depths(), self.backlogs()
        except self.down:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        queue = GaugeMetricFamily("portolan_queue_depth", "Jobs waiting in each RQ queue", labels=["queue"])
        for name, n in sorted(depths.items()):
            queue.add_metric([name], n)
        yield queue
        backlog = GaugeMetricFamily("portolan_outbox_backlog", "Outbox entries a consumer group has not handled yet",
                                    labels=["group"])
        for name, n in sorted(backlogs.items()):
            backlog.add_metric([name], n)
        yield backlog


def exposition(extra: Collector | None = None) -> bytes:
    """The text of ``/metrics``: this process's metrics, or every process's of the host in
    multiprocess mode, plus ``extra`` (the queue collector)."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        from prometheus_client import REGISTRY

        registry = REGISTRY
    if extra is None:
        return generate_latest(registry)
    # a fresh registry per scrape for the Redis-backed gauges: never registered twice
    scrape = CollectorRegistry()
    scrape.register(extra)
    return generate_latest(registry) + generate_latest(scrape)


def serve_worker_metrics(port: int) -> Any:
    """A worker's own ``/metrics`` on ``port`` (a thread), when there is no shared multiprocess folder."""
    from prometheus_client import start_http_server

    return start_http_server(port, addr="0.0.0.0")  # a metrics port is meant to be scraped
