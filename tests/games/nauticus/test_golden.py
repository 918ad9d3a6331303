"""Golden replays (docs/architecture.md, "Tests and CI"): a recorded game replayed through the current rules must reproduce the
recorded checkpoints. A rules change that alters a golden file must say why; regenerate with
``NAUTICUS_REGOLD=1 pytest tests/games/nauticus/test_golden.py``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from service.games.base import Rng
from service.games.nauticus import GAME
from service.games.nauticus.state import State
from service.games.undo import without_undo

GOLDEN = Path(__file__).with_name("golden")
GAMES = [("random-2p", 2, 11), ("random-3p", 3, 12), ("random-4p", 4, 13)]


def _checkpoint(step: int, s: State) -> dict[str, Any]:
    return {
        "step": step,
        "round": s.round,
        "phase": s.phase,
        "players": [[p.vp, p.thaler, p.workers, len(p.warehouse), len(p.ships)] for p in s.players],
    }


def _record(players: int, seed: int) -> dict[str, Any]:
    pick = Rng.from_seed(f"golden/{seed}")
    s = GAME.setup(players, {}, Rng.from_seed(f"golden-setup/{seed}")).state
    actions: list[list[Any]] = []
    checkpoints = []
    while GAME.active_seats(s):
        seat = GAME.active_seats(s)[0]
        legal = without_undo(GAME.legal_actions(s, seat))
        action = legal[pick.randbelow(len(legal))]
        s = GAME.apply(s, seat, action, Rng.from_seed(f"golden/{seed}/{len(actions)}")).state
        actions.append([seat, action])
        if len(actions) % 40 == 0:
            checkpoints.append(_checkpoint(len(actions), s))
    out = GAME.outcome(s)
    assert out is not None
    return {
        "players": players,
        "setup_rng": f"golden-setup/{seed}",
        "apply_rng": f"golden/{seed}/<ply>",
        "actions": actions,
        "checkpoints": checkpoints,
        "scores": list(out.scores),
        "ranks": list(out.ranks),
    }


@pytest.mark.parametrize(("name", "players", "seed"), GAMES)
def test_golden_replay(name: str, players: int, seed: int) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("NAUTICUS_REGOLD"):
        path.write_text(json.dumps(_record(players, seed), separators=(",", ":")) + "\n", encoding="utf-8")
    golden = json.loads(path.read_text(encoding="utf-8"))
    s = GAME.setup(golden["players"], {}, Rng.from_seed(golden["setup_rng"])).state
    marks = {c["step"]: c for c in golden["checkpoints"]}
    for ply, (seat, action) in enumerate(golden["actions"]):
        assert action in without_undo(GAME.legal_actions(s, seat)), f"ply {ply}: {action} is no longer legal"
        s = GAME.apply(s, seat, action, Rng.from_seed(golden["apply_rng"].replace("<ply>", str(ply)))).state
        if ply + 1 in marks:
            assert _checkpoint(ply + 1, s) == marks[ply + 1]
    out = GAME.outcome(s)
    assert out is not None
    assert list(out.scores) == golden["scores"] and list(out.ranks) == golden["ranks"]
