"""Fixtures of the end-to-end tests: the real SMTP receiver in front of the real mail desk."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.config import Settings
from service.delivery.receiver import controller, handler_for
from service.runtime import build, build_desk
from service.storage.embedded import free_port
from tests.play.mail_desk import mail_settings

__all__ = ["mail_settings", "receiver"]  # mail_settings: the fixture the receiver stands on


@pytest.fixture
def receiver(mail_settings: Settings) -> Iterator[tuple[str, int]]:
    """The real SMTP receiver in front of the real desk, on a free loopback port."""
    port = free_port()
    matches = build(mail_settings)
    desk = build_desk(mail_settings, matches)
    server = controller(handler_for(desk, mail_settings, matches.server_key), "127.0.0.1", port,
                        mail_settings.mail_max_bytes)
    server.start()
    try:
        yield "127.0.0.1", port
    finally:
        server.stop()
