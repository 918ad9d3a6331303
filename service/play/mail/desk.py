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
   (service.play.mail.reply_address: its mac, and its last day not past); the sender must be the
   seat's address, and (issue 28) an *authenticated* one: our MTA's ``Authentication-Results``
   (``PORTOLAN_MAIL_AUTHSERV_ID``: DMARC, else aligned DKIM; service.play.mail.sender_auth) or our
   own DKIM check (``PORTOLAN_MAIL_REQUIRE_DKIM``) proves the From domain, unless
   ``PORTOLAN_MAIL_REQUIRE_AUTH`` is off (``portolan dev``). A mail that fails any of these is
   **dropped with a log line and never answered**: only a sender proven by an authentic token and
   an authenticated From is ever mailed, so forged senders get no backscatter.
4. **What the reply says** (service.play.mail.grammar): a command, or a move: a whole turn of
   steps by menu numbers or words, matched and played on the real position with the ply's Rng
   (service.play.mail.steps), then submitted as one move, all or nothing, through
   :func:`service.play.seats.keys.submit_by_mail` (which checks it all again).

Every refusal changes nothing and is answered once, under a fixed subject (never the sender's
words), saying what was wrong and which rule forbids it, unless the sender has had
:attr:`Desk.refusals_per_hour` refusals this hour: past that the desk only logs. And no answer
at all goes out past :attr:`Desk.same_text_answers` a day for the same text about the same turn
from one address: a naive auto-responder (no robot headers) that answers every answer gets two,
then silence, and the loop ends.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from service.i18n import LANGUAGES, Phrase, phrase, phrase_in
from service.play.errors import Conflict, NotFound, ServiceError, TooManyRequests, Unavailable
from service.play.mail import clock_commands, sender_auth
from service.play.mail.answers import (
    HELP,
    INVITE_HELP,
    Answer,
    Verdict,
    count_of,
    event_lines,
    log_lines,
    reply_subject,
    same_text_key,
    seat_context,
    why,
)
from service.play.mail.grammar import Reading, read_reply
from service.play.mail.inbound import InboundMail, MailDesk
from service.play.mail.menu import menu
from service.play.mail.ports import AnswerPost, MailboxPort, PreferencesPort
from service.play.mail.reply_address import ReplyTo, check_any
from service.play.mail.steps import Plan, plan
from service.play.seats import key_attach, keys
from service.play.views import match as views
from service.proof import fairness
from service.proof.match_record import MatchMeta

if TYPE_CHECKING:
    from service.config import Settings
    from service.play.context import MatchContext

log = logging.getLogger("portolan.mail_desk")

REFUSAL_SUBJECT = phrase("Re: your mail to Portolan")
"""The subject of every refusal: fixed, so no refusal carries a sender's words (issue 28)."""
SAME_TEXT_WINDOW_S = 86400
"""The window of :attr:`Desk.same_text_answers`: a day."""
RULE_GRAMMAR = phrase("a reply names each step of a move by its menu number or by the words of its action, in the "
                      "order they are played, or says one command (rule: what a reply may say; see below)")
RULE_STEPS = phrase("a reply plays only steps whose positions you could see: a step decided by chance or that cannot "
                    "be taken back ends the reply, and so does the end of your turn (rule: a whole turn in one reply)")
RULE_ATTACHMENTS = phrase("attachments are not read: write your move in the body of the reply, "
                          "without attaching files (rule: what a reply may say)")
RULE_FORWARDED = phrase("a move is a reply to the notice, written above or below its quote; a forwarded notice is "
                        "never read (rule: what a reply may say)")
RULE_STALE = phrase("a reply moves only at the turn its notice was sent for; the reply tokens of a notice expire "
                    "when the match moves on (rule: reply tokens are bound to the turn)")
NOTHING_DONE = "Nothing was done: {why}."
"""The headline of most refusals (``why`` a phrase of its own)."""


_PREFERENCES: dict[str, Literal["every", "digest", "off"]] = {"every": "every", "digest": "digest", "off": "off"}


_STATUS: dict[str, Phrase] = {"waiting": phrase_in("match status", "waiting"),
                              "finished": phrase_in("match status", "finished"),
                              "aborted": phrase_in("match status", "aborted")}
"""A match's status as a refusal names it."""


def language_done(address: str, code: str) -> Phrase:
    """The answer to ``nyelv magyar`` / ``language english``: the address's mail language now."""
    if code == "en":
        return phrase("Done: from now on {address} gets its mail in English, in every match.", address=address)
    if code == "hu":
        return phrase("Done: from now on {address} gets its mail in Hungarian, in every match.", address=address)
    name = next((lang.name for lang in LANGUAGES if lang.code == code), code)
    return phrase("Done: from now on {address} gets its mail in {language}, in every match.", address=address,
                  language=name)


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
    """The address's notice preference and mail language (the answers are written in it)."""
    post: AnswerPost
    reply_base: str
    require_dkim: bool = False
    refusals_per_hour: int = 10
    lease_s: int = 300
    keep_s: int = 14 * 86400
    authserv_id: str = ""
    """``PORTOLAN_MAIL_AUTHSERV_ID``: whose ``Authentication-Results`` are trusted ("" = nobody's)."""
    require_auth: bool = False
    """``PORTOLAN_MAIL_REQUIRE_AUTH``: nothing is done for a sender that is not authenticated."""
    token_days: int = 30
    """``PORTOLAN_MAIL_TOKEN_DAYS``: the lifetime of the reply tokens of the answers."""
    same_text_answers: int = 2
    """``PORTOLAN_MAIL_SAME_TEXT_ANSWERS``: answers a day to one address for one text about one turn."""
    wall_clock: Callable[[], float] = field(default=time.time)
    """The system clock that reply tokens expire by (mailboxes live in real time)."""

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
        found = check_any(self.ctx.server_key, mail.recipients, self.wall_clock())
        if found.reply is None:
            return _dropped(mail, "it was not sent to a reply address made by Portolan")
        reply = found.reply
        if not found.ok:
            if found.verdict == "expired" and self._late_stop(mail, reply):
                return _dropped(mail, "its reply token has expired; its `stop notices` was done all the same")
            return _dropped(mail, "its reply token was not made by this server" if found.verdict == "forged"
                            else "its reply token has expired")
        try:
            meta = self.ctx.meta(reply.match)
        except NotFound:
            return _dropped(mail, f"match {reply.match} of its reply token no longer exists")
        rows = meta.seats
        if not 0 <= reply.seat < len(rows) or not same_address(rows[reply.seat].email, mail.sender):
            return _dropped(mail, f"its From is not the address of seat {reply.seat} of match {reply.match}")
        proven, why_not = self._authenticated(mail)
        if not proven:
            return _dropped(mail, f"its sender is not authenticated: {why_not}")
        if reply.kind == "i":
            return self._invitation(mail, identity, reply, meta)
        if mail.forwarded:
            return self.seat_answer(mail, identity, reply.match, reply.seat, "refused",
                                    phrase("Nothing was done: you forwarded the notice: reply to it instead."),
                                    RULE_FORWARDED)
        if mail.attachments:
            return self.seat_answer(mail, identity, reply.match, reply.seat, "refused",
                                    phrase("Nothing was done: your reply has {count}.",
                                           count=count_of(mail.attachments, "attachment")), RULE_ATTACHMENTS)
        reading = read_reply(mail.text, mail.subject)
        if reading.problem:
            return self.seat_answer(mail, identity, reply.match, reply.seat, "refused",
                                    phrase(NOTHING_DONE, why=reading.problem), RULE_GRAMMAR, help_text=HELP)
        if reading.command:
            return self._command(mail, identity, reply, meta, reading)
        return self._move(mail, identity, reply, meta, reading)

    def _late_stop(self, mail: InboundMail, reply: ReplyTo) -> bool:
        """``stop notices`` to an expired but authentic token (a mail client's unsubscribe mailto
        of an old mail) from the seat's own authenticated address is still done, unanswered: it
        only ever means less mail for the sender."""
        reading = read_reply(mail.text, mail.subject)
        if (reading.command, reading.argument) != ("notices", "off"):
            return False
        try:
            rows = self.ctx.meta(reply.match).seats
        except NotFound:
            return False
        if not 0 <= reply.seat < len(rows) or not same_address(rows[reply.seat].email, mail.sender) \
                or not self._authenticated(mail)[0]:
            return False
        self.preferences.set(mail.sender, "off")
        return True

    def _authenticated(self, mail: InboundMail) -> tuple[bool, str]:
        """Is the From proven (see the module's docstring, step 3)? And if not, why not."""
        if not (self.require_auth or self.require_dkim or self.authserv_id):
            return True, ""
        why_not = "neither PORTOLAN_MAIL_AUTHSERV_ID nor PORTOLAN_MAIL_REQUIRE_DKIM is set"
        if self.authserv_id:
            judged = sender_auth.judge(mail.auth_results, self.authserv_id, mail.sender)
            if judged.passed:
                return True, ""
            if judged.dmarc_fail:  # the domain's owner says this is not theirs: no DKIM overrules it
                return False, judged.why
            why_not = judged.why
        if self.require_dkim:
            if mail.dkim is True:
                return True, ""
            why_not = (why_not + "; " if self.authserv_id else "") + "no DKIM signature of its domain verified"
        return False, why_not

    # -- commands ----------------------------------------------------------------------------

    def _command(self, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta,
                 reading: Reading) -> str:
        match_id, seat = reply.match, reply.seat
        cmd = reading.command
        if cmd == "show":
            return self.seat_answer(mail, identity, match_id, seat, "info", phrase("The board and the whole menu."),
                                    full_menu=True, board=True)
        if cmd == "log":
            return self.seat_answer(mail, identity, match_id, seat, "info", phrase("The last moves:"),
                                    details=log_lines(self.ctx, match_id, seat, meta.ply,
                                                      self.preferences.language(mail.sender)))
        if cmd == "help":
            return self.seat_answer(mail, identity, match_id, seat, "info", phrase("How to answer by mail."),
                                    help_text=HELP)
        if cmd == "language":
            return self._language(mail, identity, match_id, seat, reading.argument)
        if cmd in ("resign", "abort", "back"):
            return clock_commands.match_action(self, mail, identity, reply, meta, reading)
        if cmd == "vacation":
            return clock_commands.vacation(self, mail, identity, reply, meta, reading)
        if cmd == "notices":
            pref = _PREFERENCES.get(reading.argument)
            if pref is None:  # read() gives nothing else; refused all the same, never a crash
                return self.seat_answer(mail, identity, match_id, seat, "refused", phrase("Nothing was done."),
                                        RULE_GRAMMAR, help_text=HELP)
            self.preferences.set(mail.sender, pref)
            said = {"every": phrase("a notice at every turn"),
                    "digest": phrase("one daily digest of the matches waiting for you"),
                    "off": phrase("no turn notices, no game-over mails and no invitations (answers to your replies "
                                  "still come)")}[pref]
            return self.seat_answer(mail, identity, match_id, seat, "info",
                                    phrase("Done: from now on {address} gets {said}, in every match.",
                                           address=mail.sender, said=said))
        if cmd == "key":
            return self._key(mail, identity, match_id, seat, meta)
        if cmd == "join":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    phrase("Nothing was done: you hold this seat already."),
                                    phrase("`join` answers an invitation (rule: who may join by mail)"))
        raise AssertionError(cmd)

    def _language(self, mail: InboundMail, identity: str, match_id: str, seat: int, code: str) -> str:
        """``nyelv magyar`` / ``language english``: the address's mail language from now on (the
        answer is already in it)."""
        self.preferences.set_language(mail.sender, code)
        return self.seat_answer(mail, identity, match_id, seat, "info", language_done(mail.sender, code))

    def _key(self, mail: InboundMail, identity: str, match_id: str, seat: int, meta: MatchMeta) -> str:
        if meta.seats[seat].custody != "server":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    phrase("Nothing was done: your seat already signs with a key of your own."),
                                    phrase("only a seat joined by mail, whose key the server holds, gets an attach "
                                           "token (rule: attaching a key)"))
        try:
            token = key_attach.attach_token(self.ctx, match_id, seat)
        except (Unavailable, TooManyRequests):
            raise
        except ServiceError as exc:
            return self.seat_answer(mail, identity, match_id, seat, "refused", phrase(NOTHING_DONE, why=exc.message),
                                    why(exc))
        server = self.ctx.public_url
        return self.seat_answer(
            mail, identity, match_id, seat, "info",
            phrase("Here is a one-time token to attach a key of your own to your seat (it expires in a day; "
                   "asking again makes a new one and the old one stops working):"),
            details=[token, phrase("With the portolan command (it makes your key if you have none):"),
                     f"  portolan attach-key {match_id} --seat {seat} --token {token} --server {server}",
                     phrase("From then on you sign your own moves. To keep moving by replying to mail, let your key "
                            "delegate that:"),
                     f"  portolan mail-delegation {match_id} --seat {seat} grant --server {server}"])

    def _invitation(self, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta) -> str:
        """A reply to an invitation: ``join <name>`` takes the seat with a key the server holds."""
        reading = read_reply(mail.text, mail.subject)
        if reading.command == "help" and not mail.attachments:
            return self._invite_answer(mail, identity, meta, "info", phrase("How to take your seat by mail."), "")
        if reading.command == "language" and not mail.attachments:  # the invitee chooses before joining
            self.preferences.set_language(mail.sender, reading.argument)
            return self._invite_answer(mail, identity, meta, "info", phrase("How to take your seat by mail."), "")
        if mail.attachments or reading.command != "join":
            problem = (phrase("your reply has {count}", count=count_of(mail.attachments, "attachment"))
                       if mail.attachments
                       else reading.problem or phrase("a reply to an invitation can only say `join Your Name`"))
            return self._invite_answer(mail, identity, meta, "refused", phrase(NOTHING_DONE, why=problem),
                                       RULE_ATTACHMENTS if mail.attachments else RULE_GRAMMAR)
        row = meta.seats[reply.seat]
        if row.claimed:  # the sender's own seat (the sender is the seat's address, checked above)
            return self.seat_answer(mail, identity, reply.match, reply.seat, "info",
                                    phrase("Nothing was done: you hold seat {seat} already, as {name}.",
                                           seat=reply.seat, name=row.name))
        try:
            keys.join_by_mail(self.ctx, reply.match, reply.seat, reading.argument, mail.sender)
        except (Unavailable, TooManyRequests):
            raise
        except ServiceError as exc:
            return self._invite_answer(mail, identity, meta, "refused", phrase(NOTHING_DONE, why=exc.message),
                                       why(exc))
        return self.seat_answer(mail, identity, reply.match, reply.seat, "joined",
                                phrase("Welcome aboard, {name}: you hold seat {seat} of match {match}. The server "
                                       "holds your seat's key (the record says so); turn notices come by mail, and "
                                       "you move by replying to them.", name=reading.argument, seat=reply.seat,
                                       match=reply.match))

    # -- moves ---------------------------------------------------------------------------------

    def _move(self, mail: InboundMail, identity: str, reply: ReplyTo, meta: MatchMeta, reading: Reading) -> str:
        match_id, seat = reply.match, reply.seat
        if reply.kind != "t":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    phrase("Nothing was done: a move must answer a turn notice, and this mail was not "
                                           "one."), RULE_STALE)
        earlier = self._earlier(match_id, reply, mail)
        if earlier is not None:  # this very message moved already (a crash before its mark)
            return self._accepted(mail, identity, match_id, seat, earlier["actions"], earlier["events"])
        if meta.status != "active":
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    phrase("Nothing was done: the match is {status}.",
                                           status=_STATUS.get(meta.status, meta.status)),
                                    phrase("moves are accepted only while a match is being played (rule: "
                                           "match-not-active)"))
        if reply.ply != meta.ply:
            return self._changed(mail, identity, match_id, seat, reply.ply, meta.ply)
        view = views.view(self.ctx, match_id, seat)
        if view["ply"] != reply.ply:
            return self._changed(mail, identity, match_id, seat, reply.ply, view["ply"])
        try:
            steps = self._plan(match_id, seat, meta, reading, view)
        except Conflict as exc:  # the state moved on between the meta and the state (Moved)
            return self._changed(mail, identity, match_id, seat, reply.ply, int(exc.extra.get("current_ply", -1)))
        if steps.failure is not None:
            return self._not_played(mail, identity, match_id, seat, steps)
        try:
            result = keys.submit_by_mail(self.ctx, match_id, seat, reply.ply, steps.actions, message_digest=mail.digest)
        except (Unavailable, TooManyRequests):
            raise
        except Conflict as exc:
            if exc.code == "stale-ply":
                return self._changed(mail, identity, match_id, seat, reply.ply, int(exc.extra.get("current_ply", -1)))
            return self.seat_answer(mail, identity, match_id, seat, "refused", phrase(NOTHING_DONE, why=exc.message),
                                    why(exc))
        except ServiceError as exc:
            return self.seat_answer(mail, identity, match_id, seat, "refused",
                                    phrase("Nothing was done, the whole move was refused: {why}.", why=exc.message),
                                    why(exc))
        return self._accepted(mail, identity, match_id, seat, steps.actions, result.get("events") or [], steps)

    def _plan(self, match_id: str, seat: int, meta: MatchMeta, reading: Reading, view: dict[str, Any]) -> Plan:
        """The reply's steps matched and played on the real state with the ply's real Rng, so the
        simulation is exactly what the commit will do again (service.play.mail.steps)."""
        game = self.ctx.game_of(meta)
        state = self.ctx.state(match_id, meta)
        rng = fairness.ply_rng(self.ctx.secret(match_id, meta), meta.ply)
        return plan(game, state, seat, rng, reading.pieces, menu(view.get("legal_actions") or []))

    def _not_played(self, mail: InboundMail, identity: str, match_id: str, seat: int, steps: Plan) -> str:
        """The refusal of a reply whose step did not fit: which step, why, and what the steps
        before it would have played (none was)."""
        failure = steps.failure
        assert failure is not None
        before = [p for p in steps.steps if p.number < failure.number]
        details: list[str] = []
        if before:
            details = [phrase("None of your reply was played; before step {n} it would have played:", n=failure.number)]
            details += [phrase("  {n}. {label}", n=p.number, label=p.label) for p in before]
        if failure.trouble == "rules":
            rule = (phrase("the rules of the game do not allow it then (rule: {rule}); every step of a reply is checked "
                           "on the position the steps before it make", rule=failure.rule) if failure.rule else
                    phrase("the rules of the game do not allow it then; every step of a reply is checked on the "
                           "position the steps before it make"))
        elif failure.trouble in ("chance", "turn"):
            rule = RULE_STEPS
        else:
            rule = RULE_GRAMMAR
        return self.seat_answer(mail, identity, match_id, seat, "refused", phrase(NOTHING_DONE, why=failure.sentence),
                                rule, details=details, help_text=HELP if failure.trouble == "words" else ())

    def _earlier(self, match_id: str, reply: ReplyTo, mail: InboundMail) -> dict[str, Any] | None:
        """The move this very message made at the notice's ply, if it made one."""
        entries = views.log(self.ctx, match_id, reply.ply, viewer=reply.seat)[:1]
        if entries and entries[0]["ply"] == reply.ply and entries[0]["seat"] == reply.seat \
                and (entries[0].get("mail") or {}).get("digest") == mail.digest:
            return {"actions": entries[0]["envelope"]["actions"], "events": entries[0]["events"]}
        return None

    def _accepted(self, mail: InboundMail, identity: str, match_id: str, seat: int, actions: list[dict[str, Any]],
                  events: list[dict[str, Any]], steps: Plan | None = None) -> str:
        game = self.ctx.game_of(self.ctx.meta(match_id))
        # a redelivered message that moved already: its actions in the log's words
        texts = [game.describe_action(a) for a in actions] if steps is None else [p.label for p in steps.steps]
        details: list[str]
        if len(texts) == 1:
            headline, details = phrase("accepted: {action}.", action=texts[0]), event_lines(events, game)
        else:  # a whole turn: each step as played, then what happened
            headline = phrase("accepted: your {n} steps, played in order as one move:", n=len(texts))
            details = [phrase("  {n}. {action} \N{CHECK MARK}", n=n, action=text) for n, text in enumerate(texts, 1)]
            happened = event_lines(events, game)
            details += [phrase("What happened:"), *happened] if happened else []
        self.seat_answer(mail, identity, match_id, seat, "accepted", headline, details=details)
        return f"moved: {len(actions)} action(s) in match {match_id} seat {seat}"

    def _changed(self, mail: InboundMail, identity: str, match_id: str, seat: int, was: int, now: int) -> str:
        return self.seat_answer(mail, identity, match_id, seat, "changed",
                                phrase("Nothing was done: the position changed since that notice (it was for ply {was}, "
                                       "the match is now at ply {now}).", was=was, now=now), RULE_STALE)

    # -- answers -------------------------------------------------------------------------------

    def seat_answer(self, mail: InboundMail, identity: str, match_id: str, seat: int, verdict: Verdict,
                     headline: str, rule: str = "", *, details: list[str] | None = None, help_text: tuple[str, ...] = (),
                     full_menu: bool = False, board: bool = False, prompt: bool = True) -> str:
        """An answer to the seat's own holder: with the position, whose turn, and the menu (not
        after a join: the match's start sends the turn notices, one prompt per turn is enough;
        nor with ``prompt=False``, e.g. after a resignation: the seat is no longer the player's).
        Written in the address's mail language: ``headline``, ``rule`` and ``details`` may be phrases."""
        language = self.preferences.language(mail.sender)
        context, reply_to = seat_context(self.ctx, match_id, seat, self.reply_base, full_menu=full_menu,
                                         board=board, prompt=prompt and verdict != "joined",
                                         # after a move (or a return), a turn notice may want to ask for
                                         # the same ply: one of the two does (answers.prompt_mark); a
                                         # refusal asks again on purpose, for the reply to be retried
                                         prompt_owner=f"answer:{identity}" if verdict == "accepted" else "",
                                         days=self.token_days, language=language)
        refusal = verdict in ("refused", "changed")
        answer = Answer(to=mail.sender, subject=REFUSAL_SUBJECT if refusal else reply_subject(mail.subject),
                        in_reply_to=thread_id(mail.message_id), verdict=verdict, headline=headline, rule=rule,
                        details=details or [], reply_to=reply_to, context=context, help=help_text, language=language)
        return self._send(answer, identity, mail, refusal=refusal)

    def _invite_answer(self, mail: InboundMail, identity: str, meta: MatchMeta, verdict: Verdict,
                       headline: str, rule: str) -> str:
        """An answer to an invited address: the invitation's help, nothing of anyone's hand, in the
        address's language (the invitation's until it chooses)."""
        game = self.ctx.game_of(meta)
        context = {"match": meta.id, "game_title": game.title, "public_url": self.ctx.public_url}
        refusal = verdict == "refused"
        answer = Answer(to=mail.sender, subject=REFUSAL_SUBJECT if refusal else reply_subject(mail.subject),
                        in_reply_to=thread_id(mail.message_id), verdict=verdict, headline=headline, rule=rule,
                        context=context, help=INVITE_HELP, language=self.preferences.language(mail.sender))
        return self._send(answer, identity, mail, refusal=refusal)

    def _send(self, answer: Answer, identity: str, mail: InboundMail, *, refusal: bool) -> str:
        if not self.mailbox.take_answer(answer.to, same_text_key(mail), self.same_text_answers, SAME_TEXT_WINDOW_S):
            log.warning("not answering %s: %d answers today to this same text about this turn already, a mail "
                        "loop with an auto-responder? (%s)", answer.to, self.same_text_answers, answer.headline)
            return f"{answer.verdict}, not answered (the same text again): {answer.headline}"
        if refusal and not self.mailbox.take_refusal(answer.to, self.refusals_per_hour, 3600):
            log.warning("not answering %s: %d refusals this hour already (%s)", answer.to, self.refusals_per_hour,
                        answer.headline)
            return f"refused, not answered (rate limit): {answer.headline}"
        self.post.answer(identity, answer.payload())
        return f"{answer.verdict}: {answer.headline}"


def _dropped(mail: InboundMail, why: str) -> str:
    """A mail from nobody proven: logged, never answered (an answer would be backscatter to
    whatever address the From names)."""
    log.warning("mail %s from %s dropped, not answered: %s", mail.message_id or mail.digest[:16], mail.sender, why)
    return f"dropped: {why}"


def desk_of(ctx: MatchContext, settings: Settings, *, mailbox: MailboxPort, preferences: PreferencesPort,
            post: AnswerPost) -> MailDesk:
    """The mail desk over ``ctx`` with its ports (wired in service.runtime.build_desk)."""
    return Desk(ctx=ctx, mailbox=mailbox, preferences=preferences, post=post,
                reply_base=settings.reply_base(), require_dkim=settings.mail_require_dkim,
                refusals_per_hour=settings.mail_refusals_per_hour, authserv_id=settings.mail_authserv_id,
                require_auth=settings.mail_require_auth, token_days=settings.mail_token_days,
                same_text_answers=settings.mail_same_text_answers)
