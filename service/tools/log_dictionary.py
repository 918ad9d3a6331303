"""How ``service/storage/data/log-dictionary-1.bin`` was made (run once; the file is frozen).

    python -m service.tools.log_dictionary OUT.bin

It starts a Redis of its own, plays one seeded all-heuristic-bot match of each game (3 seats),
and concatenates the msgpack form (as :mod:`service.storage.log_codec` writes it, before
compression) of entries spread over each match, up to 30 KB (used as raw content by zstd). The
dictionary only primes the compression: any entry of any game compresses with it, typical ones
better. It must never change once entries were written with it (the codec checks its SHA-256):
a new dictionary is a new codec version.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import msgpack

from service.config import Settings
from service.proof import signing
from service.runtime import build
from service.storage import log_codec
from service.storage.embedded import EmbeddedRedis

PER_GAME = 10_000


def sample_entries(url: str, folder: Path, game_id: str) -> list[bytes]:
    """The msgpack bodies of the log entries of one seeded all-bot match of ``game_id``."""
    settings = Settings(redis_url=url, smtp_url=None, outbox_dir=str(folder / "outbox"), public_url="http://dict",
                        namespace=f"dict-{game_id}:", server_key=signing.private_key_from_seed(b"d" * 32),
                        mail_from="Dict <dict@portolan.invalid>")
    matches = build(settings)
    creator = signing.public_key_of(signing.private_key_from_seed(b"c" * 32))
    mid = str(matches.create(game_id, {}, [{"bot": "heuristic"}] * 3, creator_key=creator)["id"])
    for _ in range(20_000):
        meta = matches.meta(mid)
        if meta.status != "active":
            break
        matches.server_move(mid, meta.active[0], meta.ply)
    return [msgpack.packb(log_codec.shorten(entry, mid), use_bin_type=True) for entry in matches.store.log(mid)]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python -m service.tools.log_dictionary OUT.bin")
    chunks: list[bytes] = []
    with tempfile.TemporaryDirectory(prefix="portolan-dict-") as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", durable=False)
        url = server.start()
        try:
            for game_id in ("el-capitan", "nauticus", "ophir"):
                entries = sample_entries(url, Path(tmp) / game_id, game_id)
                step = max(1, len(entries) // 40)
                picked = b"".join(entries[::step])[:PER_GAME]
                chunks.append(picked)
        finally:
            server.stop()
    Path(args[0]).write_bytes(b"".join(chunks)[-30_000:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
