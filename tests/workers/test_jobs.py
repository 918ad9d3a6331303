"""The RQ jobs with a real Redis, a real RQ worker (burst) and a real SMTP conversation."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from rq import Queue

from service.config import Settings
from service.games.base import Rng
from service.play.mail.answers import prompt_mark
from service.runtime import build
from service.storage.connection import connect
from tests.conftest import CREATOR_KEY, Player, SmtpSink, as_in_a_worker, worker_burst
from tests.helpers.jobs import notices, start_human_match
from workers import jobs


@pytest.fixture
def smtp_settings(settings: Settings, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> Settings:
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url)
    as_in_a_worker(monkeypatch, {"REDIS_URL": s.redis_url, "SMTP_URL": s.smtp_url, "PORTOLAN_NS": s.namespace,
                                 "PUBLIC_URL": s.public_url, "OUTBOX_DIR": s.outbox_dir})
    return s


def test_turn_notice_goes_out_once_over_smtp(smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    worker_burst(smtp_settings)
    # both seats were claimed before the worker ran: nobody is invited to a seat already taken
    assert not [msg for msg in smtp_sink.messages if msg["X-Portolan-Notice"].startswith("invite:")]
    first = m.meta(mid).active[0]
    [msg] = notices(smtp_sink)
    assert msg["To"] == f"p{first}@example.org"
    text = msg.get_body(preferencelist=("plain",)).get_content()
    assert f"portolan move {mid} --seat {first} " in text and "roll the die" in text
    assert m.meta(mid).head in text
    html = msg.get_body(preferencelist=("html",)).get_content()
    assert "<ol>" in html
    # a retried job (same match, seat, ply) sends nothing more
    assert jobs.send_turn_notice(mid, first, 0).startswith("skipped")
    Queue(smtp_settings.queue_name("notices"), connection=connect(smtp_settings.redis_url)).enqueue(
        "workers.jobs.send_turn_notice", mid, first, 0)
    worker_burst(smtp_settings)
    assert len(notices(smtp_sink)) == 1


def test_notice_says_what_happened_since(smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    # roll until the die shows a 1 or we can bank: then the turn passes to the other seat
    while m.meta(mid).active == (seat,):
        meta = m.meta(mid)
        legal = [a["action"] for a in m.view(mid, seat)["legal_actions"]]
        action = {"type": "bank"} if {"type": "bank"} in legal else {"type": "roll"}
        env = {"match": mid, "seat": seat, "ply": meta.ply, "actions": [action], "nonce": str(meta.ply)}
        from service.proof import signing

        m.submit(mid, env, signing.sign(players[seat].private_key, env))
    worker_burst(smtp_settings)
    other = 1 - seat
    mine = [msg for msg in notices(smtp_sink) if msg["To"] == f"p{other}@example.org"]
    assert len(mine) == 1
    text = mine[0].get_body(preferencelist=("plain",)).get_content()
    assert f"Seat {seat} rolled" in text


def test_failed_send_is_retried_and_then_sent_once(smtp_settings: Settings, smtp_sink: SmtpSink,
                                                   players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    calls = {"n": 0}
    real = jobs.deliver

    def flaky(settings: Settings, mail: Any) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("SMTP server went away")
        return real(settings, mail)

    monkeypatch.setattr(jobs, "deliver", flaky)
    with pytest.raises(ConnectionError):
        jobs.send_turn_notice(mid, seat, 0)
    assert jobs.send_turn_notice(mid, seat, 0).startswith("sent")
    assert jobs.send_turn_notice(mid, seat, 0).startswith("skipped")
    assert len([x for x in notices(smtp_sink) if x["X-Portolan-Notice"] == f"notice:{mid}:{seat}:0"]) == 1


def test_bots_play_a_match_to_the_end_through_the_signed_path(smtp_settings: Settings, smtp_sink: SmtpSink) -> None:
    m = build(smtp_settings)
    made = m.create("harbour-race", {"target": 10}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    assert made["status"] == "active"
    for _ in range(200):
        worker_burst(smtp_settings)
        if m.meta(made["id"]).status == "finished":
            break
    meta = m.meta(made["id"])
    assert meta.status == "finished" and meta.outcome["ranks"].count(1) >= 1
    log = m.store.log(made["id"])
    assert all(e["by"] == "bot:random" for e in log)
    from service.proof.verify import verify_record

    assert verify_record(m.record(made["id"])).ok
    assert notices(smtp_sink) == []  # bots get no mail


def test_bot_job_for_a_moved_on_ply_does_nothing(smtp_settings: Settings) -> None:
    m = build(smtp_settings)
    made = m.create("harbour-race", {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    seat = m.meta(made["id"]).active[0]
    assert jobs.play_bot(made["id"], seat, 0).startswith("played")
    assert jobs.play_bot(made["id"], seat, 0).startswith("skipped")
    assert m.meta(made["id"]).ply == 1


def outbox_dispatcher(settings: Settings, claim_after_s: float = 30.0) -> Any:
    from service.delivery.outbox import Dispatcher, install_default_groups

    install_default_groups(settings)
    return Dispatcher(build(settings), settings, claim_after_s=claim_after_s)


def test_the_backlog_counts_entries_not_yet_read(smtp_settings: Settings, players: list[Player]) -> None:
    """Written but not yet read is backlog too: a group that has not read a new entry has not
    caught up (the bundled Redis 6.2 does not report the lag; the store counts it itself)."""
    m = build(smtp_settings)
    outbox_dispatcher(smtp_settings)  # the groups exist
    before = m.store.outbox_backlog("jobs")
    start_human_match(m, players)  # two entries: created, started
    assert m.store.outbox_backlog("jobs") == before + 2
    read = m.store.read_outbox("jobs", "reader") + m.store.read_outbox("jobs", "reader")
    assert len(read) >= 2 and m.store.outbox_backlog("jobs") == before + 2  # read, not acknowledged: pending


def test_an_entry_read_by_a_dispatcher_that_died_is_claimed_by_another(smtp_settings: Settings, smtp_sink: SmtpSink,
                                                                       players: list[Player]) -> None:
    """The commit wrote the outbox entry; a dispatcher read it and died before handling it (it
    never acknowledged). Another dispatcher claims it once it has been pending long enough."""
    m = build(smtp_settings)
    dead = outbox_dispatcher(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    read = m.store.read_outbox("jobs", "the-dead-one") + m.store.read_outbox("jobs", "the-dead-one")
    assert [r.kind for r in read] == ["created", "started"] and all(r.match == mid for r in read)
    assert dead.step("jobs") == 0  # nothing new: both entries are pending with the dead consumer
    worker_burst(smtp_settings)
    assert notices(smtp_sink) == []
    assert m.store.outbox_backlog("jobs") == 2
    alive = outbox_dispatcher(smtp_settings, claim_after_s=0)
    assert alive.step("jobs", claim=True) == 2
    assert m.store.outbox_backlog("jobs") == 0
    worker_burst(smtp_settings)
    assert [x["X-Portolan-Notice"] for x in notices(smtp_sink)] == [f"notice:{mid}:{seat}:0"]
    # handled twice (a consumer that died after enqueueing, before its ack): still one notice
    alive.step("jobs")
    from service.delivery.dispatch import RQDispatcher
    from service.delivery.outbox import jobs_for

    jobs_for(m, RQDispatcher(m.store.q, smtp_settings), read[1])
    worker_burst(smtp_settings)
    assert len(notices(smtp_sink)) == 1


def test_a_refused_move_announces_nothing(smtp_settings: Settings, players: list[Player]) -> None:
    from service.play.errors import ServiceError
    from service.proof import signing

    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    before = sum(m.store.r.xlen(k) for k in m.store.outbox_keys())
    env = {"match": mid, "seat": seat, "ply": 7, "actions": [{"type": "roll"}], "nonce": "x"}
    with pytest.raises(ServiceError):
        m.submit(mid, env, signing.sign(players[seat].private_key, env))
    assert sum(m.store.r.xlen(k) for k in m.store.outbox_keys()) == before
    env["ply"] = 0
    m.submit(mid, env, signing.sign(players[seat].private_key, env))
    assert sum(m.store.r.xlen(k) for k in m.store.outbox_keys()) == before + 1


def test_active_since_follows_each_seats_turn(smtp_settings: Settings, players: list[Player]) -> None:
    from service.proof import signing

    m = build(smtp_settings)
    mid = start_human_match(m, players)
    first = m.meta(mid).active[0]
    assert m.meta(mid).active_since == {str(first): 0}
    env = {"match": mid, "seat": first, "ply": 0, "actions": [{"type": "roll"}], "nonce": "x"}
    m.submit(mid, env, signing.sign(players[first].private_key, env))
    meta = m.meta(mid)
    # still the same seat's turn (it keeps its start ply) unless a 1 passed the turn (new ply 1)
    assert meta.active_since == ({str(first): 0} if meta.active == (first,) else {str(1 - first): 1})


def test_an_all_bot_match_whose_start_failed_is_started_by_the_sweep(smtp_settings: Settings,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the second outside test: the start of an all-bot match runs inside its creation;
    when it failed (Redis) the creation answered 503 and the match stayed waiting with no open
    seat for ever: there is no claim to retry. The sweep now starts such matches, and the bots play."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from service.play.listings import start_unstarted_matches, unstarted_matches

    m = build(smtp_settings)
    real = m.store.update_meta

    def redis_down(*args: Any, **kwargs: Any) -> Any:
        raise RedisConnectionError("Redis went away during the start")

    monkeypatch.setattr(m.store, "update_meta", redis_down)
    with pytest.raises(RedisConnectionError):
        m.create("harbour-race", {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    monkeypatch.setattr(m.store, "update_meta", real)
    [mid] = [i for i in m.store.match_ids() if m.meta(i).status == "waiting"]
    assert unstarted_matches(m, older_than_s=60) == []  # too fresh: the start may still be under way
    assert unstarted_matches(m, older_than_s=0) == [mid]
    assert start_unstarted_matches(m, older_than_s=0) == 1
    assert m.meta(mid).status == "active"
    worker_burst(smtp_settings)
    assert m.meta(mid).status == "finished"
    assert start_unstarted_matches(m, older_than_s=0) == 0


def test_a_human_match_whose_last_claim_was_never_retried_is_started_by_the_sweep(
        smtp_settings: Settings, players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError

    from service.play.listings import start_unstarted_matches, unstarted_matches
    from service.play.seats import lifecycle

    m = build(smtp_settings)
    made = m.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], creator_key=CREATOR_KEY)
    mid = made["id"]
    m.claim(mid, 0, made["invites"]["0"], players[0].public_key, "Ana", "")
    assert unstarted_matches(m, older_than_s=0) == []  # a seat is open: nothing to start
    real = lifecycle.start

    def redis_down(ctx: Any, match_id: str) -> Any:
        raise RedisConnectionError("Redis went away during the start")

    monkeypatch.setattr(lifecycle, "start", redis_down)
    with pytest.raises(RedisConnectionError):
        m.claim(mid, 1, made["invites"]["1"], players[1].public_key, "Bea", "")
    monkeypatch.setattr(lifecycle, "start", real)
    assert unstarted_matches(m, older_than_s=0) == [mid]  # and Bea never retries
    assert start_unstarted_matches(m, older_than_s=0) == 1
    meta = m.meta(mid)
    assert meta.status == "active" and meta.head and m.store.state(mid)["ply"] == 0
    # Bea's late retry is still answered as her claim, on the started match
    assert m.claim(mid, 1, made["invites"]["1"], players[1].public_key, "Bea", "")["status"] == "active"


def test_invitations_whose_enqueue_fails_stay_pending_and_go_out_once_later(
        smtp_settings: Settings, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the outbox, a creation whose second invitation failed to enqueue left a match
    waiting for ever with one invitee mailed. Now the invitations are in the outbox entry written
    with the match: a failing handler leaves the entry pending, and a later pass sends both, once."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from service.delivery.dispatch import RQDispatcher

    m = build(smtp_settings)
    made = m.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                    creator_key=CREATOR_KEY)
    real, calls = RQDispatcher.invite, []

    def second_fails(self: RQDispatcher, *args: Any) -> None:
        calls.append(args)
        if len(calls) == 2:
            raise RedisConnectionError("Redis went away between two invitations")
        real(self, *args)

    monkeypatch.setattr(RQDispatcher, "invite", second_fails)
    d = outbox_dispatcher(smtp_settings, claim_after_s=0)
    assert d.step("jobs") == 0  # the handler failed: not acknowledged
    assert m.store.outbox_backlog("jobs") == 1
    monkeypatch.setattr(RQDispatcher, "invite", real)
    assert d.step("jobs", claim=True) == 1
    worker_burst(smtp_settings)
    invites = sorted(x["To"] for x in smtp_sink.messages if x["X-Portolan-Notice"].startswith("invite:"))
    assert invites == ["a@example.org", "b@example.org"]
    assert m.meta(made["id"]).status == "waiting"


def test_every_match_id_falls_in_an_outbox_bucket() -> None:
    """A match's keys and its outbox share a Cluster slot only if its bucket is one the
    consumers read: the bucket alphabet is the id alphabet."""
    from service.play.matches import ID_ALPHABET, new_match_id
    from service.storage.keys import BUCKETS, bucket_of

    assert BUCKETS == ID_ALPHABET
    assert all(bucket_of(new_match_id()) in BUCKETS for _ in range(200))
    assert bucket_of("") == bucket_of("Zzz") == "_"


def test_a_heuristic_bot_plays_whole_turns_in_real_worker_jobs(smtp_settings: Settings, players: list[Player]) -> None:
    """A person against El Capitán's heuristic bot: each bot job sends the bot's whole turn (up to
    the first step that shows something new) as one signed move, logged ``bot:heuristic``."""
    m = build(smtp_settings)
    made = m.create("el-capitan", {}, [{"invite": "p0@example.org"}, {"bot": "heuristic"}], creator_key=CREATOR_KEY)
    mid = made["id"]
    m.claim(mid, 0, made["invites"]["0"], players[0].public_key, players[0].name, "p0@example.org")
    pick = Rng.from_seed("person")
    for rnd in range(40):
        meta = m.meta(mid)
        if meta.status != "active":
            break
        if 0 in meta.active:
            legal = m.view(mid, 0)["legal_actions"]
            move = players[0].envelope(mid, 0, meta.ply, [legal[pick.randbelow(len(legal))]["action"]], f"n{rnd}")
            m.submit(mid, move["envelope"], move["signature"])
        else:
            worker_burst(smtp_settings)
    log = m.store.log(mid)
    by_bot = [e for e in log if e["envelope"]["seat"] == 1]
    assert by_bot and all(e["by"] == "bot:heuristic" for e in by_bot)
    assert any(len(e["envelope"]["actions"]) > 1 for e in by_bot), "the bot never sent a turn of several steps"


def test_no_turn_notice_where_the_answer_to_a_reply_already_asks_for_that_move(smtp_settings: Settings,
                                                                               smtp_sink: SmtpSink,
                                                                               players: list[Player]) -> None:
    """One prompt per seat and ply: the answer to the seat's reply took the ply's prompt (a bot
    moved between the reply's move and the answer, and the turn came back), so the turn notice of
    that ply sends nothing, says why, and counts as dealt with (the sweep does not send it later)."""
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    assert m.store.claim_for(prompt_mark(mid, seat, 0), "answer:some-message")
    assert jobs.send_turn_notice(mid, seat, 0) == "skipped: the answer to the seat's reply asks for this move"
    assert notices(smtp_sink) == []
    assert m.store.marked([f"notice:{mid}:{seat}:0"]) == [True]
    # the other seat's ply is its own: its notice goes out
    assert not m.store.claim_for(prompt_mark(mid, seat, 0), "notice")
    assert m.store.claim_for(prompt_mark(mid, seat, 1), "notice") and m.store.claim_for(prompt_mark(mid, seat, 1), "notice")


def test_a_turn_notice_that_took_the_prompt_is_sent_and_its_retry_sends_nothing_more(smtp_settings: Settings,
                                                                                     smtp_sink: SmtpSink,
                                                                                     players: list[Player]) -> None:
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    seat = m.meta(mid).active[0]
    assert jobs.send_turn_notice(mid, seat, 0).startswith("sent")
    assert jobs.send_turn_notice(mid, seat, 0).startswith("skipped: already sent")
    assert len(notices(smtp_sink)) == 1
    assert not m.store.claim_for(prompt_mark(mid, seat, 0), "answer:a-later-reply")  # the notice asked
