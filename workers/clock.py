"""The match clock's jobs: wake a match, tick the deadline index, send reminders and late notes.

:func:`wake` looks at a match as it stands now (``Matches.clock_status``) and does what is due,
each thing once (service.delivery.clock explains what is due and the marks), then schedules the
next wake. Nothing it does depends on when it runs or how often: a wake enqueued twice, run
late, or run after the player moved finds the marks set, or ``Matches.timeout`` answering None
(the seat moved, the ply moved on, the timeout was taken), and changes nothing.

The mails are jobs of their own (deterministic ids, promises, "sent" marks as every mail in
workers.jobs), so a slow SMTP server never holds up a timeout, and each checks at send time that
what it says still holds (a reminder to a player who has moved since is not sent).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache

from rq import get_current_job

from service.delivery import letters
from service.delivery.clock import Due, Scheduler, SeatStatus, plan, scheduler_of, undone
from service.delivery.dispatch import RQDispatcher
from service.play.errors import Conflict
from service.play.matches import Matches
from service.proof.match_record import MatchMeta
from workers.jobs import job_outcome, preferences, send_once, service, settings

log = logging.getLogger("portolan.clock")
MARK_TTL = 200 * 86400
"""How long a "done" mark is kept: longer than any clock can run (a 90-day bank plus grace and vacation)."""
__all__ = ["send_late_note", "send_reminder", "tick", "tick_with", "wake", "wake_with"]


@lru_cache(maxsize=1)
def scheduler() -> Scheduler:
    """The scheduler over this worker's service (its Redis, namespace and clock)."""
    return scheduler_of(service(), settings())


def wake(match_id: str) -> str:
    """The RQ job: do what is due in the match now, once, and schedule its next wake."""
    job = get_current_job()
    jid = job.id if job is not None else None
    try:
        return wake_with(service(), scheduler(), match_id, jid)
    finally:
        if jid is not None:
            service().store.job_done(jid)


def wake_with(m: Matches, s: Scheduler, match_id: str, current_job: str | None = None) -> str:
    """:func:`wake` over a given service and scheduler (the worker's tick thread, tests)."""
    meta = m.store.meta(match_id)
    if meta is None or meta.status != "active":
        s.deadlines.drop(match_id)
        return "skipped: the match is not running"
    now = m.moment()
    due, _ = plan(m.clock_status(meta, now), now)
    said: list[str] = []
    busy = False
    for d in undone(m.store, match_id, due):
        if d.kind == "timeout":
            try:
                taken = m.timeout(match_id, d.seat)
            except Conflict as exc:  # the player (or another wake) committed first
                taken = None
                log.info("match %s: timeout of seat %d not taken: %s", match_id, d.seat, exc)
            said.append(f"timeout of seat {d.seat}: {'done' if taken else 'nothing to do'}")
            continue
        if once(m, d.mark(match_id), lambda d=d: _decide(m, s.rq, meta, d)):  # type: ignore[misc]
            said.append(f"{d.kind} {d.name or d.day} for seat {d.seat}")
        else:
            busy = True
    when = s.schedule(match_id, current_job=current_job, retry=True)
    if busy:
        said.append("something was being done by another wake")
    text = "; ".join(said) or "nothing due"
    log.info("wake %s: %s; next wake %s", match_id, text, when.isoformat() if when else "none")
    return text


def once(m: Matches, mark: str, act: Callable[[], None]) -> bool:
    """Run ``act`` unless ``mark`` is set, then set it; False when another wake is at it now
    (it holds the short lease; a wake killed halfway leaves it to expire, and the next wake
    does the work again, so it is done at least once, and twice only after such a kill)."""
    if m.store.marked([mark])[0]:
        return True
    lease = f"{mark}:doing"
    if not m.store.claim_once(lease, ttl=settings().job_dead_after_s()):
        return False
    try:
        if not m.store.marked([mark])[0]:
            act()
            m.store.claim_once(mark, ttl=MARK_TTL)
    finally:
        m.store.release(lease)
    return True


def _decide(m: Matches, rq: RQDispatcher, meta: MatchMeta, d: Due) -> None:
    """Enqueue the mails of one reminder or late note and announce it in the outbox (webhooks,
    streams and the players' inboxes carry it as an event of kind ``reminder``)."""
    match_id = str(meta.id)
    since = int(d.since.timestamp())
    seats = meta.seats
    if d.kind == "reminder":
        rq.reminder(match_id, d.seat, since, d.name)
    else:
        rq.late_notes(match_id, d.seat, since, d.day, [r.seat for r in seats if r.kind == "human" and r.email])
    m.store.announce(match_id, "reminder", {"seat": d.seat, "reminder": d.name if d.kind == "reminder" else "late",
                                            "day": d.day, "since": d.since.isoformat(), "id": d.mark(match_id)})


def tick() -> str:
    """The RQ job: wake every match whose entry in the deadline index is due by the service clock."""
    return tick_with(service(), scheduler())


def tick_with(m: Matches, s: Scheduler) -> str:
    """:func:`tick` over a given service and scheduler (the worker's tick thread)."""
    ids = s.deadlines.due(m.moment().timestamp())
    failed = 0
    for match_id in ids:
        try:
            wake_with(m, s, match_id)
        except Exception:  # one broken match must not keep the others waiting; its entry stays due
            failed += 1
            log.exception("tick: waking match %s failed", match_id)
    return f"woke {len(ids) - failed} match(es)" + (f", {failed} failed" if failed else "")


def _seat_status(m: Matches, match_id: str, seat: int, since: int) -> tuple[MatchMeta, SeatStatus] | None:
    """The match and the seat's clock status if the seat's clock still runs since ``since``
    (epoch seconds) and its player plays it; None when the mail would no longer be true."""
    meta = m.store.meta(match_id)
    if meta is None or meta.status != "active":
        return None
    for st in m.clock_status(meta, m.moment()):
        if (st.seat == seat and st.controller == "player" and st.running and st.since is not None
                and int(st.since.timestamp()) == since):
            return meta, st
    return None


def send_reminder(match_id: str, seat: int, since: int, name: str) -> str:
    """Email the seat's player that its move is due soon (once), unless the player moved since,
    the deadline has passed, or the address turned notices off."""
    m = service()
    jid = f"remind-{match_id}-{seat}-{since}-{name}"
    found = _seat_status(m, match_id, seat, since)
    now = m.moment()
    if found is None or found[1].deadline is None or now >= found[1].deadline:
        m.store.job_done(jid)
        return "skipped: the seat moved, or its deadline passed"
    meta, status = found
    email = meta.seats[seat].email
    if not email or preferences().get(str(email)) == "off":
        m.store.job_done(jid)
        return "skipped: no address, or the player turned notices off"
    mark = f"reminded:{match_id}:{seat}:{since}:{name}"
    language = preferences().language(str(email))
    where = send_once(m, mark, lambda: letters.reminder(m, settings(), match_id, seat, status, now, mark, language))
    log.info("reminder %s -> %s", mark, where)
    return job_outcome(m, jid, where)


def send_late_note(match_id: str, late: int, since: int, day: int, to: int) -> str:
    """Email seat ``to`` that seat ``late`` is late (day ``day`` of its lateness), once, unless the
    late seat moved since, its timeout came, or the address turned notices off."""
    m = service()
    jid = f"late-{match_id}-{late}-{since}-{day}-{to}"
    found = _seat_status(m, match_id, late, since)
    now = m.moment()
    if found is None or found[1].acts_at is None or now >= found[1].acts_at:
        m.store.job_done(jid)
        return "skipped: the late seat moved, or its timeout came"
    meta, status = found
    email = meta.seats[to].email
    if not email or preferences().get(str(email)) == "off":
        m.store.job_done(jid)
        return "skipped: no address, or the player turned notices off"
    mark = f"late-sent:{match_id}:{late}:{since}:{day}:{to}"
    language = preferences().language(str(email))
    where = send_once(m, mark, lambda: letters.late_note(m, settings(), match_id, late, to, day, status, now, mark,
                                                         language))
    log.info("late note %s -> %s", mark, where)
    return job_outcome(m, jid, where)
