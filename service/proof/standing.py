"""Who plays each seat, and how a match may end before its rules end it: resignation, timeouts,
stand-ins and abort votes, as pure functions over a small value (:class:`Standing`).

The service (service.play) and the offline verifier (service.proof.verify) both walk a match's
entries through :func:`judge`, so what the server accepted is exactly what the verifier replays.

**Controllers.** Each seat is played by

``player``     the person holding the seat's key (or mail delegation);
``bot``        a bot seat from the start;
``stand-in``   the server's bot, after the seat timed out under the *stand-in* policy, until the
               player signs anything for the seat again (a move, or ``match:return``);
``skip``       the server passing for the seat, after a timeout under the *skip* policy, until
               the seat need not act any more (its turn is over);
``forfeited``  nobody any more: the player resigned or forfeited, is ranked last, and the server's
               bot plays on (or the match ended, see ``after_forfeit``).

**Match actions** are actions whose ``type`` starts with ``match:``. They travel in ordinary
signed envelopes through the same path as game actions, always alone in their envelope:

``match:resign``  (the seat's key, any time the match runs) give the seat up: ranked last;
``match:abort``   (the seat's key) vote to cancel the match; it is aborted, with no result, once
                  every human seat that has not forfeited has voted;
``match:return``  (the seat's key) take the seat back from a stand-in;
``match:forfeit`` and ``match:cancel``  only in a timeout entry (``by: "clock"``, signed by the
                  match's clock key), under the *forfeit* and *abort* policies.

**Entries the clock key signs** have ``by`` ``clock`` (the timeout itself, with its ``clock``
field), ``stand-in:<bot>`` (a stand-in's or a forfeited seat's move) or ``skip`` (a pass).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from service.games.base import Action, Game, GameError, Rng
from service.i18n import phrase, phrase_n

POLICIES = ("stand-in", "skip", "forfeit", "abort")
AFTER_FORFEIT = ("bot", "end")
DEFAULT_POLICY: dict[str, Any] = {"policy": "stand-in", "after_forfeit": "bot", "grace_hours": 24}
GRACE_HOURS = (0, 336)
SEAT_ACTIONS = ("match:resign", "match:abort", "match:return")
CLOCK_ACTIONS = ("match:forfeit", "match:cancel")
PASS_TYPES = ("pass", "end-turn", "done")
"""Action types that mean "I do nothing more this turn", in the order the skip policy prefers them."""
CLOCK = "clock"
SKIP = "skip"
STAND_IN = "stand-in:"
SERVER_PLAYS = ("stand-in", "skip", "forfeited")


class StandingError(Exception):
    """A match action that may not be taken: ``status`` is the HTTP status it maps to (403 not
    this seat's to take, 409 not now), ``code`` the stable problem code."""

    def __init__(self, status: int, code: str, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.index = index  # the action of the move it is about, when it is about one


def check_timeout_policy(value: Any) -> dict[str, Any]:
    """The normal form of a requested timeout policy (None: the default, stand-in), or ValueError
    (:class:`service.proof.time_control.TimeControlError`) naming the offending field."""
    from service.proof.time_control import TimeControlError

    if value is None:
        return dict(DEFAULT_POLICY)
    if isinstance(value, str):
        value = {"policy": value}
    if not isinstance(value, Mapping):
        raise TimeControlError("policy", f'a timeout policy is one of {", ".join(POLICIES)} or an object with "policy"')
    extra = set(value) - {"policy", "after_forfeit", "grace_hours"}
    if extra:
        raise TimeControlError(sorted(extra)[0], f"a timeout policy has policy, after_forfeit and grace_hours, not {sorted(extra)[0]}")
    policy = value.get("policy", DEFAULT_POLICY["policy"])
    if policy not in POLICIES:
        raise TimeControlError("policy", f"the timeout policy is one of {', '.join(POLICIES)}, not {policy!r}")
    after = value.get("after_forfeit", "bot")
    if after not in AFTER_FORFEIT:
        raise TimeControlError("after_forfeit", 'after_forfeit is "bot" (a bot plays the seat on) or "end" (the match '
                                                f"ends when fewer than 2 humans remain), not {after!r}")
    grace = value.get("grace_hours", DEFAULT_POLICY["grace_hours"])
    if isinstance(grace, bool) or not isinstance(grace, int) or not GRACE_HOURS[0] <= grace <= GRACE_HOURS[1]:
        raise TimeControlError("grace_hours", f"grace_hours is a whole number of hours from {GRACE_HOURS[0]} to "
                                              f"{GRACE_HOURS[1]}, not {grace!r}")
    return {"policy": policy, "after_forfeit": after, "grace_hours": grace}


@dataclass(frozen=True)
class Standing:
    """Who plays each seat, who left (in order), who voted to abort, and whether the match ended
    outside its rules (``ended``: ``aborted`` or ``forfeits``)."""

    controllers: tuple[str, ...]
    forfeited: tuple[int, ...] = ()
    abort_votes: tuple[int, ...] = ()
    ended: str | None = None

    @classmethod
    def start(cls, kinds: Sequence[str]) -> Standing:
        """The standing at the start: ``kinds`` are the seats' kinds (``human`` or ``bot``)."""
        return cls(tuple("bot" if k == "bot" else "player" for k in kinds))

    def to_json(self) -> dict[str, Any]:
        return {"controllers": list(self.controllers), "forfeited": list(self.forfeited),
                "abort_votes": list(self.abort_votes), "ended": self.ended}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Standing:
        return cls(tuple(data["controllers"]), tuple(data.get("forfeited", ())), tuple(data.get("abort_votes", ())),
                   data.get("ended"))

    def humans_left(self) -> list[int]:
        """Human seats still in the match (not forfeited)."""
        return [s for s, c in enumerate(self.controllers) if c in ("player", "stand-in", "skip")]

    def server_plays(self, seat: int) -> bool:
        """Does the server (a stand-in, a pass, or the bot of a forfeited seat) move for the seat now?"""
        return self.controllers[seat] in SERVER_PLAYS

    def _with(self, seat: int, controller: str) -> Standing:
        c = list(self.controllers)
        c[seat] = controller
        return replace(self, controllers=tuple(c))


def is_match_action(action: Mapping[str, Any]) -> bool:
    """Is this one of the match's own actions (``match:…``) rather than a game action?"""
    return str(action.get("type", "")).startswith("match:")


def server_signed(by: str) -> bool:
    """Is an entry with this ``by`` signed by the match's clock key (not the seat's)?"""
    return by in (CLOCK, SKIP) or by.startswith(STAND_IN)


def pass_action(legal: Sequence[Action]) -> Action | None:
    """The legal action the skip policy plays: a pass, else None (then the stand-in chooses)."""
    for kind in PASS_TYPES:
        for a in legal:
            if a.get("type") == kind:
                return a
    return None


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    """A match event with the plain sentence every reader (notices, logs, the web client) shows."""
    seat = fields.get("seat")
    text = {
        "match-aborted": f"The match is aborted with no result: {fields.get('reason')}.",
        "match-ended": f"The match ends: {fields.get('reason')}.",
        "forfeited": f"Seat {seat} forfeits the match and is ranked last.",
        "resigned": f"Seat {seat} resigned and is ranked last.",
        "returned": f"Seat {seat} is back: its player moves for it again.",
    }.get(kind, "")
    if kind == "abort-voted":
        waiting = fields["waiting_for"]
        text = f"Seat {seat} voted to abort the match" + (
            f"; still to vote: seat{'s' if len(waiting) > 1 else ''} {', '.join(map(str, waiting))}." if waiting
            else "; that was the last vote needed.")
    if kind == "timed-out":
        text = f"Seat {seat} ran out of time" + {
            "stand-in": ": a stand-in plays for it until its player is back.",
            "skip": ": its turn is passed.",
        }.get(str(fields.get("policy")), ".")
    return {"type": kind, **fields, "text": text}


_REASONS = {
    "a player left under the abort policy": phrase("a player left under the abort policy"),
    "fewer than 2 players remain": phrase("fewer than 2 players remain"),
    "every remaining player voted to abort": phrase("every remaining player voted to abort"),
}


def _reason(reason: str) -> str:
    """A stored reason (English, as :func:`_event` wrote it) as a phrase."""
    known = _REASONS.get(reason)
    if known is not None:
        return known
    head, _, tail = reason.partition(" ran out of time under the abort policy")
    if head.startswith("seat ") and head[5:].isdigit() and not tail and reason != head:
        return phrase("seat {seat} ran out of time under the abort policy", seat=int(head[5:]))
    return reason


def describe_match_event(event: Mapping[str, Any]) -> str | None:
    """A match event (:data:`MATCH_EVENT_TYPES`) in words for its reader, from its fields (a
    :class:`service.i18n.Phrase`, English: the ``text`` it was stored with); ``None`` for any other
    event (a game's, which its game describes)."""
    kind = event.get("type")
    seat = event.get("seat")
    reason = _reason(str(event.get("reason") or ""))
    if kind == "match-aborted":
        return phrase("The match is aborted with no result: {reason}.", reason=reason)
    if kind == "match-ended":
        return phrase("The match ends: {reason}.", reason=reason)
    if kind == "forfeited":
        return phrase("Seat {seat} forfeits the match and is ranked last.", seat=seat)
    if kind == "resigned":
        return phrase("Seat {seat} resigned and is ranked last.", seat=seat)
    if kind == "returned":
        return phrase("Seat {seat} is back: its player moves for it again.", seat=seat)
    if kind == "abort-voted":
        waiting = list(event.get("waiting_for") or [])
        if not waiting:
            return phrase("Seat {seat} voted to abort the match; that was the last vote needed.", seat=seat)
        return phrase_n("Seat {seat} voted to abort the match; still to vote: seat {seats}.",
                        "Seat {seat} voted to abort the match; still to vote: seats {seats}.", len(waiting),
                        seat=seat, seats=", ".join(map(str, waiting)))
    if kind == "timed-out":
        policy = str(event.get("policy"))
        if policy == "stand-in":
            return phrase("Seat {seat} ran out of time: a stand-in plays for it until its player is back.", seat=seat)
        if policy == "skip":
            return phrase("Seat {seat} ran out of time: its turn is passed.", seat=seat)
        return phrase("Seat {seat} ran out of time.", seat=seat)
    return None


MATCH_EVENT_TYPES = ("timed-out", "resigned", "returned", "forfeited", "abort-voted", "match-aborted", "match-ended")
"""The events of the match itself (not of its game), which :func:`describe_match_event` says."""


def _forfeit(standing: Standing, seat: int, policy: Mapping[str, Any]) -> tuple[Standing, list[dict[str, Any]]]:
    """The seat leaves the match (resigned or forfeited): what the policy makes of that."""
    s = replace(standing._with(seat, "forfeited"), forfeited=(*standing.forfeited, seat),
                abort_votes=tuple(v for v in standing.abort_votes if v != seat))
    events: list[dict[str, Any]] = []
    if policy["policy"] == "abort":
        return replace(s, ended="aborted"), [_event("match-aborted", reason="a player left under the abort policy")]
    # after_forfeit is the creator's choice for every departure, a resignation under the stand-in
    # or skip policy too (the contract: "then as forfeit above")
    if policy.get("after_forfeit") == "end" and len(s.humans_left()) < 2:
        return replace(s, ended="forfeits"), [_event("match-ended", reason="fewer than 2 players remain")]
    if s.abort_votes and set(s.humans_left()) <= set(s.abort_votes):  # the leaver was the last one not to vote
        return replace(s, ended="aborted"), [_event("match-aborted", reason="every remaining player voted to abort")]
    return s, events


def match_action(standing: Standing, policy: Mapping[str, Any], seat: int, action: Mapping[str, Any],
                 by: str) -> tuple[Standing, list[dict[str, Any]]]:
    """Take one match action for ``seat`` (StandingError when it may not be taken)."""
    kind = action.get("type")
    if set(action) != {"type"}:
        raise StandingError(400, "bad-match-action", phrase("{kind} takes no fields besides type", kind=kind))
    controller = standing.controllers[seat]
    if kind in CLOCK_ACTIONS:
        if by != CLOCK:
            raise StandingError(403, "clock-only", phrase("{kind} is taken by the match clock at a timeout, never by a seat", kind=kind))
        if controller != "player":
            raise StandingError(409, "not-late", phrase("seat {seat} is not played by its player, so it cannot time out", seat=seat))
        wanted = "forfeit" if kind == "match:forfeit" else "abort"
        if policy["policy"] != wanted:  # the clock acts as the match's policy says, and only so
            raise StandingError(409, "wrong-policy", phrase("{kind} is the timeout of the {wanted} policy; this match's policy is {policy}", kind=kind, wanted=wanted, policy=policy['policy']))
        if kind == "match:forfeit":
            s, ev = _forfeit(standing, seat, policy)
            return s, [_event("timed-out", seat=seat, policy="forfeit"), _event("forfeited", seat=seat), *ev]
        return replace(standing, ended="aborted"), [
            _event("timed-out", seat=seat, policy="abort"),
            _event("match-aborted", reason=f"seat {seat} ran out of time under the abort policy")]
    if kind not in SEAT_ACTIONS:
        raise StandingError(400, "unknown-match-action", phrase("there is no match action {kind!r} (there are {actions})", kind=kind, actions=', '.join(SEAT_ACTIONS)))
    if server_signed(by):
        raise StandingError(403, "seat-only", phrase("{kind} is the seat holder's to take, not the server's", kind=kind))
    if controller == "bot":
        raise StandingError(403, "bot-seat", phrase("seat {seat} is a bot seat: {kind} is for the players", seat=seat, kind=kind))
    if controller == "forfeited":
        raise StandingError(409, "seat-left", phrase("seat {seat} has already left the match", seat=seat))
    if kind == "match:resign":
        s, ev = _forfeit(standing, seat, policy)
        return s, [_event("resigned", seat=seat), *ev]
    if kind == "match:return":
        if controller not in ("stand-in", "skip"):
            raise StandingError(409, "no-stand-in", phrase("nobody stands in for seat {seat}: it is already yours", seat=seat))
        return standing._with(seat, "player"), [_event("returned", seat=seat)]
    # match:abort
    if seat in standing.abort_votes:
        raise StandingError(409, "already-voted", phrase("seat {seat} has already voted to abort", seat=seat))
    s = replace(standing, abort_votes=(*standing.abort_votes, seat))
    waiting = [h for h in s.humans_left() if h not in s.abort_votes]
    events: list[dict[str, Any]] = [_event("abort-voted", seat=seat, waiting_for=waiting)]
    if not waiting:
        return replace(s, ended="aborted"), [*events, _event("match-aborted",
                                                             reason="every remaining player voted to abort")]
    return s, events


def judge(game: Game[Any], state: Any, standing: Standing, policy: Mapping[str, Any], seat: int, by: str,
          actions: Sequence[Action], rng: Rng) -> tuple[Any, Standing, list[dict[str, Any]]]:
    """One entry's effect: the state, the standing and the events after ``seat``'s ``actions``
    made ``by`` (``human``, ``email``, ``bot:…``, ``clock``, ``stand-in:…``, ``skip``).

    Raises :class:`StandingError` for a match action or controller that does not allow the
    entry, and the rules' :class:`~service.games.base.GameError` for a game action that does not
    apply (with ``index`` set on the exception to the action's position). Game actions must come
    from a seat that has to act; match actions stand alone in their entry."""
    controller = standing.controllers[seat]
    events: list[dict[str, Any]] = []
    if standing.ended is not None:
        raise StandingError(409, "match-over", phrase("the match has ended"))
    if any(is_match_action(a) for a in actions):
        if len(actions) != 1:
            raise StandingError(400, "match-action-alone", phrase("a match action (match:…) stands alone in its move"))
        standing, events = match_action(standing, policy, seat, actions[0], by)
        return state, standing, events
    if not actions:  # the service refuses an empty move; a record must not hold one either
        raise StandingError(400, "empty-move", phrase("a move has at least one action"))
    if by == CLOCK:
        if controller != "player":
            raise StandingError(409, "not-late", phrase("seat {seat} is not played by its player, so it cannot time out", seat=seat))
        mode = policy["policy"]
        if mode in ("forfeit", "abort"):
            raise StandingError(400, "clock-action", phrase("a timeout under the {mode} policy is a match action", mode=mode))
        standing = standing._with(seat, "stand-in" if mode == "stand-in" else "skip")
        events.append(_event("timed-out", seat=seat, policy=mode))
    elif by == SKIP:
        if controller != "skip":
            raise StandingError(403, "not-skipping", phrase("the server passes for seat {seat} only after a skip timeout", seat=seat))
    elif by.startswith(STAND_IN):
        if controller not in ("stand-in", "forfeited"):
            raise StandingError(403, "no-stand-in", phrase("the server plays seat {seat} only for a late or departed player", seat=seat))
    elif controller == "forfeited":
        raise StandingError(403, "seat-left", phrase("seat {seat} has left the match: its player no longer moves for it", seat=seat))
    elif controller in ("stand-in", "skip"):  # the player is back: any signed move returns the seat
        standing = standing._with(seat, "player")
        events.append(_event("returned", seat=seat))
    for i, action in enumerate(actions):
        if seat not in game.active_seats(state):
            raise StandingError(409, "not-your-turn", phrase("action {i}: after the earlier actions of this move seat {seat} need not act", i=i, seat=seat), index=i)
        try:
            state, caused = game.apply(state, seat, action, rng)
        except GameError as exc:
            exc.index = i  # type: ignore[attr-defined]
            raise
        events.extend(caused)
    if standing.controllers[seat] == "skip" and seat not in game.active_seats(state):
        standing = standing._with(seat, "player")  # the skipped turn is over: the next one is the player's
    return state, standing, events


def final_outcome(outcome: Mapping[str, Any] | None, standing: Standing, players: int) -> dict[str, Any] | None:
    """The match's result with the departed seats ranked last (the first to leave ranks lowest).

    ``outcome`` is the rules' result (None while the game runs). A match that ended because too
    few players remain has no rules' result: the remaining seats share first place, with score 0."""
    left = list(standing.forfeited)
    if standing.ended == "aborted":
        return None
    if outcome is None and standing.ended != "forfeits":
        return None
    stay = [s for s in range(players) if s not in left]
    if outcome is None:
        scores = [0] * players
        stay_rank = dict.fromkeys(stay, 1)
        detail: dict[str, Any] = {"ended": "too few players remain"}
    else:
        scores = list(outcome["scores"])
        ranks = list(outcome["ranks"])
        stay_rank = {s: 1 + sum(1 for t in stay if ranks[t] < ranks[s]) for s in stay}
        detail = dict(outcome.get("detail") or {})
    if not left:
        return None if outcome is None else dict(outcome)
    rank = [0] * players
    for s in stay:
        rank[s] = stay_rank[s]
    for place, s in enumerate(reversed(left)):  # the last to leave ranks right after those who stayed
        rank[s] = len(stay) + 1 + place
    detail["forfeited"] = left
    return {"scores": scores, "ranks": rank, "detail": detail}
