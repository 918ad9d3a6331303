"""The delivery tests' fixtures: the webhook ones (tests/delivery/hooks.py) and the jobs' mail setup."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.config import Settings
from tests.delivery.hooks import hs, hs_app, receiver
from workers import jobs

__all__ = ["hs", "hs_app", "outbox_settings", "receiver"]


@pytest.fixture
def outbox_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """The jobs as a worker process runs them, delivering to the outbox folder."""
    for name, value in {"REDIS_URL": settings.redis_url, "PORTOLAN_NS": settings.namespace,
                        "PUBLIC_URL": settings.public_url, "OUTBOX_DIR": settings.outbox_dir,
                        "MAIL_FROM": settings.mail_from}.items():
        monkeypatch.setenv(name, str(value))
    monkeypatch.delenv("SMTP_URL", raising=False)
    monkeypatch.delenv("PORTOLAN_MAIL_REPLY_TO", raising=False)
    jobs.settings.cache_clear()
    jobs.service.cache_clear()
    yield settings
    jobs.settings.cache_clear()
    jobs.service.cache_clear()
