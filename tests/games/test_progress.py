"""Progress: every game ends under deterministic and stalling policies (issue 9, finding 7).

Random playouts leave a cycle sooner or later; a deterministic policy does not. These tests play
the policies of :mod:`tests.games.progress` for every game and player count (El Capitán also with
every expansion) and assert the game ends within a bound derived from its rules:

* **Ophir**: the stalled-market ruling shifts the market once the turns reach 25 rounds per shift
  (``flow.STALL_ROUNDS_PER_SHIFT``) and the 37th shift ends the game, so at most 37 x 25 x n turns;
  a turn has at most 30 atomic steps (2 moves, influence, anchor, 2 rival moves, stop, rival trade,
  gather, trade, <= 4 sales, <= 2 metal buys and donations, goods donation, upgrade, end; doubled
  sites for the Harbormaster), plus 2 barriers and n draft picks.
* **El Capitán**: a turn places a piece, takes a voluntary loan (<= 30 per phase: the printed cards,
  held until payday) or is a forced loan turn; placements are bounded by the cities in play (each
  site filled at most twice, since the k-th shut-down vacates site k once, plus the fortress
  spaces). So a phase has at most (placements + 30 + n) turns, plus n for the round to finish; a
  turn has at most 2 x (2 x cards + 4) steps (each card bought and sailed at most once per try,
  the action, end, pirate; one undo doubles it). Forced loan turns are not bounded by a proof
  (see ``el_capitan.progress``); the measured games stay far below the bound.
* **Nauticus**: a fixed number of rounds (5, or 4 with 2 players); the harness budget is the
  conformance suite's 20,000 steps.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.games import registry
from service.games.base import Game
from service.games.el_capitan import data as ECD
from service.games.ophir.flow import STALL_ROUNDS_PER_SHIFT
from tests.games.progress import play, policies

ALL_EXPANSIONS = {"expansions": ["porto", "lisboa", "canarias"]}


def configs() -> list[tuple[Game[Any], int, dict[str, Any]]]:
    out: list[tuple[Game[Any], int, dict[str, Any]]] = []
    for game in registry().values():
        if not type(game).__module__.startswith("service.games."):
            continue  # the tests' fixture game is not a ruleset
        for n in game.players:
            out.append((game, n, {}))
            if game.id == "el-capitan":
                out.append((game, n, ALL_EXPANSIONS))
    return out


def step_bound(game: Game[Any], players: int, options: dict[str, Any]) -> int:
    """The most atomic actions a game can take under the rules and the progress rulings."""
    if game.id == "ophir":
        return 30 * STALL_ROUNDS_PER_SHIFT * 37 * players + 2 + players
    if game.id == "el-capitan":
        cities = [*ECD.BASE_CITIES, *(ECD.ALL_CITIES[e] for e in options.get("expansions", []))]
        placements = sum(2 * len(c.track) + len(c.fortresses) for c in cities)
        voluntary_loans = sum(ECD.LOAN_COPIES.values())
        turns = 3 * (placements + voluntary_loans + 2 * players)
        return turns * 2 * (2 * len(ECD.CARDS) + 4)
    return 20_000


CASES = configs()
IDS = [f"{g.id}-{n}p{'-all' if o else ''}" for g, n, o in CASES]


@pytest.mark.parametrize(("game", "players", "options"), CASES, ids=IDS)
def test_first_and_last_action_policies_end_the_game(game: Game[Any], players: int, options: dict[str, Any]) -> None:
    bound = step_bound(game, players, options)
    for name in ("first", "last"):
        result = play(game, players, options, policies(range(0))[name], budget=bound, stop_on_repeat=False)
        assert result.ended, f"{game.id} {players}p {options}: policy {name} did not end within {bound} actions"


@pytest.mark.soak  # every state of whole games hashed to find a repeat, for each sticky policy: a hunt
@pytest.mark.parametrize(("game", "players", "options"), CASES, ids=IDS)
def test_sticky_policies_never_repeat_a_state_and_end(game: Game[Any], players: int, options: dict[str, Any]) -> None:
    bound = step_bound(game, players, options)
    for name, policy in policies(range(2)).items():
        result = play(game, players, options, policy, seed=f"slow/{name}", budget=bound)
        assert result.repeated_at is None, (
            f"{game.id} {players}p: policy {name} repeated the state of step {result.first_seen} at "
            f"{result.repeated_at}: {result.cycle}")
        assert result.ended, f"{game.id} {players}p: policy {name} did not end within {bound} actions"
