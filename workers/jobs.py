"""RQ jobs: plain functions of plain arguments (match id, seat, ply).

Every job is idempotent. A notice takes a one-time mark in Redis before it sends and gives
the mark back if sending fails, so a retried or doubly enqueued job sends one mail; a bot move
goes through the same signed, ply-checked submit as a person's, so a second run of the same
bot job finds the ply moved on and does nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from service.config import Settings
from service.delivery.mail import Mail, deliver, render, shell_line
from service.play.errors import Conflict
from service.play.matches import Matches
from service.proof.chain import visible_events
from service.runtime import build

log = logging.getLogger("portolan.jobs")
NOTICE_ACTIONS = 12
HISTORY_SCAN = 200


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()


@lru_cache(maxsize=1)
def service() -> Matches:
    return build(settings())


def cli_line(match_id: str, seat: int, action: dict[str, Any]) -> str:
    """The exact command that submits ``action`` for this seat, every word shell-quoted (an
    action's JSON may hold a quote; see :func:`service.delivery.mail.shell_line`)."""
    return shell_line(["portolan", "move", match_id, "--seat", seat, json.dumps(action, separators=(",", ":"))])


def happened_since(m: Matches, match_id: str, seat: int, ply: int) -> list[str]:
    """Event texts since the seat's own last move (at most the last HISTORY_SCAN moves)."""
    start = max(0, ply - HISTORY_SCAN)
    entries = m.store.log(match_id, start, ply - 1) if ply > 0 else []
    lines: list[str] = []
    for entry in reversed(entries):
        if entry["seat"] == seat:
            break
        lines[:0] = [e.get("text", e["type"]) for e in visible_events(entry["events"], seat)]
    return lines


def _send_once(m: Matches, mark: str, compose: Callable[[], Mail | None]) -> str | None:
    """Compose and deliver one mail under a one-time mark. Returns where it went ("no email
    address" when ``compose`` gives None), or None when the mark was already taken. A failure
    gives the mark back, so the job's retry can send it."""
    if not m.store.claim_once(mark):
        return None
    try:
        mail = compose()
        return deliver(settings(), mail) if mail is not None else "no email address"
    except Exception:
        m.store.release(mark)
        raise


def send_turn_notice(match_id: str, seat: int, ply: int) -> str:
    """Email the seat's player that it is their turn (once per match, seat and ply)."""
    m = service()
    meta = m.meta(match_id)
    if meta["status"] != "active" or seat not in meta["active"]:
        return "skipped: the seat need not act any more"
    mark = f"notice:{match_id}:{seat}:{ply}"

    def compose() -> Mail | None:
        row = meta["seats"][seat]
        if not row["email"]:
            return None
        game = m.game_of(meta)
        view = m.view(match_id, seat)
        legal = view["legal_actions"]
        ctx = {
            "name": row["name"], "match": match_id, "seat": seat, "seat_name": game.seat_names(meta["players"])[seat],
            "game_title": game.title, "ply": meta["ply"], "board": view.get("text", ""),
            "happened": happened_since(m, match_id, seat, meta["ply"]),
            "actions": legal[:NOTICE_ACTIONS], "more_actions": max(0, len(legal) - NOTICE_ACTIONS),
            "cli_line": cli_line(match_id, seat, legal[0]["action"]) if legal else shell_line(["portolan", "show", match_id]),
            "head": meta["head"], "commitment": meta["commitment"], "public_url": m.public_url,
        }
        return render("turn_notice", row["email"], f"[Portolan] Your turn in {game.title} ({match_id})", mark, ctx)

    where = _send_once(m, mark, compose)
    if where is None:
        return "skipped: already sent"
    log.info("turn notice %s -> %s", mark, where)
    return f"sent: {where}"


def send_match_over(match_id: str, seat: int) -> str:
    """Email a human seat the final standings (once)."""
    m = service()
    meta = m.meta(match_id)
    mark = f"over:{match_id}:{seat}"
    row = meta["seats"][seat]
    if not row["email"]:
        return "skipped"

    def compose() -> Mail:
        game = m.game_of(meta)
        outcome = meta.get("outcome") or {"scores": [], "ranks": []}
        names = game.seat_names(meta["players"])
        standings = sorted(
            ({"seat": s, "name": names[s], "score": outcome["scores"][s], "rank": outcome["ranks"][s]}
             for s in range(len(outcome["scores"]))), key=lambda r: (r["rank"], r["seat"]))
        ctx = {"name": row["name"], "match": match_id, "game_title": game.title, "ply": meta["ply"],
               "standings": standings, "head": meta["head"], "public_url": m.public_url}
        return render("match_over", row["email"], f"[Portolan] {game.title} {match_id} is over", mark, ctx)

    where = _send_once(m, mark, compose)
    return "skipped" if where is None else f"sent: {where}"


def send_invite(match_id: str, seat: int, email: str, token: str) -> str:
    """Email an invitation with the seat's invite token (once)."""
    m = service()
    meta = m.meta(match_id)
    if meta["status"] == "aborted":  # e.g. its creation failed halfway: the token is good for nothing
        return "skipped: the match was aborted"
    mark = f"invite:{match_id}:{seat}"

    def compose() -> Mail:
        game = m.game_of(meta)
        ctx = {"match": match_id, "seat": seat, "token": token, "to": email, "game_title": game.title,
               "commitment": meta["commitment"], "public_url": m.public_url}
        return render("invite", email, f"[Portolan] You are invited to {game.title}", mark, ctx)

    where = _send_once(m, mark, compose)
    return "skipped" if where is None else f"sent: {where}"


def play_bot(match_id: str, seat: int, ply: int) -> str:
    """Play one move for a bot seat, if that seat must still act at ``ply``."""
    m = service()
    chosen = m.bot_move(match_id, seat)
    if chosen is None or chosen[0] != ply:
        return "skipped: the match moved on"
    _, action = chosen
    envelope, signature = m.sign_as_bot(match_id, seat, ply, [action])
    try:
        result = m.submit(match_id, envelope, signature, by=f"bot:{m.meta(match_id)['seats'][seat]['bot']}")
    except Conflict as exc:  # someone else moved first; their fan-out schedules what comes next
        return f"skipped: {exc.code}"
    return f"played ply {ply}: {json.dumps(action)} -> ply {result['ply']}"
