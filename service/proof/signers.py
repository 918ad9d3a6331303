"""Who may sign a seat's moves at each ply: the verifier's view of seat keys, mail delegations,
custodial seats, key changes and withdrawals (docs/record-format.md, "Moves by mail"), and
the match clock's key (format 4): an entry whose ``by`` the server alone uses (a timeout, a
stand-in's move, a pass; :func:`service.proof.standing.server_signed`) is signed by the key the
header names as ``clock_key``, never by the seat's.

:class:`Signers` starts from the header's seats and walks the record ply by ply. Each check
returns None when it holds, else the sentence the verifier reports for that place. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.proof import signing
from service.proof.chain import RECORD_FORMAT
from service.proof.delegation import DELEGATION, mail_nonce, seat_key_body, withdrawal_body
from service.proof.standing import server_signed


@dataclass
class Signers:
    """The seat keys in force at the current ply of a walk through a record."""

    match_id: str
    keys: dict[int, str]
    custodial: set[int]
    changes: list[dict[str, Any]] = field(default_factory=list)
    withdrawals: list[dict[str, Any]] = field(default_factory=list)
    withdrawn: dict[str, int] = field(default_factory=dict)  # mail key -> the ply it was withdrawn at
    mail_moves: dict[int, int] = field(default_factory=dict)  # seat -> how many of its moves came by mail
    ever_custodial: set[int] = field(default_factory=set)
    clock_key: str | None = None  # the match clock's key (format 4 only)
    clock_moves: int = 0  # how many entries the clock key signed

    @classmethod
    def of(cls, header: Mapping[str, Any]) -> Signers:
        """The signers as the header gives them (every seat's first key; the clock key from
        format 4 on)."""
        custodial = {int(s["seat"]) for s in header["seats"] if s.get("custody") == "server"}
        clock_key = str(header["clock_key"]) if header.get("format") == RECORD_FORMAT else None
        return cls(header["match"], {int(s["seat"]): str(s["public_key"]) for s in header["seats"]}, custodial,
                   ever_custodial=set(custodial), clock_key=clock_key)

    def load(self, record: Mapping[str, Any], plies: int) -> str | None:
        """Take in the record's key changes and mail withdrawals, checking their signatures
        against the keys they rely on; None when they all hold."""
        changes = sorted(record.get("key_changes") or [], key=lambda c: int(c["from_ply"]))
        for c in changes:
            if not 0 <= int(c["from_ply"]) <= plies:
                return f"key change of seat {c['seat']}: from_ply {c['from_ply']} is outside the record (0 to {plies})"
            if int(c["seat"]) not in self.keys:
                return f"key change names seat {c['seat']}, which the header does not have"
        self.changes = changes
        # a withdrawal is checked when the walk reaches its ply (the seat key may change before)
        self.withdrawals = sorted(record.get("mail_withdrawals") or [], key=lambda w: int(w["ply"]))
        for w in self.withdrawals:
            if not 0 <= int(w["ply"]) <= plies:
                return f"mail withdrawal of seat {w['seat']}: ply {w['ply']} is outside the record (0 to {plies})"
        return None

    def advance(self, ply: int) -> tuple[str, str] | None:
        """Apply the key changes and withdrawals that take effect at ``ply``; (place, sentence)
        of the first that does not hold, else None."""
        for c in self.changes:
            if int(c["from_ply"]) != ply:
                continue
            seat = int(c["seat"])
            where = f"key change of seat {seat} at ply {ply}"
            if seat not in self.custodial:
                return where, (f"seat {seat} is not custodial at ply {ply}: only a seat whose key the server holds can "
                               "take a new key")
            if not signing.valid_public_key(c["public_key"]):
                return where, "the new key is not a valid Ed25519 public key"
            body = seat_key_body(self.match_id, seat, c["public_key"], ply)
            if not signing.verify(c["public_key"], body, c["signature"]):
                return where, "the new key's signature (proof of possession) does not verify"
            if not signing.verify(self.keys[seat], body, c["custodial_signature"]):
                return where, f"the countersignature does not verify under seat {seat}'s custodial key"
            self.keys[seat] = str(c["public_key"])
            self.custodial.discard(seat)
        for w in self.withdrawals:
            if int(w["ply"]) != ply:
                continue
            seat = int(w["seat"])
            body = withdrawal_body(self.match_id, seat, str(w["mail_key"]))
            if seat not in self.keys or not signing.verify(self.keys[seat], body, w["signature"]):
                return (f"mail withdrawal of seat {seat} at ply {ply}",
                        f"the withdrawal is not signed by seat {seat}'s key")
            self.withdrawn.setdefault(str(w["mail_key"]), ply)
        return None

    def check_entry(self, entry: Mapping[str, Any]) -> str | None:
        """Is the entry signed by a key that could sign this seat's move at its ply?"""
        seat, ply, env = int(entry["seat"]), int(entry["ply"]), entry["envelope"]
        if server_signed(str(entry["by"])):
            return self._check_clock(seat, entry)
        if "clock" in entry:
            return f"an entry by {entry['by']} carries a clock field, which only a timeout (by clock) has"
        if entry["by"] != "email":
            if "mail" in entry or "delegation" in entry:
                return "a move that did not come by mail carries a mail digest or delegation"
            if not signing.verify(self.keys[seat], env, entry["signature"]):
                return f"the signature does not verify under seat {seat}'s key"
            return None
        mail = entry.get("mail")
        if not isinstance(mail, Mapping) or not isinstance(mail.get("digest"), str):
            return "the move came by mail but carries no message digest"
        if env["nonce"] != mail_nonce(mail["digest"]):
            return "the mail digest is not the one the signed envelope's nonce was made from"
        self.mail_moves[seat] = self.mail_moves.get(seat, 0) + 1
        if seat in self.custodial:
            if "delegation" in entry:
                return f"seat {seat} is custodial: its mail moves are signed by its own key and carry no delegation"
            if not signing.verify(self.keys[seat], env, entry["signature"]):
                return f"the signature does not verify under seat {seat}'s custodial key"
            return None
        return self._check_delegated(seat, ply, entry)

    def _check_clock(self, seat: int, entry: Mapping[str, Any]) -> str | None:
        """An entry the match clock signed for the seat (a timeout, a stand-in's move, a pass)."""
        by = entry["by"]
        if self.clock_key is None:
            return (f"the entry says by {by!r}, a move the match clock signs, but this record's format has no "
                    "match clock")
        if "mail" in entry or "delegation" in entry:
            return f"a move by {by} carries a mail digest or delegation"
        if ("clock" in entry) != (by == "clock"):
            return ("a timeout (by clock) carries the clock field that says which deadline it acted on" if by == "clock"
                    else f"an entry by {by} carries a clock field, which only a timeout (by clock) has")
        if not signing.verify(self.clock_key, entry["envelope"], entry["signature"]):
            return f"the signature of this move by {by} for seat {seat} does not verify under the match's clock key"
        self.clock_moves += 1
        return None

    def _check_delegated(self, seat: int, ply: int, entry: Mapping[str, Any]) -> str | None:
        delegation = entry.get("delegation")
        if not isinstance(delegation, Mapping) or not isinstance(delegation.get("body"), Mapping):
            return f"the move came by mail but carries no mail delegation from seat {seat}'s key"
        body = delegation["body"]
        if (set(body) != {"type", "match", "seat", "mail_key"} or body["type"] != DELEGATION
                or body["match"] != self.match_id or body["seat"] != seat):
            return f"the mail delegation does not name this match and seat {seat}"
        if not signing.verify(self.keys[seat], dict(body), str(delegation.get("signature"))):
            return f"the mail delegation is not signed by seat {seat}'s key"
        mail_key = str(body["mail_key"])
        # a withdrawal at ply P stops the key from ply P + 1 on: a move by mail for ply P may have
        # been on its way when the player withdrew, but none after it
        if mail_key in self.withdrawn and ply > self.withdrawn[mail_key]:
            return f"seat {seat} withdrew that mail key at ply {self.withdrawn[mail_key]}, before this move"
        if not signing.verify(mail_key, entry["envelope"], entry["signature"]):
            return f"the signature does not verify under seat {seat}'s mail key"
        return None

    def notes(self) -> Sequence[str]:
        """What the report says about how the seats signed (the custodial caveat above all)."""
        out = []
        for seat in sorted(self.ever_custodial):
            change = next((c for c in self.changes if int(c["seat"]) == seat), None)
            until = f" until ply {change['from_ply']}, then by the player's own key" if change else ""
            out.append(f"seat {seat} is custodial: its moves are signed by a key the server holds{until}, so they are "
                       "only as trustworthy as the server")
        for seat in sorted(self.mail_moves):
            if seat not in self.ever_custodial:
                out.append(f"seat {seat} moved {self.mail_moves[seat]} times by mail, each under a mail delegation signed "
                           "by the seat's key")
        if self.clock_moves:
            n = self.clock_moves
            out.append(f"{n} {'move was' if n == 1 else 'moves were'} made by the match clock (timeouts, stand-ins, "
                       "passes), signed by the match's clock key, which the server holds")
        return out
