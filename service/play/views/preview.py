"""A move's preview: the steps a seat has queued, applied tentatively, so it sees where they lead.

Nothing is stored and nothing is announced: the steps are applied to the current state (the rules
core never mutates its input), the view after them is answered, and the state is dropped.

Why a preview must stop early: it is free and can be asked again and again, so if it showed a die
roll or a card drawn from a deck, a player could look, then queue something else and look again,
until the dice suit them; the move they send would then not be the honest first try the log
claims it is. So the preview applies the steps in order and stops *before* the first step that

* draws from the random stream (the Rng handed to ``Game.apply`` raises on its first draw: dice,
  shuffles, random draws of every game alike);
* causes an event with ``visible_to`` (hidden information for some seats only); or
* turns up hidden information without drawing at all: a deck shuffled at setup is later dealt
  from its top, which is no random draw but still shows a card nobody has seen. Each game's
  hidden parts that such a step changes are read from the spectator view before and after the
  step (:data:`CONCEALED`); any change stops the preview:

  - El Capitán: the destination and connection decks (``decks``: their sizes). The displays are
    refilled from the decks when a turn ends (rule §5.3), so a step that ends the turn shows the
    next cards; a reshuffle of the discards draws from the Rng and is caught anyway.
  - Ophir: the market (``market.revealed`` and ``market.face_down``: a sale or the end of a turn
    moves the face-down deck's top card up as the new future demand), the map tokens
    (``map.revealed``) and the cards set aside unseen (``market.removed_unseen``).
  - Nauticus: nothing is hidden (its spec §10.1: every tile stack and good is open); only its
    round setup shuffles the action tiles, which draws from the Rng.

  A game without an entry (a plugin) gets the first two guards only.

``open`` is False once the queue has to be sent: the seat need not act after the steps, the game
is over, or the next step is one of the above (then ``applied`` says how many steps were shown
and ``reason`` why the rest were not). Refusals are those of a move, with the same codes, so a
client that previews before it sends meets them early: 409 ``stale-ply`` / ``not-your-turn`` /
``match-not-active``, 400 ``invalid-action``, 422 ``illegal-action`` (both with ``action_index``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from service.games.base import Game, IllegalAction, InvalidAction, Rng
from service.games.words import cited_rules, rules_url
from service.i18n import DEFAULT, phrase
from service.play.errors import BadRequest, Conflict, Unprocessable
from service.play.limits import check_json_value
from service.play.views.boards import draw
from service.play.views.match import render_board
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.play.context import MatchContext

MAX_STEPS = 20
"""The most steps one preview applies: a turn is rarely longer, and each step costs a rules call."""


def _el_capitan(view: Mapping[str, Any]) -> Any:
    return view["decks"]


def _ophir(view: Mapping[str, Any]) -> Any:
    market, board = view["market"], view["map"]
    return market["revealed"], market["face_down"], market["removed_unseen"], board["revealed"]


def _nothing(view: Mapping[str, Any]) -> Any:
    return None


CONCEALED: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "el-capitan": _el_capitan, "ophir": _ophir, "nauticus": _nothing}
"""Per game: the parts of the spectator view that change when a step turns up hidden information."""


class _Draws(Exception):
    """A step asked the random stream for a number (see :class:`_NoDraws`)."""


class _NoDraws(Rng):
    """An Rng that refuses to draw: a preview shows no die or shuffle before it is sent."""

    def __init__(self) -> None:
        super().__init__(bytes(32))  # never read: _word refuses first

    def _word(self) -> int:
        raise _Draws


def tentative_step(game: Game[Any], state: Any, seat: int, action: Any) -> tuple[Any, str]:
    """``action`` applied to ``state`` if that shows nothing new: ``(after, "")``; else
    ``(None, why)`` when the step would roll a die or draw at random, reveal something only some
    seats may see, or turn up hidden cards or tiles (see the module). Raises the rules errors of
    an illegal step. A preview stops before such a step; a bot's turn ends with it."""
    try:
        after, events = game.apply(state, seat, action, _NoDraws())
    except _Draws:
        return None, phrase("rolls the dice or draws at random")
    if any("visible_to" in e for e in events):
        return None, phrase("reveals something only some players may see")
    concealed = CONCEALED.get(game.id)
    if concealed is not None and concealed(game.view(after, None)) != concealed(game.view(state, None)):
        return None, phrase("turns up hidden cards or tiles")
    return after, ""


def _actions(actions: Any) -> list[dict[str, Any]]:
    """The queued steps, checked for shape (1 to :data:`MAX_STEPS` action objects)."""
    if not isinstance(actions, list) or not 1 <= len(actions) <= MAX_STEPS:
        raise BadRequest("bad-preview", phrase("actions must be a list of 1 to {most} action objects (a preview shows at most {most} steps; send the move to go on)", most=MAX_STEPS))
    if not all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in actions):
        raise BadRequest("bad-preview", phrase('every action is an object with a string "type"'))
    check_json_value(actions, phrase("the actions"))
    return actions


def _stopped(game: Game[Any], i: int, action: Mapping[str, Any], why: str) -> str:
    return phrase("step {step} ({action}) {why}: send the move to see the result", step=i + 1,
                  action=game.describe_action(action), why=why)


def preview(ctx: MatchContext, meta: MatchMeta, seat: int, ply: int, actions: Any,
            language: str = DEFAULT) -> dict[str, Any]:
    """The view of ``seat`` after applying ``actions`` at ``ply`` tentatively (see the module).

    ``meta`` is the match as read when the seat was authenticated (by the caller). ``reason`` and
    the labels are phrases for the caller to render; ``text`` is made in ``language``."""
    steps = _actions(actions)
    match_id = meta.id
    if meta.status != "active":
        raise Conflict("match-not-active", phrase("match {match_id} is {status}: there is no move to preview", match_id=match_id, status=meta.status),
                       current_ply=meta.ply)
    if isinstance(ply, bool) or not isinstance(ply, int) or ply != meta.ply:
        raise Conflict("stale-ply", phrase("the preview is based on ply {ply} but the match is at ply {current}", ply=ply, current=meta.ply),
                       current_ply=meta.ply)
    if seat not in meta.active:
        raise Conflict("not-your-turn", phrase("seat {seat} need not act now (waiting for seats {active})", seat=seat, active=list(meta.active)),
                       current_ply=meta.ply)
    game = ctx.game_of(meta)
    # the state at exactly this ply, as a move is judged (409 stale-ply if the store moved on)
    state = ctx.state(match_id, meta)
    applied, reason = 0, None
    for i, action in enumerate(steps):
        if seat not in game.active_seats(state):
            raise Conflict("not-your-turn", phrase("action {i}: after the earlier actions of this move seat {seat} need not act", i=i, seat=seat),
                           current_ply=meta.ply, action_index=i)
        try:
            after, why = tentative_step(game, state, seat, action)
        except InvalidAction as exc:
            raise BadRequest("invalid-action", phrase("action {i}: {message}", i=i, message=exc.message), rule_code=exc.code, action_index=i) from exc
        except IllegalAction as exc:
            raise Unprocessable("illegal-action", phrase("action {i}: {message}", i=i, message=exc.message), rule_code=exc.code,
                                rule=exc.rule or next(iter(cited_rules(exc.message)), None),
                                rules_page=rules_url(game.id), action_index=i) from exc
        if after is None:
            reason = _stopped(game, i, action, why)
            break
        state, applied = after, i + 1
    acting = seat in game.active_seats(state) and game.outcome(state) is None
    if reason is None and not acting:
        reason = phrase("after these steps you have nothing more to do in this move: send it")
    is_open = reason is None
    board = game.view(state, seat)
    legal = [{"action": a, "text": game.label_action(state, seat, a)} for a in game.legal_actions(state, seat)] if is_open else []
    return {"match": match_id, "seat": seat, "ply": ply, "applied": applied, "open": is_open, "reason": reason,
            "board": board, "text": render_board(game, board, language), "legal_actions": legal, "svg": draw(game.id, board, legal, language=language)}

