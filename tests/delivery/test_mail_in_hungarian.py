"""Letters in their reader's language (issue 29, items 3 and 5): an address whose mail language is
Hungarian gets its turn notices, invitations and ends of match in Hungarian, with exact Hungarian
subjects, and no English word left in them but proper names and the game's own words that the game's
catalog does not translate yet; an invitation is written in its creator's language (the request's
``Accept-Language``) until the invitee chooses; English letters are unchanged. Real Redis, the real
jobs, real outbox files, as in test_notices."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from service import i18n
from service.config import Settings
from service.games.base import Game
from service.games.undo import without_undo
from service.play.mail.answers import board_text
from service.play.mail.menu import menu
from service.play.matches import Matches
from service.runtime import build
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from tests.conftest import CREATOR, CREATOR_KEY, Player, signed_headers
from tests.helpers.notices import body, human_to_act, parsed, raw_mail
from tests.helpers.untranslated import english_words
from workers import jobs

ZOE = "zoe@example.org"
PROPER = ("El", "Capitán", "Portolan", "Zoe", "Ana", "UTC", "random")
"""Proper names (the game, the service, the players) and the bot kind's name, which may stay."""
_NOT_WORDS = re.compile(r"https?://\S+|\S+@\S+|^\s*(portolan|curl) .*$", re.MULTILINE)
"""Links, addresses and command lines: not words of either language."""


def prefs(settings: Settings) -> NoticePreferences:
    return NoticePreferences(connect(settings.redis_url), settings.namespace)


def words_of(text: str) -> str:
    """The text a reader reads as words: links, addresses and command lines taken out."""
    return _NOT_WORDS.sub(" ", text)


def game_words(m: Matches, match_id: str, seat: int, events: list[str], language: str = "hu") -> list[str]:
    """The English words the game itself says in ``language`` in a notice to ``seat``: its menu's
    labels, its text board, its events and seat colours (the games' own catalogs translate those;
    a word their translation has not reached yet is allowed here, and named)."""
    meta = m.meta(match_id)
    game: Game[Any] = m.game_of(meta)
    view = m.view(match_id, seat, meta)
    said = [i18n.render(item.text, language) for item in menu(view.get("legal_actions", []))]
    said += [board_text(game, view, language), *events]
    said += [i18n.render(c, language) for c in game.seat_names(meta.players)]
    return english_words("\n".join(said))


def el_capitan(m: Matches, player: Player) -> str:
    """El Capitán: Zoe (seat 0) against a random bot; Ana invites."""
    made = m.create("el-capitan", {}, [{"invite": ZOE}, {"bot": "random"}], creator_key=CREATOR_KEY,
                    creator_name="Ana")
    mid = str(made["id"])
    m.claim(mid, 0, made["invites"]["0"], player.public_key, "Zoe", ZOE)
    return mid


def test_a_hungarian_el_capitan_turn_notice_says_no_english_word(outbox_settings: Settings,
                                                                   players: list[Player]) -> None:
    s = outbox_settings
    m = build(s)
    prefs(s).set_language(ZOE, "hu")
    mid = el_capitan(m, players[0])
    game = m.game_of(m.meta(mid))
    for _turn in range(3):  # a few turns: the later notices say what the bot did since
        seat = human_to_act(m, mid)
        ply = m.meta(mid).ply
        assert jobs.send_turn_notice(mid, seat, ply).startswith("sent")
        msg = parsed(raw_mail(s, f"notice:{mid}:{seat}:{ply}"))
        assert msg["Subject"] == f"[Portolan] Te jössz: El Capitán ({mid} játszma, {ply}. lépés)"
        text = body(msg)
        assert text.startswith("Szia, Zoe!\n\nte jössz: El Capitán")
        assert "Amit most tehetsz:" in text and "Lépni erre a levélre válaszolva tudsz" in text
        events = [i18n.render(game.describe_event(e), "hu")
                  for entry in m.store.log(mid, max(0, ply - 20), ply - 1) for e in entry["events"]]
        allowed = [*PROPER, *game_words(m, mid, seat, events)]
        assert english_words(words_of(text), allow=allowed) == []
        assert english_words(words_of(html.unescape(re.sub(r"<[^>]*>", " ", body(msg, "html")))), allow=allowed) == []
        # Zoe plays her whole turn (signed with her key), for the next notice to say what came since
        for step in range(40):
            meta = m.meta(mid)
            if meta.status != "active" or seat not in meta.active:
                break
            legal = without_undo([row["action"] for row in m.view(mid, seat, meta)["legal_actions"]])
            signed = players[0].envelope(mid, seat, meta.ply, [legal[-1]], f"n{meta.ply}-{step}")
            m.submit(mid, signed["envelope"], signed["signature"])
        if m.meta(mid).status != "active":
            break


def test_english_notice_is_the_english_one(outbox_settings: Settings, players: list[Player]) -> None:
    s = outbox_settings
    m = build(s)
    mid = el_capitan(m, players[0])
    seat = human_to_act(m, mid)
    ply = m.meta(mid).ply
    assert jobs.send_turn_notice(mid, seat, ply).startswith("sent")
    msg = parsed(raw_mail(s, f"notice:{mid}:{seat}:{ply}"))
    assert msg["Subject"] == f"[Portolan] Your turn in El Capitán ({mid}, ply {ply})"
    text = body(msg)
    assert text.startswith(f"Hello Zoe,\n\nit is your turn in El Capitán, match {mid} (ply {ply}).\n")
    assert "  a whole turn in one reply, in numbers or words, e.g.    3, 1, end\n" in text
    assert "nyelv" not in text and "language english" not in text


def test_the_creators_language_writes_the_invitation(client: Any, outbox_settings: Settings) -> None:
    s = outbox_settings
    raw = json.dumps({"game": "el-capitan", "seats": [{"invite": ZOE}, {"invite": "bea@example.org"}]}).encode()
    headers = {**signed_headers(CREATOR, "POST", "/v1/matches", raw), "Accept-Language": "hu-HU,hu;q=0.9,en;q=0.5"}
    r = client.post("/v1/matches", data=raw, headers=headers, content_type="application/json")
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    mid = made["id"]
    # the outbox entry carries the language to the invitation job, which writes in it
    prefs(s).set_language("bea@example.org", "en")  # Bea chose English before: her invitation is English
    m = build(s)
    entry = next(f for key in m.store.outbox_keys() for _, f in m.store.r.xrange(key)
                 if f[b"kind"] == b"created" and f[b"match"].decode() == mid)
    invites = json.loads(entry[b"data"])["invites"]
    assert {seat: row.get("language") for seat, row in invites.items()} == {"0": "hu", "1": "hu"}
    assert jobs.send_invite(mid, 0, ZOE, made["invites"]["0"], "hu").startswith("sent")
    assert jobs.send_invite(mid, 1, "bea@example.org", made["invites"]["1"], "hu").startswith("sent")
    zoe = parsed(raw_mail(s, f"invite:{mid}:0"))
    assert zoe["Subject"] == f"[Portolan] Meghívás: El Capitán ({mid} játszma)"
    assert body(zoe).startswith("Szia!\n\nMeghívtak a Portolanon egy játékra: El Capitán")
    assert "  csatlakozom Neved\n" in body(zoe)
    bea = parsed(raw_mail(s, f"invite:{mid}:1"))
    assert bea["Subject"] == f"[Portolan] An invitation to play El Capitán ({mid})"
    # until Zoe chooses, her mail follows her invitation's language
    assert prefs(s).language(ZOE) == "hu" and prefs(s).chosen_language(ZOE) is None
    prefs(s).set_language(ZOE, "en")
    assert prefs(s).language(ZOE) == "en"


def test_the_clock_speaks_the_readers_language() -> None:
    from datetime import UTC, datetime

    from service.delivery import clock_words
    when = datetime(2026, 12, 3, 18, 0, tzinfo=UTC)
    assert clock_words.when_text(when) == "Thu 3 Dec 18:00 UTC"  # English as it always read
    assert clock_words.when_text(when, "hu") == "2026. dec. 3. 18:00 UTC"
    assert clock_words.span(273600) == "3 days 4 hours" and clock_words.span(273600, "hu") == "3 nap 4 óra"
    assert clock_words.span(30, "hu") == "kevesebb mint egy perc"
    assert clock_words.reason_text("every remaining player voted to abort", "hu") == \
        "minden megmaradt játékos a megszakításra szavazott"


def test_the_notices_picture_is_in_the_readers_language(outbox_settings: Settings, players: list[Player],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The board picture of a Hungarian turn notice is drawn in Hungarian (the real El Capitán picture),
    and an English reader's stays English."""
    from service.delivery import letters, rasterise

    drawn: list[str] = []
    real = rasterise.to_mail_png

    def keep(svg: str, max_bytes: int) -> bytes | None:
        drawn.append(svg)
        return real(svg, max_bytes)

    monkeypatch.setattr("service.delivery.letters.to_mail_png", keep)
    s = outbox_settings
    m = build(s)
    mid = el_capitan(m, players[0])
    seat, ply = human_to_act(m, mid), m.meta(mid).ply
    assert letters.turn_notice(m, s, mid, seat, "k", ply, language="hu") is not None
    assert letters.turn_notice(m, s, mid, seat, "k", ply) is not None
    hungarian, english = drawn
    assert "Bank kikötője" in hungarian and "Bank harbour" not in hungarian
    assert "Kiadás: gyári adatok (shipped)" in hungarian and "Edition: El Capitán, shipped data (shipped)" in english
    assert "Bank harbour" in english and "Bank kikötője" not in english
