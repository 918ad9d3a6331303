"""The offline verifier: ``portolan verify RECORD.json``.

Needs nothing but the record and this package: no Redis, no server. It checks, in order, the
record's format, the commitment against the revealed seed, the chain from the header's digest
through every entry (ply, previous hash, envelope fields, the seat's signature, the digest of
the events, the entry hash, the server's receipt), then replays the rules from the seed and the
moves and compares every event, the final outcome and who must act. It stops at the first
inconsistency and names the place. docs/record-format.md describes every field.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.proof import signing
from service.proof.chain import RECORD_FORMAT, chain_genesis, entry_hash, receipt_body
from service.proof.replay import ReplayMismatch, game_for, plain, replay


@dataclass
class Report:
    ok: bool = True
    lines: list[str] = field(default_factory=list)
    failure: str | None = None

    def fail(self, where: str, what: str) -> Report:
        self.ok = False
        self.failure = f"{where}: {what}"
        self.lines.append(f"FAIL {self.failure}")
        return self

    def note(self, line: str) -> None:
        self.lines.append(f"ok   {line}")

    def text(self) -> str:
        verdict = "record verified" if self.ok else "record does NOT verify"
        return "\n".join([*self.lines, verdict])


def verify_file(path: str, server_key: str | None = None) -> Report:
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        return Report().fail("file", f"cannot read a JSON record from {path}: {exc}")
    return verify_record(record, server_key)


def verify_record(record: Any, server_key: str | None = None) -> Report:
    """Check a record; ``server_key`` pins the server's public key (else the header's is used)."""
    report = Report()
    try:
        _verify(record, server_key, report)
    except ReplayMismatch as exc:
        return report.fail(exc.where, exc.what)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return report.fail("record", f"malformed record: {type(exc).__name__}: {exc}")
    return report


def _verify(record: dict[str, Any], server_key: str | None, report: Report) -> None:
    header = record["header"]
    if header.get("format") != RECORD_FORMAT:
        report.fail("header", f"unknown format {header.get('format')!r} (this verifier reads {RECORD_FORMAT})")
        return
    match_id = header["match"]
    game = game_for(header)
    key = header["server_key"]
    if server_key and key != server_key:
        report.fail("header", "the record's server key is not the one you pinned with --server-key")
        return
    report.note(f"match {match_id}: {game.title}, {header['players']} seats, format {RECORD_FORMAT}")

    seed_hex = record.get("seed")
    if seed_hex is not None:
        seed = bytes.fromhex(seed_hex)
        if hashlib.sha256(seed).hexdigest() != header["commitment"]:
            report.fail("seed", "sha256(seed) is not the commitment published at creation")
            return
        report.note("the revealed seed matches the commitment")

    if signing.digest(record["setup_events"]) != header["setup_events_digest"]:
        report.fail("setup", "the setup events do not match the header's digest")
        return
    prev = chain_genesis(header)
    seats = header["seats"]
    for i, entry in enumerate(record["entries"]):
        where = f"ply {i}"
        env = entry["envelope"]
        if entry["ply"] != i or env["ply"] != i:
            report.fail(where, f"entry says ply {entry['ply']} (envelope {env['ply']}); entries out of order or missing")
            return
        if env["match"] != match_id or env["seat"] != entry["seat"]:
            report.fail(where, "the envelope names another match or seat")
            return
        if entry["prev"] != prev:
            report.fail(where, "prev is not the hash of the entry before (the chain is broken)")
            return
        if not signing.verify(seats[entry["seat"]]["public_key"], env, entry["signature"]):
            report.fail(where, f"the signature does not verify under seat {entry['seat']}'s key")
            return
        if signing.digest(entry["events"]) != entry["events_digest"]:
            report.fail(where, "the events do not match their digest")
            return
        if entry_hash(match_id, entry) != entry["hash"]:
            report.fail(where, "the entry hash does not match its contents")
            return
        if not signing.verify(key, receipt_body(match_id, i, entry["hash"]), entry["receipt"]):
            report.fail(where, "the server receipt does not verify under the server key")
            return
        prev = entry["hash"]
    if record["entries"] and record["head"] != prev:
        report.fail("head", "the record's head is not the hash of its last entry")
        return
    report.note(f"{len(record['entries'])} signed moves, chain and receipts intact")

    if seed_hex is None:
        report.note("seed not revealed yet (match running): dice and outcome cannot be checked until the end")
        return
    state = None
    for step in replay(header, seed, record["entries"], record["setup_events"]):
        state = step.state
    report.note("replay from the seed reproduces every setup and move event")
    outcome = game.outcome(state)
    stored = record.get("outcome")
    if plain(outcome.to_json() if outcome else None) != plain(stored):
        report.fail("outcome", f"the replayed outcome {outcome.to_json() if outcome else None} differs from the record's {stored}")
        return
    finished = not game.active_seats(state)
    if finished != (record.get("status") == "finished"):
        report.fail("outcome", f"the record says {record.get('status')!r} but the replay {'ended' if finished else 'goes on'}")
        return
    if outcome:
        report.note(f"outcome reproduced: scores {list(outcome.scores)}, ranks {list(outcome.ranks)}")
