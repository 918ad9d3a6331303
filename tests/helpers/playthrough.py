"""One recorded random playthrough per game, player count and seed, shared by every check that
walks a whole game (OpenSpiel's one simulation loop).

Before, the conformance, undo and player-words tests each replayed their own random games; the
games' rules ran three times for the same promise of "any position a player can reach". Here one
loop plays each ``(game, players, seed)`` once, with explicit seeded streams, and records every
step: the state before and after, the seat, its whole legal list (undo included), the action,
the events and how many draws the step made. The checks then read the same trajectory:

* tests/games/test_conformance.py: no crash, no dead end, no loop, every chosen legal action
  applies, dump/load is the identity, apply leaves its input alone, views are JSON and leak no
  face-down order;
* tests/games/test_undo.py: undo gives back the recorded state before, never past a draw or a
  reveal, and the undo data never shows;
* tests/games/test_player_words.py: the words of events, labels, views and refusals are plain.

The playthrough itself asserts nothing: what went wrong (an exception, a seat with no legal
action, no end within the bound) is recorded in :attr:`Playthrough.failure`, so each check says
in its own words what broke, and a broken game does not make every later check crash in the loop.

Seeds: :func:`default_seeds` is what the default run walks (one game per game and player count);
:data:`SLOW_SEEDS` the long budget under the ``slow`` marker. The cache is per process
(``functools.cache``): under pytest-xdist each worker plays what it needs once.
"""

from __future__ import annotations

import hashlib
import json
import traceback
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from service.games import registry
from service.games.base import Action, Game, Rng
from service.games.undo import UNDO, TurnUndo, without_undo
from tests.helpers.fixture_game import GAME as FIXTURE

SLOW_SEEDS = range(2, 10)
"""The longer budget (``-m slow``): every game and player count played with each of these seeds."""
MAX_STEPS = 20_000
"""A bound far above any game's length: a playthrough that reaches it has a loop."""
UNDO_SHARE = 4
"""Where undo is offered, the player takes it about one time in this many (and then maybe again)."""
EXPANSIONS = {"expansions": ["porto", "lisboa", "canarias"]}


def games() -> list[Game[Any]]:
    """Every registered game and the fixture game (the contract holds for a plugin game too)."""
    return list({FIXTURE.id: FIXTURE, **registry()}.values())


def canon(obj: Any) -> str:
    """The canonical JSON text of a dump: equal states, equal strings."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def digest(game: Game[Any], state: Any) -> str:
    """A digest of the state's canonical dump (hidden parts included): equal states, equal digests."""
    return text_digest(canon(game.dump(state)))


def text_digest(text: str) -> str:
    """The digest of a canonical dump already made (so a check that needs the text too dumps once)."""
    return hashlib.sha256(text.encode()).hexdigest()


def default_seeds(players: int) -> range:
    """The default run's seed for a player count: one game each (the slow run plays
    :data:`SLOW_SEEDS`); 0 or 1 by the count's parity, so that across the player counts both the
    base game and, for El Capitán, the expansions (odd seeds, :func:`options_for`) are walked."""
    return range(players % 2, players % 2 + 1)


def options_for(game: Game[Any], seed: int) -> dict[str, Any]:
    """The options a seed plays with: every other seed of El Capitán has all three expansion cities
    (so the pirate's rules and words are walked too), every other game its defaults."""
    return dict(EXPANSIONS) if game.id == "el-capitan" and seed % 2 else {}


@dataclass(frozen=True)
class Step:
    """One step of a playthrough, as it was played."""

    index: int
    seat: int
    active: tuple[int, ...]
    legal: list[Action]
    """The seat's whole legal list before the step, undo included (as a client is offered it)."""
    action: Action
    before: Any
    before_digest: str
    """:func:`digest` of ``before`` taken before ``apply`` ran (to check that apply left it alone,
    and what an undo must give back); a digest, not the text, to keep thousands of steps small."""
    after: Any
    events: list[dict[str, Any]]
    draws: int
    """How many words the step's Rng gave: a step that drew may never be undone."""
    idle_with_actions: tuple[int, ...]
    """Seats that were not active and yet had legal actions (undo aside): must be empty."""

    @property
    def is_undo(self) -> bool:
        return self.action.get("type") == UNDO

    @property
    def undo_offered(self) -> bool:
        return any(a.get("type") == UNDO for a in self.legal)


@dataclass(frozen=True)
class Playthrough:
    """One random game from setup to its end (or to what stopped it: see ``failure``)."""

    game: Game[Any]
    players: int
    seed: int
    options: dict[str, Any]
    setup_state: Any
    setup_events: list[dict[str, Any]]
    steps: tuple[Step, ...] = field(repr=False)
    final: Any = field(repr=False)
    failure: str | None
    """``None`` when the game ended; else what stopped it, in words (with the traceback)."""

    @property
    def name(self) -> str:
        return f"{self.game.id}/{self.players}p seed {self.seed}"

    @property
    def undos(self) -> int:
        return sum(step.is_undo for step in self.steps)

    def states(self) -> list[Any]:
        """Every state a player saw: after setup, then after each step."""
        return [self.setup_state, *(step.after for step in self.steps)]


def _choose(game: Game[Any], legal: list[Action], rng: Rng) -> Action:
    """Uniformly random among the game's steps; where undo is offered (always listed last), undo
    about one time in :data:`UNDO_SHARE`, so that the trajectory goes back and on from there."""
    steps = without_undo(legal)
    if isinstance(game, TurnUndo) and len(steps) < len(legal) and rng.randbelow(UNDO_SHARE) == 0:
        return {"type": UNDO}
    return steps[rng.randbelow(len(steps))]


@cache
def playthrough(game_id: str, players: int, seed: int) -> Playthrough:
    """Play (once per process) and record one random game of ``game_id`` with ``players`` seats.

    Three streams, each from its own seed string, so that a change in one does not shift the
    others: the setup's, the player's choices, and one per step for the game's chance."""
    game = {g.id: g for g in games()}[game_id]
    options = options_for(game, seed)
    choices = Rng.from_seed(f"playthrough/{game.id}/{players}/{seed}")
    state, setup_events = game.setup(players, game.validate_options(options, players), Rng.from_seed(f"setup/{seed}"))
    first, failure = state, None
    steps: list[Step] = []
    try:
        while active := game.active_seats(state):
            if len(steps) >= MAX_STEPS:
                failure = f"no end after {MAX_STEPS} steps (a loop)"
                break
            seat = active[choices.randbelow(len(active))]
            legal = game.legal_actions(state, seat)
            if not without_undo(legal):
                failure = f"seat {seat} must act at step {len(steps)} but has no legal action (a dead end)"
                break
            idle = tuple(s for s in range(players) if s not in active and without_undo(game.legal_actions(state, s)))
            action = _choose(game, legal, choices)
            before_digest = digest(game, state)
            step_rng = Rng.from_seed(f"{seed}/{len(steps)}")
            after, events = game.apply(state, seat, action, step_rng)
            steps.append(Step(len(steps), seat, tuple(active), legal, action, state, before_digest, after, events,
                              step_rng.draws, idle))
            state = after
    except Exception:  # the checks report it; a crash is what the conformance check is for
        failure = f"crashed at step {len(steps)}:\n{traceback.format_exc()}"
    return Playthrough(game, players, seed, options, first, setup_events, tuple(steps), state, failure)


