"""The match's own events (resignations, abort votes, timeouts, stand-ins) for people: who is
still to vote, in words. service.proof.standing gives each event its sentence (``text``); the
CLI's output and the mail answers add the counts through here. Pure: no store, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.i18n import phrase, phrase_n


def seats_text(seats: Sequence[int]) -> str:
    """``seat 1``, ``seats 0 and 2``, ``seats 0, 1 and 3`` (a phrase: read in its reader's language)."""
    listed = [str(s) for s in seats]
    if len(listed) == 1:
        return phrase("seat {seat}", seat=listed[0])
    if not listed:
        return phrase("seats ")
    return phrase("seats {seats} and {last}", seats=", ".join(listed[:-1]), last=listed[-1])


def event_text(event: Mapping[str, Any]) -> str:
    """One event as a sentence: its ``text`` (game events and, since service.proof.standing
    writes them, match events have one), else its type."""
    return str(event.get("text") or event.get("type") or "")


def votes_needed_text(waiting: Sequence[int]) -> str:
    """``1 vote (seat 2)``, ``2 votes (seats 0 and 2)``."""
    return phrase_n("{n} vote ({seats})", "{n} votes ({seats})", len(waiting), seats=seats_text(waiting))


def abort_votes_waiting(events: Sequence[Mapping[str, Any]]) -> list[int] | None:
    """The seats whose abort vote is still needed after the ``abort-voted`` event among
    ``events`` (an empty list once the match is aborted), or None when no vote was taken."""
    for e in events:
        if e.get("type") == "abort-voted":
            return [int(s) for s in e.get("waiting_for") or []]
    return None
