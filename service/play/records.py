"""The verifiable record of a match, assembled from what the store holds (docs/record-format.md).

Pure functions of the meta, the log, the match secret and (once the match is over) the seed:
no store, no clock. The use cases (service.play.views.match, service.play.seats.lifecycle) read those and call these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from service.proof.chain import (
    RECORD_FORMAT_1,
    RECORD_FORMAT_2,
    RECORD_FORMAT_3,
    events_digest,
    hidden_digest,
    hidden_salt,
    visible_events,
)
from service.proof.match_record import MatchMeta, SeatRow

if TYPE_CHECKING:
    from service.games.editions import Edition


def record_format(meta: MatchMeta) -> str:
    """The record format a match is chained in (matches created before format 2 have none stored)."""
    return str(meta.format or RECORD_FORMAT_1)


def genesis_seats(rows: Sequence[SeatRow]) -> list[dict[str, Any]]:
    """The seats as the match started: the keys the header commits to and the match secret mixes
    in. A custodial seat that attached a key of its own since keeps its first (custodial) key
    here (``genesis_key``); the record's ``key_changes`` say from which ply the new key signs.
    ``custody`` appears only for a custodial seat, so older headers hash as they always did."""
    out = []
    for s in rows:
        row = {"seat": s.seat, "kind": s.kind, "public_key": s.genesis_key or s.public_key, "nonce": s.nonce}
        if s.genesis_key or s.is_custodial:
            row["custody"] = "server"
        out.append(row)
    return out


def key_changes(rows: Sequence[SeatRow]) -> list[dict[str, Any]]:
    """Every seat key change (a custodial seat taken over by the player's own key), by ply."""
    return sorted((c for s in rows for c in s.key_changes or ()), key=lambda c: (c["from_ply"], c["seat"]))


def mail_withdrawals(rows: Sequence[SeatRow]) -> list[dict[str, Any]]:
    """Every withdrawn mail delegation, by ply."""
    return sorted((w for s in rows for w in s.mail_withdrawals or ()), key=lambda w: (w["ply"], w["seat"]))


def header(meta: MatchMeta, server_public_key: str, secret: bytes,
           setup_events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The public header of the record; its digest starts the hash chain. ``setup_events``
    defaults to the meta's (the start passes the ones it is about to store)."""
    events = list(meta.setup_events) if setup_events is None else setup_events
    fmt = record_format(meta)
    out = {
        "format": fmt,
        "match": meta.id,
        "game": meta.game,
        "options": meta.options,
        "players": meta.players,
        "commitment": meta.commitment,
        "seats": genesis_seats(meta.seats),
        "setup_events_digest": events_digest(fmt, events, hidden_salt(secret, "setup")),
        "server_key": server_public_key,
    }
    if fmt not in (RECORD_FORMAT_1, RECORD_FORMAT_2, RECORD_FORMAT_3):
        # format 4: the clock the match runs on, so the verifier can check every timeout's time
        out.update({"started_at": meta.started_at, "time_control": meta.time_control,
                    "timeout_policy": meta.timeout_policy, "clock_key": meta.clock_key})
    if meta.edition:  # the data edition the match plays (docs/editions.md); older headers hash as before
        out["edition"] = {"id": meta.edition["id"], "digest": meta.edition["digest"]}
    return out


def record(meta: MatchMeta, entries: list[dict[str, Any]], server_public_key: str, secret: bytes,
           seed: bytes | None, edition: Edition | None = None) -> dict[str, Any]:
    """The record of a started match. ``seed`` is given once the match is over and then revealed,
    with every hidden event; while it runs the hidden events are withheld, and (format 2) their
    salted digests stand in for them so the chain can be checked now. A match that plays an
    edition other than the shipped data carries the edition document (``edition``), so the
    record verifies on its own."""
    over = seed is not None
    withheld: dict[str, Any] | None = None
    if not over and record_format(meta) != RECORD_FORMAT_1:
        withheld = {"setup": hidden_digest(list(meta.setup_events), hidden_salt(secret, "setup")),
                    "entries": [hidden_digest(e["events"], hidden_salt(secret, f"ply:{e['ply']}")) for e in entries]}
    if not over:
        entries = [dict(e, events=visible_events(e["events"], None)) for e in entries]
    out = {
        "header": header(meta, server_public_key, secret),
        "setup_events": list(meta.setup_events) if over else visible_events(list(meta.setup_events), None),
        "entries": entries,
        "status": meta.status,
        "head": meta.head,
        "outcome": meta.outcome,
        "seed": seed.hex() if seed is not None else None,
    }
    if withheld is not None:
        out["withheld"] = withheld
    if edition is not None and edition.id != "shipped":
        out["edition"] = dict(edition.document)
    if record_format(meta) not in (RECORD_FORMAT_1, RECORD_FORMAT_2):
        out["key_changes"] = key_changes(meta.seats)
        out["mail_withdrawals"] = mail_withdrawals(meta.seats)
    return out
