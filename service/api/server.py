"""Server-level resources: health and the server's public key."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app

from service.api.errors import problem
from service.clock import Clock, ClockError
from service.play.matches import Matches

bp = Blueprint("server", __name__)


def service() -> Matches:
    m: Matches = current_app.extensions["portolan"]
    return m


@bp.get("/healthz")
def healthz() -> Any:
    """Liveness and readiness: answers 200 only when Redis answers. Says which clock the
    service runs on (``file``: a test clock moved ``offset_s`` seconds ahead of the system's)."""
    if not service().store.ping():
        return problem(503, "redis-unavailable", "Service unavailable", "Redis does not answer")
    clock: Clock = current_app.extensions.get("portolan.clock") or Clock()
    try:
        offset = clock.offset()
    except ClockError as exc:  # someone wrote something else into the clock file
        return problem(503, "clock-unreadable", "Service unavailable", str(exc))
    return {"status": "ok", "redis": "ok",
            "clock": {"source": "file" if clock.movable else "system", "offset_s": round(offset, 3)}}


@bp.get("/v1/server-key")
def server_key() -> Any:
    """The Ed25519 public key that signs move receipts."""
    return {"algorithm": "Ed25519", "public_key": service().server_public_key}
