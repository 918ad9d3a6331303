"""The offline verifier: ``portolan verify RECORD.json``.

Needs nothing but the record and this package: no Redis, no server. It checks, in order, the
record's format, the commitment against the revealed seed, the chain from the header's digest
through every entry (ply, previous hash, envelope fields, the seat's signature (or, for a move by
mail, its mail delegation and the mail key's signature: service.proof.signers), the digest of
the events, the entry hash, the server's receipt), then replays the rules from the seed and the
moves and compares every event, the final outcome and who must act. It stops at the first
inconsistency and names the place. docs/record-format.md describes every field.

Format 4 adds the match clock: entries the server makes for a seat (a timeout, a stand-in's
move, a pass) verify under the header's ``clock_key``; the replay runs every entry through
:func:`service.proof.standing.judge` as the service did; and with the seed, the seat clocks are
walked from the header's ``started_at`` through every entry's ``accepted_at`` (the times the
receipts sign), so that each timeout is shown to come after the deadline those times imply
(:mod:`service.proof.clock_check`).

A live record (no seed yet) withholds hidden events; format 2 gives the salted digest of the
withheld part instead, so the visible events are still checked against the chain. What cannot
be checked yet (the hidden events, the dice replay, the outcome) is reported as "not yet", and
such a record passes when everything shown checks out.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.games.base import Game
from service.proof import clock_check, fairness, signing
from service.proof.chain import (
    RECORD_FORMAT,
    RECORD_FORMAT_1,
    RECORD_FORMATS,
    chain_genesis,
    entry_hash,
    events_digest,
    hidden_salt,
    receipt_body,
    split_digest,
)
from service.proof.replay import ReplayMismatch, Step, game_for, plain, replay
from service.proof.signers import Signers
from service.proof.standing import final_outcome


@dataclass
class Report:
    """What the verifier found: ``ok`` unless something failed; ``pending`` lists what cannot
    be checked yet (a running match withholds its seed and its hidden events)."""

    ok: bool = True
    lines: list[str] = field(default_factory=list)
    failure: str | None = None
    pending: list[str] = field(default_factory=list)

    def fail(self, where: str, what: str) -> Report:
        """Record the first inconsistency, naming the place."""
        self.ok = False
        self.failure = f"{where}: {what}"
        self.lines.append(f"FAIL {self.failure}")
        return self

    def note(self, line: str) -> None:
        """Record a check that passed."""
        self.lines.append(f"ok   {line}")

    def not_yet(self, line: str) -> None:
        """Record something that cannot be checked until the match is over."""
        self.pending.append(line)
        self.lines.append(f"not yet {line}")

    def text(self) -> str:
        """The report as the CLI prints it, ending in the verdict."""
        if not self.ok:
            verdict = "record does NOT verify"
        elif self.pending:
            verdict = "record verified so far: everything a running match shows checks out; the rest once it is over"
        else:
            verdict = "record verified"
        return "\n".join([*self.lines, verdict])


def verify_file(path: str, server_key: str | None = None, edition: Any = None) -> Report:
    """:func:`verify_record` of a JSON file."""
    try:
        record = json.loads(Path(path).read_text())
    except RecursionError:  # the decoder's own stack: a file of "[[[[..." is hostile, not a crash
        return Report().fail("file", f"cannot read a JSON record from {path}: arrays and objects nest deeper "
                                     "than the JSON decoder can follow (no record nests more than a few levels)")
    except (OSError, ValueError) as exc:
        return Report().fail("file", f"cannot read a JSON record from {path}: {exc}")
    return verify_record(record, server_key, edition)


def verify_record(record: Any, server_key: str | None = None, edition: Any = None) -> Report:
    """Check a record; ``server_key`` pins the server's public key (else the header's is used);
    ``edition`` is an edition document to replay with when the record does not carry the one
    its header pins (docs/editions.md)."""
    report = Report()
    try:
        _verify(record, server_key, report, edition)
    except ReplayMismatch as exc:
        return report.fail(exc.where, exc.what)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
        return report.fail("record", f"malformed record: {type(exc).__name__}: {exc}")
    except RecursionError:
        return report.fail("record", "malformed record: a value nests deeper than the verifier can walk")
    except Exception as exc:  # a record is anyone's file: any other surprise is a FAIL, never a traceback
        return report.fail("record", f"the record could not be checked: {type(exc).__name__}: {exc}")
    return report


def _verify(record: dict[str, Any], server_key: str | None, report: Report, edition: Any = None) -> None:
    header = record["header"]
    fmt = header.get("format")
    if fmt not in RECORD_FORMATS:
        report.fail("header", f"unknown format {fmt!r} (this verifier reads {', '.join(RECORD_FORMATS)})")
        return
    match_id = header["match"]
    game = game_for(header, [record.get("edition"), edition])
    key = header["server_key"]
    if server_key and key != server_key:
        report.fail("header", "the record's server key is not the one you pinned with --server-key")
        return
    report.note(f"match {match_id}: {game.title}, {header['players']} seats, format {fmt}")
    if header.get("edition"):
        report.note(f"data edition {header['edition'].get('id')!r}, digest {header['edition'].get('digest')}")
    for row in header["seats"]:
        # the same strict rule as at claim: a small-order or non-canonical key would accept
        # forged (degenerate) signatures, so a record naming one proves nothing for that seat
        if not signing.valid_public_key(row["public_key"]):
            report.fail("header", f"seat {row['seat']}'s public key is not a valid Ed25519 key "
                                  "(not a canonical point, or one of small order)")
            return
    clocked = fmt == RECORD_FORMAT
    if clocked:
        trouble = clock_check.check_header(header)
        if trouble:
            report.fail("header", trouble)
            return

    seed_hex = record.get("seed")
    seed = b""
    secret: bytes | None = None
    if seed_hex is not None:
        seed = bytes.fromhex(seed_hex)
        if hashlib.sha256(seed).hexdigest() != header["commitment"]:
            report.fail("seed", "sha256(seed) is not the commitment published at creation")
            return
        report.note("the revealed seed matches the commitment")
        secret = fairness.match_secret(seed, match_id, header["seats"])
    withheld = record.get("withheld") if secret is None else None
    if secret is None and fmt != RECORD_FORMAT_1 and (
            not isinstance(withheld, dict) or len(withheld.get("entries", [])) != len(record["entries"])):
        report.fail("withheld", "a live record must carry the digest of the withheld part of the setup and of every entry")
        return

    def events_match(events: list[dict[str, Any]], committed: str, label: str, hidden: Any) -> bool | None:
        """Do the events match their digest? None: cannot tell yet (format 1, live)."""
        if secret is not None:
            return events_digest(fmt, events, hidden_salt(secret, label)) == committed
        if fmt == RECORD_FORMAT_1:  # the digest covers withheld events too: only a full list can match
            return True if signing.digest(events) == committed else None
        # live, format 2: everything shown is public; the hidden part is given by its digest
        return split_digest(events, str(hidden)) == committed

    unchecked: list[str] = []
    setup_ok = events_match(record["setup_events"], header["setup_events_digest"], "setup",
                            withheld["setup"] if withheld else None)
    if setup_ok is False:
        report.fail("setup", "the setup events do not match the header's digest")
        return
    if setup_ok is None:
        unchecked.append("setup")
    prev = chain_genesis(header)
    times = clock_check.Times.of(header) if clocked else None
    signers = Signers.of(header)
    trouble = signers.load(record, len(record["entries"]))
    if trouble:
        report.fail("key changes", trouble)
        return
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
        changed = signers.advance(i)
        if changed:
            report.fail(*changed)
            return
        trouble = signers.check_entry(entry)
        if trouble:
            report.fail(where, trouble)
            return
        trouble = times.check(entry) if times else None
        if trouble:
            report.fail(where, trouble)
            return
        ok = events_match(entry["events"], entry["events_digest"], f"ply:{i}", withheld["entries"][i] if withheld else None)
        if ok is False:
            report.fail(where, "the events do not match their digest")
            return
        if ok is None:
            unchecked.append(where)
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
    changed = signers.advance(len(record["entries"]))  # a key change or withdrawal after the last move
    if changed:
        report.fail(*changed)
        return
    report.note(f"{len(record['entries'])} signed moves, chain and receipts intact")
    for line in signers.notes():
        report.note(line)
    if times:
        report.note(times.note())

    if secret is None:
        if fmt == RECORD_FORMAT_1:
            report.note("every event list that is complete matches its digest")
            if unchecked:
                report.not_yet(f"events of {', '.join(unchecked)}: this format-1 record withholds hidden events and "
                               "its digests cover them, so these cannot be checked until the match is over")
        else:
            report.note("the visible setup and move events match the chain")
            report.not_yet("hidden setup and move events are withheld while the match runs (only their salted digests "
                           "are shown): their content can be checked once the match is over")
        report.not_yet("seed not revealed yet (match running): dice and outcome cannot be checked until the end")
        if clocked:
            report.not_yet("the timeouts' deadlines: who had to act when comes from the replay, which needs the seed")
        return
    steps = list(replay(header, seed, record["entries"], record["setup_events"], game=game))
    report.note("replay from the seed reproduces every setup and move event")
    if clocked:
        walked = clock_check.walk(header, record["entries"], game, steps)
        if walked.failure:
            report.fail(*walked.failure)
            return
        report.note(walked.note())
        _check_end(record, game, steps[-1], header["players"], report)
        return
    state = steps[-1].state
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


def _check_end(record: dict[str, Any], game: Game[Any], last: Step, players: int, report: Report) -> None:
    """Format 4: the status and the outcome after the last entry, with who left the match ranked
    last (:func:`service.proof.standing.final_outcome`, as the service computes it)."""
    standing = last.standing
    rules = game.outcome(last.state)
    outcome = final_outcome(rules.to_json() if rules else None, standing, players)
    status = record.get("status")
    if standing.ended == "aborted":
        expected, why = "aborted", "the match was aborted"
    elif outcome is not None or rules is not None or not game.active_seats(last.state):
        expected, why = "finished", "the replay ended"
    else:
        expected, why = "active", "the replay goes on"
    if status != expected:
        report.fail("outcome", f"the record says {status!r} but {why} (status {expected!r})")
        return
    if plain(outcome) != plain(record.get("outcome")):
        report.fail("outcome", f"the replayed outcome {outcome} differs from the record's {record.get('outcome')}")
        return
    if expected == "aborted":
        reason = next((e.get("reason") for e in last.events if e.get("type") == "match-aborted"), None)
        report.note(f"the match was aborted{f' ({reason})' if reason else ''}: no result, as the record says")
    elif outcome is not None:
        left = f", seats {', '.join(map(str, standing.forfeited))} ranked last for leaving" if standing.forfeited else ""
        report.note(f"outcome reproduced: scores {list(outcome['scores'])}, ranks {list(outcome['ranks'])}{left}")
