"""Reading a match: its public meta, a spectator's or a seat's view, its log and its record.

Nothing here writes. A seat's view must be authenticated by the caller (the API checks the
request's signature and :func:`service.play.seats.signers.authenticate` first); what a view shows of
hidden information is the game's ``view`` for that viewer, and the log's hidden events are
withheld the same way (:func:`service.proof.chain.visible_events`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from service.games.base import Game
from service.games.editions import SHIPPED
from service.i18n import DEFAULT, phrase, render
from service.play import editions, records
from service.play.clock import clocks
from service.play.errors import Conflict
from service.proof.chain import visible_events
from service.proof.match_record import MatchMeta
from service.proof.standing import describe_match_event

if TYPE_CHECKING:
    from service.play.context import MatchContext


def public_meta(ctx: MatchContext, meta: MatchMeta) -> dict[str, Any]:
    """What anyone may know about a match (no emails, no token hashes)."""
    return {
        "id": meta.id,
        "game": meta.game,
        "options": meta.options,
        "status": meta.status,
        "ply": meta.ply,
        "players": meta.players,
        "created_at": meta.created_at,
        "updated_at": meta.updated_at,
        "commitment": meta.commitment,
        "creator_key": meta.creator_key or None,
        "head": meta.head or None,
        "active_seats": list(meta.active),
        "open_seats": [s.seat for s in meta.seats if not s.claimed],
        "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name, "claimed": s.claimed,
                   "public_key": s.public_key or None} for s in meta.seats],
        "outcome": meta.outcome,
        "clock": clocks.view_now(ctx, meta),
        "standing": clocks.standing_of(meta).to_json(),
        "edition": dict(meta.edition or {"id": SHIPPED, "title": phrase("shipped data")}),
    }


def view(ctx: MatchContext, match_id: str, seat: int | None = None,
         meta: MatchMeta | None = None, language: str = DEFAULT) -> dict[str, Any]:
    """The spectator view (``seat=None``) or a seat's private view with its legal actions.
    Seat views must be authenticated by the caller. A caller that has just read the match's
    meta passes it, which saves reading it again (and keeps the view and, say, an ETag taken
    from that meta at the same ply). The words are phrases (labels, match actions), for the
    caller to render for its reader (:func:`service.i18n.localise`); ``text``, the game's own
    rendering of the board, is made in ``language``."""
    return view_of(ctx, ctx.meta(match_id) if meta is None else meta, seat, language=language)


def view_of(ctx: MatchContext, meta: MatchMeta, seat: int | None, state: Any = None,
            language: str = DEFAULT) -> dict[str, Any]:
    """:func:`view` over a meta the caller already holds (and the state at its ply, if known:
    a move's answer passes the state it just made)."""
    out = public_meta(ctx, meta)
    if meta.status == "waiting" or not meta.head:  # no board before the start
        out["board"] = None
        return out
    game = ctx.game_of(meta)
    if state is None:
        fresh, state = ctx.fresh(meta.id, meta)
        if fresh is not meta:  # a move landed since the caller read the meta: show that ply whole
            meta, out = fresh, public_meta(ctx, fresh)
    out["board"] = game.view(state, seat)
    # the count only: the paths are the catalog's (GET /v1/games/{game}), not every view's bytes
    out["edition"]["provisional_values"] = len(game.provisional())
    out["text"] = board_text(game, out["edition"], out["board"], language)
    if seat is not None:
        out["seat"] = seat
        legal = game.legal_actions(state, seat) if seat in meta.active else []
        out["legal_actions"] = [{"action": a, "text": game.label_action(state, seat, a)} for a in legal]
        out["match_actions"] = match_actions(meta, seat)
    return out


def board_text(game: Game[Any], edition: dict[str, Any], board: dict[str, Any], language: str = DEFAULT) -> str:
    """A view's ``text``: the game's rendering of ``board`` in ``language``, with the edition's lines
    under it. Also for a caller that holds a view made in another language (a move's answer)."""
    note = editions.footnote(edition, game)
    text = render_board(game, board, language)
    return text + ("\n\n" + "\n".join(render(n, language) for n in note) if note else "")


def render_board(game: Game[Any], board: dict[str, Any], language: str = DEFAULT) -> str:
    """The game's text rendering of a view in ``language``. English asks as before issue 29 (one
    argument), so that a game written then (a plugin) still renders."""
    return game.render(board) if language == DEFAULT else game.render(board, language)


def describe_event(game: Game[Any], event: Mapping[str, Any]) -> str:
    """An event of a match in words for its reader (a phrase): the match's own events (resigned,
    timed out, abort votes) as the standing says them, the rest as its game does."""
    said = describe_match_event(event)
    return said if said is not None else game.describe_event(event)


def match_actions(meta: MatchMeta, seat: int) -> list[dict[str, Any]]:
    """The match actions a seat's holder may take now, with plain words (for the seat view)."""
    if meta.status != "active" or not meta.clock_key:
        return []
    standing = clocks.standing_of(meta)
    controller = standing.controllers[seat]
    if controller in ("bot", "forfeited"):
        return []
    out = [{"action": {"type": "match:resign"}, "text": phrase("Resign: give up this seat (you are ranked last)")}]
    if seat not in standing.abort_votes:
        waiting = [h for h in standing.humans_left() if h not in standing.abort_votes and h != seat]
        out.append({"action": {"type": "match:abort"},
                    "text": phrase("Vote to abort the match with no result (then waiting for seats {seats})",
                                   seats=", ".join(map(str, waiting))) if waiting else
                    phrase("Vote to abort the match with no result (yours is the last vote)")})
    if controller in ("stand-in", "skip"):
        out.append({"action": {"type": "match:return"},
                    "text": phrase("I am back: take this seat back from the stand-in")})
    return out


def log(ctx: MatchContext, match_id: str, start: int = 0, viewer: int | None = None) -> list[dict[str, Any]]:
    """Accepted moves from ply ``start`` on, with signatures, receipts and visible events."""
    ctx.meta(match_id)
    entries = ctx.store.log(match_id, max(start, 0), -1)
    for e in entries:
        e["events"] = visible_events(e["events"], viewer)
    return entries


def header(ctx: MatchContext, meta: MatchMeta,
           setup_events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The public header of the record; its digest starts the hash chain."""
    return records.header(meta, ctx.server_public_key, ctx.secret(meta.id, meta), setup_events)


def record(ctx: MatchContext, match_id: str) -> dict[str, Any]:
    """The verifiable record (docs/record-format.md): header, every entry, the outcome and,
    once the match is over, the revealed seed. Hidden events are withheld until then."""
    meta = ctx.meta(match_id)
    if meta.status == "waiting" or not meta.head:  # waiting, or aborted before its start
        raise Conflict("match-not-started", phrase("match {match_id} is {status}: there is no record yet", match_id=match_id, status=meta.status))
    over = meta.status in ("finished", "aborted")  # an abort after the start reveals the seed too
    return records.record(meta, ctx.store.log(match_id), ctx.server_public_key, ctx.secret(match_id, meta),
                          ctx.store.seed(match_id) if over else None, ctx.edition_of(meta))
