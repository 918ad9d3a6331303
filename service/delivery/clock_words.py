"""The clock in plain words, for the mails: deadlines, how long is left, who is late, what the
timeout policy will do, and why a match ended before its rules ended it; in the reader's language
(issue 29).

Times are written in UTC, as every mail's reader may be anywhere. English keeps its own short forms
(``Tue 3 Dec 18:00 UTC``, ``1 day 12 hours``), which stored letters and tests know; other languages
get their own through :func:`service.i18n.moment` and :func:`service.i18n.duration` ("2026. dec. 3.
18:00 UTC", "1 nap 12 óra").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from service import i18n
from service.delivery.clock import SeatStatus as Status
from service.i18n import Phrase, phrase, render, tr, tr_n
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.play.matches import Matches

EN = i18n.DEFAULT


def when_text(when: datetime, language: str = EN) -> str:
    """``Tue 3 Dec 18:00 UTC`` (in English; the reader's own date and time format otherwise)."""
    at = when.astimezone(UTC)
    if language != EN:
        return i18n.moment(at, language)
    return f"{at:%a} {at.day} {at:%b %H:%M} UTC"


def span(seconds: float, language: str = EN) -> str:
    """A duration in words, to the minute: ``1 day 12 hours``, ``5 hours``, ``40 minutes``."""
    minutes = int(max(0.0, seconds) // 60)
    if not minutes:
        return tr(language, "less than a minute")
    if language != EN:
        return i18n.duration(minutes * 60, language)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)

    def unit(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    if days:
        return unit(days, "day") + (f" {unit(hours, 'hour')}" if hours else "")
    if hours:
        return unit(hours, "hour") + (f" {unit(mins, 'minute')}" if mins else "")
    return unit(mins, "minute")


def due_in(status: Status, now: datetime, language: str = EN) -> str:
    """``in 1 day 12 hours (by Tue 3 Dec 18:00 UTC)``."""
    deadline = status.deadline
    if deadline is None:
        return ""
    return tr(language, "in {span} (by {when})", span=span((deadline - now).total_seconds(), language),
              when=when_text(deadline, language))


def _policy(meta: MatchMeta) -> dict[str, Any]:
    return dict(meta.timeout_policy or {"policy": "stand-in", "after_forfeit": "bot", "grace_hours": 24})


def what_happens(meta: MatchMeta, you: bool, name: str, language: str = EN) -> str:
    """What the match's timeout policy does to a late seat, as the rest of a sentence."""
    policy = _policy(meta)
    kind = policy["policy"]
    if kind == "skip":
        return (tr(language, "your turn is passed (the player keeps the seat)") if you
                else tr(language, "their turn is passed (the player keeps the seat)"))
    if kind == "forfeit":
        if policy.get("after_forfeit", "bot") == "bot":
            return (tr(language, "you forfeit the match (ranked last) and a bot plays the seat on") if you else
                    tr(language, "{name} forfeits the match (ranked last) and a bot plays the seat on", name=name))
        return (tr(language, "you forfeit the match (ranked last) and the match ends if fewer than 2 players remain")
                if you else tr(language, "{name} forfeits the match (ranked last) and the match ends if fewer than 2 "
                                         "players remain", name=name))
    if kind == "abort":
        return tr(language, "the match is aborted, with no result")
    return (tr(language, "a stand-in bot plays your moves until you move again") if you
            else tr(language, "a stand-in bot plays their moves until they move again"))


def reminder_lines(meta: MatchMeta, status: Status, now: datetime, language: str = EN) -> list[str]:
    """The paragraphs of a reminder."""
    lines = [tr(language, "Your move in match {match} is due {due}.", match=meta.id, due=due_in(status, now, language))]
    if status.acts_at is not None:
        lines.append(tr(language, "If you have not moved by {when}, {what}.", when=when_text(status.acts_at, language),
                        what=what_happens(meta, True, "", language)))
    return lines


def late_lines(meta: MatchMeta, status: Status, who: Mapping[str, Any], is_you: bool, day: int,
               language: str = EN) -> list[str]:
    """The paragraphs of the daily late note about seat ``who`` (to that seat itself: ``is_you``)."""
    name = tr(language, "{who} ({colour}, seat {seat})", who=who["who"], colour=who["colour"], seat=who["seat"])
    deadline = status.deadline
    if day <= 0 or deadline is None:
        when = when_text(deadline, language) if deadline else ""
        if is_you:
            first = (tr(language, "You have not moved by the deadline ({when}) in match {match}", when=when, match=meta.id)
                     if deadline else tr(language, "You have not moved by the deadline in match {match}", match=meta.id))
        else:
            first = (tr(language, "{name} has not moved by the deadline ({when}) in match {match}", name=name, when=when,
                        match=meta.id) if deadline else
                     tr(language, "{name} has not moved by the deadline in match {match}", name=name, match=meta.id))
    elif is_you:
        first = tr_n(language, "You are late by {n} day in match {match}", "You are late by {n} days in match {match}",
                     day, match=meta.id)
    else:
        first = tr_n(language, "{name} is late by {n} day in match {match}", "{name} is late by {n} days in match {match}",
                     day, name=name, match=meta.id)
    if status.acts_at is not None:
        first = tr(language, "{first}; at {when} {what}", first=first, when=when_text(status.acts_at, language),
                   what=what_happens(meta, is_you, str(who["who"]), language))
    lines = [first + "."]
    lines.append(tr(language, "A move (or any signed answer for the seat) before then keeps the seat as it is.") if is_you
                 else tr(language, "Nothing for you to do: this note comes once a day while a player is late."))
    return lines


def deadline_line(m: Matches, meta: MatchMeta, seat: int, at: datetime | None = None, language: str = EN) -> str:
    """The turn notice's sentence about the seat's deadline ("" when its clock does not run), as
    it reads at ``at`` (default: the clock now). A turn notice passes the moment its turn began:
    its words are then the same whenever it is written, so a resent notice is the same message
    (issue 28: a letter is a function of match, seat and ply)."""
    now = m.moment() if at is None else at
    for st in m.clock_status(meta, now):
        if st.seat == seat and st.running and st.deadline is not None:
            line = tr(language, "Your move is due {due}.", due=due_in(st, now, language))
            if st.acts_at is not None:
                line += " " + tr(language, "If you have not moved by {when}, {what}.",
                                 when=when_text(st.acts_at, language), what=what_happens(meta, True, "", language))
            return line
    return ""


def ending(meta: MatchMeta, events: Sequence[Mapping[str, Any]] = (), language: str = EN) -> dict[str, Any]:
    """Why a match ended outside its rules, for the end mail: ``ended_early`` (a sentence, or ""),
    ``left`` (the seats that resigned or forfeited, first to leave first)."""
    standing = meta.standing or {}
    reason = next((str(e.get("reason", "")) for e in reversed(list(events))
                   if e.get("type") in ("match-aborted", "match-ended")), "")
    reason = reason_text(reason, language) if reason else ""
    ended = standing.get("ended")
    if meta.status == "aborted" and not reason:
        reason = tr(language, "the players or the clock cancelled it")
    if ended == "forfeits" and not reason:
        reason = tr(language, "fewer than 2 players remain")
    sentence = (tr(language, "The match ended early: {reason}.", reason=reason)
                if ended in ("aborted", "forfeits") or meta.status == "aborted" else "")
    return {"ended_early": sentence, "left": list(standing.get("forfeited") or [])}


_REASONS: dict[str, Phrase] = {
    "a player left under the abort policy": phrase("a player left under the abort policy"),
    "fewer than 2 players remain": phrase("fewer than 2 players remain"),
    "every remaining player voted to abort": phrase("every remaining player voted to abort"),
}
"""The reasons service.proof.standing writes into its end events (in English, as stored)."""
_RAN_OUT = re.compile(r"seat (\d+) ran out of time under the abort policy")


def reason_text(reason: str, language: str = EN) -> str:
    """A stored end event's English ``reason`` in ``language`` (one we do not know stays as it is)."""
    known = _REASONS.get(reason)
    if known is not None:
        return render(known, language)
    ran_out = _RAN_OUT.fullmatch(reason)
    if ran_out:
        return tr(language, "seat {seat} ran out of time under the abort policy", seat=int(ran_out.group(1)))
    return reason
