"""A turn notice is exactly the turn it announces (issue 28, item 9): a job run after its turn
has passed sends nothing, and a notice sent twice (a lost "sent" mark) is the same message."""

from __future__ import annotations

import dataclasses
import re
import time
from typing import Any

import pytest

from service.config import Settings
from service.delivery.dispatch import RQDispatcher
from service.play.matches import Matches
from service.runtime import build
from tests.conftest import Player, SmtpSink, as_in_a_worker, worker_burst
from tests.helpers import clock_helpers
from tests.helpers.jobs import notices, start_human_match
from tests.helpers.notices import raw_mail
from workers import jobs


def worker_env(s: Settings) -> dict[str, str]:
    return {"REDIS_URL": s.redis_url, "PORTOLAN_NS": s.namespace, "PUBLIC_URL": s.public_url,
            "OUTBOX_DIR": s.outbox_dir, "MAIL_FROM": s.mail_from, "SMTP_URL": s.smtp_url or ""}


def act(m: Matches, p: Player, mid: str, seat: int) -> None:
    """One step of ``seat``: bank when it may, else roll (a 1 passes the turn)."""
    legal = [a["action"] for a in m.view(mid, seat)["legal_actions"]]
    clock_helpers.move(m, p, mid, seat, [{"type": "bank"} if {"type": "bank"} in legal else {"type": "roll"}])


def test_a_backlog_of_notice_jobs_sends_only_the_turn_that_is_on(settings: Settings, smtp_sink: SmtpSink,
                                                                 players: list[Player],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers were away while a match went on: every ply's notice job waits in the queue.
    When a burst worker runs them, the ones whose turn has passed (the seat acted; its current turn
    began at a later ply) or moved on within the turn (the seat took a step) send nothing; only
    the notice of the turn that is on goes out, and it shows that turn's ply."""
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url)
    as_in_a_worker(monkeypatch, worker_env(s))
    m = build(s)
    mid = start_human_match(m, players)
    first = m.meta(mid).active[0]
    for _ in range(200):  # until the first seat's second turn has begun
        meta = m.meta(mid)
        seat = meta.active[0]
        if seat == first and int(meta.active_since[str(seat)]) > 0:
            break
        act(m, players[seat], mid, seat)
    meta = m.meta(mid)
    now_ply = int(meta.ply)
    assert meta.active == (first,) and int(meta.active_since[str(first)]) == now_ply > 0
    # and the old notice of ply 0 once more, as the sweep would after a lost mark
    RQDispatcher(m.store.q, s, m.store).turn(mid, 0, [first])
    worker_burst(s)
    sent = [x["X-Portolan-Notice"] for x in notices(smtp_sink)]
    assert sent == [f"notice:{mid}:{first}:{now_ply}"]
    (only,) = notices(smtp_sink)
    assert f"ply {now_ply})" in only["Subject"] and f"-{now_ply}-" in only["Reply-To"]
    assert m.store.promised_jobs() == 0


def test_a_notice_for_a_ply_within_the_turn_sends_nothing(settings: Settings, smtp_sink: SmtpSink,
                                                          players: list[Player],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat rolled once (ply 1, its turn still on since ply 0): the notice of ply 0 would show
    ply 1 under ply 0's Message-ID; it sends nothing, and is dealt with (the sweep leaves it)."""
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url)
    as_in_a_worker(monkeypatch, worker_env(s))
    m = build(s)
    for _ in range(20):  # a roll of 1 passes the turn: take a match whose first roll did not
        mid = start_human_match(m, players)
        seat = m.meta(mid).active[0]
        clock_helpers.move(m, players[seat], mid, seat, [{"type": "roll"}])
        meta = m.meta(mid)
        if meta.active == (seat,):
            break
    assert meta.ply == 1 and meta.active_since[str(seat)] == 0
    assert jobs.send_turn_notice(mid, seat, 0).startswith("skipped: the match moved on within the seat's turn")
    assert notices(smtp_sink) == [] and m.store.marked([f"notice:{mid}:{seat}:0"]) == [True]


def without_date(raw: bytes) -> bytes:
    return re.sub(rb"(?m)^Date: .*\r?\n", b"", raw)


def test_a_resend_after_a_lost_mark_is_the_same_message(settings: Settings, players: list[Player],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A notice sent, its "sent" mark lost, sent again a day later: the same bytes but the Date,
    though the deadline is a day nearer (the words are read at the turn's start, not "now") and
    the MIME boundaries are no longer drawn at random."""
    as_in_a_worker(monkeypatch, worker_env(settings))
    hands = clock_helpers.Hands()
    m = jobs.service()
    monkeypatch.setattr(m, "now", hands)
    mid = clock_helpers.started(m, players, 2, 100, time_control={"kind": "per-move", "days": 3})
    seat, ply = m.meta(mid).active[0], m.meta(mid).ply
    key = f"notice:{mid}:{seat}:{ply}"
    assert jobs.send_turn_notice(mid, seat, ply).startswith("sent")
    first = raw_mail(settings, key)
    assert b"Your move is due in 3 days" in first and b"multipart/alternative" in first
    m.store.release(key)  # the mark lost (a worker killed after the 250, before the mark)
    hands.advance(hours=25, minutes=7)
    monkeypatch.setattr("service.delivery.mail.datetime", _Later)
    real = time.time()  # and the system's clock two days on: the tokens are dated from the turn's start
    monkeypatch.setattr("service.play.mail.reply_address.time.time", lambda: real + 2 * 86400)
    assert jobs.send_turn_notice(mid, seat, ply).startswith("sent")
    second = raw_mail(settings, key)
    assert first != second  # the Date differs...
    assert without_date(first) == without_date(second)  # ...and nothing else


class _Later:
    """``datetime`` as the mail module sees it, an hour on: the resend's Date differs."""

    @staticmethod
    def now(tz: Any = None) -> Any:
        from datetime import datetime, timedelta

        return datetime.now(tz) + timedelta(hours=1)


def test_another_seats_vote_does_not_cost_the_turn_its_notice(settings: Settings, smtp_sink: SmtpSink,
                                                              players: list[Player],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat's turn began at ply p; before its notice job ran, another seat voted to abort
    (ply p+1, a match action: the position is the one of p, the seat has not acted). The turn's
    notice still goes out, once, under the turn's mark, showing ply p+1 so that a reply to it is
    not stale."""
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url)
    as_in_a_worker(monkeypatch, worker_env(s))
    m = build(s)
    mid = clock_helpers.started(m, players, 2, 100)
    meta = m.meta(mid)
    seat, ply = meta.active[0], int(meta.ply)
    other = 1 - seat
    clock_helpers.move(m, players[other], mid, other, [{"type": "match:abort"}])
    meta = m.meta(mid)
    assert meta.status == "active" and meta.ply == ply + 1 and meta.active == (seat,)
    assert jobs.send_turn_notice(mid, seat, ply).startswith("sent")
    (only,) = notices(smtp_sink)
    assert only["X-Portolan-Notice"] == f"notice:{mid}:{seat}:{ply}"
    assert f"-{ply + 1}-" in only["Reply-To"]
    assert jobs.send_turn_notice(mid, seat, ply).startswith("skipped")  # once
    assert len(notices(smtp_sink)) == 1
