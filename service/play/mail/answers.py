"""The answer mail's content, as plain data: what the desk decided and the seat's position now.

The desk (service.play.mail.desk) builds an :class:`Answer` for every message it answers; the
``answer`` job (workers/answers.py) renders it with the ``answer`` templates and sends it once.
Everything here is JSON-ready, because the answer travels as the job's argument: its words are
rendered in the address's language (issue 29) before it leaves, the menu's labels, the events and
the board included.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from service.games.words import rules_url
from service.i18n import DEFAULT, Phrase, localise, phrase, phrase_n, render, tr, tr_n
from service.play import editions
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

HELP: tuple[Phrase, ...] = (
    phrase("How to play by mail: reply to your latest turn notice with"),
    phrase("  3            the menu item 3"),
    phrase("  3, 1, end    a whole turn in one reply: its steps in order, as one move (all or"),
    phrase("               nothing), by menu numbers or words: sail to Tunis, build, end"),
    phrase("  show         the board and the whole menu"),
    phrase("  log          the last moves"),
    phrase("  notices every | notices digest | notices off (or: stop notices)"),
    phrase("               every turn, one daily digest, or no turn notices"),
    phrase("  key          (a seat joined by mail) a one-time token to attach your own key"),
    phrase("  resign yes   give up your seat (you are ranked last)"),
    phrase("  abort        vote to abort the match (it is aborted when every remaining player voted)"),
    phrase("  back         take your seat back from the stand-in that played it while you were late"),
    phrase("  vacation 2027-01-04 7 | vacation off"),
    phrase("               stop your clocks for 7 days from that date (UTC), or come back early"),
    phrase("  language english | nyelv magyar"),
    phrase("               the language of your mail (English, magyar)"),
    phrase("  help         this text"),
    phrase("Only the first paragraph of your reply is read; quoted text and signatures are not."),
    phrase("Commands and steps are read in English and in Hungarian alike."),
)
"""The answer to ``help`` (each line a catalog message: a translation keeps its columns)."""
INVITE_HELP: tuple[Phrase, ...] = (
    phrase("To take the seat you were invited to, reply to the invitation with"),
    phrase("  join Your Name"),
    phrase("The server then holds your seat's key, and the match's record says so; you can attach a key"),
    phrase("of your own later (reply `key` to any of the match's mails)."),
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
    language: str = DEFAULT
    """The address's mail language: the answer's words (phrases until now) are rendered in it."""

    def payload(self) -> dict[str, Any]:
        """The job's argument: headers and the template context, JSON only, in :attr:`language`."""
        said = localise({"headline": self.headline, "rule": self.rule, "details": list(self.details),
                         "help": list(self.help)}, self.language)
        return {"to": self.to, "subject": render(self.subject, self.language), "in_reply_to": self.in_reply_to,
                "reply_to": self.reply_to,
                "context": {**localise(self.context, self.language), "verdict": self.verdict, **said,
                            "language": self.language}}


def reply_subject(subject: str) -> str:
    """``Re: <original subject>``, without piling up ``Re: Re:``."""
    subject = " ".join(subject.split())
    if not subject:
        return "Re: your mail to Portolan"
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def players_line(ctx: MatchContext, meta: MatchMeta, language: str = DEFAULT) -> list[str]:
    """Every seat as "Ana (Red)", by seat number, in ``language``."""
    names = [render(n, language) for n in ctx.game_of(meta).seat_names(meta.players)]
    out: list[str] = []
    for row in meta.seats:
        who = row.name or (tr(language, "an open seat") if not row.claimed else tr(language, "seat {seat}", seat=row.seat))
        out.append(f"{who} ({names[row.seat]})" if row.seat < len(names) else who)
    return out


def whose_turn(ctx: MatchContext, meta: MatchMeta, seat: int, language: str = DEFAULT) -> str:
    """One sentence: the match's state as the seat's player needs it, in ``language``."""
    people = players_line(ctx, meta, language)
    status = meta.status
    if status == "finished":
        outcome = meta.outcome or {}
        scores = outcome.get("scores") or []
        shown = ", ".join(f"{people[s]} {scores[s]}" for s in range(min(len(scores), len(people))))
        return (tr(language, "The match is over (after ply {ply}). Final scores: {scores}.", ply=meta.ply, scores=shown)
                if shown else tr(language, "The match is over."))
    if status == "aborted":
        return tr(language, "The match was aborted.")
    if status == "waiting":
        open_seats = sum(1 for r in meta.seats if not r.claimed)
        return tr_n(language, "The match has not started yet: {n} seat still to be taken.",
                    "The match has not started yet: {n} seats still to be taken.", open_seats)
    active = list(meta.active)
    if seat in active:
        others = [people[s] for s in active if s != seat]
        return (tr(language, "It is your turn (ply {ply}), together with {others}.", ply=meta.ply, others=", ".join(others))
                if others else tr(language, "It is your turn (ply {ply}).", ply=meta.ply))
    return tr(language, "Now waiting for {who} (ply {ply}).", who=", ".join(people[s] for s in active), ply=meta.ply)


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
                 days: int = DEFAULT_DAYS, language: str = DEFAULT) -> tuple[dict[str, Any], str]:
    """The seat's position now, for its own holder: the template context and the Reply-To
    (a fresh turn token when the seat must act, else the seat's ``o`` address). ``prompt=False``
    leaves out the menu and the turn token: a turn notice of its own is on its way. With a
    ``prompt_owner`` the menu is shown only if that owner takes the ply's :func:`prompt_mark`
    (a turn notice that took it first asks for the move instead). The token is good for ``days``
    days (``PORTOLAN_MAIL_TOKEN_DAYS``). Its words are in ``language``: the menu's labels, the
    seats' colours, the turn and the board (``Game.render``)."""
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
    names = [render(n, language) for n in game.seat_names(meta.players)]
    context = {
        "name": meta.seats[seat].name, "match": match_id, "game_title": game.title, "seat": seat,
        "seat_name": names[seat] if seat < len(names) else "", "ply": view["ply"],
        "players": players_line(ctx, meta, language), "turn": whose_turn(ctx, meta, seat, language),
        "menu": [{"number": i.number, "text": render(i.text, language)} for i in shown] if must_act else [],
        "more": len(items) - len(shown) if must_act else 0, "must_act": must_act,
        "board": board_text(game, view, language) if board else "", "public_url": ctx.public_url,
        # the web page, as service.delivery.letters.match_link gives it (not the API's JSON)
        "match_url": f"{ctx.public_url}/match/{match_id}",
        "rules_link": f"{ctx.public_url}{rules_url(game.id)}" if rules_url(game.id) else "",
    }
    return context, reply_to


def board_text(game: Any, view: Mapping[str, Any], language: str = DEFAULT) -> str:
    """The view's text board in ``language`` (``Game.render``) with the edition's footnote as the
    view has it; English is the view's own ``text``."""
    if language == DEFAULT or "board" not in view:
        return str(view.get("text", ""))
    note = editions.footnote(view["edition"], game) if "edition" in view else []
    return str(game.render(view["board"], language)) + (
        "\n\n" + "\n".join(render(n, language) for n in note) if note else "")


def log_lines(ctx: MatchContext, match_id: str, seat: int, ply: int, language: str = DEFAULT) -> list[str]:
    """The last :data:`LOG_LINES` moves in words, as the seat may see them, in ``language``."""
    meta = ctx.meta(match_id)
    game = ctx.game_of(meta)
    people = players_line(ctx, meta, language)
    lines: list[str] = []
    for entry in views.log(ctx, match_id, max(0, ply - LOG_LINES), viewer=seat):
        who = people[entry["seat"]] if entry["seat"] < len(people) else tr(language, "seat {seat}", seat=entry["seat"])
        did = "; ".join(render(game.describe_action(a), language) for a in entry["envelope"]["actions"])
        lines.append(tr(language, "ply {ply}, {who} by mail: {did}", ply=entry["ply"], who=who, did=did)
                     if entry.get("by") == "email" else
                     tr(language, "ply {ply}, {who}: {did}", ply=entry["ply"], who=who, did=did))
        lines.extend(f"    {render(game.describe_event(e), language)}" for e in entry["events"]
                     if e.get("text") or e.get("type"))
    return lines or [tr(language, "No move has been made yet.")]


def event_lines(events: Sequence[Mapping[str, Any]], game: Any = None) -> list[str]:
    """What a move caused, in the events' own words (``game.describe_event``: phrases, rendered
    with the answer; without a game, the English the events were stored with)."""
    return [game.describe_event(e) if game is not None else str(e.get("text", e.get("type", "")))
            for e in events if e.get("text") or e.get("type")]


def why(exc: ServiceError) -> str:
    """Which rule refused: the game's (its section, when the rules core names one) or the service's."""
    if exc.code in ("illegal-action", "invalid-action"):
        rule = exc.extra.get("rule") or exc.extra.get("rule_code") or exc.code
        return phrase("the rules of the game do not allow this move now (rule: {rule}); every action of a move is "
                      "checked in order", rule=rule)
    return phrase("{title} (rule: {code})", title=exc.title.lower(), code=exc.code)


def count_of(n: int, noun: str) -> Phrase:
    """``1 attachment``, ``2 attachments`` (the nouns the desk counts), as a phrase."""
    if noun == "attachment":
        return phrase_n("{n} attachment", "{n} attachments", n)
    return phrase_n("{n} seat", "{n} seats", n)


def same_text_key(mail: InboundMail) -> str:
    """What makes two mails "the same text again": the turn their reply address names (kind,
    match, seat, ply: not its mac or day, which every answer renews) and their words, case and
    spacing folded (the subject when there are no words)."""
    reply = next((r for r in map(parse_reply_address, mail.recipients) if r is not None), None)
    turn = f"{reply.kind}:{reply.match}:{reply.seat}:{reply.ply}" if reply else "-"
    words = " ".join((mail.text or mail.subject).casefold().split())
    return hashlib.sha256(f"{turn}\n{words}".encode()).hexdigest()[:32]
