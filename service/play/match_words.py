"""The match's own events (resignations, abort votes, timeouts, stand-ins) in plain words.

service.proof.standing makes these events with machine fields only (``seat``, ``waiting_for``,
``reason``), since the verifier replays them; the CLI's output, the mail answers and the notices
say them to people through here. Pure: no store, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MATCH_EVENT_TYPES = ("timed-out", "resigned", "returned", "forfeited", "abort-voted", "match-aborted", "match-ended")


def seats_text(seats: Sequence[int]) -> str:
    """``seat 1``, ``seats 0 and 2``, ``seats 0, 1 and 3``."""
    listed = [str(s) for s in seats]
    if len(listed) == 1:
        return f"seat {listed[0]}"
    return "seats " + (", ".join(listed[:-1]) + " and " + listed[-1] if listed else "")


def event_text(event: Mapping[str, Any]) -> str:
    """One event as a sentence: the game's own ``text`` when it has one, else the match event's
    words, else its type."""
    if event.get("text"):
        return str(event["text"])
    kind = event.get("type")
    seat = event.get("seat")
    if kind == "resigned":
        return f"seat {seat} resigned: it is ranked last"
    if kind == "forfeited":
        return f"seat {seat} forfeited (it ran out of time): it is ranked last"
    if kind == "timed-out":
        how = {"stand-in": "a stand-in bot plays it until its player comes back",
               "skip": "it passes this turn"}.get(str(event.get("policy")), "its timeout policy acts")
        return f"seat {seat} ran out of time: {how}"
    if kind == "returned":
        return f"seat {seat} is back: its player plays it again"
    if kind == "abort-voted":
        waiting = list(event.get("waiting_for") or [])
        rest = (f"still waiting for {votes_needed_text(waiting)}" if waiting else "that was the last vote needed")
        return f"seat {seat} voted to abort the match; {rest}"
    if kind == "match-aborted":
        return f"the match is aborted, with no result ({event.get('reason') or 'by vote'})"
    if kind == "match-ended":
        return f"the match is over ({event.get('reason') or 'too few players remain'})"
    return str(kind or "")


def votes_needed_text(waiting: Sequence[int]) -> str:
    """``1 vote (seat 2)``, ``2 votes (seats 0 and 2)``."""
    n = len(waiting)
    return f"{n} vote{'' if n == 1 else 's'} ({seats_text(waiting)})"


def abort_votes_waiting(events: Sequence[Mapping[str, Any]]) -> list[int] | None:
    """The seats whose abort vote is still needed after the ``abort-voted`` event among
    ``events`` (an empty list once the match is aborted), or None when no vote was taken."""
    for e in events:
        if e.get("type") == "abort-voted":
            return [int(s) for s in e.get("waiting_for") or []]
    return None
