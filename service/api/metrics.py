"""``GET /metrics`` (Prometheus) and the per-request counting behind it (service.observe.metrics).

Every request is timed and counted by its Flask route (the rule, so ``/v1/matches/<match_id>``
is one series, not one per match); move submissions are counted by result and refusal code. The
route is open like ``/healthz`` (no seat key: it shows no key, address, match or anything a player
wrote) and can be switched off with ``PORTOLAN_METRICS=off``, or kept from the public by the
reverse proxy (deploy/README.md).
"""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, Response, current_app, g, request
from redis.exceptions import RedisError
from rq import Queue

from service.api.errors import problem
from service.config import Settings
from service.delivery import outbox
from service.delivery.dispatch import QUEUES
from service.observe import logs
from service.observe.metrics import CONTENT_TYPE, LATENCY, MOVES, REQUESTS, QueueCollector, exposition
from service.play.matches import Matches

bp = Blueprint("metrics", __name__)

MOVE_ENDPOINT = "matches.move"
ALL_QUEUES = (*QUEUES, "webhooks")
"""Every RQ queue the workers work (the dispatcher's and the webhook deliveries')."""


@bp.before_app_request
def _started() -> None:
    g.portolan_started = time.perf_counter()


@bp.after_app_request
def _counted(response: Response) -> Response:
    rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
    started = g.get("portolan_started")
    if started is not None:
        LATENCY.labels(rule, request.method).observe(time.perf_counter() - started)
    REQUESTS.labels(rule, request.method, str(response.status_code)).inc()
    if request.endpoint == MOVE_ENDPOINT:
        if response.status_code == 201:
            MOVES.labels("accepted", "").inc()
        elif response.status_code == 200:
            MOVES.labels("replayed", "").inc()
        elif response.status_code >= 400:
            MOVES.labels("refused", g.get("portolan_code") or str(response.status_code)).inc()
    return response


@bp.teardown_app_request
def _forget(_exc: BaseException | None) -> None:
    logs.clear()  # what the request bound (match, seat, ply) ends with it


@bp.get("/metrics")
def metrics() -> Any:
    """The Prometheus text exposition of this process (or of every process of the host, in
    multiprocess mode), with the queue depths and outbox backlogs read now."""
    settings: Settings = current_app.extensions["portolan.settings"]
    if not settings.metrics:
        return problem(404, "metrics-off", "Not found", "this server's operator switched metrics off (PORTOLAN_METRICS=off)")
    m: Matches = current_app.extensions["portolan"]
    return Response(exposition(_queues(m, settings)), mimetype=CONTENT_TYPE)


def _queues(m: Matches, settings: Settings) -> QueueCollector:
    def depths() -> dict[str, int]:
        pipe = m.store.q.pipeline(transaction=False)
        for kind in ALL_QUEUES:
            pipe.llen(Queue(settings.queue_name(kind), connection=m.store.q).key)
        return dict(zip(ALL_QUEUES, (int(n) for n in pipe.execute()), strict=True))

    def backlogs() -> dict[str, int]:
        outbox.install_default_groups(settings)
        return m.store.outbox_backlogs(sorted(outbox.handlers()))

    return QueueCollector(depths, backlogs, down=RedisError)
