"""The match clock's moves: a late seat's timeout, and the server's moves for the seats it plays
(bots, stand-ins, skipped turns, departed players).

Each is an ordinary envelope through the same signed, ply-checked submit as a person's move,
signed by a key the server holds (a bot seat's own key; the match's clock key for the rest), so
the log, the record and ``portolan verify`` cover it. Every function here is idempotent: called
twice, late, or after the player moved, it finds nothing to do (or its envelope already
accepted) and returns None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service import bots
from service.bots import strongest
from service.clock import iso
from service.games.base import Action, Game, Rng
from service.games.undo import without_undo
from service.play.clock import clocks
from service.play.envelopes import check_envelope
from service.play.errors import Conflict
from service.play.moves.commit import commit
from service.play.views.preview import tentative_step
from service.proof import signing
from service.proof import standing as standings
from service.proof import time_control as tcs

if TYPE_CHECKING:
    from service.play.context import MatchContext


MAX_BOT_STEPS = 20
"""The most steps one bot move takes; a longer turn goes on in the next job."""


def _choice(ctx: MatchContext, match_id: str, seat: int, ply: int, state: Any, bot: str) -> Action:
    """What the bot ``bot`` plays for the seat at ``ply``: its first step (see :func:`_turn`)."""
    return _turn(ctx, match_id, seat, ply, state, bot, max_steps=1)[0]


def _turn(ctx: MatchContext, match_id: str, seat: int, ply: int, state: Any, bot: str,
          max_steps: int = MAX_BOT_STEPS) -> list[Action]:
    """The steps the bot ``bot`` takes for the seat at ``ply``, as one move (see :func:`_planned`)."""
    return _planned(ctx, match_id, seat, ply, state, bot, max_steps)[0]


def _planned(ctx: MatchContext, match_id: str, seat: int, ply: int, state: Any, bot: str,
             max_steps: int = MAX_BOT_STEPS, budgeted: bool = False) -> tuple[list[Action], str]:
    """The steps the bot ``bot`` takes for the seat at ``ply``, as one move: its whole turn up
    to the first step that rolls a die, draws at random or shows something new (then the move
    is sent and the bot decides on from what it sees next), the end of its turn, or
    ``max_steps``. Each step is decided from the seat's view after the steps before it, with a
    stream reproducible from the server key (``seat:ply``, then ``seat:ply:i``).

    ``budgeted``: the match has bots only, so each search decision spends from the match's
    search budget (``ctx.bot_limits``); once a decision would pass it, the move ends before that
    step, and the next (the rest of the turn) is the heuristic's. Returns the steps and the kind
    that played them all (what the log says played the move)."""
    game = ctx.game_of(ctx.meta(match_id))
    if bot not in bots.kinds(game.id):  # a kind this build no longer has: the strongest plays instead
        bot = strongest(game.id)
    key = ctx.bot_rng_key(match_id)
    steps: list[Action] = []
    while True:
        label = f"{seat}:{ply}" if not steps else f"{seat}:{ply}:{len(steps)}"
        if budgeted and not _may_search(ctx, match_id, game, bot, state, seat):
            if steps:  # the move ends here, so each move is played by one kind, and its log says which
                return steps, bot
            bot = bots.FALLBACK
        steps.append(bots.choose(game, bot, state, seat, Rng.derive(key, label)))
        if len(steps) >= max_steps:
            return steps, bot
        after, _why = tentative_step(game, state, seat, steps[-1])
        if after is None or game.outcome(after) is not None or seat not in game.active_seats(after):
            return steps, bot
        state = after


def _may_search(ctx: MatchContext, match_id: str, game: Game[Any], bot: str, state: Any, seat: int) -> bool:
    """May ``bot`` decide this step as it would without a budget? Yes for a kind that does not
    search; else only while the match's search budget holds the decision's iterations, which are
    then spent (none for a step with one choice only: the search is not run for it)."""
    cost = bots.search_iterations(game.id, bot)
    if not cost:
        return True
    forced = len(without_undo(game.legal_actions(state, seat))) < 2
    # a forced step spends nothing, but once the budget is spent it is the heuristic's too, so
    # that after the budget every move of the match says "bot:heuristic"
    return ctx.bot_limits.search_allowed(ctx.store, match_id, 0 if forced else cost)


def _signed(ctx: MatchContext, match_id: str, seat: int, ply: int, action: Action | list[Action], key: str,
            nonce: str) -> tuple[dict[str, Any], bytes, str]:
    actions = action if isinstance(action, list) else [action]
    env, raw = check_envelope({"match": match_id, "seat": seat, "ply": ply, "actions": actions, "nonce": nonce})
    return env, raw, signing.sign(key, env)


def timeout(ctx: MatchContext, match_id: str, seat: int) -> dict[str, Any] | None:
    """Commit the seat's timeout when its policy is due: the seat must act, its player must play
    it, and the clock must be past its deadline plus the grace (``acts_at``). The policy decides
    the action: the stand-in's choice, a pass, ``match:forfeit`` or ``match:cancel``. Returns the
    submit result, or None when nothing is due (or another process committed first)."""
    meta = ctx.meta(match_id)
    if meta.status != "active" or seat not in meta.active or not meta.clock_key:
        return None
    now = ctx.moment()
    status = clocks.status_now(ctx, meta, now)[seat]
    if status.controller != "player" or status.acts_at is None or now < status.acts_at or status.since is None:
        return None
    policy = dict(meta.timeout_policy or {})  # a match with a clock_key stores its policy
    fresh, state = ctx.fresh(match_id, meta)
    if fresh.ply != meta.ply:  # a move landed meanwhile: judge again next time
        return None
    ply = meta.ply
    game = ctx.game_of(meta)
    action: Action
    if policy["policy"] == "forfeit":
        action = {"type": "match:forfeit"}
    elif policy["policy"] == "abort":
        action = {"type": "match:cancel"}
    else:
        passed = standings.pass_action(game.legal_actions(state, seat)) if policy["policy"] == "skip" else None
        action = passed if passed is not None else _choice(ctx, match_id, seat, ply, state, ctx.stand_in_of(game.id))
    clock = {"policy": policy["policy"], "since": iso(status.since),
             "deadline": iso(status.deadline) if status.deadline else None, "acts_at": iso(status.acts_at),
             "allowance_s": tcs.allowance_s(clocks.time_control_of(meta), tcs.SeatClock.from_json((meta.clocks or ())[seat])),
             "grace_hours": policy.get("grace_hours", 0)}
    env, raw, signature = _signed(ctx, match_id, seat, ply, action, ctx.clock_private_key(match_id), f"clock-{ply}")
    try:
        return commit(ctx, match_id, env, raw, signature, standings.CLOCK, meta, None, None, clock=clock)
    except Conflict:  # another process moved first, or committed this very timeout
        return None


def server_move(ctx: MatchContext, match_id: str, seat: int, ply: int) -> dict[str, Any] | None:
    """The server's move for a seat it plays, if that seat must act at ``ply``: a bot seat's bot
    (signed with the seat's bot key, ``by: "bot:<kind>"``), a stand-in or a departed player's bot
    (``stand-in:<bot>``), or a pass for a skipped turn (``skip``; the stand-in's choice where the
    game has no legal pass), both signed with the match's clock key. None: nothing to play."""
    meta = ctx.meta(match_id)
    if meta.status != "active" or seat not in meta.active or meta.ply != ply:
        return None
    fresh, state = ctx.fresh(match_id, meta)
    if fresh.ply != ply or seat not in fresh.active:
        return None
    meta = fresh
    row = meta.seats[seat]
    controller = standings.Standing.from_json(meta.standing).controllers[seat] if meta.standing else (
        "bot" if row.is_bot else "player")
    game = ctx.game_of(meta)
    if controller == "bot":
        # a match of bots only is budgeted: nobody's game is weakened by it (docs/bots.md)
        steps, played = _planned(ctx, match_id, seat, ply, state, row.bot or "",  # a bot seat always names its bot
                                 budgeted=all(r.is_bot for r in meta.seats))
        env, raw, signature = _signed(ctx, match_id, seat, ply, steps, ctx.bot_private_key(match_id, seat), f"bot-{ply}")
        by = f"bot:{played}" if played == bots.FALLBACK else f"bot:{row.bot}"  # the log says who chose
    elif controller in ("stand-in", "forfeited", "skip"):
        bot = ctx.stand_in_of(game.id)
        passed = standings.pass_action(game.legal_actions(state, seat)) if controller == "skip" else None
        # a skipped turn passes (one step); a stand-in plays the whole turn as a bot does
        turn = [passed] if passed is not None else _turn(ctx, match_id, seat, ply, state, bot,
                                                         max_steps=1 if controller == "skip" else MAX_BOT_STEPS)
        by = standings.SKIP if controller == "skip" else f"{standings.STAND_IN}{bot}"
        env, raw, signature = _signed(ctx, match_id, seat, ply, turn, ctx.clock_private_key(match_id), f"server-{ply}")
    else:
        return None
    try:
        return commit(ctx, match_id, env, raw, signature, by, meta)
    except Conflict:  # someone moved first (the player came back, or another worker ran this job)
        return None

