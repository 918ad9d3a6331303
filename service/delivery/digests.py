"""When the daily digests go out: the worker's sweep asks here once every few minutes.

An address that chose ``digest`` gets one mail a day, from ``PORTOLAN_DIGEST_HOUR`` (UTC) on,
listing every match that waits for it (workers.jobs.send_digest). The sweep enqueues a digest
job for every address with seats noted (service.storage.preferences.DigestBook) whose mark
``digest:<address digest>:<day>`` is not set yet and whose job is neither queued nor running;
the job sets the mark once the mail is accepted, so a day's digest goes out once however many
sweeps, workers or retries there are.
"""

from __future__ import annotations

from datetime import UTC, datetime

from service.delivery.dispatch import RQDispatcher, digest_job_id
from service.storage.preferences import DigestBook
from service.storage.store import Store


def due_digests(store: Store, book: DigestBook, now: datetime, hour: int) -> list[tuple[str, str]]:
    """(address digest, day) of every digest due at ``now`` and not sent yet: none before ``hour``."""
    now = now.astimezone(UTC)
    if now.hour < hour:
        return []
    day = now.date().isoformat()
    addresses = book.addresses()
    sent = store.marked([f"digest:{a}:{day}" for a in addresses])
    return [(a, day) for a, done in zip(addresses, sent, strict=True) if not done]


def enqueue_due_digests(store: Store, book: DigestBook, dispatcher: RQDispatcher, hour: int, now: datetime) -> int:
    """Enqueue the digests :func:`due_digests` finds at ``now`` (the service's clock:
    ``Matches.moment()``), unless already queued or running; returns how many."""
    n = 0
    for address, day in due_digests(store, book, now, hour):
        if dispatcher.job_state(digest_job_id(address, day)) == "lost":  # "lost" also means: never enqueued
            dispatcher.digest(address, day)
            n += 1
    return n
