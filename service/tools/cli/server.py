"""The operator's commands: running the service's processes. ``dev`` (everything on one machine),
``serve`` (the API), ``worker``, ``mail-in`` (one received mail from an MTA pipe), ``mail-receiver``
(the SMTP/LMTP receiver) and ``rebuild`` (replay matches from their logs).

They build the service from the environment (``service.config.Settings``), not over the API; the
wiring (``service.runtime``) is imported when a command runs, so the player's commands never load it.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from service.tools.cli.common import CommandMaker
from service.tools.cli.data import install_editions
from service.tools.terminal import say


def cmd_dev(args: argparse.Namespace) -> int:
    """Run everything on this machine (service.tools.devserver) with the ``--edition`` files installed."""
    from service.tools.devserver import run_dev

    install_editions(args.edition)
    return run_dev(host=args.host, port=args.port, data_dir=args.data)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the API with werkzeug (production runs gunicorn, deploy/)."""
    from werkzeug.serving import run_simple

    from service.api import create_app

    install_editions(args.edition)
    run_simple(args.host, args.port, create_app(), threaded=True, use_reloader=False)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    """Run the outbox dispatcher and an RQ worker (workers.worker) on the ``--queues``; without
    ``--queues``, one such process per queue group, supervised (service.tools.supervise)."""
    from service.config import ClockRefused, Settings, open_clock
    from service.delivery import dkim_sign
    from service.delivery.dkim_sign import DkimKeyError
    from service.tools.supervise import run_worker_groups
    from workers.worker import run

    if args.queues is None and not args.burst:  # one process per queue group, each restarted when it exits
        settings = Settings.from_env()
        # a setting that stops every worker at start stops this one, rather than a restart loop of three
        try:
            open_clock(settings)
            dkim_sign.check(settings)
        except (ClockRefused, DkimKeyError) as exc:  # the operator's setting: say which and why
            raise SystemExit(f"portolan worker: {exc}") from None
        return run_worker_groups(fork=args.fork)
    try:
        run(Settings.from_env(), burst=args.burst, fork=args.fork,
            kinds=tuple(q.strip() for q in (args.queues or "bots,notices,webhooks").split(",")))
    except DkimKeyError as exc:  # the operator's setting: say which and why, no traceback
        raise SystemExit(f"portolan worker: {exc}") from None
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    """Replay the named matches (or ``--all``) from their logs; exit 1 when one no longer replays."""
    from service.config import Settings
    from service.runtime import build
    from service.tools.rebuild import rebuild

    service = build(Settings.from_env())
    ids = service.store.match_ids() if args.all else args.matches
    if not ids:
        raise SystemExit("name match ids or pass --all")
    bad = 0
    for mid in ids:
        line = rebuild(service, mid, write=args.write)
        bad += not line.ok
        say(line.text())
    say(f"{len(ids)} matches, {bad} do not replay")
    return 1 if bad else 0


EX_DATAERR = 65
"""sysexits.h: the input was bad; an MTA bounces the message with what we wrote on stderr."""
EX_TEMPFAIL = 75
"""sysexits.h: try again later; Postfix's pipe, procmail and .forward keep the message queued."""
EX_CONFIG = 78
"""sysexits.h: a configuration error; Postfix defers the message (4.3.5) until it is fixed."""


def cmd_mail_in(args: argparse.Namespace) -> int:
    """One message on stdin to the mail desk: exit 0 when dealt with (or dropped unanswered, sent
    to no authentic reply address), 65 over the size cap or unreadable, 75 to have the MTA retry,
    78 when no way to authenticate senders is configured (deploy/README.md "Mail in")."""
    import logging

    from service.config import Settings
    from service.delivery.inbound import Door, MailTooBig, MailUnreadable, deliver_raw
    from service.runtime import build, build_desk

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="portolan mail-in: %(message)s")
    settings = Settings.from_env()
    if settings.mail_auth_problem():  # issue 28: no seat by mail on a From header alone
        say(f"portolan mail-in: {settings.mail_auth_problem()}", file=sys.stderr)
        return EX_CONFIG
    raw = _read_capped(sys.stdin.buffer, settings.mail_max_bytes)
    recipients = args.recipient or [r for r in (os.environ.get("ORIGINAL_RECIPIENT"), os.environ.get("RECIPIENT")) if r]
    sender = args.sender if args.sender is not None else os.environ.get("SENDER")
    try:
        matches = build(settings)
        desk = build_desk(settings, matches)
        # a mail to no authentic reply address is dropped with exit 0, never 67 (EX_NOUSER): the MTA
        # took it already, so a bounce from it would go to the (forged) sender, the backscatter we avoid
        say(deliver_raw(desk, raw, recipients, envelope_sender=sender, check_dkim=settings.mail_require_dkim,
                        max_bytes=settings.mail_max_bytes, door=Door(matches.server_key, settings.reply_base())))
    except (MailTooBig, MailUnreadable) as exc:
        say(f"refused: {exc}", file=sys.stderr)
        return EX_DATAERR
    except Exception as exc:  # Redis down, a bug: the message stays with the MTA, which retries
        logging.getLogger("portolan.mail").exception("temporary failure, the mail server will try again: %s", exc)
        return EX_TEMPFAIL
    return 0


def _read_capped(stream: Any, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``stream`` (enough to know it is too big), the rest read and
    dropped, so the MTA writing into the pipe never sees it broken."""
    data = stream.read(limit + 1) if limit else stream.read()
    if limit and len(data) > limit:
        while stream.read(1 << 20):
            pass
    return bytes(data)


def cmd_mail_receiver(args: argparse.Namespace) -> int:
    """Run the SMTP (or LMTP) receiver that hands each message to the mail desk."""
    import logging

    from service.config import Settings
    from service.delivery.receiver import serve
    from service.runtime import build, build_desk

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s portolan mail: %(message)s")
    # aiosmtpd logs every connection and command at INFO ("mail.log"); our own line per message says what matters
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    settings = Settings.from_env()
    if settings.mail_auth_problem():  # issue 28: no seat by mail on a From header alone
        raise SystemExit(f"portolan mail-receiver: {settings.mail_auth_problem()}")
    matches = build(settings)
    serve(build_desk(settings, matches), settings, matches.server_key, args.listen or settings.mail_receiver,
          lmtp=args.lmtp)
    return 0


_EDITION_HELP = "install a data edition (repeatable; adds to PORTOLAN_EDITIONS, docs/editions.md)"


def add_commands(cmd: CommandMaker) -> None:
    """Register ``dev``, ``serve``, ``worker``, ``mail-in``, ``mail-receiver`` and ``rebuild``."""
    sp = cmd("dev", cmd_dev, "run everything locally: embedded Redis, API, worker, mail to ./var/outbox")
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8000)
    sp.add_argument("--data", default="var", help="folder for Redis data and the outbox (default ./var)")
    sp.add_argument("--edition", action="append", default=[], metavar="FILE", help=_EDITION_HELP)
    sp = cmd("serve", cmd_serve, "run the API against REDIS_URL (production: use gunicorn, see deploy/)")
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8000)
    sp.add_argument("--edition", action="append", default=[], metavar="FILE", help=_EDITION_HELP)
    sp = cmd("worker", cmd_worker, "run the outbox dispatcher and an RQ worker for notices and bots against REDIS_URL")
    sp.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    sp.add_argument("--fork", action="store_true", help="run each job in a forked process")
    sp.add_argument("--queues", default=None,
                    help="queues to work in this one process, in priority order (bots, clock, notices, webhooks); "
                         "default: a process per group (mail: notices; bots: bots,clock; webhooks), each "
                         "restarted when it exits")
    sp = cmd("mail-in", cmd_mail_in, "deliver one received mail on stdin to the mail desk (for an MTA pipe, "
             "procmail or .forward): exit 0 dealt with or dropped, 65 too big or unreadable, 75 try again later")
    sp.add_argument("--recipient", action="append", default=[], metavar="ADDRESS",
                    help="the envelope recipient (repeatable; default $ORIGINAL_RECIPIENT, $RECIPIENT)")
    sp.add_argument("--sender", help="the envelope sender (default $SENDER; empty: a bounce)")
    sp = cmd("mail-receiver", cmd_mail_receiver, "run the SMTP receiver of replies (LMTP with --lmtp)")
    sp.add_argument("--listen", help="host:port (default PORTOLAN_MAIL_RECEIVER, 127.0.0.1:8025)")
    sp.add_argument("--lmtp", action="store_true", help="speak LMTP (Postfix lmtp:inet:HOST:PORT) instead of SMTP")
    sp = cmd("rebuild", cmd_rebuild, "replay matches from their logs and report any that no longer replay")
    sp.add_argument("matches", nargs="*")
    sp.add_argument("--all", action="store_true")
    sp.add_argument("--write", action="store_true", help="replace the cached state with the replayed one")
