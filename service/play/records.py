"""The verifiable record of a match, assembled from what the store holds (docs/record-format.md).

Pure functions of the meta, the log, the match secret and (once the match is over) the seed:
no store, no clock. :class:`service.play.matches.Matches` reads those and calls these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.proof.chain import RECORD_FORMAT_1, events_digest, hidden_digest, hidden_salt, visible_events


def record_format(meta: Mapping[str, Any]) -> str:
    """The record format a match is chained in (matches created before format 2 have none stored)."""
    return str(meta.get("format") or RECORD_FORMAT_1)


def header(meta: Mapping[str, Any], server_public_key: str, secret: bytes,
           setup_events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The public header of the record; its digest starts the hash chain. ``setup_events``
    defaults to the meta's (the start passes the ones it is about to store)."""
    events = meta["setup_events"] if setup_events is None else setup_events
    fmt = record_format(meta)
    return {
        "format": fmt,
        "match": meta["id"],
        "game": meta["game"],
        "options": meta["options"],
        "players": meta["players"],
        "commitment": meta["commitment"],
        "seats": [{"seat": s["seat"], "kind": s["kind"], "public_key": s["public_key"], "nonce": s["nonce"]}
                  for s in meta["seats"]],
        "setup_events_digest": events_digest(fmt, events, hidden_salt(secret, "setup")),
        "server_key": server_public_key,
    }


def record(meta: Mapping[str, Any], entries: list[dict[str, Any]], server_public_key: str, secret: bytes,
           seed: bytes | None) -> dict[str, Any]:
    """The record of a started match. ``seed`` is given once the match is over and then revealed,
    with every hidden event; while it runs the hidden events are withheld, and (format 2) their
    salted digests stand in for them so the chain can be checked now."""
    over = seed is not None
    withheld: dict[str, Any] | None = None
    if not over and record_format(meta) != RECORD_FORMAT_1:
        withheld = {"setup": hidden_digest(meta["setup_events"], hidden_salt(secret, "setup")),
                    "entries": [hidden_digest(e["events"], hidden_salt(secret, f"ply:{e['ply']}")) for e in entries]}
    if not over:
        entries = [dict(e, events=visible_events(e["events"], None)) for e in entries]
    out = {
        "header": header(meta, server_public_key, secret),
        "setup_events": meta["setup_events"] if over else visible_events(meta["setup_events"], None),
        "entries": entries,
        "status": meta["status"],
        "head": meta["head"],
        "outcome": meta.get("outcome"),
        "seed": seed.hex() if seed is not None else None,
    }
    if withheld is not None:
        out["withheld"] = withheld
    return out
