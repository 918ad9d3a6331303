"""Settings from the environment, in one place.

==================  ==========================================================================
``REDIS_URL``       where match state and queues live; unset: ``portolan dev`` starts its own
``SMTP_URL``        ``smtp://host:port`` for turn notices; unset: mail goes to ``OUTBOX_DIR``
``OUTBOX_DIR``      folder for ``.eml`` files when there is no SMTP server (``./var/outbox``)
``PUBLIC_URL``      the URL players use, printed in notices (``http://127.0.0.1:8000``)
``PORTOLAN_NS``     key namespace in Redis and prefix of the RQ queue names (``portolan:``)
``PORTOLAN_SERVER_KEY``  the server's Ed25519 private key (base64url); unset: created once
                    and kept in Redis under the namespace (fine for one installation)
``MAIL_FROM``       sender address of notices
==================  ==========================================================================
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    redis_url: str
    smtp_url: str | None
    outbox_dir: str
    public_url: str
    namespace: str
    server_key: str | None
    mail_from: str

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        return cls(
            redis_url=e.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            smtp_url=e.get("SMTP_URL") or None,
            outbox_dir=e.get("OUTBOX_DIR", os.path.join("var", "outbox")),
            public_url=e.get("PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/"),
            namespace=e.get("PORTOLAN_NS", "portolan:"),
            server_key=e.get("PORTOLAN_SERVER_KEY") or None,
            mail_from=e.get("MAIL_FROM", "Portolan <turns@portolan.invalid>"),
        )

    def queue_name(self, kind: str) -> str:
        """RQ queue of one kind of work ("notices", "bots"), under the namespace."""
        return f"{self.namespace}{kind}"
