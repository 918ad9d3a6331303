"""The RQ jobs with a real Redis, a real RQ worker (burst) and a real SMTP conversation."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from rq import Queue

from service.config import Settings
from service.play.listings import resend_unsent_notices, unsent_notices
from service.play.matches import Matches
from service.runtime import build, connect
from tests.conftest import CREATOR_KEY, Player, SmtpSink, worker_burst
from workers import jobs


@pytest.fixture
def smtp_settings(settings: Settings, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> Settings:
    s = dataclasses.replace(settings, smtp_url=smtp_sink.url)
    # the jobs build their service from the environment, as in a worker process
    for name, value in {"REDIS_URL": s.redis_url, "SMTP_URL": s.smtp_url, "PORTOLAN_NS": s.namespace,
                        "PUBLIC_URL": s.public_url, "OUTBOX_DIR": s.outbox_dir}.items():
        monkeypatch.setenv(name, str(value))
    jobs.settings.cache_clear()
    jobs.service.cache_clear()
    return s


def start_human_match(m: Matches, players: list[Player], seats: int = 2) -> str:
    made = m.create("harbour-race", {}, [{"invite": f"p{i}@example.org"} for i in range(seats)], creator_key=CREATOR_KEY)
    for i in range(seats):
        m.claim(made["id"], i, made["invites"][str(i)], players[i].public_key, players[i].name, f"p{i}@example.org")
    return str(made["id"])


def notices(sink: SmtpSink) -> list[Any]:
    return [msg for msg in sink.messages if msg["X-Portolan-Notice"].startswith("notice:")]


def test_turn_notice_goes_out_once_over_smtp(smtp_settings: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    m = build(smtp_settings)
    mid = start_human_match(m, players)
    worker_burst(smtp_settings)
    invites = [msg for msg in smtp_sink.messages if msg["X-Portolan-Notice"].startswith("invite:")]
    assert sorted(msg["To"] for msg in invites) == ["p0@example.org", "p1@example.org"]
    first = m.meta(mid)["active"][0]
    [msg] = notices(smtp_sink)
    assert msg["To"] == f"p{first}@example.org"
    text = msg.get_body(preferencelist=("plain",)).get_content()
    assert f"portolan move {mid} --seat {first} " in text and "roll the die" in text
    assert m.meta(mid)["head"] in text
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
    seat = m.meta(mid)["active"][0]
    # roll until the die shows a 1 or we can bank: then the turn passes to the other seat
    while m.meta(mid)["active"] == [seat]:
        meta = m.meta(mid)
        legal = [a["action"] for a in m.view(mid, seat)["legal_actions"]]
        action = {"type": "bank"} if {"type": "bank"} in legal else {"type": "roll"}
        env = {"match": mid, "seat": seat, "ply": meta["ply"], "actions": [action], "nonce": str(meta["ply"])}
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
    seat = m.meta(mid)["active"][0]
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
        if m.meta(made["id"])["status"] == "finished":
            break
    meta = m.meta(made["id"])
    assert meta["status"] == "finished" and meta["outcome"]["ranks"].count(1) >= 1
    log = m.store.log(made["id"])
    assert all(e["by"] == "bot:random" for e in log)
    from service.proof.verify import verify_record

    assert verify_record(m.record(made["id"])).ok
    assert notices(smtp_sink) == []  # bots get no mail


def test_bot_job_for_a_moved_on_ply_does_nothing(smtp_settings: Settings) -> None:
    m = build(smtp_settings)
    made = m.create("harbour-race", {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    seat = m.meta(made["id"])["active"][0]
    assert jobs.play_bot(made["id"], seat, 0).startswith("played")
    assert jobs.play_bot(made["id"], seat, 0).startswith("skipped")
    assert m.meta(made["id"])["ply"] == 1


def test_a_notice_lost_between_commit_and_enqueue_is_found_and_sent(smtp_settings: Settings, smtp_sink: SmtpSink,
                                                                    players: list[Player],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    m = build(smtp_settings)
    lost: list[Any] = []
    real_turn = m.dispatcher.turn
    monkeypatch.setattr(m.dispatcher, "turn", lambda *args: lost.append(args))  # the process "dies" here
    mid = start_human_match(m, players)
    seat = m.meta(mid)["active"][0]
    assert lost == [(mid, 0, [seat])]
    assert unsent_notices(m, older_than_s=60) == []  # too fresh: its job may simply still be queued
    assert unsent_notices(m, older_than_s=0) == [(mid, seat, 0)]
    monkeypatch.setattr(m.dispatcher, "turn", real_turn)  # a worker's sweep, some minutes later
    assert resend_unsent_notices(m, older_than_s=0) == 1
    worker_burst(smtp_settings)
    assert [x["X-Portolan-Notice"] for x in notices(smtp_sink)] == [f"notice:{mid}:{seat}:0"]
    assert unsent_notices(m, older_than_s=0) == []
    assert resend_unsent_notices(m, older_than_s=0) == 0


def test_active_since_follows_each_seats_turn(smtp_settings: Settings, players: list[Player]) -> None:
    from service.proof import signing

    m = build(smtp_settings)
    mid = start_human_match(m, players)
    first = m.meta(mid)["active"][0]
    assert m.meta(mid)["active_since"] == {str(first): 0}
    env = {"match": mid, "seat": first, "ply": 0, "actions": [{"type": "roll"}], "nonce": "x"}
    m.submit(mid, env, signing.sign(players[first].private_key, env))
    meta = m.meta(mid)
    # still the same seat's turn (it keeps its start ply) unless a 1 passed the turn (new ply 1)
    assert meta["active_since"] == ({str(first): 0} if meta["active"] == [first] else {str(1 - first): 1})


def test_a_bot_turn_lost_between_commit_and_enqueue_is_found_and_played(smtp_settings: Settings,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the second outside test (the process dies halfway): the sweep re-enqueued lost
    turn notices but not lost bot turns, so a match whose bot job was never enqueued (the fan-out
    swallows the failure: the move is committed) waited on that bot for ever."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from service.play.listings import resume_stalled_bots, stalled_bots

    m = build(smtp_settings)
    real_bot = m.dispatcher.bot

    def redis_down(*args: Any) -> None:
        raise RedisConnectionError("Redis went away between the commit and the enqueue")

    monkeypatch.setattr(m.dispatcher, "bot", redis_down)
    made = m.create("harbour-race", {}, [{"bot": "random"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    mid, seat = made["id"], m.meta(made["id"])["active"][0]
    monkeypatch.setattr(m.dispatcher, "bot", real_bot)
    worker_burst(smtp_settings)
    assert m.meta(mid)["ply"] == 0  # stuck: no job to play the bot's turn
    assert stalled_bots(m, older_than_s=60) == []  # too fresh: its job may simply still be queued
    assert stalled_bots(m, older_than_s=0) == [(mid, seat, 0)]
    assert resume_stalled_bots(m, older_than_s=0) == 1  # a worker's sweep, some minutes later
    worker_burst(smtp_settings)
    assert m.meta(mid)["status"] == "finished"  # each bot move enqueues the next, to the end
    assert stalled_bots(m, older_than_s=0) == []


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
    [mid] = [i for i in m.store.match_ids() if m.meta(i)["status"] == "waiting"]
    assert unstarted_matches(m, older_than_s=60) == []  # too fresh: the start may still be under way
    assert unstarted_matches(m, older_than_s=0) == [mid]
    assert start_unstarted_matches(m, older_than_s=0) == 1
    assert m.meta(mid)["status"] == "active"
    worker_burst(smtp_settings)
    assert m.meta(mid)["status"] == "finished"
    assert start_unstarted_matches(m, older_than_s=0) == 0


def test_a_human_match_whose_last_claim_was_never_retried_is_started_by_the_sweep(
        smtp_settings: Settings, players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError

    from service.play.listings import start_unstarted_matches, unstarted_matches

    m = build(smtp_settings)
    made = m.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}], creator_key=CREATOR_KEY)
    mid = made["id"]
    m.claim(mid, 0, made["invites"]["0"], players[0].public_key, "Ana", "")
    assert unstarted_matches(m, older_than_s=0) == []  # a seat is open: nothing to start
    real = m._start

    def redis_down(match_id: str) -> Any:
        raise RedisConnectionError("Redis went away during the start")

    monkeypatch.setattr(m, "_start", redis_down)
    with pytest.raises(RedisConnectionError):
        m.claim(mid, 1, made["invites"]["1"], players[1].public_key, "Bea", "")
    monkeypatch.setattr(m, "_start", real)
    assert unstarted_matches(m, older_than_s=0) == [mid]  # and Bea never retries
    assert start_unstarted_matches(m, older_than_s=0) == 1
    meta = m.meta(mid)
    assert meta["status"] == "active" and meta["head"] and m.store.state(mid)["ply"] == 0
    # Bea's late retry is still answered as her claim, on the started match
    assert m.claim(mid, 1, made["invites"]["1"], players[1].public_key, "Bea", "")["status"] == "active"


def test_a_creation_whose_invitations_fail_halfway_leaves_no_waiting_match_and_sends_nothing(
        smtp_settings: Settings, smtp_sink: SmtpSink, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the second outside test: the match was stored, the second invitation's enqueue
    failed, the creator got 503 (no id, no tokens) and the match waited in the lobby for ever,
    while the first invitee was mailed a token to it. Now the half-created match is aborted and an
    invitation to an aborted match is not sent."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from service.api import create_app
    from tests.api.test_refusals import assert_problem
    from tests.conftest import create_match

    m = build(smtp_settings)
    client = create_app(smtp_settings, m, TESTING=True).test_client()
    real, calls = m.dispatcher.invite, []

    def second_fails(*args: Any) -> None:
        calls.append(args)
        if len(calls) == 2:
            raise RedisConnectionError("Redis went away between two invitations")
        real(*args)

    monkeypatch.setattr(m.dispatcher, "invite", second_fails)
    seats = [{"invite": "a@example.org"}, {"invite": "b@example.org"}]
    assert_problem(create_match(client, {"game": "harbour-race", "seats": seats}), 503, "storage-unavailable")
    [mid] = m.store.match_ids()
    assert m.meta(mid)["status"] == "aborted"
    assert client.get("/v1/matches?status=waiting").get_json()["matches"] == []
    worker_burst(smtp_settings)  # the first invitation was enqueued before the failure
    assert [x for x in smtp_sink.messages if x["X-Portolan-Notice"].startswith("invite:")] == []
