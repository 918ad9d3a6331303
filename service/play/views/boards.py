"""Board pictures of a match: the current position or any past one, for a spectator or a seat.

A past position is never stored: it is replayed from the log with the match's secret (the same
replay the verifier runs, :mod:`service.proof.replay`), so the log stays the only truth and a
picture of ply 3 is the same today and in a year. The view drawn is what that viewer could see
at that ply (``Game.view``); the seat's legal actions, drawn as spots, only come with the current
position, and only while the seat is to move.

Who may see a seat's picture is the caller's business (the API checks the request signature and
:func:`service.play.seats.signers.authenticate` first), as for :func:`service.play.views.match.view`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service import games, pictures
from service.games.editions import shipped
from service.i18n import DEFAULT, phrase
from service.play import records
from service.play.errors import Conflict, NotFound
from service.play.views.match import view
from service.proof.match_record import MatchMeta
from service.proof.replay import replay

if TYPE_CHECKING:
    from service.play.context import MatchContext


@dataclass(frozen=True)
class Position:
    """What one viewer sees of a match at one ply."""

    match: str
    game: str
    ply: int
    current: bool
    """True for the match's current ply (its legal actions may come with it), False for a past one."""
    board: dict[str, Any]
    """``Game.view`` of the state at ``ply`` for the viewer (the API's ``board``)."""
    legal: list[dict[str, Any]] = field(default_factory=list)
    """The seat's legal actions as the API lists them (``[{"action", "text"}]``), empty unless the
    position is current and the seat is to move."""
    edition: dict[str, Any] | None = None
    """The match's data edition as the view gives it (id, title, the paths still provisional):
    the picture marks those values and names the edition in its footnote."""


def no_board(meta: MatchMeta) -> Conflict:
    """The refusal for a match that has no position yet (or never will)."""
    if meta.status == "waiting":
        return Conflict("match-not-started", phrase("match {match_id} is still waiting for players: no board yet (open seats: {open_seats})", match_id=meta.id, open_seats=', '.join(str(s.seat) for s in meta.seats if not s.claimed)),
                        current_ply=meta.ply)
    return Conflict("match-not-started", phrase("match {match_id} was aborted before it started: it has no board", match_id=meta.id),
                    current_ply=meta.ply)


def state_at(ctx: MatchContext, meta: MatchMeta, ply: int) -> Any:
    """The rules state of the match after its first ``ply`` moves, replayed from the log.

    The events the replay makes are not compared with the stored ones here (the verifier does
    that): a picture only needs the state, and it must not fail where the log itself is fine."""
    game = ctx.game_of(meta)  # an unknown game is a 404 before any replay
    seats = records.genesis_seats(meta.seats)
    # the format and the policy too: format 4 replays match actions and timeouts through the standing
    header = {"game": meta.game, "match": meta.id, "seats": seats, "players": meta.players,
              "options": meta.options, "format": records.record_format(meta),
              "timeout_policy": meta.timeout_policy}
    entries = [{"seat": e["seat"], "by": e["by"], "envelope": e["envelope"]}
               for e in ctx.store.log(meta.id, 0, ply - 1)] if ply > 0 else []
    if len(entries) != ply:  # the log is shorter than the meta says: a store fault, not the caller's
        raise Conflict("log-incomplete", phrase("match {match_id}: the log holds {n} moves, not {ply}", match_id=meta.id, n=len(entries), ply=ply),
                       current_ply=meta.ply)
    state = None
    for step in replay(header, ctx.store.seed(meta.id), entries, game=game):
        state = step.state
    return state


def position(ctx: MatchContext, match_id: str, seat: int | None = None, ply: int | None = None,
             meta: MatchMeta | None = None) -> Position:
    """The position at ``ply`` (None: the current one) as ``seat`` (None: a spectator) sees it.

    409 for a match that has not started (waiting or aborted), 404 for a ply the match has not
    reached yet (any ply from 0, the position after setup, to the current ply is there)."""
    meta = ctx.meta(match_id) if meta is None else meta
    if meta.status in ("waiting", "aborted"):
        raise no_board(meta)
    if ply is not None and ply < 0:
        raise NotFound("unknown-ply", phrase("plies count from 0 (the position after setup); there is no ply {ply}", ply=ply))
    if ply is not None and ply > meta.ply:
        raise NotFound("unknown-ply", phrase("match {match_id} is at ply {ply}: there is no ply {asked} yet (ask for 0 to {ply}, or leave ply out for the current position)", match_id=match_id, ply=meta.ply, asked=ply))
    if ply is None or ply == meta.ply:
        shown = view(ctx, match_id, seat, meta)  # a move may have landed meanwhile: its ply is view["ply"]
        return Position(match_id, meta.game, int(shown["ply"]), True, shown["board"],
                        list(shown.get("legal_actions", [])), picture_edition(ctx, meta))
    game = ctx.game_of(meta)
    return Position(match_id, meta.game, ply, False, game.view(state_at(ctx, meta, ply), seat),
                    edition=picture_edition(ctx, meta))


def picture_edition(ctx: MatchContext, meta: MatchMeta) -> dict[str, Any]:
    """What a picture of the match is told of its edition: id, title, digest (the numbers it
    draws) and the paths still provisional in it (the values it marks)."""
    pin = dict(meta.edition or {"id": "shipped", "title": "shipped data"})
    return {**pin, "provisional": [p.path for p in ctx.game_of(meta).provisional()]}


def etag_of(svg: str, language: str = DEFAULT) -> str:
    """The ETag of a picture: a digest of the SVG itself, so it changes exactly when the picture
    does (a new position, a new seat's spots, or a new renderer after an upgrade); a picture in
    another language than English says it too (``"b-…-hu"``), as the views' tags do."""
    suffix = "" if language == DEFAULT else f"-{language}"
    return '"b-' + hashlib.sha256(svg.encode("utf-8")).hexdigest()[:24] + suffix + '"'


def draw(game_id: str, board: Mapping[str, Any], legal: Sequence[Mapping[str, Any]] = (),
         edition: Mapping[str, Any] | None = None, language: str = DEFAULT) -> str | None:
    """The SVG of ``board`` (with spots for ``legal``), None for a game this server draws no
    pictures of: one without a renderer, or whose picture module is not installed (a failure
    to import anything else is a bug and is raised). ``edition`` (the view's) goes to the picture
    inside the board, as ``edition``, for its provisional marks and footnote; the picture's words
    are in ``language``."""
    game = games.get(game_id)
    if edition is not None and game is not None and shipped(game).data:  # a game with no data has no edition
        board = {**board, "edition": edition}
    try:
        return pictures.render(game_id, board, legal, language)
    except pictures.UnknownPicture:
        return None
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith(f"{pictures.__name__}."):
            return None
        raise


def render(where: Position, language: str = DEFAULT) -> str:
    """The SVG of a position in ``language``; 404 ``no-picture`` for a game this server draws no pictures of."""
    svg = draw(where.game, where.board, where.legal, where.edition, language)
    if svg is None:
        raise NotFound("no-picture", phrase("this server has no pictures of the game {game!r}; the match's JSON view has the same position", game=where.game))
    return svg


def picture(ctx: MatchContext, match_id: str, seat: int | None = None, ply: int | None = None,
            meta: MatchMeta | None = None, language: str = DEFAULT) -> tuple[str, str]:
    """The SVG of the match at ``ply`` (None: now) for ``seat`` (None: a spectator) in ``language``,
    and its ETag.

    See :func:`position` for the refusals; a seat must have been authenticated by the caller."""
    svg = render(position(ctx, match_id, seat, ply, meta), language)
    return svg, etag_of(svg, language)

