"""RQ jobs: plain functions of plain arguments (match id, seat, ply).

Every job is idempotent, and keeps its promise (service.delivery.dispatch) once its work is
done, so the watchdog runs it again if it was lost (its worker killed) before that.

A mail is sent at least once, never lost: the job takes a short "sending" lease (SET NX EX, the
job timeout), so two workers do not send the same mail at once, and sets the "sent" mark only
once the SMTP server accepted the message (``deliver`` returned). A worker killed in between
leaves no mark: once the lease has expired the mail goes out again, with the same Message-ID
(service.delivery.mail.message_id), which mail clients fold. A bot move goes through the same
signed, ply-checked submit as a person's, so a second run of the same bot job finds the ply
moved on and does nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from service.config import Settings
from service.delivery.dispatch import job_id
from service.delivery.mail import Mail, deliver, render, shell_line
from service.play.errors import Conflict
from service.play.matches import Matches
from service.proof.chain import visible_events
from service.runtime import build

log = logging.getLogger("portolan.jobs")
NOTICE_ACTIONS = 12
BUSY = "busy"
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
    """Compose and deliver one mail unless its "sent" mark is set. Returns where it went ("no
    email address" when ``compose`` gives None), None when it was already sent, or BUSY when
    another worker holds its sending lease (it is sending it now, or died doing so: the promise
    stays open and the watchdog runs this job again after the lease). A failure gives the lease
    back, so the job's retry can send it."""
    if m.store.marked([mark])[0]:
        return None
    lease = f"{mark}:sending"
    if not m.store.claim_once(lease, ttl=settings().job_dead_after_s()):
        return BUSY
    try:
        if m.store.marked([mark])[0]:  # the lease's last holder set the mark just before we took it
            m.store.release(lease)
            return None
        mail = compose()
        where = deliver(settings(), mail) if mail is not None else "no email address"
    except Exception:
        m.store.release(lease)
        raise
    # Only now, after the server's 250: a kill before this line resends (same Message-ID).
    m.store.claim_once(mark)
    m.store.release(lease)
    return where


def _outcome(m: Matches, jid: str, where: str | None, skipped: str = "skipped: already sent") -> str:
    """The job's answer; the promise is kept unless another worker holds the lease."""
    if where == BUSY:
        return "deferred: another worker holds the sending lease"
    m.store.job_done(jid)
    return skipped if where is None else f"sent: {where}"


def send_turn_notice(match_id: str, seat: int, ply: int) -> str:
    """Email the seat's player that it is their turn (once per match, seat and ply)."""
    m = service()
    jid = job_id("notice", match_id, seat, ply)
    meta = m.meta(match_id)
    if meta["status"] != "active" or seat not in meta["active"]:
        m.store.job_done(jid)
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
    log.info("turn notice %s -> %s", mark, where)
    return _outcome(m, jid, where)


def send_match_over(match_id: str, seat: int) -> str:
    """Email a human seat the final standings (once)."""
    m = service()
    jid = job_id("over", match_id, seat)
    meta = m.meta(match_id)
    mark = f"over:{match_id}:{seat}"
    row = meta["seats"][seat]
    if not row["email"]:
        m.store.job_done(jid)
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

    return _outcome(m, jid, _send_once(m, mark, compose), "skipped")


def send_invite(match_id: str, seat: int, email: str, token: str) -> str:
    """Email an invitation with the seat's invite token (once)."""
    m = service()
    jid = job_id("invite", match_id, seat)
    meta = m.meta(match_id)
    if meta["status"] == "aborted":  # e.g. its creation failed halfway: the token is good for nothing
        m.store.job_done(jid)
        return "skipped: the match was aborted"
    mark = f"invite:{match_id}:{seat}"

    def compose() -> Mail:
        game = m.game_of(meta)
        ctx = {"match": match_id, "seat": seat, "token": token, "to": email, "game_title": game.title,
               "commitment": meta["commitment"], "public_url": m.public_url}
        return render("invite", email, f"[Portolan] You are invited to {game.title}", mark, ctx)

    return _outcome(m, jid, _send_once(m, mark, compose), "skipped")


def play_bot(match_id: str, seat: int, ply: int) -> str:
    """Play one move for a bot seat, if that seat must still act at ``ply``."""
    m = service()
    jid = job_id("bot", match_id, seat, ply)
    chosen = m.bot_move(match_id, seat)
    if chosen is None or chosen[0] != ply:
        m.store.job_done(jid)
        return "skipped: the match moved on"
    _, action = chosen
    envelope, signature = m.sign_as_bot(match_id, seat, ply, [action])
    try:
        result = m.submit(match_id, envelope, signature, by=f"bot:{m.meta(match_id)['seats'][seat]['bot']}")
    except Conflict as exc:  # someone else moved first; their outbox entry schedules what comes next
        m.store.job_done(jid)
        return f"skipped: {exc.code}"
    # Kept only after the commit: a worker killed before this line leaves the promise open, and
    # the watchdog's second run finds the ply moved on (the envelope is the same: a duplicate).
    m.store.job_done(jid)
    return f"played ply {ply}: {json.dumps(action)} -> ply {result['ply']}"
