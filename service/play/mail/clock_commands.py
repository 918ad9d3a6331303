"""The mail desk's clock commands (docs/clock.md): ``resign yes``, ``abort`` (a vote), ``back``,
``vacation YYYY-MM-DD DAYS`` and ``vacation off``.

A match action by mail is a move like any other: an envelope at the match's current ply, signed
with the seat's mail key (or its custodial key) through :func:`service.play.seats.keys.submit_by_mail`,
logged ``by: "email"`` with the message's digest. Match actions are not bound to a turn, so any
reply address of the seat may carry one. Kept out of service.play.mail.desk, which is long already;
the desk hands itself in as a :class:`SeatDesk`, so this module imports nothing of the desk's (an
import back from the desk made the two modules a cycle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from service.i18n import Phrase, phrase, phrase_n
from service.play.clock import vacations
from service.play.errors import Conflict, ServiceError, TooManyRequests, Unavailable
from service.play.mail.answers import why
from service.play.mail.match_words import abort_votes_waiting, votes_needed_text
from service.play.seats.keys import submit_by_mail
from service.play.views.match import log
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.play.context import MatchContext
    from service.play.mail.answers import Verdict
    from service.play.mail.grammar import Reading
    from service.play.mail.inbound import InboundMail
    from service.play.mail.reply_address import ReplyTo


class SeatDesk(Protocol):
    """What these commands need of the mail desk (:class:`service.play.mail.desk.Desk`): the
    use cases' context and the desk's answer to a seat's own holder."""

    ctx: MatchContext

    def seat_answer(self, mail: InboundMail, identity: str, match_id: str, seat: int, verdict: Verdict,
                    headline: str, rule: str = "", *, details: list[str] | None = None,
                    help_text: tuple[str, ...] = (), full_menu: bool = False, board: bool = False,
                    prompt: bool = True) -> str:
        """Answer the seat's holder (see :meth:`service.play.mail.desk.Desk.seat_answer`)."""
        ...


ACTIONS = {"resign": "match:resign", "abort": "match:abort", "back": "match:return"}
RULE_RESIGN = phrase("resigning cannot be undone, so it must be confirmed: reply `resign yes` "
                     "(rule: a resignation by mail is confirmed)")
_BOT_ON = phrase("the server's bot plays your seat on")
_AFTER = {"stand-in": _BOT_ON, "skip": _BOT_ON, "forfeit": _BOT_ON,
          "abort": phrase("the match is aborted, with no result")}


def _earlier(desk: SeatDesk, match_id: str, seat: int, ply: int, digest: str) -> dict[str, Any] | None:
    """The entry this very message made already (a crash before its mark; its envelope named an
    older ply, so submitting again would be a second, different action)."""
    for entry in log(desk.ctx, match_id, max(0, ply - 20), viewer=seat):
        if entry["seat"] == seat and (entry.get("mail") or {}).get("digest") == digest:
            return entry
    return None


def match_action(desk: SeatDesk, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta,
                 reading: Reading) -> str:
    """``resign yes``, ``abort`` or ``back``: the match action for the replying seat, or the
    answer that explains (``resign`` alone) or refuses."""
    match_id, seat, cmd = reply.match, reply.seat, str(reading.command)
    if cmd == "resign" and reading.argument != "yes":
        policy = (meta.timeout_policy or {}).get("policy", "stand-in")
        after = phrase("the match ends when fewer than 2 players remain") if (meta.timeout_policy or {}).get(
            "after_forfeit") == "end" else _AFTER.get(policy, phrase("the match goes on without you"))
        return desk.seat_answer(mail, identity, match_id, seat, "info",
                                phrase("Nothing was done. Resigning gives up seat {seat} of match {match} for good: you "
                                       "are ranked last, and {after}. To resign, reply `resign yes`.", seat=seat,
                                       match=match_id, after=after), RULE_RESIGN)
    done = _earlier(desk, match_id, seat, meta.ply, mail.digest)
    if done is None:
        try:
            result = _submit(desk, match_id, seat, meta, ACTIONS[cmd], mail.digest)
        except (Unavailable, TooManyRequests):
            raise
        except ServiceError as exc:
            return desk.seat_answer(mail, identity, match_id, seat, "refused",
                                    phrase("Nothing was done: {why}.", why=exc.message), why(exc))
        events, status = list(result.get("events") or []), str(result["status"])
    else:
        events, status = list(done["events"]), desk.ctx.meta(match_id).status
    game = desk.ctx.game_of(desk.ctx.meta(match_id))
    return desk.seat_answer(mail, identity, match_id, seat, "accepted", _headline(cmd, seat, match_id, events, status),
                            details=[game.describe_event(e) for e in events if e.get("text") or e.get("type")],
                            prompt=cmd == "back")


def _submit(desk: SeatDesk, match_id: str, seat: int, meta: MatchMeta, kind: str, digest: str) -> dict[str, Any]:
    """The action at the current ply; once more at the new ply when a move landed meanwhile."""
    ply = int(meta.ply)
    for _ in range(3):
        try:
            return submit_by_mail(desk.ctx, match_id, seat, ply, [{"type": kind}], message_digest=digest)
        except Conflict as exc:
            if exc.code != "stale-ply" or "current_ply" not in exc.extra:
                raise
            ply = int(exc.extra["current_ply"])
    return submit_by_mail(desk.ctx, match_id, seat, ply, [{"type": kind}], message_digest=digest)


_STATUS: dict[str, Phrase] = {"active": phrase("active"), "finished": phrase("finished"), "aborted": phrase("aborted")}


def _headline(cmd: str, seat: int, match_id: str, events: list[dict[str, Any]], status: str) -> Phrase:
    if cmd == "resign":
        return phrase("Done: you resigned seat {seat} of match {match}; you are ranked last. The match is now {status}.",
                      seat=seat, match=match_id, status=_STATUS.get(status, status))
    if cmd == "back":
        return phrase("Done: seat {seat} is yours again; no stand-in plays it any more.", seat=seat)
    waiting = abort_votes_waiting(events)
    if status == "aborted" or not waiting:
        return phrase("Done: yours was the last vote needed; match {match} is aborted, with no result.", match=match_id)
    return phrase("Done: your vote to abort match {match} is in. Still needed: {votes}; the match goes on meanwhile.",
                  match=match_id, votes=votes_needed_text(waiting))


def vacation(desk: SeatDesk, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta,
             reading: Reading) -> str:
    """``vacation YYYY-MM-DD DAYS`` / ``vacation off`` for the key that holds the replying seat:
    its clocks in every match stop during the vacation."""
    match_id, seat = reply.match, reply.seat
    key = str(meta.seats[seat].public_key or "")
    try:
        if reading.argument == "off":
            result = vacations.off(desk.ctx, key)
        else:
            start, days = reading.argument.split()
            result = vacations.declare(desk.ctx, key, start, int(days))
    except Unavailable as exc:
        if exc.code != "vacations-unavailable":  # a store outage: the mail is delivered again later
            raise
        return _refused(desk, mail, identity, match_id, seat, exc)
    except TooManyRequests:
        raise
    except ServiceError as exc:
        return _refused(desk, mail, identity, match_id, seat, exc)
    return desk.seat_answer(mail, identity, match_id, seat, "info", _vacation_headline(result),
                            details=_days_left(result))


def _refused(desk: SeatDesk, mail: InboundMail, identity: str, match_id: str, seat: int, exc: ServiceError) -> str:
    return desk.seat_answer(mail, identity, match_id, seat, "refused", phrase("Nothing was done: {why}.", why=exc.message),
                            why(exc))


def _vacation_headline(result: dict[str, Any]) -> Phrase:
    v = result.get("vacation") or {}
    if v.get("status") == "cancelled":
        return phrase("Done: your vacation from {start} is cancelled; its days are yours again.", start=v.get("start"))
    if v.get("status") == "ended":
        return phrase("Done: welcome back. Your vacation ends now, and your clocks run again.")
    days = int(v.get("days") or 0)
    return phrase_n("Done: you are on vacation from {start} to {last} inclusive ({n} day, UTC). Your clocks stop then "
                    "in every match this seat's key plays; reply `vacation off` to come back early.",
                    "Done: you are on vacation from {start} to {last} inclusive ({n} days, UTC). Your clocks stop then "
                    "in every match this seat's key plays; reply `vacation off` to come back early.",
                    days, start=v.get("start"), last=v.get("last_day"))


def _days_left(result: dict[str, Any]) -> list[str]:
    return [phrase("vacation days left in {year}: {left} of {allowance}", year=y["year"], left=y["left"],
                   allowance=result.get("allowance"))
            for y in result.get("years") or []]
