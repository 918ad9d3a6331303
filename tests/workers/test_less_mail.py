"""Less mail (issue 27, part 5): nobody is invited to their own seat, and no turn notice goes to a
seat whose player watches the match live on a stream signed by the seat's key; the notice follows
if they leave before moving, and never twice. Real Redis, the real API over HTTP, real RQ worker
bursts (with their dispatcher and watchdog passes) and a real SMTP conversation."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from service.config import Settings
from service.delivery.dispatch import RQDispatcher, job_id
from service.delivery.watchdog import Watchdog
from service.play.matches import Matches
from service.play.outward.streams import Timing
from service.runtime import build
from service.storage.connection import connect
from service.storage.presence import Presence
from tests.conftest import Player, SmtpSink, as_in_a_worker, worker_burst
from tests.helpers.jobs import notices
from tests.helpers.matches import assert_problem, create, started
from tests.helpers.serving import serving
from workers import jobs

# a stream renews its seat's presence every 0.2 s and it lapses 2 s after the last renewal; a
# closed connection is noticed at the next heartbeat (1 s)
TIMING = Timing(heartbeat_s=1.0, recheck_s=0.2)


@pytest.fixture
def smtp_settings(settings: Settings, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> Settings:
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url)
    as_in_a_worker(monkeypatch, {"REDIS_URL": s.redis_url, "SMTP_URL": s.smtp_url, "PORTOLAN_NS": s.namespace,
                                 "PUBLIC_URL": s.public_url, "OUTBOX_DIR": s.outbox_dir})
    return s


@pytest.fixture
def live_app(settings: Settings, service: Matches) -> Any:
    from service.api import create_app

    return create_app(settings, service, TESTING=True, PORTOLAN_STREAM_TIMING=TIMING)


@pytest.fixture
def live_served(live_app: Any) -> Iterator[str]:
    with serving(live_app) as url:
        yield url


class OpenStream:
    """An event stream held open in a thread (as a match page holds it) until :meth:`close`."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, params: dict[str, str] | None = None) -> None:
        self.stop = threading.Event()
        self.status: int | None = None
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self._hold, args=(url, headers or {}, params or {}), daemon=True)
        self.thread.start()
        assert self.opened.wait(30), "the stream never answered"

    def _hold(self, url: str, headers: dict[str, str], params: dict[str, str]) -> None:
        with httpx.Client(timeout=httpx.Timeout(30.0)) as http, http.stream("GET", url, headers=headers,
                                                                            params=params) as r:
            self.status = r.status_code
            self.opened.set()
            for _ in r.iter_lines():  # a heartbeat comes every second: the stop is seen soon
                if self.stop.is_set():
                    return

    def close(self) -> None:
        self.stop.set()
        self.thread.join(30)
        assert not self.thread.is_alive()


def seat_stream(served: str, player: Player, mid: str, seat: int) -> OpenStream:
    """The seat's own stream, signed by its key, as the match page opens it for a seat it holds."""
    path = f"/v1/matches/{mid}/events"
    stream = OpenStream(served + path, headers=player.auth("GET", path, f"seat={seat}"), params={"seat": str(seat)})
    assert stream.status == 200
    return stream


def until(what: str, ok: Callable[[], bool], limit_s: float = 20.0) -> None:
    """Wait for ``ok()`` (a state another thread or process brings about), failing after ``limit_s``."""
    end = time.monotonic() + limit_s
    while not ok():
        if time.monotonic() > end:
            pytest.fail(f"never happened: {what}")
        time.sleep(0.02)


def promise_due(m: Matches, jid: str) -> float | None:
    """When the watchdog looks at the promise ``jid`` next (None: kept, or never made)."""
    score = m.store.q.zscore(m.store.key("jobs:due"), jid)
    return None if score is None else float(score)  # type: ignore[arg-type]


def invitations(sink: SmtpSink) -> list[str]:
    return sorted(str(msg["To"]) for msg in sink.messages if msg["X-Portolan-Notice"].startswith("invite:"))


# -- invitations ---------------------------------------------------------------------------------


def test_the_creators_own_seat_gets_no_invitation_and_the_others_do(client: Any, smtp_settings: Settings,
                                                                     smtp_sink: SmtpSink, players: list[Player]) -> None:
    """The web client's "Me (this browser)" seat is ``{"invite": own address, "mine": true}``: no
    mail, even when the worker runs before the creator's claim (the race the browser's two
    requests leave open); the token still comes back, and claims the seat."""
    made = create(client, [{"invite": "ana@example.org", "mine": True}, {"invite": "bea@example.org"},
                           {"invite": "cid@example.org"}])
    worker_burst(smtp_settings)
    assert invitations(smtp_sink) == ["bea@example.org", "cid@example.org"]
    m = build(smtp_settings)
    assert m.store.promised_jobs() == 0
    r = client.post(f"/v1/matches/{made['id']}/seats/0/claim", json={
        "token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana", "email": "ana@example.org"})
    assert r.status_code == 200, r.get_json()
    worker_burst(smtp_settings)
    assert invitations(smtp_sink) == ["bea@example.org", "cid@example.org"]


def test_a_seat_claimed_before_its_invitation_goes_out_gets_none(client: Any, smtp_settings: Settings,
                                                                  smtp_sink: SmtpSink, players: list[Player]) -> None:
    """The CLI's way (invite your own address, claim with the token printed) and a link passed on
    by hand: the invite job reads the seat when it runs, and keeps its promise without sending."""
    made = create(client, [{"invite": "ana@example.org"}, {"invite": "bea@example.org"}])
    mid = made["id"]
    r = client.post(f"/v1/matches/{mid}/seats/0/claim", json={
        "token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana", "email": "ana@example.org"})
    assert r.status_code == 200
    worker_burst(smtp_settings)
    assert invitations(smtp_sink) == ["bea@example.org"]
    m = build(smtp_settings)
    assert m.store.promised_jobs() == 0  # kept: the watchdog does not run it again
    assert jobs.send_invite(mid, 0, "ana@example.org", made["invites"]["0"]) == "skipped: the seat is taken already"


def test_mine_goes_only_with_an_invitation(client: Any, settings: Settings) -> None:
    from tests.conftest import create_match

    m = build(settings)
    before = m.store.match_ids(newest_first=True, limit=10)
    r = create_match(client, {"game": "harbour-race", "seats": [{"bot": "random", "mine": True}, {"invite": "a@example.org"}]})
    body = assert_problem(r, 400, "malformed-request")
    assert "mine" in body["detail"]
    r = create_match(client, {"game": "harbour-race", "seats": [{"invite": "a@example.org", "mine": "yes"},
                                                                 {"invite": "b@example.org"}]})
    assert r.status_code == 400
    assert m.store.match_ids(newest_first=True, limit=10) == before


def test_a_seat_the_creator_takes_counts_against_no_invitation_quota(settings: Settings) -> None:
    """The quotas count invitation mails (PORTOLAN_INVITES_PER_RECIPIENT_DAY): a player who makes
    match after match in the browser, taking a seat each time, is mailed nothing and so never
    throttled; an address really invited still is."""
    from service.play.errors import TooManyRequests
    from tests.conftest import CREATOR_KEY

    m = build(dataclasses.replace(settings, invites_per_recipient_day=1))
    for _ in range(3):
        m.create("harbour-race", {}, [{"invite": "ana@example.org", "mine": True}, {"bot": "random"}],
                 creator_key=CREATOR_KEY)
    m.create("harbour-race", {}, [{"invite": "ana@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    with pytest.raises(TooManyRequests):
        m.create("harbour-race", {}, [{"invite": "ana@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)


# -- presence: the records -----------------------------------------------------------------------


def test_presence_is_per_stream_and_lapses_by_itself(settings: Settings) -> None:
    now = [1000.0]
    book = Presence(connect(settings.redis_url), settings.namespace, clock=lambda: now[0])
    assert book.live_until("m1", 0) is None
    book.here("m1", 0, "tab-a", 30)
    book.here("m1", 0, "tab-b", 30)
    now[0] += 10
    book.here("m1", 0, "tab-b", 30)
    assert book.live_until("m1", 0) == 1040.0 and book.live_until("m1", 1) is None
    book.gone("m1", 0, "tab-b")  # one tab closed: the other still holds the seat present
    assert book.live_until("m1", 0) == 1030.0
    now[0] += 20  # tab-a's process was killed: nothing renews it, and it lapses
    assert book.live_until("m1", 0) is None


# -- presence: the turn notice -------------------------------------------------------------------


def test_a_notice_waits_while_the_player_watches_and_follows_when_they_leave(
        live_app: Any, live_served: str, smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    client = live_app.test_client()
    mid, shown = started(client, players)
    seat, ply = shown["active_seats"][0], shown["ply"]
    m = build(smtp_settings)
    book = Presence(m.store.r, m.store.ns)
    jid = job_id("notice", mid, seat, ply)
    stream = seat_stream(live_served, players[seat], mid, seat)
    try:
        until("the stream made its seat present", lambda: book.live_until(mid, seat) is not None)
        worker_burst(smtp_settings)
        assert notices(smtp_sink) == []  # live on the page: no mail
        due = promise_due(m, jid)
        assert due is not None  # not kept: the notice is only kept back
        assert jobs.send_turn_notice(mid, seat, ply) == "deferred: the player is live on the match page"
    finally:
        stream.close()
    # the server sees the closed connection at its next heartbeat: the presence goes, the promise falls due now
    until("the stream gave its presence up", lambda: book.live_until(mid, seat) is None)
    # ... earlier than the lapse the job had asked for: only the closing stream moves it so
    until("the closed stream hurried the notice", lambda: (promise_due(m, jid) or due) < due)
    worker_burst(smtp_settings)
    [msg] = notices(smtp_sink)
    assert msg["To"] == f"p{seat}@example.org" and msg["X-Portolan-Notice"] == f"notice:{mid}:{seat}:{ply}"
    assert promise_due(m, jid) is None
    # never twice: the job again, and a watchdog pass long after
    assert jobs.send_turn_notice(mid, seat, ply).startswith("skipped")
    Watchdog(m.store, RQDispatcher(m.store.q, smtp_settings, m.store), smtp_settings).check(time.time() + 3600)
    worker_burst(smtp_settings)
    assert len(notices(smtp_sink)) == 1


def test_a_spectators_stream_or_another_seats_suppresses_nothing(
        live_app: Any, live_served: str, smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    client = live_app.test_client()
    mid, shown = started(client, players)
    seat = shown["active_seats"][0]
    other = 1 - seat
    public = OpenStream(f"{live_served}/v1/matches/{mid}/events")
    theirs = seat_stream(live_served, players[other], mid, other)
    # seat's public key on the wire does not make anyone its holder: a stream for seat signed by
    # the other seat's key is refused before it begins
    path = f"/v1/matches/{mid}/events"
    forged = client.get(f"{path}?seat={seat}", headers=players[other].auth("GET", path, f"seat={seat}"))
    assert forged.status_code == 403
    m = build(smtp_settings)
    book = Presence(m.store.r, m.store.ns)
    try:
        until("the other seat is present", lambda: book.live_until(mid, other) is not None)
        worker_burst(smtp_settings)
        assert book.live_until(mid, seat) is None
        assert [msg["To"] for msg in notices(smtp_sink)] == [f"p{seat}@example.org"]
    finally:
        public.close()
        theirs.close()


def test_a_seat_that_moves_while_live_gets_no_notice_for_that_turn(
        live_app: Any, live_served: str, smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    client = live_app.test_client()
    mid, shown = started(client, players)
    seat, ply = shown["active_seats"][0], shown["ply"]
    m = build(smtp_settings)
    stream = seat_stream(live_served, players[seat], mid, seat)
    try:
        until("the seat is present", lambda: Presence(m.store.r, m.store.ns).live_until(mid, seat) is not None)
        worker_burst(smtp_settings)
        assert notices(smtp_sink) == []
        while client.get(f"/v1/matches/{mid}").get_json()["active_seats"] == [seat]:  # plays its turn on the page
            view = client.get(f"/v1/matches/{mid}").get_json()
            action = "bank" if view["board"]["haul"] >= 1 else "roll"
            r = client.post(f"/v1/matches/{mid}/moves",
                            json=players[seat].envelope(mid, seat, view["ply"], [{"type": action}], nonce=str(view["ply"])))
            assert r.status_code == 201, r.get_json()
    finally:
        stream.close()
    Watchdog(m.store, RQDispatcher(m.store.q, smtp_settings, m.store), smtp_settings).check(time.time() + 3600)
    worker_burst(smtp_settings)
    # the other seat's turn came with its own notice; the one kept back for seat is obsolete
    assert [msg["To"] for msg in notices(smtp_sink)] == [f"p{1 - seat}@example.org"]
    assert promise_due(m, job_id("notice", mid, seat, ply)) is None


def test_a_presence_left_by_a_killed_process_lapses_and_the_notice_goes(
        client: Any, smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    """An API process killed with its streams open never says they closed: their presence lapses
    after its TTL, and the watchdog's next look at the kept-back notice sends it."""
    mid, shown = started(client, players)
    seat, ply = shown["active_seats"][0], shown["ply"]
    m = build(smtp_settings)
    book = Presence(m.store.r, m.store.ns)
    book.here(mid, seat, "stream-of-a-killed-process", ttl_s=1.0)
    worker_burst(smtp_settings)
    assert notices(smtp_sink) == []
    due = promise_due(m, job_id("notice", mid, seat, ply))
    assert due is not None and due > time.time()  # looked at again once the presence would have lapsed
    until("the presence lapsed", lambda: book.live_until(mid, seat) is None)
    Watchdog(m.store, RQDispatcher(m.store.q, smtp_settings, m.store), smtp_settings).check(due)
    worker_burst(smtp_settings)
    assert [msg["To"] for msg in notices(smtp_sink)] == [f"p{seat}@example.org"]
    assert m.store.promised_jobs() == 0
