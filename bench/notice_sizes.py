"""Turn-notice sizes (issue 27, part 2): the bytes of the whole ``.eml`` as sent, over positions of
the recorded random playthroughs of every game and player count (tests/helpers/notice_sizes.py),
and of the board picture in it; max, median and min per game and player count, against the
budget of service.delivery.letters.NOTICE_BUDGET.

    .venv/bin/python -m bench.notice_sizes [--positions 12] [--seed 0] [--save /tmp/notices]

Starts a Redis of its own (no persistence) unless ``REDIS_URL`` is set; it writes only to a
namespace of its own. ``--save`` writes each notice's PNG and HTML there, to look at.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import tempfile
from pathlib import Path

from service.config import Settings
from service.runtime import build
from service.storage.embedded import EmbeddedRedis


def main() -> None:
    """Print the sizes; optionally save the pictures and HTML parts."""
    from service.delivery.letters import NOTICE_BUDGET
    from tests.helpers.notice_sizes import GAMES, match_for, notices, sample
    from tests.helpers.playthrough import playthrough

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=12, help="positions sampled per game and player count")
    parser.add_argument("--seed", type=int, default=0, help="the playthrough seed")
    parser.add_argument("--save", type=Path, help="a folder to write each notice's PNG and HTML into")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        redis = None
        url = os.environ.get("REDIS_URL")
        if not url:
            redis = EmbeddedRedis(tmp, durable=False)
            url = redis.start()
        try:
            settings = Settings(redis_url=url, smtp_url=None, outbox_dir=str(Path(tmp) / "outbox"),
                                public_url="http://portolan.example", namespace=f"bench-{secrets.token_hex(4)}",
                                server_key=None, mail_from="Portolan <turns@portolan.example>")
            m = build(settings)
            print(f"budget {NOTICE_BUDGET} bytes; {args.positions} positions per game and player count, seed {args.seed}")
            print(f"{'game':<11} {'p':>2} {'max':>7} {'median':>7} {'min':>7} {'png max':>8} {'no pic':>6}")
            for game_id in GAMES:
                sizes: list[int] = []
                for players in _counts(game_id):
                    play = playthrough(game_id, players, args.seed)
                    found = notices(m, settings, match_for(m, game_id, players), play, sample(play, args.positions))
                    own = [n.size for n in found]
                    sizes += own
                    pngs = [len(n.mail.images[0].png) for n in found if n.mail.images]
                    print(f"{game_id:<11} {players:>2} {max(own):>7} {statistics.median(own):>7.0f} {min(own):>7} "
                          f"{max(pngs, default=0):>8} {sum(not n.mail.images for n in found):>6}")
                    if args.save:
                        args.save.mkdir(parents=True, exist_ok=True)
                        for n in found:
                            name = f"{game_id}-{players}p-{n.step:05d}"
                            (args.save / f"{name}.html").write_text(n.mail.html)
                            if n.mail.images:
                                (args.save / f"{name}.png").write_bytes(n.mail.images[0].png)
                print(f"{game_id:<11} all {max(sizes):>7} {statistics.median(sizes):>7.0f} {min(sizes):>7}")
        finally:
            if redis is not None:
                redis.stop()


def _counts(game_id: str) -> range:
    from service.games import registry

    return registry()[game_id].players


if __name__ == "__main__":
    main()
