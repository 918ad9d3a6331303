"""The hash chain of a match's log and the receipts the server signs (docs/record-format.md).

Shared by the use cases (which build entries) and the offline verifier (which checks them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.proof import signing

RECORD_FORMAT = "portolan-record/1"


def chain_genesis(header: Mapping[str, Any]) -> str:
    """The hash the chain starts from: digest of the match header (docs/record-format.md)."""
    return signing.digest(dict(header))


def entry_hash(match_id: str, entry: Mapping[str, Any]) -> str:
    """The hash of a log entry: digest of its chained fields (everything but hash, receipt and
    the events themselves, which are covered by ``events_digest``)."""
    return signing.digest({
        "match": match_id,
        "ply": entry["ply"],
        "seat": entry["seat"],
        "by": entry["by"],
        "envelope": entry["envelope"],
        "signature": entry["signature"],
        "prev": entry["prev"],
        "accepted_at": entry["accepted_at"],
        "events_digest": entry["events_digest"],
    })


def receipt_body(match_id: str, ply: int, hash_: str) -> dict[str, Any]:
    """What the server's receipt signature signs."""
    return {"match": match_id, "ply": ply, "hash": hash_}


def visible_events(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The events a seat (None: anyone) may see now."""
    return [e for e in events if "visible_to" not in e or (seat is not None and seat in e["visible_to"])]
