"""Issue 28 at the mail desk, through its real parts (Redis, the answer job in a real worker burst,
the SMTP sink): a seat by mail needs an authenticated sender (our MTA's Authentication-Results),
an expired reply token is no token, only a proven sender is ever answered, and an auto-responder
that repeats itself gets two answers, then silence."""

from __future__ import annotations

import dataclasses

from service.config import Settings
from service.play.mail.reply_address import reply_address
from service.runtime import build_desk
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from tests.conftest import SmtpSink
from tests.play.mail_desk import BASE, Table, mail_settings, open_table, reply, words

__all__ = ["mail_settings"]

OURS = "mx.portolan.test"


def requiring_auth(t: Table) -> Table:
    """The table's desk as production runs it: PORTOLAN_MAIL_REQUIRE_AUTH on, our MTA's A-R trusted."""
    t.desk = build_desk(dataclasses.replace(t.settings, mail_require_auth=True, mail_authserv_id=OURS), t.m)
    return t


def test_a_spoofed_from_cannot_play_the_seat_and_the_genuine_one_can(mail_settings: Settings,
                                                                     smtp_sink: SmtpSink) -> None:
    t = requiring_auth(open_table(mail_settings, smtp_sink))
    seat, email = t.mover()
    domain = email.rpartition("@")[2].lower()
    before = t.snapshot()
    to = t.address("t", seat, before[0].ply)
    spoofs = {
        "no result": (),
        "dmarc=fail": (f"{OURS}; dkim=none; dmarc=fail header.from={domain}",),
        "a forged A-R of another authserv-id": (f"mx.evil.example; dmarc=pass header.from={domain}",),
        "a DKIM pass of another domain": (f"{OURS}; dkim=pass header.d=evil.example; dmarc=none",),
    }
    for name, headers in spoofs.items():
        account = t.desk.receive(reply(to, email, "1", auth_results=headers))
        assert account.startswith("dropped: its sender is not authenticated"), (name, account)
    assert t.snapshot() == before  # nothing moved
    genuine = t.desk.receive(reply(to, email, "1", auth_results=(f"{OURS}; dkim=pass header.d={domain}",)))
    assert genuine.startswith("moved"), genuine
    assert len(t.m.log(t.match)) == len(before[1]) + 1
    [answer] = t.answers()  # the genuine one's: the spoofs were mailed nothing
    assert "accepted" in words(answer)


def test_a_dmarc_pass_plays_and_commands_need_proof_too(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = requiring_auth(open_table(mail_settings, smtp_sink))
    seat, email = t.mover()
    domain = email.rpartition("@")[2]
    to = t.address("t", seat, t.m.meta(t.match).ply)
    for command in ("abort", "resign yes", "stop notices", "show"):
        assert t.desk.receive(reply(to, email, command)).startswith("dropped"), command
    assert t.answers() == [] and t.m.meta(t.match).status == "active"
    # with our own DKIM check on as well, its pass does not overrule the domain's DMARC fail
    both = build_desk(dataclasses.replace(t.settings, mail_authserv_id=OURS, mail_require_dkim=True), t.m)
    failed = (f"{OURS}; dmarc=fail header.from={domain}",)
    assert "fails DMARC" in both.receive(reply(to, email, "1", auth_results=failed, dkim=True))
    proven = (f"{OURS}; dmarc=pass header.from={domain}",)
    assert t.desk.receive(reply(to, email, "1", auth_results=proven)).startswith("moved")


def test_required_but_nothing_configured_accepts_no_mail_moves(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    t.desk = build_desk(dataclasses.replace(t.settings, mail_require_auth=True), t.m)
    seat, email = t.mover()
    before = t.snapshot()
    account = t.desk.receive(reply(t.address("t", seat, before[0].ply), email, "1",
                                   auth_results=(f"{OURS}; dmarc=pass header.from=example.org",), dkim=True))
    assert "PORTOLAN_MAIL_AUTHSERV_ID" in account and t.snapshot() == before and t.answers() == []
    assert "PORTOLAN_MAIL_AUTHSERV_ID" in dataclasses.replace(t.settings, mail_require_auth=True).mail_auth_problem()
    assert dataclasses.replace(t.settings, mail_authserv_id=OURS).mail_auth_problem() == ""


def test_an_expired_token_is_dropped_unanswered(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    before = t.snapshot()
    old = reply_address(t.m.server_key, BASE, "t", t.match, seat, before[0].ply, days=1, now=0.0)  # 1970
    account = t.desk.receive(reply(old, email, "1"))
    assert account == "dropped: its reply token has expired"
    assert t.snapshot() == before
    # a mail client's unsubscribe mailto of an old mail: done all the same (less mail), unanswered
    old_o = reply_address(t.m.server_key, BASE, "o", t.match, seat, days=1, now=0.0)
    assert "`stop notices` was done" in t.desk.receive(reply(old_o, email, "", subject="stop notices"))
    assert NoticePreferences(connect(t.settings.redis_url), t.settings.namespace).get(email) == "off"
    assert t.answers() == []


def test_a_refusal_never_echoes_the_senders_subject(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    to = t.address("t", seat, t.m.meta(t.match).ply)
    t.desk.receive(reply(to, email, "frobnicate", subject="Claim your prize at evil.example"))
    [answer] = t.answers()
    assert answer["Subject"] == "Re: your mail to Portolan" and "evil.example" not in answer.as_string()


def test_an_auto_responder_repeating_itself_gets_two_answers_then_silence(mail_settings: Settings,
                                                                          smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    seat, email = t.mover()
    before = t.snapshot()
    to = t.address("t", seat, before[0].ply)
    robot_text = "Thank you for your message.\nWe will get back to you as soon as possible."
    accounts = [t.desk.receive(reply(to, email, robot_text.replace("\n", " " * (n + 1)))) for n in range(3)]
    assert len(t.answers()) == 2  # three mails of one text (spacing aside), two answers
    assert "not answered (the same text again)" in accounts[2]
    assert t.snapshot() == before
    # another text about the same turn is still answered, and so is the seat's real move
    t.desk.receive(reply(to, email, "help"))
    assert len(t.answers()) == 1
    assert t.desk.receive(reply(to, email, "1")).startswith("moved")
    assert len(t.answers()) == 1


def test_production_settings_require_an_authenticated_sender() -> None:
    assert Settings.from_env({}).mail_require_auth is True
    assert "PORTOLAN_MAIL_AUTHSERV_ID" in Settings.from_env({}).mail_auth_problem()
    trusted = Settings.from_env({"PORTOLAN_MAIL_AUTHSERV_ID": " MX.Portolan.test "})
    assert trusted.mail_authserv_id == OURS and trusted.mail_auth_problem() == ""
    assert Settings.from_env({"PORTOLAN_MAIL_REQUIRE_DKIM": "on"}).mail_auth_problem() == ""
    assert Settings.from_env({"PORTOLAN_MAIL_REQUIRE_AUTH": "off"}).mail_auth_problem() == ""
    days = Settings.from_env({"PORTOLAN_MAIL_TOKEN_DAYS": "7", "PORTOLAN_MAIL_GAME_OVER_TOKEN_DAYS": "3"})
    assert (days.mail_token_days, days.mail_game_over_token_days, days.mail_same_text_answers) == (7, 3, 2)
