"""Settings from the environment, in one place.

==================  ==========================================================================
``REDIS_URL``       where match state lives (one Redis, or any node of a Redis Cluster: found out at
                    connection, service.storage.connection.connect); unset: ``portolan dev`` starts its own
``QUEUE_REDIS_URL`` where the RQ queues and jobs live (default: ``REDIS_URL``). RQ needs one plain
                    Redis, so with the state on a cluster the queues go to a Redis of their own
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
``PORTOLAN_STREAMS_PER_CLIENT``  how many of those one client may hold (``20``; a client is its address,
                    per /64 on IPv6; ``0``: no bound); beyond that 429 ``too-many-streams-from-client``
``PORTOLAN_INVITES_PER_CREATOR_HOUR``     invitation mails one creator key may cause per hour (``60``)
``PORTOLAN_INVITES_PER_RECIPIENT_DAY``    invitation mails one address may receive per day (``20``)
``PORTOLAN_INVITES_PER_ADDRESS_HOUR``     invitation mails one client address may cause per hour, whatever
                    keys it signs with (``40``; an IPv6 client is its /64; behind ``PORTOLAN_PROXIES``)
``PORTOLAN_INVITES_INSTALL_HOUR``     invitation mails the whole installation sends per hour (``1000``)
``PORTOLAN_BOT_MATCHES_PER_ADDRESS``  matches of bots only one client address may have running at once (``10``)
``PORTOLAN_BOT_SEARCH_BUDGET``  search iterations the search bots of one match of bots only may spend
                    together (``4800``: 20 ``search:hard`` decisions); past it they play as the heuristic does (docs/bots.md). ``0``: no bound
``PORTOLAN_MAIL_DOMAIN``  the domain of every Message-ID (default: the domain of ``MAIL_FROM``); with
                    the notice's key it makes the Message-ID, so a rare resend has the same one
``PORTOLAN_DKIM_KEY``  a PEM private key file (RSA or Ed25519, not encrypted; ``portolan dkim keygen``
                    makes one): every outgoing mail is DKIM-signed with it for the domain of ``MAIL_FROM``
                    (service.delivery.dkim_sign); unset: mail goes out unsigned (deploy/README.md "Mail
                    that lands"). A key that cannot be read stops the worker as it starts
``PORTOLAN_DKIM_SELECTOR``  the DKIM selector (``portolan``): the public key is published at
                    ``<selector>._domainkey.<domain of MAIL_FROM>``
``PORTOLAN_MAIL_REPLY_TO``  the address replies go to, plus-addressed per mail (``turns+t-...@domain``;
                    default: the address of ``MAIL_FROM``): the MTA must deliver its ``+`` addresses to Portolan
``PORTOLAN_MAIL_REFUSALS_PER_HOUR``  refusal answers one sender address gets per hour (``10``); past that
                    refusals are only logged, so forged senders cannot make Portolan a mail cannon
``PORTOLAN_DIGEST_HOUR``  the hour (UTC, ``0``-``23``) from which the daily digest goes out to the
                    addresses that chose ``digest`` (``7``); the worker's sweep sends it
``PORTOLAN_INSTALL``  what an invited CLI user runs to install the ``portolan`` command, printed in
                    invitations (default: a ``pip install git+https://...`` placeholder, :data:`INSTALL`)
``PORTOLAN_OUTBOX_CLAIM_S``  seconds an outbox entry may stay unacknowledged by a consumer before
                    another dispatcher claims it (``30``; a killed dispatcher's entries wait that long)
``PORTOLAN_JOB_TIMEOUT_S``   the RQ job timeout of every notice and bot turn, and the "sending" lease of
                    a mail (``60``): a job still running after that is dead or stuck
``PORTOLAN_JOB_DEADLINE_S``  seconds after which the watchdog re-checks a dispatched job that has not
                    told it it is done, and enqueues it again if it is neither queued nor running (``60``)
``PORTOLAN_WATCHDOG_S``      how often each worker's watchdog looks for such overdue jobs (``5``)
``PORTOLAN_WORKER_ALIVE_S``  seconds a worker's heartbeat lasts (``10``; it beats three times as often):
                    a SIGKILLed worker counts as dead that long after its last beat, and then the
                    watchdog re-enqueues the job it was running and its mail's sending lease is taken over
``PORTOLAN_SWEEP_S``         how often the safety-net sweep scans the newest matches (``300``; ``0``: never)
``PORTOLAN_REDIS_RETRY_MAX_S``  the longest wait between a worker's tries to reach a Redis that went away
                    (``5``): its RQ worker, dispatcher, watchdog and clock resume at most that long after
                    Redis is back; the outage is logged once, not at every try
``PORTOLAN_CORS_ORIGINS``  origins a browser may call the API from, ``,``-separated (``*``: any; requests
                    are authenticated by signature, never by cookies, so no credentials are allowed)
``PORTOLAN_WEBHOOKS_ALLOW_PRIVATE``  ``off`` (default) or ``on``: let webhooks use plain ``http`` and
                    loopback or private addresses (development and tests only; see docs/webhooks.md)
``PORTOLAN_WEBHOOKS_PER_OWNER``  webhooks one player key or one match may have (``10``)
``PORTOLAN_WEBHOOK_TIMEOUT``  wall-clock seconds one webhook delivery attempt may take in all: the name's
                    lookup, connect, TLS, the request and the whole answer read (``10``; at most ``30``,
                    more is read as 30); past it the connection is cut and the attempt failed
``PORTOLAN_WEBHOOK_RETRIES``  seconds before each retry of a failed delivery, ``,``-separated
                    (``10,60,300,1800,7200``: five retries over about 2.5 hours)
``PORTOLAN_WEBHOOK_DISABLE_AFTER``  consecutive failed attempts that switch a webhook off (``15``)
``PORTOLAN_MAIL_MAX_BYTES``  the largest message mail-in and the receiver take (``10485760``, 10 MB):
                    bigger ones are refused (SMTP 552, ``mail-in`` exit 65) before they are parsed
``PORTOLAN_MAIL_REQUIRE_DKIM``  ``off`` (default) or ``on``: a reply counts only with a passing DKIM
                    signature of the sender's domain (deploy/README.md "Mail in")
``PORTOLAN_MAIL_AUTHSERV_ID``  the authserv-id of our own MTA's ``Authentication-Results`` headers (RFC 8601;
                    e.g. ``mx.example.org``): only those are trusted, and a reply whose From domain fails
                    DMARC, or without a DMARC result has no aligned DKIM pass, changes nothing ("" = none)
``PORTOLAN_MAIL_REQUIRE_AUTH``  ``on`` (default) or ``off``: mail moves and commands need an authenticated
                    sender (``PORTOLAN_MAIL_AUTHSERV_ID`` or ``PORTOLAN_MAIL_REQUIRE_DKIM=on``); with neither,
                    ``mail-receiver`` and ``mail-in`` refuse to start. ``portolan dev`` sets ``off``
``PORTOLAN_MAIL_TOKEN_DAYS``  days a reply address's token is good for (``30``): turn notices, invitations,
                    answers; the last day is inside the token's mac
``PORTOLAN_MAIL_GAME_OVER_TOKEN_DAYS``  days the reply address of a game-over mail is good for (``14``: the
                    match is archived 7 days after its end)
``PORTOLAN_MAIL_SAME_TEXT_ANSWERS``  answers one address gets a day to the same text about the same turn
                    (``2``): a naive auto-responder that echoes the answers gets two, then silence
``PORTOLAN_MAIL_RECEIVER``  ``host:port`` the SMTP receiver of ``portolan dev`` listens on (``127.0.0.1:8025``)
``PORTOLAN_CLOCK``    where every process reads the time (service.clock): ``system`` (default) or
                    ``file:PATH``, the system clock plus an offset kept in PATH, which ``portolan clock
                    advance 25h`` moves (tests and ``portolan dev`` only: see the next setting)
``PORTOLAN_CLOCK_ALLOW_FILE``  ``off`` (default) or ``on``: without ``on``, every process refuses to start
                    with a file clock (whoever can write the file could make every deadline pass at once)
``PORTOLAN_VACATION_DAYS``  vacation days each player key may take per calendar year (``21``; ``0``: none);
                    a vacation pauses every clock of every seat the key holds
``PORTOLAN_CLOCK_TICK_S``  how often each worker wakes the matches whose deadline, reminder or late note
                    is due (``60``; ``0``: only at the sweep): the safety net under RQ's scheduled wakes
``PORTOLAN_STAND_IN_BOT``  the bot kind that plays for a late or departed player (default: the strongest
                    the game has, ``search:hard``; ``heuristic`` answers at once, ``random`` only for tests)
``PORTOLAN_ARCHIVE``  where ended matches go when they leave Redis (service.storage.archive): a folder
                    (default: ``archive`` beside ``OUTBOX_DIR``, so ``var/archive``) or ``s3://bucket/prefix``
``PORTOLAN_S3_ENDPOINT``  the S3-compatible store's URL when it is not AWS (MinIO, Ceph, R2...)
``PORTOLAN_METRICS``  ``on`` (default) or ``off``: Prometheus metrics at ``GET /metrics``
                    (``PROMETHEUS_MULTIPROC_DIR``: one folder for every process of a host, deploy/README.md)
``PORTOLAN_WORKER_METRICS_PORT``  a port each ``portolan worker`` serves its own metrics on (``0``: none;
                    not needed with ``PROMETHEUS_MULTIPROC_DIR``, where the API's ``/metrics`` shows them)
``PORTOLAN_LOG_FORMAT``  ``json`` (default off a terminal) or ``console``: the log lines (service.observe.logs)
``PORTOLAN_ARCHIVE_AFTER_DAYS``  days after its end a match is archived by the workers' sweep (``7``;
                    ``0``: never automatically, only by ``portolan archive``)
==================  ==========================================================================
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parseaddr
from typing import TypeVar

from service.clock import SYSTEM, Clock, ClockError

N = TypeVar("N", int, float)

MAX_WEBHOOK_TIMEOUT_S = 30  # issue 28: no receiver may hold a webhook worker longer
INSTALL = "python3 -m pip install 'git+https://github.com/OWNER/portolan'"
"""The default install line of invitations: a placeholder the operator replaces with where this
installation's code really comes from (``PORTOLAN_INSTALL``); Portolan is not on PyPI."""


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
    streams_per_client: int = 20
    invites_per_creator_hour: int = 60
    invites_per_recipient_day: int = 20
    # Issue 28: keys cost nothing, so per client address and for the whole installation too
    invites_per_address_hour: int = 40
    invites_install_hour: int = 1000
    bot_matches_per_address: int = 10
    bot_search_budget: int = 4800
    mail_domain: str = ""
    # Issue 11: the base address replies go to, plus-addressed per mail (service.play.mail.reply_address)
    mail_reply_to: str = ""
    # Issue 27: outgoing mail DKIM-signed (service.delivery.dkim_sign); "" = unsigned
    dkim_key: str = ""
    dkim_selector: str = "portolan"
    # Issue 11, the mail desk: refusal answers one sender may get an hour (DKIM: mail_require_dkim below)
    mail_refusals_per_hour: int = 10
    digest_hour: int = 7
    install: str = INSTALL
    # The dispatcher's timings (issue 10). The tests that kill workers set them to a few seconds.
    outbox_claim_s: float = 30.0
    job_timeout_s: int = 60
    job_deadline_s: float = 60.0
    watchdog_s: float = 5.0
    worker_alive_s: float = 10.0
    sweep_s: float = 300.0
    redis_retry_max_s: float = 5.0
    cors_origins: tuple[str, ...] = ("*",)
    webhooks_allow_private: bool = False
    webhooks_per_owner: int = 10
    webhook_timeout: float = 10.0
    webhook_retries: tuple[int, ...] = (10, 60, 300, 1800, 7200)
    webhook_disable_after: int = 15
    # Mail coming in (issue 11): service.delivery.inbound and the receiver
    mail_max_bytes: int = 10 * 1024 * 1024
    mail_require_dkim: bool = False
    mail_receiver: str = "127.0.0.1:8025"
    # Issue 28: an authenticated sender for a seat by mail, expiring reply tokens, no mail loops
    mail_authserv_id: str = ""
    mail_require_auth: bool = True
    mail_token_days: int = 30
    mail_game_over_token_days: int = 14
    mail_same_text_answers: int = 2
    # The clock and vacations (issue 13): see open_clock below and service.play.clock.vacations
    clock: str = SYSTEM
    clock_allow_file: bool = False
    vacation_days: int = 21
    clock_tick_s: float = 60.0
    stand_in_bot: str = ""
    # Issue 15: finished matches leave Redis for the archive (service.storage.archive)
    archive: str = ""
    s3_endpoint: str = ""
    archive_after_days: float = 7.0
    # Issue 15, observability: GET /metrics on or off (service/api/metrics.py)
    metrics: bool = True
    worker_metrics_port: int = 0
    # Issue 15, Redis Cluster: the queues on a Redis of their own ("" = the state's REDIS_URL)
    queue_redis_url: str = ""

    @property
    def queue_url(self) -> str:
        """Where RQ keeps its queues and jobs: ``QUEUE_REDIS_URL``, else ``REDIS_URL``."""
        return self.queue_redis_url or self.redis_url

    @property
    def archive_place(self) -> str:
        """Where the archive is: ``PORTOLAN_ARCHIVE``, else a folder beside the outbox folder."""
        return self.archive or os.path.join(os.path.dirname(os.path.normpath(self.outbox_dir)) or ".", "archive")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        return cls(
            redis_url=e.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            queue_redis_url=e.get("QUEUE_REDIS_URL", "").strip(),
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
            streams_per_client=max(0, _int(e, "PORTOLAN_STREAMS_PER_CLIENT", cls.streams_per_client)),
            invites_per_creator_hour=_int(e, "PORTOLAN_INVITES_PER_CREATOR_HOUR", cls.invites_per_creator_hour),
            invites_per_recipient_day=_int(e, "PORTOLAN_INVITES_PER_RECIPIENT_DAY", cls.invites_per_recipient_day),
            invites_per_address_hour=_int(e, "PORTOLAN_INVITES_PER_ADDRESS_HOUR", cls.invites_per_address_hour),
            invites_install_hour=_int(e, "PORTOLAN_INVITES_INSTALL_HOUR", cls.invites_install_hour),
            bot_matches_per_address=_int(e, "PORTOLAN_BOT_MATCHES_PER_ADDRESS", cls.bot_matches_per_address),
            bot_search_budget=_int(e, "PORTOLAN_BOT_SEARCH_BUDGET", cls.bot_search_budget),
            mail_domain=e.get("PORTOLAN_MAIL_DOMAIN", "").strip(),
            mail_reply_to=e.get("PORTOLAN_MAIL_REPLY_TO", "").strip(),
            dkim_key=e.get("PORTOLAN_DKIM_KEY", "").strip(),
            dkim_selector=_selector(e),
            mail_refusals_per_hour=_int(e, "PORTOLAN_MAIL_REFUSALS_PER_HOUR", cls.mail_refusals_per_hour),
            digest_hour=_hour(e, "PORTOLAN_DIGEST_HOUR", cls.digest_hour),
            install=(e.get("PORTOLAN_INSTALL") or "").strip() or cls.install,
            outbox_claim_s=_float(e, "PORTOLAN_OUTBOX_CLAIM_S", cls.outbox_claim_s),
            job_timeout_s=max(1, _int(e, "PORTOLAN_JOB_TIMEOUT_S", cls.job_timeout_s)),
            job_deadline_s=_float(e, "PORTOLAN_JOB_DEADLINE_S", cls.job_deadline_s),
            watchdog_s=_float(e, "PORTOLAN_WATCHDOG_S", cls.watchdog_s),
            worker_alive_s=max(0.5, _float(e, "PORTOLAN_WORKER_ALIVE_S", cls.worker_alive_s)),
            sweep_s=_float(e, "PORTOLAN_SWEEP_S", cls.sweep_s),
            redis_retry_max_s=max(0.1, _float(e, "PORTOLAN_REDIS_RETRY_MAX_S", cls.redis_retry_max_s)),
            cors_origins=tuple(o.strip() for o in (e.get("PORTOLAN_CORS_ORIGINS") or "*").split(",") if o.strip())
            or cls.cors_origins,
            webhooks_allow_private=_flag(e, "PORTOLAN_WEBHOOKS_ALLOW_PRIVATE", False),
            webhooks_per_owner=_int(e, "PORTOLAN_WEBHOOKS_PER_OWNER", cls.webhooks_per_owner),
            webhook_timeout=float(min(MAX_WEBHOOK_TIMEOUT_S,
                                      max(1, _int(e, "PORTOLAN_WEBHOOK_TIMEOUT", int(cls.webhook_timeout))))),
            webhook_retries=_ints(e, "PORTOLAN_WEBHOOK_RETRIES", cls.webhook_retries),
            webhook_disable_after=max(1, _int(e, "PORTOLAN_WEBHOOK_DISABLE_AFTER", cls.webhook_disable_after)),
            mail_max_bytes=_int(e, "PORTOLAN_MAIL_MAX_BYTES", cls.mail_max_bytes),
            mail_require_dkim=_flag(e, "PORTOLAN_MAIL_REQUIRE_DKIM", False),
            mail_authserv_id=e.get("PORTOLAN_MAIL_AUTHSERV_ID", "").strip().lower(),
            mail_require_auth=_flag(e, "PORTOLAN_MAIL_REQUIRE_AUTH", True),
            mail_token_days=max(1, _int(e, "PORTOLAN_MAIL_TOKEN_DAYS", cls.mail_token_days)),
            mail_game_over_token_days=max(1, _int(e, "PORTOLAN_MAIL_GAME_OVER_TOKEN_DAYS",
                                                  cls.mail_game_over_token_days)),
            mail_same_text_answers=max(1, _int(e, "PORTOLAN_MAIL_SAME_TEXT_ANSWERS", cls.mail_same_text_answers)),
            mail_receiver=e.get("PORTOLAN_MAIL_RECEIVER", "").strip() or cls.mail_receiver,
            clock=_clock(e),
            clock_allow_file=_flag(e, "PORTOLAN_CLOCK_ALLOW_FILE", False),
            vacation_days=_days(e, "PORTOLAN_VACATION_DAYS", cls.vacation_days),
            clock_tick_s=_float(e, "PORTOLAN_CLOCK_TICK_S", cls.clock_tick_s),
            stand_in_bot=_stand_in(e),
            archive=e.get("PORTOLAN_ARCHIVE", "").strip(),
            worker_metrics_port=_int(e, "PORTOLAN_WORKER_METRICS_PORT", 0),
            metrics=e.get("PORTOLAN_METRICS", "on").strip().lower() not in ("off", "0", "false", "no"),
            s3_endpoint=e.get("PORTOLAN_S3_ENDPOINT", "").strip(),
            archive_after_days=_float(e, "PORTOLAN_ARCHIVE_AFTER_DAYS", cls.archive_after_days),
        )

    def message_domain(self) -> str:
        """The domain of every Message-ID: ``PORTOLAN_MAIL_DOMAIN``, else the domain of the sender."""
        if self.mail_domain:
            return self.mail_domain
        _, address = parseaddr(self.mail_from)
        domain = address.rpartition("@")[2].strip()
        return domain or "portolan.invalid"

    def reply_base(self) -> str:
        """The address replies go to before plus-addressing: ``PORTOLAN_MAIL_REPLY_TO``, else the
        sender's address (``MAIL_FROM``), else ``turns@<message domain>``."""
        if self.mail_reply_to:
            return parseaddr(self.mail_reply_to)[1] or self.mail_reply_to
        _, address = parseaddr(self.mail_from)
        return address if "@" in address else f"turns@{self.message_domain()}"

    def mail_auth_problem(self) -> str:
        """Why mail may not come in with these settings ("" when it may): with
        ``PORTOLAN_MAIL_REQUIRE_AUTH`` on, a sender must be authenticated by our MTA's
        ``Authentication-Results`` or by our own DKIM check, so one of them must be configured."""
        if not self.mail_require_auth or self.mail_authserv_id or self.mail_require_dkim:
            return ""
        return ("mail in needs an authenticated sender: set PORTOLAN_MAIL_AUTHSERV_ID (your MTA's "
                "Authentication-Results) or PORTOLAN_MAIL_REQUIRE_DKIM=on, or PORTOLAN_MAIL_REQUIRE_AUTH=off "
                "to trust the From header alone (development only)")

    def job_dead_after_s(self) -> int:
        """Seconds after its start when a job that is still "started" must be dead (a live
        worker times it out at ``job_timeout_s``): the mail's sending lease lasts that long, and the
        watchdog then counts the job as lost."""
        return self.job_timeout_s + min(5, self.job_timeout_s)

    def queue_name(self, kind: str) -> str:
        """RQ queue of one kind of work ("notices", "bots"), under the namespace."""
        return f"{self.namespace}{kind}"


def _int(env: dict[str, str], name: str, default: int) -> int:
    """A non-negative integer setting; a typo stops the process at start, not at the first request."""
    return _number(env, name, default, int, "an integer")


def _hour(env: dict[str, str], name: str, default: int) -> int:
    """An hour of the day, 0 to 23; anything else stops the process at start."""
    value = _int(env, name, default)
    if value > 23:
        raise ValueError(f"{name} is an hour of the day, 0 to 23, not {value}")
    return value


def _days(env: dict[str, str], name: str, default: int) -> int:
    """Days of a calendar year, 0 to 366; anything else stops the process at start."""
    value = _int(env, name, default)
    if value > 366:
        raise ValueError(f"{name} is a number of days in a year, 0 to 366, not {value}")
    return value


def _clock(env: dict[str, str]) -> str:
    """``PORTOLAN_CLOCK`` as written, once :meth:`Clock.named` understands it (a typo stops the
    process at start, not at the first deadline)."""
    spec = (env.get("PORTOLAN_CLOCK") or SYSTEM).strip()
    Clock.named(spec)
    return spec


def _selector(env: dict[str, str]) -> str:
    """``PORTOLAN_DKIM_SELECTOR``: one or more DNS labels (RFC 6376 section 3.1), else the process stops."""
    raw = (env.get("PORTOLAN_DKIM_SELECTOR") or "").strip() or Settings.dkim_selector
    labels = raw.split(".")
    if not all(label and len(label) <= 63 and label[0] != "-" and label[-1] != "-"
               and all(c.isascii() and (c.isalnum() or c == "-") for c in label) for label in labels):
        raise ValueError(f"PORTOLAN_DKIM_SELECTOR must be a DNS name such as portolan or mail2026, not {raw!r}")
    return raw


def _float(env: dict[str, str], name: str, default: float) -> float:
    """A non-negative number of seconds; a typo stops the process at start."""
    return _number(env, name, default, float, "a number of seconds")


def _number(env: dict[str, str], name: str, default: N, parse: Callable[[str], N], what: str) -> N:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = parse(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be {what}, not {raw!r}") from exc
    if not value >= 0:  # also refuses nan
        raise ValueError(f"{name} must not be negative, not {raw}")
    return value


def _flag(env: dict[str, str], name: str, default: bool) -> bool:
    """An on/off setting (on, 1, true, yes / off, 0, false, no); anything else stops the process."""
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw in ("on", "1", "true", "yes"):
        return True
    if raw in ("off", "0", "false", "no"):
        return False
    raise ValueError(f"{name} must be on or off, not {raw!r}")


def _ints(env: dict[str, str], name: str, default: tuple[int, ...]) -> tuple[int, ...]:
    """A ``,``-separated list of non-negative integers ("" or "none": an empty list)."""
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    if raw.strip().lower() == "none":
        return ()
    try:
        values = tuple(int(v) for v in raw.split(","))
    except ValueError as exc:
        raise ValueError(f"{name} must be integers separated by commas, not {raw!r}") from exc
    if any(v < 0 for v in values):
        raise ValueError(f"{name} must not hold negative numbers")
    return values


def parse_listen(listen: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:8025`` for IPv6) as a pair; a clear ValueError otherwise. Here, not
    beside the receiver, so ``portolan dev`` can wait for the receiver without importing it."""
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"the address to listen on must be host:port, not {listen!r}")
    return host.strip("[]"), int(port)


class ClockRefused(ClockError):
    """A file clock where nobody allowed one: the process must not start."""


log = logging.getLogger("portolan.clock")
_warned: set[str] = set()


def open_clock(settings: Settings) -> Clock:
    """The clock ``settings`` name, as a process that is starting must take it.

    A file clock is refused (:class:`ClockRefused`) unless ``PORTOLAN_CLOCK_ALLOW_FILE=on``:
    whoever can write its file can move the service's time forward, making every deadline and
    timeout of every match pass at once, so production must never run on one by mistake. When
    one is allowed, the first call in each process logs a WARNING naming the file and its offset,
    so that no log of a process on a moved clock reads as if the time were real. Everything that
    builds the service (:func:`service.runtime.build`, the API's ``create_app``, gunicorn's
    config) comes through here."""
    clock = Clock.named(settings.clock)
    if not clock.movable:
        return clock
    if not settings.clock_allow_file:
        raise ClockRefused(
            f"PORTOLAN_CLOCK={settings.clock} names a file clock, which anyone who can write {clock.path} can move "
            "forward, making every deadline and timeout pass at once: it is for tests and `portolan dev` only. "
            "Unset PORTOLAN_CLOCK (or set it to system) to run on the system clock, or set "
            "PORTOLAN_CLOCK_ALLOW_FILE=on to start with the file clock anyway")
    if settings.clock not in _warned:
        _warned.add(settings.clock)
        log.warning("the clock is a FILE clock (%s), %.0f s ahead of the system clock: for tests and `portolan dev` "
                    "only (`portolan clock advance` moves it for every process that reads it)",
                    clock.path, clock.offset())
    return clock


def _stand_in(env: dict[str, str]) -> str:
    """``PORTOLAN_STAND_IN_BOT``: a bot kind this build knows, or "" (the strongest each game has)."""
    from service.bots import ALL_KINDS

    kind = env.get("PORTOLAN_STAND_IN_BOT", "").strip()
    if kind and kind not in ALL_KINDS:
        raise ValueError(f"PORTOLAN_STAND_IN_BOT is one of {', '.join(ALL_KINDS)}, not {kind!r}")
    return kind
