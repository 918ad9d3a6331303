"""Reading the mails the jobs write to the outbox, and the matches the notice tests play."""

from __future__ import annotations

from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from pathlib import Path
from typing import cast

from service.config import Settings
from service.play.matches import Matches
from service.proof import signing
from service.runtime import build
from tests.conftest import CREATOR_KEY, Player
from workers import jobs

ZOE = "Zoë Ångström"
"""A name with letters beyond ASCII: the notices must carry it in plain UTF-8."""


def raw_mail(settings: Settings, key: str) -> bytes:
    return (Path(settings.outbox_dir) / f"{key.replace(':', '-')}.eml").read_bytes()


def parsed(raw: bytes) -> EmailMessage:
    return cast(EmailMessage, message_from_bytes(raw, policy=default))


def body(msg: EmailMessage, kind: str = "plain") -> str:
    part = msg.get_body(preferencelist=(kind,))
    assert part is not None
    return str(part.get_content())


def assert_clean_8bit(raw: bytes) -> None:
    """Text bodies in plain UTF-8, never quoted-printable or base64 (an inline picture alone is
    base64: PNG is binary), and no line over 998 octets."""
    msg = parsed(raw)
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            assert part["Content-Transfer-Encoding"] == "8bit", part.get_content_type()
        elif not part.is_multipart():
            assert part.get_content_type() == "image/png" and part["Content-Transfer-Encoding"] == "base64"
    assert b"quoted-printable" not in raw.lower()
    assert raw.count(b"Content-Transfer-Encoding: 8bit") == 2
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    raw.decode("utf-8")


def ophir_match(m: Matches, players: list[Player]) -> str:
    """Ophir: Zoë (seat 0) and Bea (seat 1) by invitation, seat 2 a random bot; Ana invites."""
    made = m.create("ophir", {}, [{"invite": "zoe@example.org"}, {"invite": "bea@example.org"}, {"bot": "random"}],
                    creator_key=CREATOR_KEY, creator_name="Ana")
    mid = str(made["id"])
    m.claim(mid, 0, made["invites"]["0"], players[0].public_key, ZOE, "zoe@example.org")
    m.claim(mid, 1, made["invites"]["1"], players[1].public_key, "Bea", "bea@example.org")
    return mid


def human_to_act(m: Matches, mid: str) -> int:
    """Play bot turns (through the job) until a person must act; that person's seat."""
    for _ in range(50):
        meta = m.meta(mid)
        humans = [s for s in meta.active if meta.seats[s].kind == "human"]
        if humans:
            return humans[0]
        jobs.play_bot(mid, meta.active[0], meta.ply)
    raise AssertionError("no person got a turn")


def notice(settings: Settings, players: list[Player]) -> tuple[EmailMessage, bytes, str, int, int]:
    """Send the turn notice of the first person to act in an Ophir match; the message, its bytes,
    the match, the seat and the ply."""
    m = build(settings)
    mid = ophir_match(m, players)
    seat = human_to_act(m, mid)
    ply = m.meta(mid).ply
    assert jobs.send_turn_notice(mid, seat, ply).startswith("sent")
    raw = raw_mail(settings, f"notice:{mid}:{seat}:{ply}")
    return parsed(raw), raw, mid, seat, ply


def finished_race(m: Matches, player: Player, name: str = ZOE) -> str:
    """A short harbour race of ``player`` (seat 0, zoe@example.org) and a random bot, played to its
    end: she banks whenever she can, else rolls; the bot plays through its job. Returns the id."""
    made = m.create("harbour-race", {"target": 5}, [{"invite": "zoe@example.org"}, {"bot": "random"}],
                    creator_key=CREATOR_KEY)
    mid = str(made["id"])
    m.claim(mid, 0, made["invites"]["0"], player.public_key, name, "zoe@example.org")
    for _ in range(400):
        meta = m.meta(mid)
        if meta.status != "active":
            break
        if meta.active == (0,):
            legal = [a["action"] for a in m.view(mid, 0)["legal_actions"]]
            action = {"type": "bank"} if {"type": "bank"} in legal else legal[0]
            env = {"match": mid, "seat": 0, "ply": meta.ply, "actions": [action], "nonce": f"n{meta.ply}"}
            m.submit(mid, env, signing.sign(player.private_key, env))
        else:
            jobs.play_bot(mid, 1, meta.ply)
    assert m.meta(mid).status == "finished"
    return mid
