"""Helpers for building Nauticus positions directly (boardgame.io's "scenario test" idea)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import Applied, Rng
from service.games.nauticus import GAME, data, flow
from service.games.nauticus.state import Hull, Player, Ship, State
from service.games.undo import without_undo


def fresh(players: int = 3, seed: int | str = "scenario") -> State:
    """A new game after setup."""
    return GAME.setup(players, {}, Rng.from_seed(seed)).state


def ship(*pieces: str) -> Ship:
    """A ship from strings like ``"bow:mast-a:sail-a:coffee"`` (piece, then mast, sail, good; ``-`` skips)."""
    out = []
    for spec in pieces:
        bits = [None if b in ("", "-") else b for b in spec.split(":")] + [None] * 3
        assert bits[0] is not None
        out.append(Hull(bits[0], bits[1], bits[2], bits[3]))
    return tuple(out)


def set_player(state: State, seat: int, **fields: Any) -> State:
    p = state.players[seat]._replace(**fields)
    return state._replace(players=(*state.players[:seat], p, *state.players[seat + 1 :]))


def player(state: State, seat: int) -> Player:
    return state.players[seat]


def lay(state: State, action: str, space: int) -> State:
    """Swap tiles so that ``action`` lies on ``space``."""
    layout = list(state.layout)
    i = layout.index(action)
    layout[i], layout[space] = layout[space], layout[i]
    return state._replace(layout=tuple(layout))


def anchor_for(space: int, blue: int) -> int:
    """A wheel position that shows ``blue`` blue workers at ``space``."""
    for anchor in range(data.SPACES):
        if flow.blue_workers(anchor, space) == blue:
            return anchor
    raise AssertionError(f"the wheel has no segment with {blue} blue workers")


def choosing(state: State, action: str, space: int, chooser: int = 0, blue: int | None = None) -> State:
    """Step ``choose`` with ``action`` on ``space`` and (optionally) ``blue`` blue workers there."""
    state = lay(state, action, space)
    if blue is not None:
        state = state._replace(anchor=anchor_for(space, blue))
    return state._replace(step="choose", chooser=chooser, space=-1, turn=None, turns_taken=0, bonus=None)


def in_turn(state: State, action: str, space: int, seat: int = 0, blue: int | None = None) -> State:
    """``seat``'s turn executing ``action`` on ``space`` (the phase's bonus already dealt with).

    The wheel's segment values are UNVERIFIED placeholders (spec §3): if no wheel position shows
    ``blue`` at ``space``, the turn's blue pool is set directly, so the scenario does not depend on them."""
    shown = blue is not None and any(flow.blue_workers(a, space) == blue for a in range(data.SPACES))
    state = choosing(state, action, space, seat, blue if shown else None)
    state = state._replace(step="turn", space=space)
    turn = flow.fresh_turn(state, seat)
    if blue is not None and not shown:
        turn = turn._replace(normal=turn.normal._replace(blue=blue))
    return state._replace(turn=turn)


def act(state: State, seat: int, action: Mapping[str, Any], seed: int = 0) -> State:
    """Apply an action, asserting first that legal_actions lists it."""
    legal = without_undo(GAME.legal_actions(state, seat))
    assert dict(action) in legal, f"{dict(action)} not in legal actions {legal}"
    applied: Applied[State] = GAME.apply(state, seat, action, Rng.from_seed(seed))
    return applied.state


def act_events(state: State, seat: int, action: Mapping[str, Any], seed: int = 0) -> Applied[State]:
    assert dict(action) in without_undo(GAME.legal_actions(state, seat))
    return GAME.apply(state, seat, action, Rng.from_seed(seed))
