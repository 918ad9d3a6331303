"""How a match's meta is kept in Redis, and the small facts every storage module shares: the
outbox buckets, which statuses have ended, what a tombstone keeps (service.storage.store says
which keys hold what)."""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any

from service.proof.match_record import ENDED as MATCH_ENDED

BUCKETS = "abcdefghijkmnpqrstuvwxyz23456789"
"""The outbox buckets: the alphabet match ids are written in (``service.play.seats.lifecycle.ID_ALPHABET``,
which a test holds equal), so a match's bucket is the first character of its id."""
OUTBOX_DAYS = 7
"""How long outbox entries are kept (trimmed by MINID at each append): far longer than any
consumer may be down, short enough that the streams stay small."""

ENDED = MATCH_ENDED
"""The statuses of a match that is over: such a match may be archived."""
TOMBSTONE_FIELDS = ("id", "game", "status", "ply", "players", "seats", "active", "active_since", "creator_name",
                    "created_at", "updated_at")
"""The meta fields an archived match keeps in Redis: what the listings (``Store.metas``) read, so a
listing of many matches never opens an archive document."""
META_JSON_FIELDS = ("options", "seats", "active", "outcome", "setup_events", "active_since", "time_control",
                    "timeout_policy", "standing", "clocks", "edition")


def bucket_of(match_id: str) -> str:
    """The outbox bucket of a match: the first character of its id. An id that is not ours (a
    client's typo) maps to ``_``, a bucket that holds no match, so it is simply not found."""
    return match_id[0] if match_id and match_id[0] in BUCKETS else "_"


def lrange(items: list[Any], start: int, stop: int) -> list[Any]:
    """Redis LRANGE over a Python list: inclusive ``stop``, negative indexes from the end."""
    n = len(items)
    lo = max(0, start + n if start < 0 else start)
    hi = stop + n if stop < 0 else stop
    return items[lo:min(hi, n - 1) + 1] if lo <= hi else []


def epoch_of(iso: str) -> float:
    """Seconds since the epoch of an ISO timestamp as the matches write them (now, if unreadable)."""
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return time.time()


def encode_meta(fields: dict[str, Any]) -> dict[str | bytes, str | bytes]:
    """Meta fields as a Redis hash stores them: JSON for the structured ones, text for the rest."""
    out: dict[str | bytes, str | bytes] = {}
    for k, v in fields.items():
        out[k] = json.dumps(v, separators=(",", ":")) if k in META_JSON_FIELDS else str(v)
    return out


def decode_meta(raw: dict[bytes, bytes]) -> dict[str, Any]:
    """The meta fields of a Redis hash, decoded (see :func:`encode_meta`)."""
    out: dict[str, Any] = {}
    for k, v in raw.items():
        key = k.decode()
        text = v.decode()
        if key in META_JSON_FIELDS:
            out[key] = json.loads(text)
        elif key in ("ply", "players"):
            out[key] = int(text)
        else:
            out[key] = text
    return out
