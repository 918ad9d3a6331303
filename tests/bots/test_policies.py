"""Every bot kind of every game, through the one door the service uses (:func:`bots.choose`).

* A bot decides from the seat's view only: two states that differ only in what the seat cannot
  see (a determinisation of its own view, hidden parts drawn afresh) get the same decision.
* Reproducible: the same view and stream give the same choice.
* Never illegal: many decisions from random positions of every game and player count.

The per-game files (test_<game>_bot.py) test each game's knowledge in depth; this one holds the
bot kinds to the contract, the search included (with small budgets: its decisions cost more).
"""

from __future__ import annotations

import pytest

from service import bots, games
from service.bots.search import Budget, search
from service.games.base import Rng
from service.games.undo import without_undo
from tests.helpers.positions import positions

GAMES = [g for g in ("el-capitan", "nauticus", "ophir") if bots.knowledge(g) is not None]
CASES = [(g, n) for g in GAMES for n in games.registry()[g].players]


def test_every_game_has_its_bots() -> None:
    assert GAMES == ["el-capitan", "nauticus", "ophir"]
    for g in GAMES:
        assert bots.kinds(g) == list(bots.ALL_KINDS)
        assert bots.strongest(g) == "search:hard"


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_hidden_information_does_not_change_a_decision(game_id: str, players: int) -> None:
    """The state itself never reaches a bot: a state whose hidden parts were drawn afresh (same
    view) gets the same choice from every kind, given the same stream."""
    game = games.registry()[game_id]
    know = bots.knowledge(game_id)
    assert know is not None
    differed = 0
    for i, (state, seat) in enumerate(positions(game, players, 6, f"hidden/{game_id}/{players}")):
        other = know.sample(game, game.view(state, seat), seat, Rng.from_seed(f"other/{i}"))
        assert game.view(other, seat) == game.view(state, seat)
        differed += game.dump(other) != game.dump(state)
        for kind in ("heuristic", "search:easy"):
            a = bots.choose(game, kind, state, seat, Rng.from_seed(f"bot/{i}"))
            b = bots.choose(game, kind, other, seat, Rng.from_seed(f"bot/{i}"))
            assert a == b, f"{kind} decided differently on the same view: {a} vs {b}"
    if game_id != "nauticus":  # Nauticus hides nothing: its samples are the state itself
        assert differed, "no sampled state differed in its hidden parts: the test would prove nothing"


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_same_view_same_seed_same_choice(game_id: str, players: int) -> None:
    game = games.registry()[game_id]
    for i, (state, seat) in enumerate(positions(game, players, 3, f"repro/{game_id}/{players}")):
        for kind in ("heuristic", "search:easy"):
            picks = [bots.choose(game, kind, state, seat, Rng.from_seed(f"r{i}")) for _ in range(2)]
            assert picks[0] == picks[1]


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_the_search_never_chooses_an_illegal_action(game_id: str, players: int) -> None:
    """A small budget keeps this quick; the budget changes how well it plays, not what it may play."""
    game = games.registry()[game_id]
    know = bots.knowledge(game_id)
    assert know is not None
    for i, (state, seat) in enumerate(positions(game, players, 12, f"legal/{game_id}/{players}")):
        legal = without_undo(game.legal_actions(state, seat))
        action = search(know, game, game.view(state, seat), seat, legal, Rng.from_seed(i), Budget(8, 4))
        assert action in legal
        game.apply(state, seat, action, Rng.from_seed(i))  # and the rules take it


@pytest.mark.soak  # many positions of every game for every kind of bot
@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_every_kind_never_chooses_an_illegal_action_over_many_positions(game_id: str, players: int) -> None:
    game = games.registry()[game_id]
    for i, (state, seat) in enumerate(positions(game, players, 300, f"many/{game_id}/{players}")):
        legal = without_undo(game.legal_actions(state, seat))
        for kind in ("random", "heuristic", "search:easy"):
            assert bots.choose(game, kind, state, seat, Rng.from_seed(i)) in legal


CHOICES = """
import json
from service import bots, games
from service.games.base import Rng
from tests.helpers.positions import positions
out = []
for game_id in ("el-capitan", "nauticus", "ophir"):
    game = games.registry()[game_id]
    for i, (state, seat) in enumerate(positions(game, 3, 2, "processes/" + game_id)):
        for kind in ("heuristic", "search:easy"):
            out.append(bots.choose(game, kind, state, seat, Rng.from_seed(i)))
print(json.dumps(out, sort_keys=True))
"""


def test_every_process_decides_the_same() -> None:
    """Bots decide alike in processes with different string hashing (PYTHONHASHSEED), as a
    worker, a retried job and ``portolan bot-run`` on another machine must."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        done = subprocess.run([sys.executable, "-c", CHOICES], cwd=root, env=env, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(done.stdout)
    assert runs[0] == runs[1] and len(runs[0]) > 100
