"""RQ jobs: plain functions of plain arguments (match id, seat, ply).

Every job is idempotent, and keeps its promise (service.delivery.dispatch) once its work is
done, so the watchdog runs it again if it was lost (its worker killed) before that.

A mail is sent at least once, never lost: the job takes a "sending" lease in its worker's name
(SET NX EX, the job timeout at most), so two workers do not send the same mail at once, and sets
the "sent" mark only once the SMTP server accepted the message (``deliver`` returned). A worker
killed in between leaves no mark: once it has stopped beating (``PORTOLAN_WORKER_ALIVE_S``) its
lease is taken over and the mail goes out again, the same message with the same Message-ID
(service.delivery.mail.message_id; only the Date differs), which receivers fold. A bot move goes through the same
signed, ply-checked submit as a person's, so a second run of the same bot job finds the ply
moved on and does nothing.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache

from rq import get_current_job

from service.config import Settings
from service.delivery import letters
from service.delivery.dispatch import digest_job_id, job_id
from service.delivery.letters import cli_line, happened_since
from service.delivery.mail import Mail, deliver
from service.delivery.outbox import server_played
from service.observe import logs
from service.play.errors import Conflict
from service.play.mail.answers import prompt_mark
from service.play.matches import Matches
from service.proof import standing as standings
from service.runtime import build
from service.storage.connection import connect
from service.storage.liveness import Liveness
from service.storage.preferences import DigestBook, NoticePreferences
from service.storage.presence import Presence

log = logging.getLogger("portolan.jobs")
BUSY = "busy"
__all__ = ["cli_line", "happened_since", "play_bot", "send_digest", "send_invite", "send_match_over", "send_turn_notice"]


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()


@lru_cache(maxsize=1)
def service() -> Matches:
    return build(settings())


def preferences() -> NoticePreferences:
    """The per-address notice preferences, in the service's Redis and namespace."""
    s = settings()
    return NoticePreferences(connect(s.redis_url), s.namespace)


def presence(m: Matches) -> Presence:
    """The presence records of the seats whose players watch their match live (the API's streams
    write them in the store's Redis and namespace)."""
    return Presence(m.store.r, m.store.ns)


def digest_book() -> DigestBook:
    """The seats waiting for a digest, in the service's Redis and namespace."""
    s = settings()
    return DigestBook(connect(s.redis_url), s.namespace)


def send_once(m: Matches, mark: str, compose: Callable[[], Mail | None]) -> str | None:
    """Compose and deliver one mail unless its "sent" mark is set. Returns where it went ("no
    email address" when ``compose`` gives None), None when it was already sent, or BUSY when
    another live worker holds its sending lease (it is sending it now: the promise stays open and
    the watchdog looks again). A lease whose worker is dead (killed while sending: it no longer
    beats, service.storage.liveness) is taken over at once, so the mail goes out again with the
    same Message-ID and the same bytes but the Date (a receiver folds the two if the first got
    through). A failure gives the lease back, so the job's retry can send it."""
    if m.store.marked([mark])[0]:
        return None
    lease = f"{mark}:sending"
    me = owner()
    if not take_lease(m, lease, me):
        return BUSY
    book = liveness(m)
    try:
        if m.store.marked([mark])[0]:  # the lease's last holder set the mark just before we took it
            book.release(lease, me)
            return None
        mail = compose()
        where = deliver(settings(), mail) if mail is not None else "no email address"
    except Exception:
        book.release(lease, me)
        raise
    # Only now, after the server's 250: a kill before this line resends (same Message-ID).
    m.store.claim_once(mark)
    book.release(lease, me)
    return where


def owner() -> str:
    """Who sends: the RQ worker running this job (it beats while alive: workers.worker), else
    this process (a job called outside RQ, which no heartbeat vouches for)."""
    job = get_current_job()
    if job is not None and job.worker_name:
        return job.worker_name
    return f"{socket.gethostname()}:{os.getpid()}"


def liveness(m: Matches) -> Liveness:
    """The workers' heartbeats and the mails' leases, in the store's Redis and namespace."""
    return Liveness(m.store.r, m.store.q, m.store.ns)


def take_lease(m: Matches, lease: str, me: str) -> bool:
    """Take a mail's sending lease for ``me``: free, ours already, or held by a worker that no
    longer beats (taken over, logged). False: a live worker holds it."""
    book = liveness(m)
    ttl = settings().job_dead_after_s()  # the backstop: a lease never outlives its job's timeout
    holder = book.take_lease(lease, me, ttl)
    if holder is None or holder == me:
        return True
    if holder and book.alive([holder])[0]:
        return False
    if not book.take_over(lease, holder, me, ttl):
        return False
    log.warning("took over the sending lease %s of worker %s, which no longer beats", lease, holder or "(unnamed)")
    return True


def job_outcome(m: Matches, jid: str, where: str | None, skipped: str = "skipped: already sent") -> str:
    """The job's answer; the promise is kept unless another worker holds the lease."""
    if where == BUSY:
        return "deferred: another worker holds the sending lease"
    m.store.job_done(jid)
    return skipped if where is None else f"sent: {where}"


def send_turn_notice(match_id: str, seat: int, ply: int) -> str:
    """Email the seat's player that it is their turn (once per match, seat and ply), as their
    notice preference says: ``every`` sends it, ``digest`` notes the seat for the day's digest
    instead, ``off`` sends nothing. Either way the promise is kept and the log says why; except
    while the player is live on the match page (an open stream signed by the seat's key): then
    the notice waits, its promise open, until they leave (it goes out) or act (it never does)."""
    with logs.bound(match=match_id, seat=seat, ply=ply, job="notice"):
        return _send_turn_notice(match_id, seat, ply)


def _send_turn_notice(match_id: str, seat: int, ply: int) -> str:
    m = service()
    jid = job_id("notice", match_id, seat, ply)
    meta = m.meta(match_id)
    if meta.status != "active" or seat not in meta.active:
        m.store.job_done(jid)
        return "skipped: the seat need not act any more"
    since = (meta.active_since or {}).get(str(seat))
    mark = f"notice:{match_id}:{seat}:{ply}"
    if since is not None and int(since) != ply:  # e.g. a notice kept back while its player watched live
        m.store.job_done(jid)
        log.info("turn notice %s not sent: the seat's current turn began at ply %s", mark, since)
        return "skipped: the turn it was for is over (the seat acted; a later turn has its own notice)"
    shown = ply  # the ply the notice shows (its menu, its reply address)
    if int(meta.ply) != ply:
        if not _only_others_match_actions(m, match_id, seat, ply, int(meta.ply)):
            # Still the seat's turn, but the match moved on within it: the seat took a step of its
            # turn itself (one seat acts at a time in every game), so its player is at the match. A
            # notice shows its own ply or nothing (its Message-ID, menu and reply token name that
            # ply), and the mark says "dealt with", so the sweep's look for unsent notices leaves it.
            m.store.claim_once(mark)
            m.store.job_done(jid)
            log.info("turn notice %s not sent: the match is at ply %s within the seat's turn", mark, meta.ply)
            return "skipped: the match moved on within the seat's turn (it is at the match)"
        # Only other seats' match actions (an abort vote, a resignation that left the match on)
        # came since: the position is the one the turn began with and the seat has not acted, so
        # the turn's notice is still owed. It shows the current ply, so that a reply to it is not
        # stale; its mark and Message-ID stay the turn's (one notice per turn).
        shown = int(meta.ply)
    if seat in server_played(meta):  # a stand-in (or a pass, or a forfeited seat's bot) moves now
        m.store.claim_once(mark)  # dealt with: the sweep's look for unsent notices must not send it
        m.store.job_done(jid)
        return "skipped: the server plays this seat now"
    email = meta.seats[seat].email
    choice = preferences().get(email) if email else "every"
    if choice != "every":
        if choice == "digest":
            since = (meta.active_since or {}).get(str(seat))
            digest_book().remember(email, match_id, seat, meta.updated_at if since is None else _since(m, match_id, since))
        m.store.claim_once(mark)  # dealt with: the sweep's look for unsent notices must not send it after all
        m.store.job_done(jid)
        why = "kept for the daily digest" if choice == "digest" else "the player turned notices off"
        log.info("turn notice %s not sent: %s", mark, why)
        return f"skipped: {why}"
    until = presence(m).live_until(match_id, seat)
    if until is not None:
        # The player watches the match live (a stream that proved the seat's key is open): they see
        # their turn there. Not sent *yet*: the promise stays open and is looked at again when the
        # presence would lapse, or at once when the stream closes (service/play/outward/presence.py),
        # so the notice follows if they leave before moving, and a later run that finds the seat
        # has acted keeps the promise without sending (above).
        m.store.job_due_by(jid, until + 1)
        log.info("turn notice %s kept back: the player is live on the match page", mark)
        return "deferred: the player is live on the match page"
    if not m.store.claim_for(prompt_mark(match_id, seat, shown), "notice"):
        # the answer to the seat's own reply already asks for this ply's move (one prompt per seat
        # and ply); dealt with, so the sweep's look for unsent notices does not send it either
        m.store.claim_once(mark)
        m.store.job_done(jid)
        log.info("turn notice %s not sent: the answer to the seat's reply asks for this move", mark)
        return "skipped: the answer to the seat's reply asks for this move"
    language = preferences().language(email) if email else "en"
    try:
        where = send_once(m, mark, lambda: letters.turn_notice(m, settings(), match_id, seat, mark, shown, began=ply,
                                                               language=language))
    except letters.PositionMoved:  # a move landed between the checks above and the writing
        m.store.job_done(jid)
        log.info("turn notice %s not sent: the match moved on while it was written", mark)
        return "skipped: the match moved on while the notice was written"
    log.info("turn notice %s -> %s", mark, where)
    return job_outcome(m, jid, where)


def _only_others_match_actions(m: Matches, match_id: str, seat: int, start: int, stop: int) -> bool:
    """Are the log entries of plies ``start..stop-1`` all match actions (``match:…``: votes,
    resignations, returns) of seats other than ``seat``? Then the game's position is the one of
    ``start`` and ``seat`` has not acted since."""
    entries = m.store.log(match_id, start, stop - 1)
    return len(entries) == stop - start and all(
        int(e["seat"]) != seat and all(standings.is_match_action(a) for a in e["envelope"]["actions"])
        for e in entries)


def _since(m: Matches, match_id: str, ply: int) -> str:
    """When the match reached ``ply`` (the seat's turn began): the acceptance time of the move
    before it, or the start of the match."""
    if ply > 0:
        entries = m.store.log(match_id, ply - 1, ply - 1)
        if entries:
            return str(entries[0]["accepted_at"])
    meta = m.meta(match_id)
    return str(meta.started_at or meta.updated_at)


def send_match_over(match_id: str, seat: int) -> str:
    """Email a human seat the final standings (once)."""
    m = service()
    jid = job_id("over", match_id, seat)
    meta = m.meta(match_id)
    mark = f"over:{match_id}:{seat}"
    row = meta.seats[seat]
    if not row.email:
        m.store.job_done(jid)
        return "skipped"
    prefs = preferences()
    if prefs.get(row.email) == "off":  # "stop notices" means every mail of a match
        m.store.job_done(jid)
        return "skipped: the player turned notices off"
    language = prefs.language(row.email)
    return job_outcome(m, jid, send_once(m, mark, lambda: letters.match_over(m, settings(), match_id, seat, mark,
                                                                             language)), "skipped")


def send_invite(match_id: str, seat: int, email: str, token: str, language: str = "en") -> str:
    """Email an invitation with the seat's invite token (once). Not sent to a seat already taken
    when the job runs (its creator took it at once, or the invitee claimed it by the link given
    some other way): the seat is read here, when the mail would go, so a claim that beat the job
    by a moment still saves the mail. Nor to an address that said ``stop notices`` (the
    invitation's own ``List-Unsubscribe`` says it): "off" means no more Portolan mail to it,
    invitations included; the creator still holds the token (issue 27).

    ``language``: the creator's (the request that created the match). The invitation is written in
    it unless the address chose a language of its own, and the address's later mail follows it
    until it chooses (service.storage.preferences)."""
    m = service()
    jid = job_id("invite", match_id, seat)
    meta = m.meta(match_id)
    if meta.status == "aborted":  # e.g. its creation failed halfway: the token is good for nothing
        m.store.job_done(jid)
        return "skipped: the match was aborted"
    prefs = preferences()
    if prefs.get(email) == "off":
        m.store.job_done(jid)
        log.info("invitation to seat %s of %s not sent: the address asked for no more mail", seat, match_id)
        return "skipped: the address asked for no more Portolan mail"
    mark = f"invite:{match_id}:{seat}"
    if 0 <= seat < len(meta.seats) and meta.seats[seat].claimed:
        m.store.job_done(jid)  # kept: nothing is left to send, the watchdog must not run it again
        log.info("invitation %s not sent: the seat is taken already", mark)
        return "skipped: the seat is taken already"

    prefs.invited_in(email, language)
    written_in = prefs.language(email)

    def compose() -> Mail:
        return letters.invitation(m, settings(), match_id, seat, email, token, mark, written_in)

    return job_outcome(m, jid, send_once(m, mark, compose), "skipped")


def send_digest(address: str, day: str) -> str:
    """The daily digest to the address kept under the digest ``address`` for the UTC date ``day``
    (``YYYY-MM-DD``): one mail listing every match still waiting for it, once per address and day
    (the mark ``digest:<address digest>:<day>``). Seats that no longer wait are forgotten; with
    none left nothing is sent."""
    m = service()
    jid = digest_job_id(address, day)
    book = digest_book()
    email, seats = book.seats(address)
    mark = f"digest:{address}:{day}"
    language = preferences().language(email) if email else "en"
    lines, gone = (letters.waiting_lines(m, settings(), email, seats, language) if email
                   else ([], [(s[0], s[1]) for s in seats]))
    if email and preferences().get(email) != "digest":  # changed its mind since: nothing to keep either
        book.forget(address, [(s[0], s[1]) for s in seats])
        m.store.job_done(jid)
        return "skipped: the address no longer wants a digest"
    book.forget(address, gone)
    if not lines:
        m.store.job_done(jid)
        return "skipped: nothing waits"
    when = datetime.fromisoformat(day).replace(tzinfo=UTC)
    where = send_once(m, mark, lambda: letters.digest(m, settings(), email, lines, when, mark, language))
    log.info("digest %s (%d matches) -> %s", mark, len(lines), where)
    return job_outcome(m, jid, where)


def play_bot(match_id: str, seat: int, ply: int) -> str:
    """Play the server's move for a seat it plays (a bot seat; a stand-in, a skip or the bot of
    a forfeited seat: ``Matches.server_move``), if that seat must still act at ``ply``."""
    with logs.bound(match=match_id, seat=seat, ply=ply, job="bot"):
        return _play_bot(match_id, seat, ply)


def _play_bot(match_id: str, seat: int, ply: int) -> str:
    m = service()
    jid = job_id("bot", match_id, seat, ply)
    try:
        result = m.server_move(match_id, seat, ply)
    except Conflict as exc:  # someone else moved first; their outbox entry schedules what comes next
        m.store.job_done(jid)
        return f"skipped: {exc.code}"
    # Kept only after the commit: a worker killed before this line leaves the promise open, and
    # the watchdog's second run finds the ply moved on (the envelope is the same: a duplicate).
    m.store.job_done(jid)
    if result is None:
        return "skipped: the match moved on"
    log.info("bot played ply %d -> ply %d", ply, result["ply"])
    return f"played ply {ply} -> ply {result['ply']}"
