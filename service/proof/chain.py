"""The hash chain of a match's log and the receipts the server signs (docs/record-format.md).

Shared by the use cases (which build entries) and the offline verifier (which checks them).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from service.proof import signing

RECORD_FORMAT = "portolan-record/4"
"""The format new matches are recorded in (docs/record-format.md): format 3, plus the match clock:
the header names the time control, the timeout policy, the start time and the match's clock key;
entries the clock key signs (timeouts, stand-ins, passes) and match actions (resign, abort votes)."""
RECORD_FORMAT_3 = "portolan-record/3"
"""Matches created before the clock: format 2's digests, plus moves by mail (``mail``,
``delegation``), custodial seats, key changes and mail withdrawals."""
RECORD_FORMAT_2 = "portolan-record/2"
"""Matches created before moves by mail: the same chain and digests, without the mail fields."""
RECORD_FORMAT_1 = "portolan-record/1"
"""Matches created before format 2: ``events_digest`` is the digest of the whole event list, so
a live record (which withholds hidden events) cannot show its visible events are the logged ones."""
RECORD_FORMATS = (RECORD_FORMAT_1, RECORD_FORMAT_2, RECORD_FORMAT_3, RECORD_FORMAT)
MAIL_FIELDS = ("mail", "delegation")
"""The fields a move by mail adds to its log entry (hashed when present)."""
CLOCK_FIELDS = ("clock",)
"""The field a timeout adds to its log entry (hashed when present): the deadline it acted on."""


def hidden_salt(secret: bytes, label: str) -> str:
    """The salt of the hidden part of one event list (``label`` is "setup" or "ply:N"), from
    the match secret: unknown to anyone until the seed is revealed, so a published digest of
    a few hidden cards cannot be searched for which cards they are."""
    return hmac.new(secret, f"hidden-events:{label}".encode(), hashlib.sha256).hexdigest()


def is_hidden(event: Mapping[str, Any]) -> bool:
    """Is the event for some seats only (withheld from the public until the end)?"""
    return "visible_to" in event


def hidden_digest(events: Sequence[Mapping[str, Any]], salt: str) -> str:
    """The digest of an event list's hidden events with their positions, under ``salt``."""
    return signing.digest({"salt": salt, "events": [[i, dict(e)] for i, e in enumerate(events) if is_hidden(e)]})


def split_digest(public_events: Sequence[Mapping[str, Any]], hidden: str) -> str:
    """Format 2's events digest from its two parts: the public events and the hidden digest."""
    return signing.digest({"public": signing.digest([dict(e) for e in public_events]), "hidden": hidden})


def events_digest(fmt: str, events: Sequence[Mapping[str, Any]], salt: str) -> str:
    """The digest that commits a full event list (setup's or a move's) in record format ``fmt``."""
    if fmt == RECORD_FORMAT_1:
        return signing.digest([dict(e) for e in events])
    return split_digest([e for e in events if not is_hidden(e)], hidden_digest(events, salt))


def chain_genesis(header: Mapping[str, Any]) -> str:
    """The hash the chain starts from: digest of the match header (docs/record-format.md)."""
    return signing.digest(dict(header))


def entry_hash(match_id: str, entry: Mapping[str, Any]) -> str:
    """The hash of a log entry: digest of its chained fields (everything but hash, receipt and
    the events themselves, which are covered by ``events_digest``). A move by mail adds its
    ``mail`` (the message digest) and, for a delegated seat, its ``delegation``; an entry
    without them hashes exactly as before, so older records still verify."""
    chained = {
        "match": match_id,
        "ply": entry["ply"],
        "seat": entry["seat"],
        "by": entry["by"],
        "envelope": entry["envelope"],
        "signature": entry["signature"],
        "prev": entry["prev"],
        "accepted_at": entry["accepted_at"],
        "events_digest": entry["events_digest"],
    }
    for name in (*MAIL_FIELDS, *CLOCK_FIELDS):
        if name in entry:
            chained[name] = entry[name]
    return signing.digest(chained)


def receipt_body(match_id: str, ply: int, hash_: str) -> dict[str, Any]:
    """What the server's receipt signature signs."""
    return {"match": match_id, "ply": ply, "hash": hash_}


def visible_events(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The events a seat (None: anyone) may see now."""
    return [e for e in events if "visible_to" not in e or (seat is not None and seat in e["visible_to"])]
