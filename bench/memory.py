"""Redis memory per match: bytes per ply, a mid-game match, and what archiving leaves behind.

    python -m bench.memory [--games el-capitan,nauticus,ophir] [--players 3] [--bot heuristic]

For each game it starts a Redis of its own (``service.storage.embedded``, no persistence), plays
one all-bot match to the end through the use cases (``Matches.server_move``: the same commit, log
entry and outbox append as a move over HTTP), and reads ``MEMORY USAGE`` of every key of the match
(meta, state, log, envelope index, seed) every few plies. It prints:

* ``plies`` and the bytes per ply at the end (all of the match's keys over its log length; the
  outbox stream, shared by the matches of a bucket and trimmed after 7 days, is left out);
* a **mid-game** match: the keys' bytes when the match was half as long as it ended;
* the log alone per entry, the state, the meta;
* after ``Store.archive``: the bytes left in Redis (the tombstone) and the archive document's size.

Nothing here is asserted; the figures go into the notes.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import redis

from service.config import Settings
from service.proof import signing
from service.runtime import build
from service.storage.embedded import EmbeddedRedis
from service.storage.keys import bucket_of


def _sizes(r: redis.Redis, namespace: str, match_id: str) -> dict[str, int]:
    """MEMORY USAGE of each key of one match, by its part (meta, state, log, envs, seed)."""
    out = {}
    for part in ("meta", "state", "log", "envs", "seed"):
        used = r.memory_usage(f"{namespace}m:{{{bucket_of(match_id)}}}:{match_id}:{part}", samples=0)
        if used:
            out[part] = int(used)
    return out


def measure(url: str, folder: Path, game_id: str, players: int, bot: str) -> dict[str, Any]:
    """Play one all-bot match and measure it (see the module)."""
    namespace = f"mem-{game_id}:"
    settings = Settings(redis_url=url, smtp_url=None, outbox_dir=str(folder / "outbox"), public_url="http://bench",
                        namespace=namespace, server_key=None, mail_from="Bench <bench@portolan.invalid>")
    matches = build(settings)
    r = redis.Redis.from_url(url)
    creator = signing.public_key_of(signing.generate_private_key())
    made = matches.create(game_id, {}, [{"bot": bot}] * players, creator_key=creator)
    mid = str(made["id"])
    trace: list[tuple[int, int]] = []
    for _ in range(20_000):
        meta = matches.meta(mid)
        if meta.status != "active":
            break
        matches.server_move(mid, meta.active[0], meta.ply)
        ply = meta.ply + 1
        if ply % 5 == 0:
            trace.append((ply, sum(_sizes(r, namespace, mid).values())))
    final = _sizes(r, namespace, mid)
    plies = matches.store.log_length(mid)
    half = min(trace, key=lambda t: abs(t[0] - plies / 2)) if trace else (0, 0)
    steps = sum(len(e["envelope"]["actions"]) for e in matches.store.log(mid))
    matches.store.archive(mid)
    left = sum(_sizes(r, namespace, mid).values())
    doc = Path(settings.archive_place, mid[0], f"{mid}.json.gz").stat().st_size
    return {"game": game_id, "players": players, "plies": plies, "steps": steps, "total": sum(final.values()),
            "per_ply": sum(final.values()) / max(plies, 1), "log_per_entry": final.get("log", 0) / max(plies, 1),
            "mid_ply": half[0], "mid_bytes": half[1], "state": final.get("state", 0), "meta": final.get("meta", 0),
            "envs": final.get("envs", 0), "tombstone": left, "archive_doc": doc}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", default="el-capitan,nauticus,ophir")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--bot", default="heuristic", help="the bot kind of every seat (default heuristic)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="portolan-mem-") as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", durable=False)
        url = server.start()
        try:
            print(f"Redis bytes per match ({args.players} players, every seat bot:{args.bot}; MEMORY USAGE of the "
                  "match's keys; a ply is one move, a bot's move holds its whole turn)")
            header = (f"{'game':<11} {'plies':>5} {'steps':>5} {'bytes/ply':>9} {'log/entry':>9} {'mid-game':>14} "
                      f"{'state':>6} {'meta':>6} {'envs':>6} {'archived: left':>14} {'doc':>7}")
            print(header)
            print("-" * len(header), flush=True)
            for game_id in args.games.split(","):
                m = measure(url, Path(tmp) / game_id, game_id, args.players, args.bot)
                print(f"{m['game']:<11} {m['plies']:>5} {m['steps']:>5} {m['per_ply']:>9.0f} {m['log_per_entry']:>9.0f} "
                      f"{m['mid_bytes']:>8} @{m['mid_ply']:<5} {m['state']:>6} {m['meta']:>6} {m['envs']:>6} "
                      f"{m['tombstone']:>14} {m['archive_doc']:>7}", flush=True)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
