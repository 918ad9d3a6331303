"""``portolan archive``: move ended matches out of Redis into the archive (an operator's command).

Like ``portolan rebuild`` it works on the service's own Redis (``REDIS_URL``, ``PORTOLAN_NS``)
and archive (``PORTOLAN_ARCHIVE``), not through the API::

    portolan archive MATCH...          # these matches, however recently they ended
    portolan archive --due             # what the workers' sweep would archive now
    portolan archive --due --days 0.5  # ... with another age than PORTOLAN_ARCHIVE_AFTER_DAYS

Every read route serves an archived match as before (service.storage.store falls back to the
archive document), so archiving changes nothing a player sees.
"""

from __future__ import annotations

import argparse

from service.tools.cli.common import CommandMaker
from service.tools.terminal import say


def cmd_archive(args: argparse.Namespace) -> int:
    """Archive the named matches, or those due (``--due``); exit 1 when one could not be archived."""
    from service.config import Settings
    from service.play.archiving import archive_due, archive_one
    from service.runtime import build

    settings = Settings.from_env()
    service = build(settings)
    if args.due:
        days = settings.archive_after_days if args.days is None else args.days
        if days <= 0 and args.days is None:
            say("PORTOLAN_ARCHIVE_AFTER_DAYS is 0: nothing is archived automatically (name matches, or --days)")
            return 0
        done = archive_due(service, service.moment().timestamp(), max(days, 1e-9), limit=args.limit)
    elif args.matches:
        done = [archive_one(service, mid) for mid in args.matches]
    else:
        raise SystemExit("name match ids, or pass --due")
    failed = 0
    for one in done:
        if one.error:
            failed += 1
            say(f"{one.match}: not archived: {one.error}")
        else:
            say(f"{one.match}: archived to {service.store.archive_to.where} ({one.where})")
    say(f"{len(done) - failed} archived, {failed} not")
    return 1 if failed else 0


def add_commands(cmd: CommandMaker) -> None:
    """Add ``archive`` to the CLI's parser (``cmd`` makes a sub-command)."""
    sp = cmd("archive", cmd_archive, "move ended matches out of Redis into the archive (PORTOLAN_ARCHIVE); "
             "every read route still serves them")
    sp.add_argument("matches", nargs="*", help="match ids (archived whenever they ended)")
    sp.add_argument("--due", action="store_true",
                    help="every match that ended PORTOLAN_ARCHIVE_AFTER_DAYS ago (what the sweep does)")
    sp.add_argument("--days", type=float, help="with --due: the age in days instead of PORTOLAN_ARCHIVE_AFTER_DAYS")
    sp.add_argument("--limit", type=int, default=1000, help="with --due: at most this many (oldest first)")
