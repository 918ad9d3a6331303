"""The answer mail's content, as plain data: what the desk decided and the seat's position now.

The desk (service.play.mail.desk) builds an :class:`Answer` for every message it answers; the
``answer`` job (workers/answers.py) renders it with the ``answer`` templates and sends it once.
Everything here is JSON-ready, because the answer travels as the job's argument.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from service.games.words import count, rules_url
from service.play.errors import ServiceError
from service.play.mail.menu import SHOWN, menu
from service.play.mail.reply_address import DEFAULT_DAYS, parse_reply_address, reply_address
from service.play.views import match as views
from service.proof.match_record import MatchMeta, SeatRow

if TYPE_CHECKING:
    from service.play.context import MatchContext
    from service.play.mail.inbound import InboundMail

Verdict = Literal["accepted", "refused", "changed", "info", "joined"]
LOG_LINES = 10
"""How many of the last moves a ``log`` answer lists."""

HELP = (
    "How to play by mail: reply to your latest turn notice with",
    "  3            the menu item 3",
    "  3, 1, end    a whole turn in one reply: its steps in order, as one move (all or",
    "               nothing), by menu numbers or words: sail to Tunis, build, end",
    "  show         the board and the whole menu",
    "  log          the last moves",
    "  notices every | notices digest | notices off (or: stop notices)",
    "               every turn, one daily digest, or no turn notices",
    "  key          (a seat joined by mail) a one-time token to attach your own key",
    "  resign yes   give up your seat (you are ranked last)",
    "  abort        vote to abort the match (it is aborted when every remaining player voted)",
    "  back         take your seat back from the stand-in that played it while you were late",
    "  vacation 2027-01-04 7 | vacation off",
    "               stop your clocks for 7 days from that date (UTC), or come back early",
    "  help         this text",
    "Only the first paragraph of your reply is read; quoted text and signatures are not.",
)
INVITE_HELP = (
    "To take the seat you were invited to, reply to the invitation with",
    "  join Your Name",
    "The server then holds your seat's key, and the match's record says so; you can attach a key",
    "of your own later (reply `key` to any of the match's mails).",
)


@dataclass
class Answer:
    """One answer mail: who gets it, what the verdict was, and the seat's position now."""

    to: str
    subject: str
    in_reply_to: str
    verdict: Verdict
    headline: str
    rule: str = ""
    """Which rule forbids what was asked (a refusal), in the rule's own words."""
    details: list[str] = field(default_factory=list)
    reply_to: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    """The seat's position (only for the seat's own holder): match, game, players, turn, menu."""
    help: Sequence[str] = ()

    def payload(self) -> dict[str, Any]:
        """The job's argument: headers and the template context, JSON only."""
        return {"to": self.to, "subject": self.subject, "in_reply_to": self.in_reply_to, "reply_to": self.reply_to,
                "context": {**self.context, "verdict": self.verdict, "headline": self.headline, "rule": self.rule,
                            "details": list(self.details), "help": list(self.help)}}


def reply_subject(subject: str) -> str:
    """``Re: <original subject>``, without piling up ``Re: Re:``."""
    subject = " ".join(subject.split())
    if not subject:
        return "Re: your mail to Portolan"
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def players_line(ctx: MatchContext, meta: MatchMeta) -> list[str]:
    """Every seat as "Ana (Red)", by seat number."""
    names = ctx.game_of(meta).seat_names(meta.players)
    out: list[str] = []
    for row in meta.seats:
        who = row.name or ("an open seat" if not row.claimed else f"seat {row.seat}")
        out.append(f"{who} ({names[row.seat]})" if row.seat < len(names) else who)
    return out


def whose_turn(ctx: MatchContext, meta: MatchMeta, seat: int) -> str:
    """One sentence: the match's state as the seat's player needs it."""
    people = players_line(ctx, meta)
    status = meta.status
    if status == "finished":
        outcome = meta.outcome or {}
        scores = outcome.get("scores") or []
        shown = ", ".join(f"{people[s]} {scores[s]}" for s in range(min(len(scores), len(people))))
        return f"The match is over (after ply {meta.ply}). Final scores: {shown}." if shown else "The match is over."
    if status == "aborted":
        return "The match was aborted."
    if status == "waiting":
        open_seats = sum(1 for r in meta.seats if not r.claimed)
        return f"The match has not started yet: {count(open_seats, 'seat')} still to be taken."
    active = list(meta.active)
    if seat in active:
        others = [people[s] for s in active if s != seat]
        return f"It is your turn (ply {meta.ply})" + (f", together with {', '.join(others)}." if others else ".")
    return f"Now waiting for {', '.join(people[s] for s in active)} (ply {meta.ply})."


def prompt_mark(match_id: str, seat: int, ply: int) -> str:
    """The mark of the one mail that asks ``seat`` for its move at ``ply``.

    Two mails may want to: the answer to the seat's reply (when the seat must act again) and the
    turn notice of the move that made it the seat's turn. They race whenever another move (a bot's,
    a stand-in's) lands between the reply's move and the answer's reading of the position; both
    then asked for the same ply, and the player got two menus for one move. Whichever takes this
    mark first (``Store.claim_for``, owner ``notice`` or ``answer:<message>``) asks; the other
    shows the position without a menu or a turn token."""
    return f"prompt:{match_id}:{seat}:{ply}"


def seat_context(ctx: MatchContext, match_id: str, seat: int, base: str, *, full_menu: bool = False,
                 board: bool = False, prompt: bool = True, prompt_owner: str = "",
                 days: int = DEFAULT_DAYS) -> tuple[dict[str, Any], str]:
    """The seat's position now, for its own holder: the template context and the Reply-To
    (a fresh turn token when the seat must act, else the seat's ``o`` address). ``prompt=False``
    leaves out the menu and the turn token: a turn notice of its own is on its way. With a
    ``prompt_owner`` the menu is shown only if that owner takes the ply's :func:`prompt_mark`
    (a turn notice that took it first asks for the move instead). The token is good for ``days``
    days (``PORTOLAN_MAIL_TOKEN_DAYS``)."""
    view = views.view(ctx, match_id, seat)
    # the view's own public fields, so the menu, the turn and the token all describe one ply
    meta = MatchMeta(id=match_id, game=view["game"], players=view["players"], status=view["status"], ply=view["ply"],
                     seats=tuple(SeatRow(seat=s["seat"], kind=s["kind"], name=s["name"], claimed=s["claimed"],
                                         public_key=s["public_key"] or "") for s in view["seats"]),
                     active=tuple(view["active_seats"]), outcome=view.get("outcome"))
    game = ctx.game_of(meta)
    items = menu(view.get("legal_actions") or [])
    must_act = prompt and view["status"] == "active" and seat in view["active_seats"] and bool(items)
    if must_act and prompt_owner and not ctx.store.claim_for(prompt_mark(match_id, seat, view["ply"]), prompt_owner):
        must_act = False  # the turn notice of this ply asks for the move: one prompt per seat and ply
    kind: Literal["t", "o"] = "t" if must_act else "o"
    reply_to = reply_address(ctx.server_key, base, kind, match_id, seat, view["ply"] if must_act else 0, days=days)
    shown = items if full_menu else items[:SHOWN]
    names = game.seat_names(meta.players)
    context = {
        "name": meta.seats[seat].name, "match": match_id, "game_title": game.title, "seat": seat,
        "seat_name": names[seat] if seat < len(names) else "", "ply": view["ply"],
        "players": players_line(ctx, meta), "turn": whose_turn(ctx, meta, seat),
        "menu": [{"number": i.number, "text": i.text} for i in shown] if must_act else [],
        "more": len(items) - len(shown) if must_act else 0, "must_act": must_act,
        "board": view.get("text", "") if board else "", "public_url": ctx.public_url,
        # the web page, as service.delivery.letters.match_link gives it (not the API's JSON)
        "match_url": f"{ctx.public_url}/match/{match_id}",
        "rules_link": f"{ctx.public_url}{rules_url(game.id)}" if rules_url(game.id) else "",
    }
    return context, reply_to


def log_lines(ctx: MatchContext, match_id: str, seat: int, ply: int) -> list[str]:
    """The last :data:`LOG_LINES` moves in words, as the seat may see them."""
    meta = ctx.meta(match_id)
    game = ctx.game_of(meta)
    people = players_line(ctx, meta)
    lines: list[str] = []
    for entry in views.log(ctx, match_id, max(0, ply - LOG_LINES), viewer=seat):
        who = people[entry["seat"]] if entry["seat"] < len(people) else f"seat {entry['seat']}"
        did = "; ".join(game.describe_action(a) for a in entry["envelope"]["actions"])
        lines.append(f"ply {entry['ply']}, {who}{' by mail' if entry.get('by') == 'email' else ''}: {did}")
        lines.extend(f"    {e.get('text', e.get('type', ''))}" for e in entry["events"] if e.get("text") or e.get("type"))
    return lines or ["No move has been made yet."]


def event_lines(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """What a move caused, in the events' own words."""
    return [str(e.get("text", e.get("type", ""))) for e in events if e.get("text") or e.get("type")]


def why(exc: ServiceError) -> str:
    """Which rule refused: the game's (its section, when the rules core names one) or the service's."""
    if exc.code in ("illegal-action", "invalid-action"):
        rule = exc.extra.get("rule") or exc.extra.get("rule_code") or exc.code
        return f"the rules of the game do not allow this move now (rule: {rule}); every action of a move is checked in order"
    return f"{exc.title.lower()} (rule: {exc.code})"


def same_text_key(mail: InboundMail) -> str:
    """What makes two mails "the same text again": the turn their reply address names (kind,
    match, seat, ply: not its mac or day, which every answer renews) and their words, case and
    spacing folded (the subject when there are no words)."""
    reply = next((r for r in map(parse_reply_address, mail.recipients) if r is not None), None)
    turn = f"{reply.kind}:{reply.match}:{reply.seat}:{reply.ply}" if reply else "-"
    words = " ".join((mail.text or mail.subject).casefold().split())
    return hashlib.sha256(f"{turn}\n{words}".encode()).hexdigest()[:32]
