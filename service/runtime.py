"""Wiring: build the store and the use cases from settings.

The API's app factory and the workers both call :func:`build`, so a job sees exactly the
service a request sees, on the same clock (``PORTOLAN_CLOCK``, :func:`service.config.open_clock`).

What stays on the system clock, on purpose: everything that measures real elapsed time between
processes rather than the time of the game. RQ's queues, retries and scheduler (they know only
the system clock: a job due at a clock time is enqueued at ``Clock.to_system(when)``); the
outbox's claim-after and the watchdog's job deadlines and promises (service.delivery.dispatch,
watchdog: "a worker died N seconds ago"); the mail "sending" lease and Redis TTLs; the outbox
stream's trimming (Redis stream ids are system milliseconds); signed-request freshness and
nonces (service.api.auth) and webhook signature timestamps (service.delivery.webhooks), which
a receiver checks against its own wall clock; the rate limiter's windows; and the match index's
creation score (only an order). Moving a file clock forward must not make workers look dead
or signatures stale: it moves deadlines, reminders, digests' days and the sweep's "stalled for
N seconds" cutoffs (service.play.listings), which compare with times the service wrote by its
clock.
"""

from __future__ import annotations

from service.config import Settings, open_clock
from service.delivery.clock import scheduler_of
from service.delivery.dispatch import RQDispatcher
from service.delivery.webhooks import webhooks_of
from service.play import editions
from service.play.clock.vacations import VacationBook
from service.play.mail.desk import desk_of
from service.play.mail.inbound import MailDesk
from service.play.matches import Matches
from service.play.outward.webhooks import Webhooks
from service.play.throttle import BotLimits, InviteLimits
from service.proof import signing
from service.storage.archive import open_archive
from service.storage.connection import connect
from service.storage.mailbox import Mailbox
from service.storage.preferences import NoticePreferences
from service.storage.store import Store
from service.storage.vacations import VacationStore


def build(settings: Settings) -> Matches:
    """The use cases over Redis (what they commit goes out through the outbox: service.delivery.outbox),
    reading the time from the clock the settings name (a file clock refused unless allowed) and
    the players' vacations from their book."""
    clock = open_clock(settings)
    editions.installed()  # every edition file read and checked now: a bad one stops the start, naming the field
    client = connect(settings.redis_url)
    store = Store(client, settings.namespace, open_archive(settings.archive_place, settings.s3_endpoint or None),
                  queue_client=connect(settings.queue_url))
    key = settings.server_key or store.get_or_create("server:key", signing.generate_private_key)
    book = VacationBook(VacationStore(client, settings.namespace), now=clock.now, allowance=settings.vacation_days)
    matches = Matches(store=store, server_key=key, now=clock.iso, public_url=settings.public_url,
                      invite_limits=InviteLimits(settings.invites_per_creator_hour, settings.invites_per_recipient_day,
                                                 settings.invites_per_address_hour, settings.invites_install_hour),
                      bot_limits=BotLimits(settings.bot_matches_per_address, settings.bot_search_budget),
                      pauses=book, stand_in=settings.stand_in_bot)
    book.changed = lambda public_key: replan_deadlines(matches, settings, public_key)
    return matches


def replan_deadlines(matches: Matches, settings: Settings, public_key: str) -> None:
    """Schedule again the next wake of every match where ``public_key`` holds a seat: its
    vacation changed, so its deadlines did (a vacation ended early brings them forward; a wake
    that comes too early only finds nothing due and plans again)."""
    scheduler = scheduler_of(matches, settings)
    for match_id in sorted({mid for mid, _seat in matches.store.seats_of_key(public_key)}):
        scheduler.schedule(match_id)


def build_webhooks(settings: Settings, matches: Matches) -> Webhooks:
    """The webhook use cases beside ``matches`` (same store), queuing deliveries to RQ."""
    return webhooks_of(matches, settings)


def build_desk(settings: Settings, matches: Matches) -> MailDesk:
    """The mail desk beside ``matches`` (same Redis and namespace): what both ways in (the SMTP/LMTP
    receiver and ``portolan mail-in``) hand each received message to; its answers go out as RQ jobs."""
    client = connect(settings.redis_url)
    return desk_of(matches, settings, mailbox=Mailbox(client, settings.namespace),
                   preferences=NoticePreferences(client, settings.namespace),
                   post=RQDispatcher(matches.store.q, settings, matches.store))
