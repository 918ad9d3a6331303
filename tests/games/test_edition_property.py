"""Issue 28, F8: an edition that passes the check plays. Hypothesis varies a few numbers of each
game's data within the bounds its schema gives (the divisors, the counts, the deck and dice
sizes: the numbers most likely to stop a match), keeps what :func:`edition_check.check` passes
(schema, shape and the game's own rules; not the trial, which is only a last net), and plays a
whole random match with it, scored after every move as the service does: no exception, and it
ends. A small budget in the default suite, a bigger one under ``slow``."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from service import games
from service.games import edition_check, editions
from service.games.base import Game, Rng
from tests.helpers.editions import game

VARIED: dict[str, list[str]] = {
    "nauticus": ["rounds_by_player_count.2", "rounds_by_player_count.3", "rounds_by_player_count.4",
                 "action_phases_per_round", "end_scoring.thaler_per_vp", "warehouse.capacity", "warehouse.mast_size",
                 "ship_rewards.max_same_per_ship", "start.thaler", "crown_scoring_cap_per_use"],
    "ophir": ["dice.sides", "dice.player_start", "market.demand_stands", "market.remove_from_A", "cargo.base_holds",
              "barriers.count", "draft.extra_cards", "metal_spaces_per_tier", "navigation.moves", "favor_price.gold"],
    "el-capitan": ["rules.phases", "rules.run_limit", "rules.bonus_cities", "display.destination",
                   "display.connection", "start_money", "loans.0.amount", "per_phase_supply.warehouses",
                   "cities.0.track.3"],
}
"""The numbers varied per game (dotted paths into its data; a digit is a list index)."""

PLIES = 40_000
"""More moves than any match of numbers within the bounds takes; a match that goes on is a failure."""


def _bounds(g: Game[Any], path: str) -> tuple[int, int]:
    """The schema's minimum and maximum of the integer at ``path``."""
    node = edition_check.data_schema(g)
    for part in path.split("."):
        node = node["properties"][part] if part in node.get("properties", {}) else node["items"]
    assert node["type"] == "integer" and "minimum" in node and "maximum" in node, path
    return int(node["minimum"]), int(node["maximum"])


def _with(doc: dict[str, Any], path: str, value: int) -> None:
    node: Any = doc["data"]
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[int(parts[-1]) if isinstance(node, list) else parts[-1]] = value


@st.composite
def varied(draw: st.DrawFn, game_id: str) -> tuple[dict[str, Any], int, str]:
    """An edition document of ``game_id`` with a few of its numbers drawn within the schema,
    a player count and a seed."""
    g = game(game_id)
    doc = copy.deepcopy(edition_check.template(g))
    doc["edition"] = "drawn"
    for path in draw(st.lists(st.sampled_from(VARIED[game_id]), min_size=1, max_size=4, unique=True)):
        low, high = _bounds(g, path)
        # the ends of the range are where the rules break: draw them often
        value = draw(st.one_of(st.sampled_from([low, high]), st.integers(low, high)))
        _with(doc, path, value)
        note(f"{path} = {value}")  # a failure shows the numbers that broke the match
    return doc, draw(st.sampled_from(list(g.players))), draw(st.text("abcdef0123456789", min_size=1, max_size=8))


def plays_whole(game_id: str, doc: dict[str, Any], players: int, seed: str) -> None:
    """Check ``doc``; when it passes, play a random match of it to its end (scored every move)."""
    try:
        edition = edition_check.check(doc, games.registry())
    except edition_check.EditionError:
        assume(False)  # refused by the check, naming a field: nothing to play; draw another
        return
    bound = editions.bind(game(game_id), edition)
    pick = Rng.from_seed(f"moves:{seed}")
    state, _ = bound.setup(players, bound.validate_options({}, players), Rng.from_seed(f"setup:{seed}"))
    for ply in range(PLIES):
        seats = bound.active_seats(state)
        bound.outcome(state)
        if not seats:
            break
        legal = bound.legal_actions(state, seats[0])
        assert legal, f"seat {seats[0]} has nothing legal at ply {ply}"
        state, _ = bound.apply(state, seats[0], legal[pick.randbelow(len(legal))], Rng.from_seed(f"{seed}:{ply}"))
    else:
        pytest.fail(f"the match did not end in {PLIES} moves")
    assert bound.outcome(state) is not None
    bound.view(state, None)


def _property(game_id: str, examples: int) -> Any:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(drawn=varied(game_id))
    def run(drawn: tuple[dict[str, Any], int, str]) -> None:
        plays_whole(game_id, *drawn)
    return run


# El Capitán's random match takes about 3 s: it is played under slow only
@pytest.mark.parametrize(("game_id", "examples"), [("nauticus", 4), ("ophir", 1)])
def test_an_edition_that_passes_the_check_plays_a_whole_match(game_id: str, examples: int) -> None:
    _property(game_id, examples)()


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "examples"), [("nauticus", 24), ("ophir", 10), ("el-capitan", 5)])
def test_many_editions_that_pass_the_check_play_whole_matches(game_id: str, examples: int) -> None:
    _property(game_id, examples)()
