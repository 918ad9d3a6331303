"""Bot strength: seeded matches between bot kinds, per game and player count.

    python -m bench.bots [--games el-capitan,nauticus,ophir] [--players 2,3,4]
                         [--pairs heuristic/random,search/heuristic,search:hard/search:easy]
                         [--matches 40] [--jobs 2]

For each pairing ``A/B`` one seat plays ``A`` and every other seat ``B`` (the seat of ``A``
turns with the match number, so no seat's edge favours either). A match counts as a win of ``A``
when ``A`` ranks first alone, half a win when it shares first place. The table prints ``A``'s
win rate with its 95 % Wilson interval beside the fair share ``1/n``, ``A``'s average final
margin (its score minus the best other seat's, in the game's own points), the match length,
and the decision times (p50/p99, forced steps excluded) of each kind. Nothing here is asserted:
the figures go into the closing notes.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from service import bots, games
from service.bots import arena

DEFAULT_PAIRS = ("heuristic/random", "search/heuristic", "search:hard/search:easy")


@dataclass
class Tally:
    """What the matches of one pairing came to."""

    wins: float = 0.0
    matches: int = 0
    margins: list[float] = field(default_factory=list)
    plies: list[int] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=dict)


def one_match(game_id: str, players: int, a: str, b: str, seed: int) -> tuple[float, float, int, dict[str, list[float]]]:
    """Play one seeded match with ``a`` in seat ``seed % players``: (win, margin, plies, times)."""
    game = games.get(game_id)
    assert game is not None
    seat_a = seed % players
    kinds = [a if s == seat_a else b for s in range(players)]
    policies = []
    for kind in kinds:
        chosen = bots.policy(game_id, kind)
        assert chosen is not None, f"{game_id} has no bot {kind}"
        policies.append(chosen)
    played = arena.play(game, policies, f"bench/{game_id}/{players}/{a}/{b}/{seed}", timed=True)
    ranks, scores = played.outcome.ranks, played.outcome.scores
    firsts = sum(1 for r in ranks if r == 1)
    win = (1.0 / firsts) if ranks[seat_a] == 1 else 0.0
    margin = scores[seat_a] - max(s for i, s in enumerate(scores) if i != seat_a)
    times: dict[str, list[float]] = {}
    for s, kind in enumerate(kinds):
        times.setdefault(kind, []).extend(played.decision_s[s])
    return win, float(margin), played.plies, times


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate (half wins count as half)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="el-capitan,nauticus,ophir")
    p.add_argument("--players", default="", help="player counts (default: every count the game has)")
    p.add_argument("--pairs", default=",".join(DEFAULT_PAIRS), help="A/B pairings, comma separated")
    p.add_argument("--matches", type=int, default=40, help="matches per game, player count and pairing")
    p.add_argument("--jobs", type=int, default=2, help="processes playing matches side by side")
    args = p.parse_args(argv)
    pairs = [tuple(pair.split("/", 1)) for pair in args.pairs.split(",") if pair]
    print(f"bot strength: {args.matches} matches per row, {args.jobs} processes; win = A ranks first "
          "(a shared first counts half); 95 % Wilson interval", flush=True)
    header = (f"{'game':<11} {'n':>1} {'A':<14} {'B':<14} {'A wins':>7} {'95% CI':>13} {'fair':>5} "
              f"{'margin':>7} {'plies':>6} {'A p50/p99 ms':>14} {'B p50/p99 ms':>14}")
    print(header)
    print("-" * len(header), flush=True)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for game_id in args.games.split(","):
            game = games.get(game_id)
            if game is None:
                print(f"no game {game_id!r}", file=sys.stderr)
                return 2
            counts = [int(c) for c in args.players.split(",")] if args.players else list(game.players)
            for players in counts:
                for a, b in pairs:
                    tally = Tally()
                    futures = [pool.submit(one_match, game_id, players, a, b, seed) for seed in range(args.matches)]
                    for future in futures:
                        win, margin, plies, times = future.result()
                        tally.wins += win
                        tally.matches += 1
                        tally.margins.append(margin)
                        tally.plies.append(plies)
                        for kind, ts in times.items():
                            tally.times.setdefault(kind, []).extend(ts)
                    low, high = wilson(tally.wins, tally.matches)
                    ta, tb = tally.times.get(a, []), tally.times.get(b, [])
                    print(f"{game_id:<11} {players:>1} {a:<14} {b:<14} {tally.wins / tally.matches:>7.1%} "
                          f"{f'{low:.0%}-{high:.0%}':>13} {1 / players:>5.0%} {statistics.mean(tally.margins):>7.1f} "
                          f"{statistics.mean(tally.plies):>6.0f} "
                          f"{f'{_pct(ta, .5) * 1e3:.1f}/{_pct(ta, .99) * 1e3:.0f}':>14} "
                          f"{f'{_pct(tb, .5) * 1e3:.1f}/{_pct(tb, .99) * 1e3:.0f}':>14}", flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
