"""Notice preferences in the jobs (issue 11, item 7): ``off`` sends nothing, ``digest`` sends
nothing at the turn and one mail a day listing every match waiting, from the digest hour on,
once per address and day, through the worker's sweep and a real RQ worker."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from service.config import Settings
from service.delivery.digests import due_digests, enqueue_due_digests
from service.delivery.dispatch import RQDispatcher
from service.play.listings import unsent_notices
from service.play.mail.reply_address import authentic, parse_reply_address
from service.play.matches import Matches
from service.proof.match_record import MatchMeta
from service.runtime import build
from service.storage.connection import connect
from service.storage.preferences import DigestBook, NoticePreferences, address_digest
from tests.conftest import CREATOR_KEY, Player, worker_burst
from tests.helpers.notices import assert_clean_8bit, body, parsed
from workers import jobs

ZOE = "zoe@example.org"
DAY = "2026-03-14"


def before_hour(hour: int) -> datetime:
    return datetime(2026, 3, 14, hour - 1, 59, tzinfo=UTC)


def at_hour(hour: int) -> datetime:
    return datetime(2026, 3, 14, hour, 0, tzinfo=UTC)


def zoe_to_act(m: Matches, player: Player) -> str:
    """A harbour-race match, Zoë in seat 0 against a random bot, played on until she must act."""
    # a far target: a bot starting first must not win before Zoë ever acts
    made = m.create("harbour-race", {"target": 100}, [{"invite": ZOE}, {"bot": "random"}], creator_key=CREATOR_KEY)
    mid = str(made["id"])
    m.claim(mid, 0, made["invites"]["0"], player.public_key, "Zoë", ZOE)
    for _ in range(50):
        meta = m.meta(mid)
        if 0 in meta.active:
            return mid
        jobs.play_bot(mid, 1, meta.ply)
    raise AssertionError("Zoë never got a turn")


def mails(settings: Settings, prefix: str) -> list[Path]:
    outbox = Path(settings.outbox_dir)
    return sorted(outbox.glob(f"{prefix}*.eml")) if outbox.exists() else []


def prefs(settings: Settings) -> NoticePreferences:
    return NoticePreferences(connect(settings.redis_url), settings.namespace)


def book(settings: Settings) -> DigestBook:
    return DigestBook(connect(settings.redis_url), settings.namespace)


def test_off_sends_no_notice_and_the_sweep_does_not_resend_it(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    mid = zoe_to_act(m, players[0])
    prefs(outbox_settings).set(ZOE, "off")
    ply = m.meta(mid).ply
    assert jobs.send_turn_notice(mid, 0, ply) == "skipped: the player turned notices off"
    assert mails(outbox_settings, "notice-") == []
    assert (mid, 0, ply) not in unsent_notices(m, older_than_s=0)  # dealt with: nothing to resend
    assert book(outbox_settings).addresses() == []  # and nothing for a digest either


def test_digest_sends_one_mail_a_day_listing_every_waiting_match(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    prefs(outbox_settings).set(ZOE, "digest")
    first, second = zoe_to_act(m, players[0]), zoe_to_act(m, players[0])
    for mid in (first, second):
        assert jobs.send_turn_notice(mid, 0, m.meta(mid).ply) == "skipped: kept for the daily digest"
        assert (mid, 0, m.meta(mid).ply) not in unsent_notices(m, older_than_s=0)
    assert mails(outbox_settings, "notice-") == []
    rq = RQDispatcher(connect(outbox_settings.queue_url), outbox_settings, m.store)
    hour = outbox_settings.digest_hour
    # before the digest hour nothing is due; from it on, one digest for Zoë's address
    assert enqueue_due_digests(m.store, book(outbox_settings), rq, hour, before_hour(hour)) == 0
    assert enqueue_due_digests(m.store, book(outbox_settings), rq, hour, at_hour(hour)) == 1
    assert enqueue_due_digests(m.store, book(outbox_settings), rq, hour, at_hour(hour)) == 0  # already queued
    worker_burst(outbox_settings)
    [eml] = mails(outbox_settings, "digest-")
    raw = eml.read_bytes()
    assert_clean_8bit(raw)
    msg = parsed(raw)
    assert msg["To"] == ZOE and "2 matches waiting" in msg["Subject"] and msg["Auto-Submitted"] == "auto-generated"
    text = body(msg)
    for mid in (first, second):
        assert f"match {mid}" in text and f"http://portolan.test/match/{mid}" in text
        [address] = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(f"turns+o-{mid}-0-")]
        reply = parse_reply_address(address)
        assert reply is not None and reply.kind == "o" and authentic(m.server_key, reply)
    assert "Harbour race" in text and "to act: Zoë" in text
    assert msg["List-Unsubscribe"].endswith("?subject=stop%20notices>")
    # once a day: the sweep finds it sent, and the job run again sends nothing more
    assert due_digests(m.store, book(outbox_settings), at_hour(hour), hour) == []
    assert jobs.send_digest(address_digest(ZOE), DAY) == "skipped: already sent"
    assert len(mails(outbox_settings, "digest-")) == 1


def test_the_next_digest_lists_only_what_still_waits(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    prefs(outbox_settings).set(ZOE, "digest")
    first, second = zoe_to_act(m, players[0]), zoe_to_act(m, players[0])
    for mid in (first, second):
        jobs.send_turn_notice(mid, 0, m.meta(mid).ply)

    def moved_on(meta: MatchMeta) -> MatchMeta:  # as if Zoë had moved from a terminal
        return meta.but(active=(1,))

    m.store.update_meta(first, moved_on)
    assert jobs.send_digest(address_digest(ZOE), DAY).startswith("sent")
    text = body(parsed(mails(outbox_settings, "digest-")[0].read_bytes()))
    assert f"match {second}" in text and first not in text
    _, left = book(outbox_settings).seats(address_digest(ZOE))
    assert [(mid, seat) for mid, seat, _ in left] == [(second, 0)]  # the first is forgotten


def test_a_digest_for_an_address_that_changed_its_mind_is_not_sent(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    prefs(outbox_settings).set(ZOE, "digest")
    mid = zoe_to_act(m, players[0])
    jobs.send_turn_notice(mid, 0, m.meta(mid).ply)
    prefs(outbox_settings).set(ZOE, "every")
    assert jobs.send_digest(address_digest(ZOE), DAY) == "skipped: the address no longer wants a digest"
    assert mails(outbox_settings, "digest-") == [] and book(outbox_settings).addresses() == []
