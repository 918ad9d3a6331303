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
``PORTOLAN_RATE_LIMITS``  ``on`` (default) or ``off``: the per-client request limits below
``PORTOLAN_RATE_READ``    limit of every route not named below, per signing key or address
                    (``6000/minute``; Flask-Limiter notation, ``;`` separates several)
``PORTOLAN_RATE_WRITE``   moves, claims and aborts (``1200/minute``)
``PORTOLAN_RATE_CREATE``  match creation per creator key (``60/hour``)
``PORTOLAN_RATE_CREATE_PER_ADDRESS``  match creation per client address, whatever the keys (``300/hour``):
                    keys cost nothing to make, so the per-key limit alone would not hold a script
``PORTOLAN_PROXIES``      how many reverse proxies stand in front of the API (``0``): with ``N > 0``
                    the client address is read from ``X-Forwarded-For`` (werkzeug's ProxyFix)
``PORTOLAN_LONG_POLLS``   how many requests of one API process may wait at once on ``?wait=N`` (``4``);
                    beyond that a long-poll is answered at once, as ``wait=0`` would be
``PORTOLAN_STREAMS``      how many event streams (``GET .../events``) one API process keeps open at once
                    (``2000``); beyond that a new stream is 503 ``too-many-streams`` with ``Retry-After``
``PORTOLAN_INVITES_PER_CREATOR_HOUR``     invitation mails one creator key may cause per hour (``60``)
``PORTOLAN_INVITES_PER_RECIPIENT_DAY``    invitation mails one address may receive per day (``20``)
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
    # Abuse limits (issue 9): defaults generous enough for people and the test suite, far
    # below what a script could send. Defaults here so code building Settings by hand keeps working.
    rate_limits: bool = True
    rate_read: str = "6000/minute"
    rate_write: str = "1200/minute"
    rate_create: str = "60/hour"
    rate_create_per_address: str = "300/hour"
    proxies: int = 0
    # A waiting long-poll holds a request thread for up to 30 s; without a bound, a handful of
    # anonymous `?wait=30` requests held every thread of a process (gunicorn.conf.py: 8).
    long_polls: int = 4
    # An open event stream costs a greenlet and a socket under the gevent worker, not a thread;
    # the bound keeps one process from running out of file descriptors.
    streams: int = 2000
    invites_per_creator_hour: int = 60
    invites_per_recipient_day: int = 20

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
            rate_limits=e.get("PORTOLAN_RATE_LIMITS", "on").strip().lower() not in ("off", "0", "false", "no"),
            rate_read=e.get("PORTOLAN_RATE_READ") or cls.rate_read,
            rate_write=e.get("PORTOLAN_RATE_WRITE") or cls.rate_write,
            rate_create=e.get("PORTOLAN_RATE_CREATE") or cls.rate_create,
            rate_create_per_address=e.get("PORTOLAN_RATE_CREATE_PER_ADDRESS") or cls.rate_create_per_address,
            proxies=_int(e, "PORTOLAN_PROXIES", cls.proxies),
            long_polls=_int(e, "PORTOLAN_LONG_POLLS", cls.long_polls),
            streams=_int(e, "PORTOLAN_STREAMS", cls.streams),
            invites_per_creator_hour=_int(e, "PORTOLAN_INVITES_PER_CREATOR_HOUR", cls.invites_per_creator_hour),
            invites_per_recipient_day=_int(e, "PORTOLAN_INVITES_PER_RECIPIENT_DAY", cls.invites_per_recipient_day),
        )

    def queue_name(self, kind: str) -> str:
        """RQ queue of one kind of work ("notices", "bots"), under the namespace."""
        return f"{self.namespace}{kind}"


def _int(env: dict[str, str], name: str, default: int) -> int:
    """A non-negative integer setting; a typo stops the process at start, not at the first request."""
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, not {raw!r}") from exc
    if value < 0:
        raise ValueError(f"{name} must not be negative, not {value}")
    return value
