"""Matches played to the end through the service, for the verifiers (over HTTP and by mail)."""

from __future__ import annotations

import hashlib
from typing import Any

from service.games.base import Rng
from service.play.matches import Matches
from service.proof import signing
from tests.conftest import CREATOR_KEY, Player


def play_bots(m: Matches, mid: str, seed: str, max_moves: int) -> None:
    """Play random legal moves for the active seat through the signed submit path, in process,
    until the match is over or ``max_moves`` were made."""
    pick = Rng.from_seed(seed)
    for _ in range(max_moves):
        meta = m.meta(mid)
        if meta.status != "active":
            break
        seat = meta.active[0]
        legal = m.view(mid, seat)["legal_actions"]
        env, sig = m.sign_as_bot(mid, seat, meta.ply, [legal[pick.randbelow(len(legal))]["action"]])
        m.submit(mid, env, sig, by="bot:random")


def play_to_end(m: Matches, game: str, players: int, seed: str = "x", max_moves: int = 20_000) -> str:
    """An all-bot match played through the signed submit path to its end."""
    mid = str(m.create(game, {}, [{"bot": "random"}] * players, creator_key=CREATOR_KEY)["id"])
    play_bots(m, mid, seed, max_moves)
    assert m.meta(mid).status == "finished"
    return mid


def delegate(m: Matches, mid: str, seat: int, player: Player, generation: int = 0) -> str:
    """The player's signature over the delegation of the seat's mail key at ``generation``."""
    return signing.sign(player.private_key, m.delegation_body(mid, seat, m.mail_public_key(mid, seat, generation)))


def two_player_match(m: Matches, players: list[Player], *, delegated: bool = True, target: int = 12) -> str:
    """Harbour race to ``target``: seat 0 claimed by Ana (with a mail delegation unless told not
    to), seat 1 joined by mail by a player with no key (custodial)."""
    made = m.create("harbour-race", {"target": target}, [{"invite": "ana@example.org"}, {"invite": "cid@example.org"}],
                    creator_key=CREATOR_KEY)
    mid = str(made["id"])
    ana = players[0]
    m.claim(mid, 0, made["invites"]["0"], ana.public_key, "Ana", "ana@example.org",
            mail_delegation=delegate(m, mid, 0, ana) if delegated else "")
    m.join_by_mail(mid, 1, "Cid", "cid@example.org")
    assert m.meta(mid).status == "active"
    return mid


def play_by_mail(m: Matches, mid: str, moves: int = 10_000) -> None:
    """Reply to every turn with its last menu item (bank when there is a haul) until the end."""
    for _ in range(moves):
        meta = m.meta(mid)
        if meta.status != "active":
            return
        seat = meta.active[0]
        legal = m.view(mid, seat)["legal_actions"]
        digest = hashlib.sha256(f"{mid} reply at {meta.ply}".encode()).hexdigest()
        m.submit_by_mail(mid, seat, meta.ply, [legal[-1]["action"]], message_digest=digest)


def first_mail_move(record: dict[str, Any], seat: int) -> int:
    return next(i for i, e in enumerate(record["entries"]) if e["seat"] == seat and e["by"] == "email")
