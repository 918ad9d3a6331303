"""The clock in plain words, for the mails: deadlines, how long is left, who is late, what the
timeout policy will do, and why a match ended before its rules ended it.

Times are written in UTC, as every mail's reader may be anywhere: ``Tue 3 Dec 18:00 UTC``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from service.delivery.clock import SeatStatus as Status
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.play.matches import Matches


def when_text(when: datetime) -> str:
    """``Tue 3 Dec 18:00 UTC``."""
    at = when.astimezone(UTC)
    return f"{at:%a} {at.day} {at:%b %H:%M} UTC"


def span(seconds: float) -> str:
    """A duration in words: ``1 day 12 hours``, ``5 hours``, ``40 minutes``."""
    minutes = int(max(0.0, seconds) // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)

    def unit(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    if days:
        return unit(days, "day") + (f" {unit(hours, 'hour')}" if hours else "")
    if hours:
        return unit(hours, "hour") + (f" {unit(mins, 'minute')}" if mins else "")
    return unit(mins, "minute") if mins else "less than a minute"


def due_in(status: Status, now: datetime) -> str:
    """``in 1 day 12 hours (by Tue 3 Dec 18:00 UTC)``."""
    deadline = status.deadline
    if deadline is None:
        return ""
    return f"in {span((deadline - now).total_seconds())} (by {when_text(deadline)})"


def _policy(meta: MatchMeta) -> dict[str, Any]:
    return dict(meta.timeout_policy or {"policy": "stand-in", "after_forfeit": "bot", "grace_hours": 24})


def what_happens(meta: MatchMeta, you: bool, name: str) -> str:
    """What the match's timeout policy does to a late seat, as the rest of a sentence."""
    policy = _policy(meta)
    your = "your" if you else "their"
    kind = policy["policy"]
    if kind == "skip":
        return f"{your} turn is passed (the player keeps the seat)"
    if kind == "forfeit":
        after = ("a bot plays the seat on" if policy.get("after_forfeit", "bot") == "bot"
                 else "the match ends if fewer than 2 players remain")
        return f"{'you forfeit' if you else name + ' forfeits'} the match (ranked last) and {after}"
    if kind == "abort":
        return "the match is aborted, with no result"
    return f"a stand-in bot plays {your} moves until {'you move' if you else 'they move'} again"


def reminder_lines(meta: MatchMeta, status: Status, now: datetime) -> list[str]:
    """The paragraphs of a reminder."""
    lines = [f"Your move in match {meta.id} is due {due_in(status, now)}."]
    if status.acts_at is not None:
        lines.append(f"If you have not moved by {when_text(status.acts_at)}, {what_happens(meta, True, '')}.")
    return lines


def late_lines(meta: MatchMeta, status: Status, who: Mapping[str, Any], is_you: bool, day: int) -> list[str]:
    """The paragraphs of the daily late note about seat ``who`` (to that seat itself: ``is_you``)."""
    name = "You" if is_you else f"{who['who']} ({who['colour']}, seat {who['seat']})"
    verb = "are" if is_you else "is"
    deadline = status.deadline
    if day <= 0 or deadline is None:
        first = f"{name} {'have' if is_you else 'has'} not moved by the deadline" + (
            f" ({when_text(deadline)})" if deadline else "") + f" in match {meta.id}"
    else:
        first = f"{name} {verb} late by {day} day{'s' if day != 1 else ''} in match {meta.id}"
    if status.acts_at is not None:
        first += f"; at {when_text(status.acts_at)} {what_happens(meta, is_you, str(who['who']))}"
    lines = [first + "."]
    lines.append("A move (or any signed answer for the seat) before then keeps the seat as it is." if is_you else
                 "Nothing for you to do: this note comes once a day while a player is late.")
    return lines


def deadline_line(m: Matches, meta: MatchMeta, seat: int, at: datetime | None = None) -> str:
    """The turn notice's sentence about the seat's deadline ("" when its clock does not run), as
    it reads at ``at`` (default: the clock now). A turn notice passes the moment its turn began:
    its words are then the same whenever it is written, so a resent notice is the same message
    (issue 28: a letter is a function of match, seat and ply)."""
    now = m.moment() if at is None else at
    for st in m.clock_status(meta, now):
        if st.seat == seat and st.running and st.deadline is not None:
            line = f"Your move is due {due_in(st, now)}."
            if st.acts_at is not None:
                line += f" If you have not moved by {when_text(st.acts_at)}, {what_happens(meta, True, '')}."
            return line
    return ""


def ending(meta: MatchMeta, events: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """Why a match ended outside its rules, for the end mail: ``ended_early`` (a sentence, or ""),
    ``left`` (the seats that resigned or forfeited, first to leave first)."""
    standing = meta.standing or {}
    reason = next((str(e.get("reason", "")) for e in reversed(list(events))
                   if e.get("type") in ("match-aborted", "match-ended")), "")
    ended = standing.get("ended")
    if meta.status == "aborted" and not reason:
        reason = "the players or the clock cancelled it"
    if ended == "forfeits" and not reason:
        reason = "fewer than 2 players remain"
    sentence = f"The match ended early: {reason}." if ended in ("aborted", "forfeits") or meta.status == "aborted" else ""
    return {"ended_early": sentence, "left": list(standing.get("forfeited") or [])}
