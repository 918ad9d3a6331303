"""Issue 28: the reply addresses of real mails expire. A turn notice's token is good for
``PORTOLAN_MAIL_TOKEN_DAYS`` (30), a game-over mail's for ``PORTOLAN_MAIL_GAME_OVER_TOKEN_DAYS`` (14),
each last day inside the mac. Real Redis, the real jobs, real outbox files."""

from __future__ import annotations

import time

from service.config import Settings
from service.play.mail.reply_address import check, day_of, parse_reply_address
from service.runtime import build
from tests.conftest import Player
from tests.helpers.notices import finished_race, notice, parsed, raw_mail
from workers import jobs

DAY = 86400


def test_a_turn_notice_token_lasts_thirty_days(outbox_settings: Settings, players: list[Player]) -> None:
    today = day_of(time.time())
    msg, _, _, _, _ = notice(outbox_settings, players)
    reply = parse_reply_address(msg["Reply-To"])
    assert reply is not None and reply.kind == "t" and reply.expires in (today + 30, today + 31)  # midnight
    key = build(outbox_settings).server_key
    assert check(key, msg["Reply-To"], time.time()).ok
    assert check(key, msg["Reply-To"], (reply.expires + 1) * DAY).verdict == "expired"


def test_a_game_over_token_lasts_fourteen_days(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    today = day_of(time.time())
    mid = finished_race(m, players[0])
    assert jobs.send_match_over(mid, 0).startswith("sent")
    msg = parsed(raw_mail(outbox_settings, f"over:{mid}:0"))
    reply = parse_reply_address(msg["Reply-To"])
    assert reply is not None and reply.kind == "o" and reply.expires in (today + 14, today + 15)
    assert check(m.server_key, msg["Reply-To"], time.time()).ok
    assert check(m.server_key, msg["Reply-To"], (reply.expires + 1) * DAY).verdict == "expired"
