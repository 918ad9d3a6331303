"""Golden replays (docs/architecture.md, "Tests and CI"): a recorded seed, options and action log with checkpoints.

Replaying the log through the current rules must reproduce every checkpoint (a digest of the
canonical state dump plus a few readable numbers). A rules change that alters a golden file
must say why; regenerate with ``python -m tests.games.ophir.test_golden``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from service.games.base import Rng
from service.games.ophir import GAME
from service.games.ophir.state import State
from service.games.undo import without_undo

GOLDEN = Path(__file__).with_name("golden")
CASES = [("2p-seed42", 2, 42, {}, 400), ("3p-seed7-random-barriers", 3, 7, {"barriers": "random"}, 400),
         ("4p-seed3", 4, 3, {}, 400)]
EVERY = 100


def _digest(state: State) -> str:
    # the rules position only: the undo trail (what the acting seat may take back) came later
    text = json.dumps(GAME.dump(GAME.with_undo(state, None)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _summary(state: State) -> dict[str, Any]:
    return {"phase": state.phase, "active": state.active, "tier": state.tier, "deck": len(state.deck),
            "vp": [p.vp for p in state.seats], "coins": [p.coins for p in state.seats],
            "favor": [p.favor for p in state.seats], "digest": _digest(state)}


def record(players: int, seed: int, options: dict[str, Any], plies: int) -> dict[str, Any]:
    """Play ``plies`` uniformly random actions and record them with checkpoints."""
    state, _ = GAME.setup(players, GAME.validate_options(options), Rng.from_seed(f"golden-setup/{seed}"))
    pick = Rng.from_seed(f"golden-pick/{seed}")
    actions: list[dict[str, Any]] = []
    checkpoints: dict[str, Any] = {"0": _summary(state)}
    while GAME.active_seats(state) and len(actions) < plies:
        seat = GAME.active_seats(state)[0]
        legal = without_undo(GAME.legal_actions(state, seat))
        action = legal[pick.randbelow(len(legal))]
        state, _ = GAME.apply(state, seat, action, Rng.from_seed(f"golden-ply/{seed}/{len(actions)}"))
        actions.append({"seat": seat, "action": action})
        if len(actions) % EVERY == 0:
            checkpoints[str(len(actions))] = _summary(state)
    return {"game": GAME.id, "players": players, "seed": seed, "options": options,
            "rng": "setup Rng.from_seed('golden-setup/<seed>'); ply k Rng.from_seed('golden-ply/<seed>/<k>')",
            "actions": actions, "checkpoints": checkpoints}


@pytest.mark.parametrize(("name", "players", "seed", "options", "plies"), CASES, ids=[c[0] for c in CASES])
def test_golden_replay(name: str, players: int, seed: int, options: dict[str, Any], plies: int) -> None:
    data = json.loads((GOLDEN / f"{name}.json").read_text())
    state, _ = GAME.setup(data["players"], GAME.validate_options(data["options"]),
                          Rng.from_seed(f"golden-setup/{data['seed']}"))
    assert _summary(state) == data["checkpoints"]["0"]
    for ply, step in enumerate(data["actions"], start=1):
        assert step["action"] in without_undo(GAME.legal_actions(state, step["seat"])), f"ply {ply} is no longer legal"
        state, _ = GAME.apply(state, step["seat"], step["action"], Rng.from_seed(f"golden-ply/{data['seed']}/{ply - 1}"))
        if str(ply) in data["checkpoints"]:
            assert _summary(state) == data["checkpoints"][str(ply)], f"checkpoint {ply} differs"


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name, players, seed, options, plies in CASES:
        (GOLDEN / f"{name}.json").write_text(json.dumps(record(players, seed, options, plies), indent=None,
                                                        separators=(",", ":")) + "\n")
        print("wrote", name)
