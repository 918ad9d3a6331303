"""The "inboxes" outbox consumer: each committed change of a match, into its players' ``me`` streams.

For every outbox entry (created, started, moved, aborted) the events each key should hear of
(:func:`service.play.outward.streams.inbox_events`) are appended to that key's inbox stream. Quick (a
few Redis calls, no network I/O beyond Redis) and idempotent: each append is skipped when the
event's id is already in that inbox, so an entry handled twice (at-least-once delivery, a
consumer that died before its ack) adds nothing the second time.
"""

from __future__ import annotations

from service.play.matches import Matches
from service.play.outward.streams import inbox_events
from service.storage.outbox_streams import OutboxRecord
from service.storage.streams import Inboxes

GROUP = "inboxes"


def handle(matches: Matches, entry: OutboxRecord) -> None:
    """Append the entry's events to every concerned key's inbox (raises, so the entry is retried,
    when Redis fails halfway: the appends already made are then skipped as duplicates)."""
    inboxes = Inboxes(matches.store.r, matches.store.ns)
    for key, event in inbox_events(matches, entry.kind, entry.match, entry.ply, entry.data):
        inboxes.append(key, event)
