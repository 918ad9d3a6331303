"""The bots play an edition with its numbers (docs/editions.md): each game's knowledge reads the
numbers of the package its game came from, so a match of an edition is judged by the edition's
card and board values, not the shipped ones.

Each game gets an edition whose numbers move its estimate one way: El Capitán's raised city
tracks pay more at payday, bigger Nauticus ship VP, richer Ophir temple donations. The same
position, loaded by each game from one dump, must then be worth more to the bound game's bots.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from service import bots, games
from service.bots.knowledge import Greedy
from service.games import edition_check, editions
from service.games.base import Game, Rng
from service.games.undo import without_undo
from tests.helpers.editions import GAMES, changed_document, game


def _bigger_ships(data: dict[str, Any]) -> None:
    vp = data["end_scoring"]["ship_vp_by_size"]
    for size in vp:
        vp[size] += 5


def _richer_temple(data: dict[str, Any]) -> None:
    for metal in ("gold", "silver"):
        data["donation_vp"][metal] += 4


# on top of test_editions' changes (El Capitán's raised tracks already reach the bots' estimate:
# they raise what a majority pays at payday; Nauticus's prices and Ophir's card VP do not)
MORE: dict[str, Callable[[dict[str, Any]], None]] = {
    "el-capitan": lambda data: None, "nauticus": _bigger_ships, "ophir": _richer_temple}

POSITION_PLY = {"el-capitan": 120, "nauticus": 150, "ophir": 150}
"""How far a seeded heuristic match is played before its position is judged: mid-game, with
warehouses built, ships begun and metals in sight."""


def bound_game(game_id: str) -> Game[Any]:
    doc = changed_document(game_id, "bots")
    MORE[game_id](doc["data"])
    return editions.bind(game(game_id), edition_check.check(doc, games.registry()))


def knowledge(game_id: str) -> Greedy[Any]:
    know = bots.knowledge(game_id)
    assert isinstance(know, Greedy)
    return know


def position(g: Game[Any], players: int, plies: int, seed: str) -> Any:
    """The state after ``plies`` steps of a seeded heuristic match of ``g``."""
    rng = Rng.from_seed(seed)
    state = g.setup(players, g.validate_options({}, players), rng).state
    for ply in range(plies):
        seats = g.active_seats(state)
        assert seats, "the match ended before the position"
        legal = without_undo(g.legal_actions(state, seats[0]))
        action = bots.choose(g, "heuristic", state, seats[0], Rng.from_seed(f"{seed}/{ply}")) if len(legal) > 1 \
            else legal[0]
        state = g.apply(state, seats[0], action, rng).state
    return state


@pytest.mark.parametrize("game_id", GAMES)
def test_the_same_position_is_worth_more_with_the_richer_edition(game_id: str) -> None:
    shipped, bound = game(game_id), bound_game(game_id)
    know = knowledge(game_id)
    dump = shipped.dump(position(shipped, 3, POSITION_PLY[game_id], f"edition-estimate/{game_id}"))
    at_shipped, at_bound = shipped.load(dump), bound.load(dump)
    assert type(at_bound) is not type(at_shipped)  # the bound copy's own state class, with its numbers
    assert bound.outcome(at_bound) is None
    before, after = know.estimate(shipped, at_shipped), know.estimate(bound, at_bound)
    # every number changed pays more, never less: no seat loses, and the table gains
    assert all(b >= a for a, b in zip(before, after, strict=True)), (before, after)
    assert sum(after) > sum(before), (before, after)
    if game_id == "nauticus":  # every ship begun is worth more
        with_ships = [s for s, p in enumerate(at_shipped.players) if p.ships]
        assert with_ships and all(after[s] > before[s] for s in with_ships), (before, after)
    if game_id == "ophir":  # favor and coins buy metals, which donate for more
        assert all(b > a for a, b in zip(before, after, strict=True)), (before, after)
    # the shipped game's bots still judge by the shipped numbers
    assert know.estimate(shipped, shipped.load(dump)) == before


@pytest.mark.parametrize("game_id", GAMES)
def test_the_bots_play_a_whole_match_of_the_edition(game_id: str) -> None:
    """Every seat a bot (a search, then heuristics): each choice legal, each sample the seat's
    view of the bound game, and the match ends."""
    g = bound_game(game_id)
    know = knowledge(game_id)
    players = g.players.start
    rng = Rng.from_seed(f"edition-match/{game_id}")
    state = g.setup(players, g.validate_options({}, players), rng).state
    ply = 0
    while g.outcome(state) is None:
        seat = g.active_seats(state)[0]
        legal = without_undo(g.legal_actions(state, seat))
        view = g.view(state, seat)
        if ply % 25 == 0:
            assert g.view(know.sample(g, view, seat, Rng.from_seed(ply), legal), seat) == view
        kind = "search:easy" if ply < 4 else "heuristic"
        action = bots.choose(g, kind, state, seat, Rng.from_seed(f"edition-match/{game_id}/{ply}"))
        assert action in legal
        state = g.apply(state, seat, action, rng).state
        ply += 1
        assert ply < 20_000, "the match did not end"
    assert g.outcome(state) is not None


def test_rules_module_is_the_module_of_the_games_own_package() -> None:
    shipped, bound = game("ophir"), bound_game("ophir")
    assert editions.package_of(shipped) == "service.games.ophir"
    assert editions.rules_module(shipped, "data") is sys.modules["service.games.ophir.data"]
    copy = editions.rules_module(bound, "data")
    assert copy.__name__ == f"{editions.package_of(bound)}.data" != "service.games.ophir.data"
    doc = changed_document("ophir", "bots")
    MORE["ophir"](doc["data"])  # the numbers bound_game gave the copy, not the shipped ones
    assert copy.DONATION_VP["gold"] == doc["data"]["donation_vp"]["gold"]
    assert copy.DONATION_VP["gold"] > sys.modules["service.games.ophir.data"].DONATION_VP["gold"]
    with pytest.raises(ModuleNotFoundError):
        editions.rules_module(shipped, "no_such_module")
