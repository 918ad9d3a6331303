"""Rules-engine throughput: seeded random playouts of one game, per player count.

    python -m bench.engine el-capitan [--games 20] [--players 2,3]

Prints games/s and actions/s for each player count (one core, the process this runs in), and
the share of time spent listing legal actions versus applying them. Nothing here is asserted:
the figures go into the closing notes.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from service.games import registry
from service.games.base import Game, Rng
from service.games.undo import without_undo


def run(game: Game[Any], players: int, games: int) -> dict[str, float]:
    actions = 0
    t_legal = t_apply = 0.0
    start = time.perf_counter()
    for seed in range(games):
        pick = Rng.from_seed(f"bench/{seed}")
        state, _ = game.setup(players, game.validate_options({}), Rng.from_seed(seed))
        while True:
            active = game.active_seats(state)
            if not active:
                break
            seat = active[0]
            t0 = time.perf_counter()
            legal = without_undo(game.legal_actions(state, seat))
            t1 = time.perf_counter()
            state, _ = game.apply(state, seat, legal[pick.randbelow(len(legal))], Rng.from_seed(actions))
            t_apply += time.perf_counter() - t1
            t_legal += t1 - t0
            actions += 1
    elapsed = time.perf_counter() - start
    return {
        "games_per_s": games / elapsed,
        "actions_per_s": actions / elapsed,
        "actions_per_game": actions / games,
        "legal_share": t_legal / elapsed,
        "apply_share": t_apply / elapsed,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=sorted(registry()))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", default="")
    args = parser.parse_args(argv)
    game = registry()[args.game]
    counts = [int(p) for p in args.players.split(",") if p] or list(game.players)
    print(f"{game.title}: {args.games} random playouts per player count")
    print(f"{'players':>7} {'games/s':>9} {'actions/s':>10} {'actions/game':>13} {'legal%':>7} {'apply%':>7}")
    for n in counts:
        r = run(game, n, args.games)
        print(
            f"{n:>7} {r['games_per_s']:>9.1f} {r['actions_per_s']:>10.0f} {r['actions_per_game']:>13.0f}"
            f" {100 * r['legal_share']:>6.0f}% {100 * r['apply_share']:>6.0f}%"
        )


if __name__ == "__main__":
    main()
