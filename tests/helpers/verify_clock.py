"""Clock matches for the verifier: moves with their times, a timeout, a log re-chained."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

from service.clock import iso
from service.play.matches import Matches
from service.proof import signing
from service.proof.chain import chain_genesis, entry_hash, receipt_body
from tests.conftest import Player
from tests.helpers.clock_helpers import Hands, move


def controller(m: Matches, mid: str, seat: int) -> str:
    return str(m.meta(mid).standing["controllers"][seat])


def play(m: Matches, hands: Hands, players: list[Player], mid: str, *, until: Any = None, moves: int | None = None) -> None:
    """Play on an hour a move (players bank as soon as they have a haul, the server plays the
    seats it plays) until the match is over, ``until(meta)`` holds, or ``moves`` were made."""
    for _ in range(moves or 400):
        meta = m.meta(mid)
        if meta.status != "active" or (until is not None and until(meta)):
            return
        hands.advance(timedelta(hours=1))
        seat = meta.active[0]
        if controller(m, mid, seat) == "player":
            legal = m.view(mid, seat)["legal_actions"]
            move(m, players[seat], mid, seat, [legal[-1]["action"]])
        else:
            assert m.server_move(mid, seat, meta.ply) is not None
    if moves is None:
        raise AssertionError("the match did not get there")


def time_out(m: Matches, hands: Hands, mid: str) -> int:
    """Let the active seat run out of time: move the clock to when its policy acts, take the
    timeout; the ply of the timeout entry."""
    meta = m.meta(mid)
    seat = meta.active[0]
    status = m.clock_status(meta)[seat]
    assert status.acts_at is not None and status.controller == "player"
    hands.at = max(hands.at, status.acts_at)
    assert m.timeout(mid, seat) is not None
    entry = m.log(mid)[-1]
    assert entry["by"] == "clock" and entry["seat"] == seat
    return int(entry["ply"])


def rechain(record: dict[str, Any], server_key: str, start: int) -> None:
    """Re-hash and re-sign every entry from ``start`` on with the server's key, as a forger who
    holds it would: the chain and the receipts are intact again, only what was changed is wrong."""
    mid = record["header"]["match"]
    entries = record["entries"]
    prev = entries[start - 1]["hash"] if start else chain_genesis(record["header"])
    for e in entries[start:]:
        e["prev"] = prev
        e["hash"] = entry_hash(mid, e)
        e["receipt"] = signing.sign(server_key, receipt_body(mid, e["ply"], e["hash"]))
        prev = e["hash"]
    record["head"] = prev


def earlier(record: dict[str, Any], server_key: str, ply: int, at: datetime, **clock: datetime) -> dict[str, Any]:
    """The record with the entry at ``ply`` accepted ``at`` (and its clock field's times moved
    as given), re-chained with the server's key."""
    forged = copy.deepcopy(record)
    entry = forged["entries"][ply]
    entry["accepted_at"] = iso(at)
    for name, when in clock.items():
        entry["clock"][name] = iso(when)
    rechain(forged, server_key, ply)
    return forged
