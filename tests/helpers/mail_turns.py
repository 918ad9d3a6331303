"""Positions for the whole-turn-in-one-reply tests (service.play.mail.steps): a game's menu as a
mail shows it, and positions found by seeded random play where a step does what a test needs
(draws on chance, reveals something, ends the turn)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from service.games import registry
from service.games.base import Action, Game, Rng
from service.games.undo import without_undo
from service.play.mail.grammar import read
from service.play.mail.menu import Item, menu
from service.play.mail.steps import Plan, plan


def game(game_id: str) -> Game[Any]:
    """A registered game by its id."""
    return registry()[game_id]


def items(g: Game[Any], state: Any, seat: int) -> list[Item]:
    """The menu of ``seat`` at ``state``, numbered as a turn notice numbers it."""
    return menu([{"action": a, "text": g.label_action(state, seat, a)} for a in g.legal_actions(state, seat)])


def start(g: Game[Any], players: int, seed: int | str) -> tuple[Any, int]:
    """The first position of a seeded game and the seat to act."""
    state = g.setup(players, g.validate_options({}, players), Rng.from_seed(seed)).state
    return state, g.active_seats(state)[0]


def play(g: Game[Any], state: Any, seat: int, text: str, rng_seed: int | str = "ply") -> Plan:
    """The reply ``text`` planned at ``state`` for ``seat`` (menu: the one of ``state``)."""
    reading = read(text)
    assert reading.is_move, reading
    return plan(g, state, seat, Rng.from_seed(rng_seed), reading.pieces, items(g, state, seat))


Wanted = Callable[[Any, int, Action, Any, bool], bool]
"""(state before, seat, action, state after, whether it drew) -> is this the step wanted?"""


def find_step(g: Game[Any], players: int, seeds: Iterable[int], wanted: Wanted,
              max_steps: int = 3000) -> tuple[Any, int, Action]:
    """A position reached by seeded random play (undo left out) and a legal action there that
    ``wanted`` accepts; raises if none is found (a test then says what it looked for)."""
    for seed in seeds:
        rng = Rng.from_seed(f"walk-{seed}")
        state, _ = start(g, players, seed)
        for _ in range(max_steps):
            active = g.active_seats(state)
            if not active:
                break
            seat = active[0]
            legal = without_undo(g.legal_actions(state, seat))
            for action in legal:
                probe = Rng.from_seed("probe")
                after = g.apply(state, seat, action, probe).state
                if wanted(state, seat, action, after, probe.draws > 0):
                    return state, seat, action
            state = g.apply(state, seat, legal[rng.randbelow(len(legal))], rng).state
    raise LookupError("no such step in the seeded games")
