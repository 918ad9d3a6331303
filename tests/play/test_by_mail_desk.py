"""The mail desk through its real parts: a real Redis, the real answer job in a real RQ worker
burst, answers read back from a real SMTP sink. Every refusal changes nothing (meta and log as
before) and is answered exactly once, unless it came from a robot or passed the rate limit; a
mail from anyone not proven by an authentic token and the seat's address is dropped unanswered."""

from __future__ import annotations

import dataclasses

from service.config import Settings
from service.play.mail.desk import message_identity
from service.runtime import build_desk
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from tests.conftest import SmtpSink
from tests.play.mail_desk import ANA, BASE, BEA, Table, body, mail_settings, open_table, reply, words

__all__ = ["mail_settings"]


def refused_once(t: Table, mail_text: str, *, sender: str | None = None, to: str | None = None,
                 **kw: object) -> str:
    """Deliver one reply that must be refused; assert nothing changed and one answer came."""
    seat, email = t.mover()
    before = t.snapshot()
    mail = reply(to or t.address("t", seat, before[0].ply), sender or email, mail_text, **kw)
    account = t.desk.receive(mail)
    assert t.snapshot() == before, account
    [answer] = t.answers()
    assert str(answer["To"]).lower() == (sender or email).lower()
    assert answer["In-Reply-To"] == mail.message_id
    assert answer["Auto-Submitted"] == "auto-replied"
    assert answer["Subject"] == "Re: your mail to Portolan"  # a refusal never echoes the sender's Subject
    return words(answer)


def dropped_unanswered(t: Table, mail_text: str, *, sender: str | None = None, to: str | None = None,
                       **kw: object) -> str:
    """Deliver one mail that must be dropped: nothing changed, nobody answered; its account."""
    seat, email = t.mover()
    before = t.snapshot()
    account = t.desk.receive(reply(to or t.address("t", seat, before[0].ply), sender or email, mail_text, **kw))
    assert t.snapshot() == before, account
    assert t.answers() == []
    assert account.startswith("dropped"), account
    return account


def test_a_pick_moves_and_the_answer_says_what_happened(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    ply = t.m.meta(t.match).ply
    view = t.m.view(t.match, seat)
    mail = reply(t.address("t", seat, ply), email.upper(), "2\n\nthanks!\n\nOn Monday Portolan wrote:\n> 1. x")
    assert t.desk.receive(mail).startswith("moved")
    [entry] = t.m.log(t.match, ply)
    assert entry["by"] == "email" and entry["envelope"]["actions"] == [view["legal_actions"][1]["action"]]
    assert entry["mail"]["digest"] == mail.digest
    [answer] = t.answers()
    text = words(answer)
    assert f"accepted: {view['legal_actions'][1]['text']}." in text
    assert answer["Subject"] == "Re: [Portolan] Your turn"
    assert answer["References"] == mail.message_id
    # still this seat's turn (a Nauticus turn is several plies): a fresh token for the new ply
    assert answer["Reply-To"] == t.address("t", seat, ply + 1)
    assert "It is your turn (ply" in text and "\n    1. " in body(answer)


def test_several_picks_are_one_all_or_nothing_move(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, _ = t.mover()
    ply = t.m.meta(t.match).ply
    # choosing the same phase action twice: the rules core refuses the second, so nothing moves
    view = t.m.view(t.match, seat)
    text = refused_once(t, "1, 1")
    first = view["legal_actions"][0]["text"]
    assert f"Nothing was done: step 2 (`1`: {first}) is not open after the steps before it:" in text
    assert "(rule §" in text and "None of your reply was played; before step 2 it would have played: 1. " in text
    assert "Why: the rules of the game do not allow it then (rule: §" in text, text
    assert "The rules it cites: " in text and "/v1/games/nauticus/rules" in text  # where to look "§" up
    assert "What you can do now" in text
    assert t.m.meta(t.match).ply == ply and seat == t.mover()[0]


def test_commands_show_log_help_and_notices(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    ply = t.m.meta(t.match).ply
    address = t.address("t", seat, ply)
    before = t.snapshot()
    for command in ("show", "log", "help", "notices digest"):
        t.desk.receive(reply(address, email, command))
    assert t.snapshot() == before
    show, log, help_, notices = t.answers()
    assert "The board:" in words(show) and "The board:" not in words(log)
    assert "    1. " in body(show)
    # on a phone the numbers a reply needs come first: the menu before the board, and the web page linked
    assert words(show).index("What you can do now") < words(show).index("The board:")
    assert f"/match/{t.match}" in words(show) and "/v1/matches/" not in words(show)
    assert "No move has been made yet." in words(log)
    assert "3, 1, end" in words(help_)
    assert "one daily digest" in words(notices)
    assert NoticePreferences(connect(t.settings.redis_url), t.settings.namespace).get(email) == "digest"
    t.desk.receive(reply(address, email, "stop notices"))
    assert NoticePreferences(connect(t.settings.redis_url), t.settings.namespace).get(email) == "off"
    [stopped] = t.answers()
    assert "no turn notices" in words(stopped) and "no invitations" in words(stopped)


def test_the_wrong_sender_is_dropped_unanswered(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    _, email = t.mover()
    other = BEA if email == ANA else ANA
    for sender in ("mallory@example.net", other):
        assert "its From is not the address of seat" in dropped_unanswered(t, "1", sender=sender)


def test_forged_and_foreign_addresses_are_dropped_unanswered(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, _ = t.mover()
    ply = t.m.meta(t.match).ply
    real = t.address("t", seat, ply)
    forged = real.replace(real.split("-")[-1].split("@")[0], "a" * 16)
    assert "not made by this server" in dropped_unanswered(t, "1", to=forged)
    # a forged ply: a token made for another ply does not verify either
    assert "not made by this server" in dropped_unanswered(t, "1", to=real.replace(f"-{ply}-", f"-{ply + 7}-"))
    assert "not sent to a reply address made by Portolan" in dropped_unanswered(t, "1", to=BASE)


def test_a_reused_token_gets_the_new_position(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    ply = t.m.meta(t.match).ply
    address = t.address("t", seat, ply)
    t.desk.receive(reply(address, email, "1"))
    t.answers()
    text = refused_once(t, "2", to=address, sender=email)  # a second reply to the same notice
    assert f"the position changed since that notice (it was for ply {ply}, the match is now at ply {ply + 1})" in text
    assert "What you can do now" in text


def test_stale_ply_answer_has_a_fresh_reply_to(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    ply = t.m.meta(t.match).ply
    t.desk.receive(reply(t.address("t", seat, ply), email, "1"))
    t.answers()
    before = t.snapshot()
    t.desk.receive(reply(t.address("t", seat, ply), email, "1, 2"))
    assert t.snapshot() == before
    [answer] = t.answers()
    now_ply = before[0].ply
    fresh = t.address("t", seat, now_ply) if seat in before[0].active else t.address("o", seat)
    assert answer["Reply-To"] == fresh and f"now at ply {now_ply}" in words(answer)


def test_garbage_an_unknown_word_and_a_number_off_the_menu(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    text = refused_once(t, "> 1\n\n-- \nsent from my phone")
    assert "no words of its own" in text and "3, 1, end" in text and "What you can do now" in text
    assert "step 1 (`frobnicate`) names no action in the menu" in refused_once(t, "frobnicate")
    assert "there is no item 99 in the menu" in refused_once(t, "99")


def test_an_attachment_is_not_read(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    text = refused_once(t, "1", attachments=1, size=5 * 1024 * 1024)
    assert "attachment" in text and "attachments are not read" in text


def test_dkim_can_be_required(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    t.desk = build_desk(dataclasses.replace(t.settings, mail_require_dkim=True), t.m)
    assert "DKIM" in dropped_unanswered(t, "1", dkim=None)
    assert "DKIM" in dropped_unanswered(t, "1", dkim=False)
    seat, email = t.mover()
    assert t.desk.receive(reply(t.address("t", seat, t.m.meta(t.match).ply), email, "1", dkim=True)).startswith("moved")


def test_robots_are_never_answered(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    before = t.snapshot()
    for text in ("1", "garbage", "show"):
        account = t.desk.receive(reply(t.address("t", seat, before[0].ply), email, text, automatic=True))
        assert account.startswith("dropped")
    assert t.desk.receive(reply(BASE, "mailer-daemon@example.org", "undeliverable", automatic=True)).startswith("dropped")
    assert t.snapshot() == before
    assert t.answers() == []


def test_refusals_past_the_rate_limit_are_not_answered(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    t.desk = build_desk(dataclasses.replace(t.settings, mail_refusals_per_hour=3), t.m)
    seat, email = t.mover()
    before = t.snapshot()
    to = t.address("t", seat, before[0].ply)
    accounts = [t.desk.receive(reply(to, email, f"frobnicate {n}")) for n in range(4)]
    assert t.snapshot() == before
    assert len(t.answers()) == 3
    assert "rate limit" in accounts[3] and all("rate limit" not in a for a in accounts[:3])
    # a real move still moves, and is answered
    assert t.desk.receive(reply(to, email, "1")).startswith("moved")
    assert len(t.answers()) == 1


def test_the_same_message_twice_is_one_move_and_one_answer(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    ply = t.m.meta(t.match).ply
    mail = reply(t.address("t", seat, ply), email, "1")
    assert t.desk.receive(mail).startswith("moved")
    assert t.desk.receive(mail).startswith("duplicate")
    assert len(t.m.log(t.match)) == ply + 1
    assert len(t.answers()) == 1
    # a crash after the move and before the "dealt with" mark: the redelivery is the same
    # envelope (a replay, no second move) and the answer's identity is the message's (no second mail)
    connect(t.settings.redis_url).delete(f"{t.settings.namespace}mail:done:{message_identity(mail)}")
    assert t.desk.receive(mail).startswith("moved")
    assert len(t.m.log(t.match)) == ply + 1
    assert t.answers() == []
    # the same Message-ID with other bytes (a copy through another relay) is the same message
    assert t.desk.receive(dataclasses.replace(mail, digest="f" * 64)).startswith("duplicate")


def test_joining_by_mail_needs_the_invited_address(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    from service.runtime import build
    from tests.conftest import CREATOR_KEY

    m = build(mail_settings)
    t = Table(mail_settings, m, build_desk(mail_settings, m), smtp_sink)
    made = m.create("nauticus", {}, [{"invite": ANA}, {"invite": BEA}], creator_key=CREATOR_KEY)
    t.match = made["id"]
    before = m.meta(t.match)
    t.desk.receive(reply(t.address("i", 1), "mallory@example.net", "join Mallory"))
    t.desk.receive(reply(t.address("i", 1), BEA, "1"))
    t.desk.receive(reply(t.address("i", 1), BEA, "join"))
    assert m.meta(t.match) == before
    not_join, no_name = t.answers()  # Mallory's is dropped unanswered
    assert "join Your Name" in words(not_join)
    assert "needs your name" in words(no_name)
    assert t.desk.receive(reply(t.address("i", 1), BEA, "join Bea")).startswith("joined")
    row = m.meta(t.match).seats[1]
    assert row.claimed and row.name == "Bea" and row.custody == "server"
    assert "Welcome aboard, Bea" in words(t.answers()[0])
    t.desk.receive(reply(t.address("i", 1), BEA, "join Bea again"))
    assert "you hold seat 1 already, as Bea." in words(t.answers()[0])
    assert m.meta(t.match).seats[1].name == "Bea"


def test_help_on_an_invitation(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    from service.runtime import build
    from tests.conftest import CREATOR_KEY

    m = build(mail_settings)
    t = Table(mail_settings, m, build_desk(mail_settings, m), smtp_sink)
    t.match = m.create("nauticus", {}, [{"invite": ANA}, {"invite": BEA}], creator_key=CREATOR_KEY)["id"]
    t.desk.receive(reply(t.address("i", 0), ANA, "help"))
    [answer] = t.answers()
    assert "join Your Name" in words(answer) and "Why:" not in words(answer)


class FailingPost:
    """An answer queue that fails once (Redis gone at the worst moment: after the move)."""

    def __init__(self, real: object) -> None:
        self.real, self.failed = real, False

    def answer(self, key: str, answer: dict[str, object]) -> None:
        if not self.failed:
            self.failed = True
            raise ConnectionError("redis went away")
        self.real.answer(key, answer)  # type: ignore[attr-defined]


def test_a_failure_after_the_move_is_redelivered_without_a_second_move(mail_settings: Settings,
                                                                       smtp_sink: SmtpSink) -> None:
    import pytest

    from service.play.mail.desk import Desk, MailBusy

    t = open_table(mail_settings, smtp_sink)
    desk = t.desk
    assert isinstance(desk, Desk)
    seat, email = t.mover()
    ply = t.m.meta(t.match).ply
    mail = reply(t.address("t", seat, ply), email, "1")
    failing = dataclasses.replace(desk, post=FailingPost(desk.post))
    with pytest.raises(ConnectionError):  # the transport answers 451: the MTA delivers it again
        failing.receive(mail)
    assert len(t.m.log(t.match)) == ply + 1  # the move itself was committed
    assert t.answers() == []
    assert failing.receive(mail).startswith("moved")  # the redelivery: a replay, answered
    assert len(t.m.log(t.match)) == ply + 1
    [answer] = t.answers()
    assert "accepted:" in words(answer)
    # while one process holds a message's lease, another delivery of it is "try again later"
    other = reply(t.address("t", seat, ply + 1), email, "1")
    assert desk.mailbox.begin(message_identity(other), 60) == "new"
    before = t.snapshot()
    with pytest.raises(MailBusy):
        desk.receive(other)
    assert t.snapshot() == before and t.answers() == []


def test_key_mails_an_attach_token_to_a_custodial_seat_only(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    ana_seat_meta = t.snapshot()
    t.desk.receive(reply(t.address("o", 0), ANA, "key"))
    assert t.snapshot() == ana_seat_meta
    [refused] = t.answers()
    assert "already signs with a key of your own" in words(refused)
    t.desk.receive(reply(t.address("o", 1), BEA, "key"))
    [answer] = t.answers()
    [line] = [ln.strip() for ln in body(answer).splitlines() if ln.strip().startswith("portolan attach-key")]
    token = line.split("--token ")[1].split()[0]
    assert line == f"portolan attach-key {t.match} --seat 1 --token {token} --server {t.m.public_url}"
    assert t.m.meta(t.match).seats[1].attach_hash


def test_the_list_unsubscribe_mailto_stops_notices(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    t.desk.receive(reply(t.address("o", 0), ANA, "", subject="stop notices"))
    assert NoticePreferences(connect(t.settings.redis_url), t.settings.namespace).get(ANA) == "off"
    [answer] = t.answers()
    assert "no turn notices" in words(answer)


def test_an_answer_job_run_again_sends_nothing(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    from service.play.mail.desk import Desk
    from workers.answers import send_answer

    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    queued: list[tuple[str, dict[str, object]]] = []

    class Recording:
        def answer(self, key: str, answer: dict[str, object]) -> None:
            queued.append((key, answer))

    assert isinstance(t.desk, Desk)
    desk = dataclasses.replace(t.desk, post=Recording())
    desk.receive(reply(t.address("t", seat, t.m.meta(t.match).ply), email, "1"))
    [(key, payload)] = queued
    assert send_answer(key, payload).startswith("sent")  # type: ignore[arg-type]
    assert send_answer(key, payload) == "skipped: already sent"  # type: ignore[arg-type]
    [answer] = t.answers()
    assert "accepted:" in words(answer)


def test_a_seat_without_a_mail_delegation_is_told_how_to_grant_one(mail_settings: Settings,
                                                                   smtp_sink: SmtpSink) -> None:
    from service.proof import signing
    from service.runtime import build
    from tests.conftest import CREATOR_KEY

    m = build(mail_settings)
    t = Table(mail_settings, m, build_desk(mail_settings, m), smtp_sink)
    made = m.create("nauticus", {}, [{"invite": ANA}, {"invite": BEA}], creator_key=CREATOR_KEY)
    t.match = made["id"]
    for seat, email in ((0, ANA), (1, BEA)):  # both claim with keys, neither delegates
        m.claim(t.match, seat, made["invites"][str(seat)], signing.public_key_of(signing.generate_private_key()),
                email.split("@")[0], email)
    text = refused_once(t, "1")
    assert "has not delegated moves by mail" in text and "mail-delegation" in text
