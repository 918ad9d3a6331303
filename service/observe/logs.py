"""Structured logs (structlog): one JSON object a line, carrying the match, seat and ply.

``configure()`` is called once by each entry point (the API app, ``portolan worker``, ``portolan
dev``). It routes the standard library's ``logging`` through structlog's ProcessorFormatter, so
the many ``logging.getLogger(__name__)`` calls of the service come out the same way as structlog
loggers. Context bound with :func:`bind` (the API's move route binds ``match``, ``seat`` and
``ply``; a worker job binds what it works on) appears on every line logged while it is bound;
:func:`clear` ends it (contextvars: per request thread or greenlet, per job).

``PORTOLAN_LOG_FORMAT``: ``json`` (default when stderr is not a terminal) or ``console``
(readable, the default on a terminal, e.g. ``portolan dev``). ``PORTOLAN_LOG_LEVEL``: ``INFO``.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog

_configured: list[str] = []


def _processors() -> list[Any]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        structlog.stdlib.ExtraAdder(),  # logging's extra={...} fields, as keys of their own
    ]


def configure(fmt: str | None = None, level: str | None = None, stream: Any = None) -> None:
    """Send every log line (structlog's and the standard library's) to ``stream`` (stderr) as
    JSON or console text; idempotent (a second call with the same format changes nothing)."""
    chosen = (fmt or os.environ.get("PORTOLAN_LOG_FORMAT") or "").strip().lower()
    out = stream or sys.stderr
    if chosen not in ("json", "console"):
        chosen = "console" if getattr(out, "isatty", lambda: False)() else "json"
    if _configured == [chosen, "stderr"] and stream is None:
        return
    renderer: Any = (structlog.processors.JSONRenderer() if chosen == "json"
                     else structlog.dev.ConsoleRenderer(colors=False))
    structlog.configure(
        processors=[*_processors(), structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_processors(),
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    )
    handler = logging.StreamHandler(out) if stream is not None else _Stderr()
    handler.setFormatter(formatter)
    handler.set_name("portolan")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "portolan"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel((level or os.environ.get("PORTOLAN_LOG_LEVEL") or "INFO").upper())
    _configured[:] = [chosen, "stderr" if stream is None else "other"]


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler that writes to whatever ``sys.stderr`` is when it writes (as logging's own last
    resort does): a test runner or a daemon may swap the stream after the handler was made."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def bind(**context: Any) -> None:
    """Add ``context`` (``match``, ``seat``, ``ply``...) to every line logged from here on in this
    request or job."""
    structlog.contextvars.bind_contextvars(**context)


@contextmanager
def bound(**context: Any) -> Iterator[None]:
    """``context`` on every line logged inside the ``with`` block (a worker job), and gone after."""
    tokens = structlog.contextvars.bind_contextvars(**context)
    try:
        yield
    finally:
        structlog.contextvars.reset_contextvars(**tokens)


def clear() -> None:
    """Forget what :func:`bind` added (at the end of a request or job)."""
    structlog.contextvars.clear_contextvars()


def get(name: str) -> Any:
    """A structlog logger named ``name``."""
    return structlog.get_logger(name)
