"""Mails a remote friend can use (issue 11, items 2 and 7): every turn notice, invitation and
game-over mail names people, colours and the inviter, carries the numbered menu and how to answer
by replying, a working link and CLI line, an authentic Reply-To and List-Unsubscribe; bodies are
8-bit UTF-8 with no line over RFC 5322's limit. Real Redis, the real jobs, real outbox files."""

from __future__ import annotations

import shlex

import pytest

from service.config import Settings
from service.games import get as get_game
from service.play.mail.menu import SHOWN, menu
from service.play.mail.reply_address import authentic, parse_reply_address
from service.proof.match_record import MatchMeta
from service.runtime import build
from tests.conftest import CREATOR_KEY, Player
from tests.helpers.notices import (
    ZOE,
    assert_clean_8bit,
    body,
    finished_race,
    human_to_act,
    notice,
    ophir_match,
    parsed,
    raw_mail,
)
from workers import jobs


def test_a_turn_notice_has_everything_a_remote_player_needs(outbox_settings: Settings, players: list[Player]) -> None:
    msg, raw, mid, seat, ply = notice(outbox_settings, players)
    m = build(outbox_settings)
    assert_clean_8bit(raw)
    text, html = body(msg), body(msg, "html")
    colours = get_game("ophir").seat_names(3)  # type: ignore[union-attr]
    name = [ZOE, "Bea"][seat]
    # names and colours of every player, the bot as "random bot", the inviter, game and match
    for colour, who in zip(colours, [ZOE, "Bea", "random bot"], strict=True):
        assert f"{colour} (seat {colours.index(colour)}): {who}" in text
        assert who in html
    assert f"Hello {name}," in text and f"You play {colours[seat]} (seat {seat})" in text
    assert 'The match\'s creator signs as: "Ana"' in text.replace("\n", " ") and "Ophir" in text
    assert mid in msg["Subject"] and "Ana" not in msg["Subject"]
    # the numbered menu of the seat's legal actions at this ply, as service.play.mail.menu numbers it
    items = menu(m.view(mid, seat)["legal_actions"])
    for item in items[:SHOWN]:
        assert f"{item.number:>3}. {item.text.split()[0]}" in text
    assert ("reply \"show\" for all" in text) == (len(items) > SHOWN)
    assert "reply to this mail" in text and "3, 1, end" in text and "stop notices" in text
    # the link, and a CLI line that works on another machine (with --server, shell-quoted)
    assert f"http://portolan.test/match/{mid}" in text and f'href="http://portolan.test/match/{mid}"' in html
    [line] = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("portolan move") and "--pick" not in ln]
    words = shlex.split(line)
    assert words[:8] == ["portolan", "move", mid, "--seat", str(seat), "--ply", str(ply), "--server"]
    assert words[8] == "http://portolan.test"
    # Reply-To: a turn-notice address bound to this match, seat and ply, made with the server key
    reply = parse_reply_address(msg["Reply-To"])
    assert reply is not None and (reply.kind, reply.match, reply.seat, reply.ply) == ("t", mid, seat, ply)
    assert authentic(m.server_key, reply)
    assert msg["Reply-To"].endswith("@portolan.test") and msg["Reply-To"].startswith("turns+")
    # List-Unsubscribe: the one-click URL, and mail "stop notices" to the seat's "o" address; machine-made mail
    unsub = msg["List-Unsubscribe"]
    assert f"List-Unsubscribe: {unsub}\n".encode() in raw  # literally, not as RFC 2047 encoded words
    web, mailto = unsub.split(", ")
    assert web.startswith("<http://portolan.test/v1/unsubscribe/")
    assert mailto.startswith("<mailto:") and mailto.endswith("?subject=stop%20notices>")
    other = parse_reply_address(mailto[len("<mailto:"):].split("?")[0])
    assert other is not None and other.kind == "o" and other.seat == seat and authentic(m.server_key, other)
    assert msg["Auto-Submitted"] == "auto-generated"


def test_a_non_ascii_name_reaches_the_eml_as_utf8_bytes(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    mid = ophir_match(m, players)
    seat = human_to_act(m, mid)
    ply = m.meta(mid).ply
    jobs.send_turn_notice(mid, seat, ply)
    raw = raw_mail(outbox_settings, f"notice:{mid}:{seat}:{ply}")
    assert ZOE.encode("utf-8") in raw  # in the player list, whoever the notice is for
    assert b"=C3=AB" not in raw


def test_a_custodial_seat_gets_no_cli_line(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    mid = ophir_match(m, players)
    seat = human_to_act(m, mid)

    def custodial(meta: MatchMeta) -> MatchMeta:
        return meta.with_seat(meta.seats[seat].but(custody="server"))  # as join_by_mail leaves it

    m.store.update_meta(mid, custodial)
    ply = m.meta(mid).ply
    jobs.send_turn_notice(mid, seat, ply)
    text = body(parsed(raw_mail(outbox_settings, f"notice:{mid}:{seat}:{ply}")))
    assert "portolan move" not in text and "reply to this mail" in text


def test_the_invitation_says_who_invites_and_how_to_join_by_mail_or_cli(outbox_settings: Settings) -> None:
    m = build(outbox_settings)
    made = m.create("ophir", {}, [{"invite": "zoe@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY,
                    creator_name=ZOE)
    mid, token = made["id"], made["invites"]["0"]
    assert jobs.send_invite(mid, 0, "zoe@example.org", token).startswith("sent")
    raw = raw_mail(outbox_settings, f"invite:{mid}:0")
    assert_clean_8bit(raw)
    msg = parsed(raw)
    text = body(msg)
    # the creator's name in the body, quoted as the creator's words; the Subject fixed words and the game
    assert "You are invited to play Ophir" in text and f'The match\'s creator signs as: "{ZOE}"' in text.replace("\n", " ")
    assert msg["Subject"] == f"[Portolan] An invitation to play Ophir ({mid})"
    assert "random bot" in text and "join Your Name" in text
    reply = parse_reply_address(msg["Reply-To"])
    assert reply is not None and (reply.kind, reply.match, reply.seat) == ("i", mid, 0)
    assert authentic(m.server_key, reply)
    [one_line] = [ln.strip() for ln in text.splitlines() if "portolan keygen" in ln]
    assert outbox_settings.install in one_line
    claim = shlex.split(one_line.rpartition("&& ")[2])
    assert claim == ["portolan", "claim", mid, "0", token, "--name", "Your name", "--email", "zoe@example.org",
                     "--server", "http://portolan.test"]
    # the web client's claim page, the token in the fragment (never sent to a server)
    link = f"http://portolan.test/claim/{mid}/0#token={token}"
    assert link in text and f'href="{link}"' in body(msg, "html")
    assert msg["Auto-Submitted"] == "auto-generated"


def test_an_invitation_without_a_creator_name_says_so(outbox_settings: Settings) -> None:
    m = build(outbox_settings)
    made = m.create("ophir", {}, [{"invite": "zoe@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    jobs.send_invite(made["id"], 0, "zoe@example.org", made["invites"]["0"])
    text = body(parsed(raw_mail(outbox_settings, f"invite:{made['id']}:0")))
    assert "The match's creator gave no name." in text


def test_a_hostile_creator_name_never_reaches_the_subject(outbox_settings: Settings) -> None:
    """Issue 28: "Claim your prize at evil.example invites you..." was the Subject of 320 mails
    to strangers. The Subject is fixed words and the game; the name only in the body, quoted."""
    m = build(outbox_settings)
    advert = "Claim your prize at evil.example"
    made = m.create("ophir", {}, [{"invite": "zoe@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY,
                    creator_name=advert)
    jobs.send_invite(made["id"], 0, "zoe@example.org", made["invites"]["0"])
    msg = parsed(raw_mail(outbox_settings, f"invite:{made['id']}:0"))
    assert msg["Subject"] == f"[Portolan] An invitation to play Ophir ({made['id']})"
    assert "evil" not in msg["Subject"].lower() and "prize" not in msg["Subject"].lower()
    text, html = body(msg).replace("\n", " "), body(msg, "html")
    assert f'The match\'s creator signs as: "{advert}" (the creator\'s own words, not Portolan\'s)' in text
    assert f"&ldquo;{advert}&rdquo;" in html or f"\u201c{advert}\u201d" in html


def test_a_bad_creator_name_is_refused_and_nothing_is_stored(outbox_settings: Settings) -> None:
    from service.play.errors import BadRequest

    m = build(outbox_settings)
    before = m.store.match_ids()
    with pytest.raises(BadRequest) as caught:
        m.create("ophir", {}, [{"invite": "zoe@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY,
                 creator_name="Ana\u202e")
    assert caught.value.code == "bad-name"
    assert m.store.match_ids() == before


def test_the_game_over_mail_names_people_scores_ranks_and_the_record(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    mid = finished_race(m, players[0])
    meta = m.meta(mid)
    assert jobs.send_match_over(mid, 0).startswith("sent")
    raw = raw_mail(outbox_settings, f"over:{mid}:0")
    assert_clean_8bit(raw)
    msg = parsed(raw)
    text = body(msg)
    outcome = meta.outcome
    colours = get_game("harbour-race").seat_names(2)  # type: ignore[union-attr]
    for seat, who in ((0, ZOE), (1, "random bot")):
        assert f"{outcome['ranks'][seat]}. {who} ({colours[seat]}, seat {seat}): {outcome['scores'][seat]}" in text
    assert f"http://portolan.test/v1/matches/{mid}/record" in text and "portolan verify record.json" in text
    assert "seat 1 (Seat 1): " not in text  # seats are named by who played them, not only by number
    reply = parse_reply_address(msg["Reply-To"])
    assert reply is not None and reply.kind == "o" and authentic(m.server_key, reply)
