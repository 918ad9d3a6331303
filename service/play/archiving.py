"""Finished matches leave Redis: the archiving policy (issue 15).

A match that ended (finished, or aborted) more than ``after_days`` ago is archived by the
workers' sweep (``PORTOLAN_ARCHIVE_AFTER_DAYS``, 7 by default) or at once by ``portolan archive``.
The store does the moving (:meth:`service.storage.store.Store.archive`: document written and read
back, then a tombstone in one transaction); this module only says which matches are due. Reads
never change: the store falls back to the archive, so an archived match's record, log, views and
board are served as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the store is injected (see service.play.context)
    from service.play.context import MatchContext

DAY_S = 86400.0


@dataclass(frozen=True)
class Archived:
    """One match the policy moved (``where``: the archive's name for it), or could not (``error``)."""

    match: str
    where: str = ""
    error: str = ""


def archive_due(ctx: MatchContext, now: float, after_days: float, limit: int = 100) -> list[Archived]:
    """Archive every match that ended more than ``after_days`` before ``now`` (epoch seconds), at
    most ``limit`` per call, oldest first. A match that fails (the archive is unreachable, say)
    stays in Redis and is reported; the next sweep tries again."""
    if after_days <= 0:
        return []
    out = []
    for match_id in ctx.store.ended_before(now - after_days * DAY_S, limit):
        out.append(archive_one(ctx, match_id))
    return out


def archive_one(ctx: MatchContext, match_id: str) -> Archived:
    """Archive one match now, whenever it ended; a refusal (not ended, no such match, the archive
    failing) is reported, never raised."""
    try:
        return Archived(match_id, where=ctx.store.archive(match_id))
    except KeyError:
        return Archived(match_id, error="no such match")
    except Exception as exc:  # the archive's own errors (disk, network): the match stays in Redis
        return Archived(match_id, error=str(exc) or type(exc).__name__)
