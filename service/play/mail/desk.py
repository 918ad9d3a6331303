"""The mail desk: a reply to a Portolan mail becomes a move, a command, or a polite refusal.

B1's transport (service.delivery.inbound) parses each received message into an
:class:`~service.play.mail.inbound.InboundMail` and calls :meth:`Desk.receive`. In order:

1. **Never answer a robot.** An automatic message (auto-reply, bounce, list mail) is dropped
   unanswered, or two robots would mail each other forever.
2. **At most once.** The message's identity is its Message-ID (else the digest of its bytes). A
   processing lease and, once dealt with, a mark kept for days (:class:`MailboxPort`) make a
   second delivery do nothing and send nothing. A crash after the move but before the mark is
   safe too: the move's envelope is made from the message digest, so the redelivered message is
   the *same* envelope (``replayed``), and the answer's identity is the message's, so the answer
   job sends one mail however often it is enqueued.
3. **Who may reply.** One of the recipients must be a reply address Portolan made
   (service.play.mail.reply_address); the sender must be the seat's address (and, with
   ``PORTOLAN_MAIL_REQUIRE_DKIM``, DKIM-signed by its domain). A refusal to someone who did not
   prove the seat says nothing about the match.
4. **What the reply says** (service.play.mail.grammar): menu numbers and words as one move
   through :func:`service.play.seats.keys.submit_by_mail`, or a command.

Every refusal changes nothing and is answered once, saying what was wrong and which rule forbids
it, unless the sender has had :attr:`Desk.refusals_per_hour` refusals this hour: past that the
desk only logs, so nobody can turn Portolan into a mail cannon with forged senders.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from service.games.words import count
from service.play.errors import Conflict, NotFound, ServiceError, TooManyRequests, Unavailable
from service.play.mail import clock_commands
from service.play.mail.answers import (
    HELP,
    INVITE_HELP,
    Answer,
    Verdict,
    event_lines,
    log_lines,
    reply_subject,
    seat_context,
    why,
)
from service.play.mail.grammar import Reading, read_reply, resolve
from service.play.mail.inbound import InboundMail, MailDesk
from service.play.mail.menu import menu
from service.play.mail.ports import AnswerPost, MailboxPort, PreferencesPort
from service.play.mail.reply_address import ReplyTo, authentic, parse_reply_address
from service.play.seats import key_attach, keys
from service.play.views import match as views
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.config import Settings
    from service.play.context import MatchContext

log = logging.getLogger("portolan.mail_desk")

RULE_SENDER = ("only the address a Portolan mail was sent to may answer it (rule: who may reply by mail); "
               "if this is your seat, reply from the address you gave when you claimed it")
RULE_TOKEN = ("a reply must go to the Reply-To address of a Portolan mail, whose token names the match, "
              "seat and turn it answers (rule: who may reply by mail)")
RULE_DKIM = ("this server accepts mail moves only with a valid DKIM signature of the sender's domain "
             "(rule: PORTOLAN_MAIL_REQUIRE_DKIM)")
RULE_GRAMMAR = "a reply says menu numbers, action words or one command (rule: what a reply may say; see below)"
RULE_ATTACHMENTS = ("attachments are not read: write your move in the body of the reply, "
                    "without attaching files (rule: what a reply may say)")
RULE_FORWARDED = ("a move is a reply to the notice, written above or below its quote; a forwarded notice is "
                  "never read (rule: what a reply may say)")
RULE_STALE = ("a reply moves only at the turn its notice was sent for; the reply tokens of a notice expire "
              "when the match moves on (rule: reply tokens are bound to the turn)")


_PREFERENCES: dict[str, Literal["every", "digest", "off"]] = {"every": "every", "digest": "digest", "off": "off"}


class MailBusy(Exception):
    """Another process is dealing with this very message right now: try again later (the
    transport answers 451 / exits 75, and the redelivery finds it done)."""


def message_identity(mail: InboundMail) -> str:
    """Who a message is, however often it is delivered: its Message-ID, else its digest."""
    mid = mail.message_id.strip()
    seed = f"id:{mid}" if mid else f"digest:{mail.digest}"
    return hashlib.sha256(seed.encode()).hexdigest()[:40]


def thread_id(message_id: str) -> str:
    """The Message-ID an answer threads under (``In-Reply-To``): one ``<...>`` token, or "" for
    anything else, so a hostile header can neither break the answer's headers nor stall its job."""
    mid = "".join(message_id.split())
    ok = mid.startswith("<") and mid.endswith(">") and 3 <= len(mid) <= 250 and mid.isascii() and mid.isprintable()
    return mid if ok and ">" not in mid[:-1] and "<" not in mid[1:] else ""


def same_address(a: str, b: str) -> bool:
    """Two addresses of one mailbox (case-folded; mail systems fold the case of local parts)."""
    return bool(a.strip()) and a.strip().casefold() == b.strip().casefold()


@dataclass
class Desk:
    """The :class:`MailDesk` over the use cases (see the module's docstring)."""

    ctx: MatchContext
    mailbox: MailboxPort
    preferences: PreferencesPort
    post: AnswerPost
    reply_base: str
    require_dkim: bool = False
    refusals_per_hour: int = 10
    lease_s: int = 300
    keep_s: int = 14 * 86400

    def receive(self, mail: InboundMail) -> str:
        """Deal with one message at most once; returns a one-line account for the log. Raises
        (:class:`MailBusy`, a storage failure) to have it redelivered later."""
        if mail.automatic:
            log.info("mail %s from %s is automatic (auto-reply, bounce or list): dropped, never answered",
                     mail.message_id or mail.digest[:16], mail.sender or "<>")
            return "dropped: automatic mail"
        identity = message_identity(mail)
        arrival = self.mailbox.begin(identity, self.lease_s)
        if arrival == "done":
            return "duplicate: this message was dealt with already"
        if arrival == "busy":
            raise MailBusy(f"message {identity} is being dealt with by another process")
        try:
            account = self._deal(mail, identity)
        except BaseException:
            self.mailbox.abandon(identity)
            raise
        self.mailbox.finish(identity, self.keep_s)
        log.info("mail %s from %s: %s", identity, mail.sender, account)
        return account

    # -- who is asking -----------------------------------------------------------------------

    def _deal(self, mail: InboundMail, identity: str) -> str:
        if not mail.sender:
            return "dropped: no sender address to answer"
        found = _reply_address(self.ctx.server_key, mail.recipients)
        if found is None:
            return self._plain(mail, identity, "This address only takes replies to Portolan mails, and your "
                                               "mail was not sent to a reply address made by Portolan.", RULE_TOKEN)
        reply, ok = found
        if not ok:
            return self._plain(mail, identity, "The reply token in the address you wrote to is not valid: "
                                               "it was not made by this Portolan server.", RULE_TOKEN)
        try:
            meta = self.ctx.meta(reply.match)
        except NotFound:
            return self._plain(mail, identity, "The match this reply address was made for no longer exists.",
                               RULE_TOKEN)
        rows = meta.seats
        if not 0 <= reply.seat < len(rows) or not same_address(rows[reply.seat].email, mail.sender):
            return self._plain(mail, identity, "Your mail was not accepted: it comes from an address that may "
                                               "not answer this mail.", RULE_SENDER)
        if self.require_dkim and mail.dkim is not True:
            return self._plain(mail, identity, "Your mail was not accepted: it carries no valid DKIM signature "
                                               "of your domain.", RULE_DKIM)
        if reply.kind == "i":
            return self._invitation(mail, identity, reply, meta)
        if mail.forwarded:
            return self.seat_answer(mail, identity, reply.match, reply.seat, "refused",
                                    "Nothing was done: you forwarded the notice: reply to it instead.", RULE_FORWARDED)
        if mail.attachments:
            return self.seat_answer(mail, identity, reply.match, reply.seat, "refused",
                                    f"Nothing was done: your reply has {count(mail.attachments, 'attachment')}.",
                                    RULE_ATTACHMENTS)
        reading = read_reply(mail.text, mail.subject)
        if reading.problem:
            return self.seat_answer(mail, identity, reply.match, reply.seat, "refused",
                                    f"Nothing was done: {reading.problem}.", RULE_GRAMMAR, help_text=HELP)
        if reading.command:
            return self._command(mail, identity, reply, meta, reading)
        return self._move(mail, identity, reply, meta, reading)

    # -- commands ----------------------------------------------------------------------------

    def _command(self, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta,
                 reading: Reading) -> str:
        match_id, seat = reply.match, reply.seat
        cmd = reading.command
        if cmd == "show":
            return self.seat_answer(mail, identity, match_id, seat, "info", "The board and the whole menu.",
                                    full_menu=True, board=True)
        if cmd == "log":
            return self.seat_answer(mail, identity, match_id, seat, "info", "The last moves:",
                                    details=log_lines(self.ctx, match_id, seat, meta.ply))
        if cmd == "help":
            return self.seat_answer(mail, identity, match_id, seat, "info", "How to answer by mail.", help_text=HELP)
        if cmd in ("resign", "abort", "back"):
            return clock_commands.match_action(self, mail, identity, reply, meta, reading)
        if cmd == "vacation":
            return clock_commands.vacation(self, mail, identity, reply, meta, reading)
        if cmd == "notices":
            pref = _PREFERENCES.get(reading.argument)
            if pref is None:  # read() gives nothing else; refused all the same, never a crash
                return self.seat_answer(mail, identity, match_id, seat, "refused", "Nothing was done.", RULE_GRAMMAR,
                                        help_text=HELP)
            self.preferences.set(mail.sender, pref)
            said = {"every": "a notice at every turn", "digest": "one daily digest of the matches waiting for you",
                    "off": "no turn notices and no game-over mails (answers to your replies still come)"}[pref]
            return self.seat_answer(mail, identity, match_id, seat, "info",
                                    f"Done: from now on {mail.sender} gets {said}, in every match.")
        if cmd == "key":
            return self._key(mail, identity, match_id, seat, meta)
        if cmd == "join":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    "Nothing was done: you hold this seat already.",
                                    "`join` answers an invitation (rule: who may join by mail)")
        raise AssertionError(cmd)

    def _key(self, mail: InboundMail, identity: str, match_id: str, seat: int, meta: MatchMeta) -> str:
        if meta.seats[seat].custody != "server":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    "Nothing was done: your seat already signs with a key of your own.",
                                    "only a seat joined by mail, whose key the server holds, gets an attach "
                                    "token (rule: attaching a key)")
        try:
            token = key_attach.attach_token(self.ctx, match_id, seat)
        except (Unavailable, TooManyRequests):
            raise
        except ServiceError as exc:
            return self.seat_answer(mail, identity, match_id, seat, "refused", f"Nothing was done: {exc.message}.",
                                    why(exc))
        server = self.ctx.public_url
        return self.seat_answer(
            mail, identity, match_id, seat, "info",
            "Here is a one-time token to attach a key of your own to your seat (it expires in a day; "
            "asking again makes a new one and the old one stops working):",
            details=[token, "With the portolan command (it makes your key if you have none):",
                     f"  portolan attach-key {match_id} --seat {seat} --token {token} --server {server}",
                     "From then on you sign your own moves. To keep moving by replying to mail, let your key "
                     "delegate that:",
                     f"  portolan mail-delegation {match_id} --seat {seat} grant --server {server}"])

    def _invitation(self, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta) -> str:
        """A reply to an invitation: ``join <name>`` takes the seat with a key the server holds."""
        reading = read_reply(mail.text, mail.subject)
        if reading.command == "help" and not mail.attachments:
            return self._invite_answer(mail, identity, meta, "info", "How to take your seat by mail.", "")
        if mail.attachments or reading.command != "join":
            problem = (f"your reply has {count(mail.attachments, 'attachment')}" if mail.attachments
                       else reading.problem or "a reply to an invitation can only say `join Your Name`")
            return self._invite_answer(mail, identity, meta, "refused", f"Nothing was done: {problem}.",
                                       RULE_ATTACHMENTS if mail.attachments else RULE_GRAMMAR)
        row = meta.seats[reply.seat]
        if row.claimed:  # the sender's own seat (the sender is the seat's address, checked above)
            return self.seat_answer(mail, identity, reply.match, reply.seat, "info",
                                    f"Nothing was done: you hold seat {reply.seat} already, as {row.name}.")
        try:
            keys.join_by_mail(self.ctx, reply.match, reply.seat, reading.argument, mail.sender)
        except (Unavailable, TooManyRequests):
            raise
        except ServiceError as exc:
            return self._invite_answer(mail, identity, meta, "refused", f"Nothing was done: {exc.message}.",
                                       why(exc))
        return self.seat_answer(mail, identity, reply.match, reply.seat, "joined",
                                f"Welcome aboard, {reading.argument}: you hold seat {reply.seat} of match "
                                f"{reply.match}. The server holds your seat's key (the record says so); "
                                "turn notices come by mail, and you move by replying to them.")

    # -- moves ---------------------------------------------------------------------------------

    def _move(self, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta, reading: Reading) -> str:
        match_id, seat = reply.match, reply.seat
        if reply.kind != "t":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    "Nothing was done: a move must answer a turn notice, and this mail was not one.",
                                    RULE_STALE)
        earlier = self._earlier(match_id, reply, mail)
        if earlier is not None:  # this very message moved already (a crash before its mark)
            return self._accepted(mail, identity, match_id, seat, earlier["actions"], earlier["events"])
        if meta.status != "active":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    f"Nothing was done: the match is {meta.status}.",
                                    "moves are accepted only while a match is being played (rule: match-not-active)")
        if reply.ply != meta.ply:
            return self._changed(mail, identity, match_id, seat, reply.ply, meta.ply)
        view = views.view(self.ctx, match_id, seat)
        if view["ply"] != reply.ply:
            return self._changed(mail, identity, match_id, seat, reply.ply, view["ply"])
        resolved = resolve(reading.picks, menu(view.get("legal_actions") or []))
        if resolved.problem:
            return self.seat_answer(mail, identity, match_id, seat, "refused", f"Nothing was done: {resolved.problem}.",
                                    RULE_GRAMMAR, help_text=HELP)
        try:
            result = keys.submit_by_mail(self.ctx, match_id, seat, reply.ply, list(resolved.actions),
                                                 message_digest=mail.digest)
        except (Unavailable, TooManyRequests):
            raise
        except Conflict as exc:
            if exc.code == "stale-ply":
                return self._changed(mail, identity, match_id, seat, reply.ply, int(exc.extra.get("current_ply", -1)))
            return self.seat_answer(mail, identity, match_id, seat, "refused", f"Nothing was done: {exc.message}.",
                                    why(exc))
        except ServiceError as exc:
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    f"Nothing was done, the whole move was refused: {exc.message}.", why(exc))
        return self._accepted(mail, identity, match_id, seat, list(resolved.actions), result.get("events") or [],
                              [i.text for i in resolved.chosen])

    def _earlier(self, match_id: str, reply: ReplyTo, mail: InboundMail) -> dict[str, Any] | None:
        """The move this very message made at the notice's ply, if it made one."""
        entries = views.log(self.ctx, match_id, reply.ply, viewer=reply.seat)[:1]
        if entries and entries[0]["ply"] == reply.ply and entries[0]["seat"] == reply.seat \
                and (entries[0].get("mail") or {}).get("digest") == mail.digest:
            return {"actions": entries[0]["envelope"]["actions"], "events": entries[0]["events"]}
        return None

    def _accepted(self, mail: InboundMail, identity: str, match_id: str, seat: int, actions: list[dict[str, Any]],
                  events: list[dict[str, Any]], texts: list[str] | None = None) -> str:
        if texts is None:
            game = self.ctx.game_of(self.ctx.meta(match_id))
            texts = [game.describe_action(a) for a in actions]
        self.seat_answer(mail, identity, match_id, seat, "accepted", "accepted: " + "; then ".join(texts) + ".",
                         details=event_lines(events))
        return f"moved: {len(actions)} action(s) in match {match_id} seat {seat}"

    def _changed(self, mail: InboundMail, identity: str, match_id: str, seat: int, was: int, now: int) -> str:
        return self.seat_answer(mail, identity, match_id, seat, "changed",
                                f"Nothing was done: the position changed since that notice (it was for ply {was}, "
                                f"the match is now at ply {now}).", RULE_STALE)

    # -- answers -------------------------------------------------------------------------------

    def seat_answer(self, mail: InboundMail, identity: str, match_id: str, seat: int, verdict: Verdict,
                     headline: str, rule: str = "", *, details: list[str] | None = None, help_text: tuple[str, ...] = (),
                     full_menu: bool = False, board: bool = False, prompt: bool = True) -> str:
        """An answer to the seat's own holder: with the position, whose turn, and the menu (not
        after a join: the match's start sends the turn notices, one prompt per turn is enough;
        nor with ``prompt=False``, e.g. after a resignation: the seat is no longer the player's)."""
        context, reply_to = seat_context(self.ctx, match_id, seat, self.reply_base, full_menu=full_menu,
                                         board=board, prompt=prompt and verdict != "joined",
                                         # after a move (or a return), a turn notice may want to ask for
                                         # the same ply: one of the two does (answers.prompt_mark); a
                                         # refusal asks again on purpose, for the reply to be retried
                                         prompt_owner=f"answer:{identity}" if verdict == "accepted" else "")
        answer = Answer(to=mail.sender, subject=reply_subject(mail.subject), in_reply_to=thread_id(mail.message_id),
                        verdict=verdict, headline=headline, rule=rule, details=details or [], reply_to=reply_to,
                        context=context, help=help_text)
        return self._send(answer, identity, refusal=verdict in ("refused", "changed"))

    def _invite_answer(self, mail: InboundMail, identity: str, meta: MatchMeta, verdict: Verdict,
                       headline: str, rule: str) -> str:
        """An answer to an invited address: the invitation's help, nothing of anyone's hand."""
        game = self.ctx.game_of(meta)
        context = {"match": meta.id, "game_title": game.title, "public_url": self.ctx.public_url}
        answer = Answer(to=mail.sender, subject=reply_subject(mail.subject), in_reply_to=thread_id(mail.message_id),
                        verdict=verdict, headline=headline, rule=rule, context=context, help=INVITE_HELP)
        return self._send(answer, identity, refusal=verdict == "refused")

    def _plain(self, mail: InboundMail, identity: str, headline: str, rule: str) -> str:
        """A refusal to someone who proved no seat: it says nothing of any match."""
        answer = Answer(to=mail.sender, subject=reply_subject(mail.subject), in_reply_to=thread_id(mail.message_id),
                        verdict="refused", headline=headline, rule=rule)
        return self._send(answer, identity, refusal=True)

    def _send(self, answer: Answer, identity: str, *, refusal: bool) -> str:
        if refusal and not self.mailbox.take_refusal(answer.to, self.refusals_per_hour, 3600):
            log.warning("not answering %s: %d refusals this hour already (%s)", answer.to, self.refusals_per_hour,
                        answer.headline)
            return f"refused, not answered (rate limit): {answer.headline}"
        self.post.answer(identity, answer.payload())
        return f"{answer.verdict}: {answer.headline}"


def _reply_address(server_key: str, recipients: tuple[str, ...]) -> tuple[ReplyTo, bool] | None:
    """The first authentic reply address among the recipients, else the first that only looks
    like one (with False), else None."""
    lookalike: ReplyTo | None = None
    for address in recipients:
        reply = parse_reply_address(address)
        if reply is None:
            continue
        if authentic(server_key, reply):
            return reply, True
        lookalike = lookalike or reply
    return (lookalike, False) if lookalike is not None else None


def desk_of(ctx: MatchContext, settings: Settings, *, mailbox: MailboxPort, preferences: PreferencesPort,
            post: AnswerPost) -> MailDesk:
    """The mail desk over ``ctx`` with its ports (wired in service.runtime.build_desk)."""
    return Desk(ctx=ctx, mailbox=mailbox, preferences=preferences, post=post,
                reply_base=settings.reply_base(), require_dkim=settings.mail_require_dkim,
                refusals_per_hour=settings.mail_refusals_per_hour)
