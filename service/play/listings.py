"""Listings across matches: the lobby, a key's turns, and the jobs (turn notices, bot turns)
that never went out.

Reads over many matches' metas in one round trip each; no rules state is loaded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from service.play.clock.clocks import standing_of
from service.play.context import MatchContext
from service.play.ports import Dispatcher
from service.play.seats.lifecycle import finish_start
from service.proof.match_record import MatchMeta


def lobby(ctx: MatchContext, status: str | None = None, game: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """Recent matches, newest first, with their public facts (scans at most 2000 ids)."""
    ids = ctx.store.match_ids(newest_first=True, limit=2000)
    fields = ("id", "game", "status", "ply", "players", "seats", "created_at", "updated_at")
    out = []
    for m in ctx.store.metas(ids, fields):
        if not m or (status and m.status != status) or (game and m.game != game):
            continue
        out.append({"id": m.id, "game": m.game, "status": m.status, "ply": m.ply,
                    "players": m.players, "open_seats": [s.seat for s in m.seats if not s.claimed],
                    "created_at": m.created_at, "updated_at": m.updated_at})
        if len(out) >= limit:
            break
    return out


def my_turns(ctx: MatchContext, public_key: str) -> list[dict[str, Any]]:
    """Matches where a seat held by this key must act now."""
    held = ctx.store.seats_of_key(public_key)
    ids = [mid for mid, _ in held]
    metas = ctx.store.metas(ids, ("game", "status", "ply", "active", "updated_at"))
    out = []
    for (mid, seat), m in zip(held, metas, strict=True):
        if m is not None and m.status == "active" and seat in m.active:
            out.append({"match": mid, "seat": seat, "game": m.game, "ply": m.ply,
                        "since": None if "updated_at" in m.absent else m.updated_at})
    return out


def unsent_notices(ctx: MatchContext, older_than_s: float = 120.0, scan: int = 10_000) -> list[tuple[str, int, int]]:
    """Turn notices that should have gone out but did not: (match, seat, ply) for every human
    seat that must act, whose turn began more than ``older_than_s`` ago, and whose notice mark
    is missing (e.g. the API process died between committing a move and enqueueing its
    notice). Scans the ``scan`` newest matches."""
    ids = ctx.store.match_ids(newest_first=True, limit=scan)
    cutoff = ctx.moment().timestamp() - older_than_s  # updated_at is by the service's clock
    wanted: list[tuple[str, int, int]] = []
    for m in ctx.store.metas(ids, ("id", "status", "active", "active_since", "seats", "updated_at")):
        if m is None or m.status != "active" or _timestamp(m.updated_at) > cutoff:
            continue
        since = m.active_since
        for seat in m.active:
            if m.seats[seat].kind == "human" and str(seat) in since:
                wanted.append((m.id, seat, int(since[str(seat)])))
    taken = ctx.store.marked([f"notice:{mid}:{seat}:{ply}" for mid, seat, ply in wanted])
    return [w for w, done in zip(wanted, taken, strict=True) if not done]

def resend_unsent_notices(ctx: MatchContext, dispatcher: Dispatcher, older_than_s: float = 120.0) -> int:
    """Enqueue the notices :meth:`unsent_notices` finds; returns how many."""
    missing = unsent_notices(ctx, older_than_s)
    for mid, seat, ply in missing:
        dispatcher.turn(mid, ply, [seat])
    return len(missing)


def stalled_bots(ctx: MatchContext, older_than_s: float = 120.0, scan: int = 10_000) -> list[tuple[str, int, int]]:
    """Bot turns nobody will play: (match, seat, ply) for every seat the server plays (a bot seat, a
    stand-in, a skipped turn, a departed player's bot) that must act in an active
    match that has not changed for more than ``older_than_s``. A bot moves within moments of its
    job being enqueued, so a match that waits that long on a bot lost the job: the API process died
    (or Redis failed) between committing the move before and enqueueing the bot's turn, or the job
    failed for good. Nothing else would ever move such a match: every human waits on the bot."""
    ids = ctx.store.match_ids(newest_first=True, limit=scan)
    cutoff = ctx.moment().timestamp() - older_than_s  # updated_at is by the service's clock
    return [(m.id, seat, int(m.ply))
            for m in ctx.store.metas(ids, ("id", "status", "ply", "active", "seats", "updated_at", "standing"))
            if m is not None and m.status == "active" and _timestamp(m.updated_at) <= cutoff
            for seat in m.active if m.seats[seat].is_bot or _server_plays(m, seat)]


def _server_plays(meta: MatchMeta, seat: int) -> bool:
    """Does the server move for this seat (a stand-in, a skipped turn, a departed player)?"""
    return bool(meta.standing) and standing_of(meta).server_plays(seat)


def resume_stalled_bots(ctx: MatchContext, dispatcher: Dispatcher, older_than_s: float = 120.0) -> int:
    """Enqueue the bot turns :func:`stalled_bots` finds; returns how many. Harmless when the
    original job was only slow: a bot job for a ply the match has left does nothing."""
    stalled = stalled_bots(ctx, older_than_s)
    for mid, seat, ply in stalled:
        dispatcher.bot(mid, ply, seat)
    return len(stalled)


def unstarted_matches(ctx: MatchContext, older_than_s: float = 120.0, scan: int = 10_000) -> list[str]:
    """Matches that wait with no open seat: every seat is claimed (or a bot) but the start never
    committed, for more than ``older_than_s``. The start runs right after the last claim (or the
    creation of an all-bot match); when it fails (Redis, a dying process) only a retry of that
    claim would finish it, and an all-bot match has no claim to retry, nor does a player who gave
    up: such a match waited for ever, listed in the lobby with no seat anyone could take."""
    ids = ctx.store.match_ids(newest_first=True, limit=scan)
    cutoff = ctx.moment().timestamp() - older_than_s  # updated_at is by the service's clock
    return [m.id for m in ctx.store.metas(ids, ("id", "status", "seats", "updated_at"))
            if m is not None and m.status == "waiting" and _timestamp(m.updated_at) <= cutoff
            and all(s.claimed for s in m.seats)]


def start_unstarted_matches(ctx: MatchContext, older_than_s: float = 120.0) -> int:
    """Run the start of every match :func:`unstarted_matches` finds; returns how many started
    (a match that started or was aborted meanwhile is left as it is)."""
    started = 0
    for mid in unstarted_matches(ctx, older_than_s):
        if finish_start(ctx, mid):
            started += 1
    return started


def _timestamp(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
