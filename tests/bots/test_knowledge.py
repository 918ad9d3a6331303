"""Each game's knowledge: the determinisation rebuilds what the seat sees, the heuristic is legal
and plays far better than chance, and the estimate sees who is ahead.

Positions come from seeded play; strength from seeded arena matches against uniform random
(deterministic: the same seeds always give the same matches).
"""

from __future__ import annotations

from typing import Any

import pytest

from service import bots, games
from service.bots import arena
from service.bots.heuristic import heuristic_policy
from service.bots.policy import uniform_random
from service.games.base import Game, Rng
from service.games.undo import without_undo

GAMES = ("el-capitan", "nauticus", "ophir")
CASES = [(g, n) for g in GAMES for n in games.registry()[g].players]


def walk(game: Game[Any], players: int, seed: str, kinds: tuple[str, ...] = ("random",)) -> list[tuple[Any, int]]:
    """Every position of one seeded match (state, acting seat); seat ``i`` plays ``kinds[i % len(kinds)]``."""
    rng = Rng.from_seed(seed)
    state = game.setup(players, game.validate_options({}, players), rng).state
    out = []
    step = 0
    while game.outcome(state) is None:
        seat = game.active_seats(state)[0]
        legal = without_undo(game.legal_actions(state, seat))
        out.append((state, seat))
        kind = kinds[seat % len(kinds)]
        action = bots.choose(game, kind, state, seat, Rng.from_seed(f"{seed}/{step}")) if len(legal) > 1 else legal[0]
        state = game.apply(state, seat, action, rng).state
        step += 1
    return out


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_a_sample_shows_the_seat_exactly_its_view(game_id: str, players: int) -> None:
    """``view(sample) == view`` everywhere; the legal actions agree too, except where El Capitán's
    progress ruling on loans looks back at the turn's start, which its view does not show
    (service/bots/el_capitan.py): a loan turn or a dead-end pass, in a few positions in a hundred
    (more where random play has taken most of the printed loan cards)."""
    game = games.registry()[game_id]
    know = bots.knowledge(game_id)
    assert know is not None
    positions = walk(game, players, f"sample/{game_id}", ("heuristic",))
    differ = 0
    for i, (state, seat) in enumerate(positions[::3]):
        view, legal = game.view(state, seat), without_undo(game.legal_actions(state, seat))
        sample = know.sample(game, view, seat, Rng.from_seed(i), legal)
        assert game.view(sample, seat) == view
        offered = without_undo(game.legal_actions(sample, seat))
        if offered != legal:
            differ += 1
            assert {a["type"] for a in offered if a not in legal} | {a["type"] for a in legal if a not in offered} <= {
                "take-loan", "pass"}
    allowed = 0.03 * len(positions[::3]) if game_id == "el-capitan" else 0
    assert differ <= allowed, f"{differ} of {len(positions[::3])} samples offer other legal actions"


@pytest.mark.parametrize("game_id", GAMES)
def test_hidden_parts_are_drawn_afresh(game_id: str) -> None:
    """Samples of one view differ where the seat cannot see (Nauticus hides nothing)."""
    game = games.registry()[game_id]
    know = bots.knowledge(game_id)
    assert know is not None
    state, seat = walk(game, 3, f"fresh/{game_id}")[40]
    view = game.view(state, seat)
    dumps = {str(game.dump(know.sample(game, view, seat, Rng.from_seed(k)))) for k in range(4)}
    assert (len(dumps) == 1) == (game_id == "nauticus")


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_the_heuristic_never_chooses_an_illegal_action(game_id: str, players: int) -> None:
    game = games.registry()[game_id]
    decide = heuristic_policy(bots.knowledge(game_id))  # type: ignore[arg-type]
    positions = walk(game, players, f"legal/{game_id}")
    for i, (state, seat) in enumerate(positions[:: max(1, len(positions) // 400)]):
        legal = without_undo(game.legal_actions(state, seat))
        assert decide(game, game.view(state, seat), seat, legal, Rng.from_seed(i)) in legal


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_the_heuristic_beats_random_play(game_id: str, players: int) -> None:
    """Seeded matches, the heuristic in one seat (turning), random play in the others."""
    game = games.registry()[game_id]
    heuristic = bots.policy(game_id, "heuristic")
    assert heuristic is not None
    won = 0
    for seed in range(4):
        seat = seed % players
        played = arena.play(game, [heuristic if s == seat else uniform_random for s in range(players)],
                            f"strength/{game_id}/{players}/{seed}")
        won += played.outcome.ranks[seat] == 1
    assert won == 4, f"the heuristic won {won} of 4 against random play"


@pytest.mark.parametrize("game_id", GAMES)
def test_the_estimate_ranks_the_leader_of_a_lopsided_match_first(game_id: str) -> None:
    """Halfway through a heuristic-against-random match the heuristic's seat stands best."""
    game = games.registry()[game_id]
    know = bots.knowledge(game_id)
    assert know is not None
    positions = walk(game, 2, f"lopsided/{game_id}", ("heuristic", "random"))
    state, _ = positions[len(positions) // 2]
    values = know.evaluate(game, state)
    assert all(0.0 <= v <= 1.0 for v in values)
    assert values[0] > values[1]  # seat 0 plays the heuristic
