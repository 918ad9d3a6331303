"""The delivery tests' fixtures: the webhook ones (tests/helpers/hooks.py) and the jobs' mail setup."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.config import Settings
from tests.conftest import as_in_a_worker, forget_worker_service
from tests.helpers.hooks import hs, hs_app, receiver

__all__ = ["hs", "hs_app", "outbox_settings", "receiver"]


@pytest.fixture
def outbox_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """The jobs as a worker process runs them, delivering to the outbox folder."""
    monkeypatch.delenv("SMTP_URL", raising=False)
    monkeypatch.delenv("PORTOLAN_MAIL_REPLY_TO", raising=False)
    as_in_a_worker(monkeypatch, {"REDIS_URL": settings.redis_url, "PORTOLAN_NS": settings.namespace,
                                 "PUBLIC_URL": settings.public_url, "OUTBOX_DIR": settings.outbox_dir,
                                 "MAIL_FROM": settings.mail_from})
    yield settings
    forget_worker_service()
