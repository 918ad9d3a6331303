"""What each mail says: the turn notice, the invitation, the game-over mail, the daily digest,
and the clock's reminders and late notes (service/delivery/clock_words.py words the times).

Every mail is written for a player on another machine who has nothing but the mail: it names
the match, the game, who invited them and every player by name and colour, says whose turn it
is, carries the numbered menu (service.play.mail.menu) and how to answer it by replying, a link to
the match, and for CLI users the exact command with ``--server``. Each one answerable by mail
has a ``Reply-To`` of service.play.mail.reply_address (``t`` bound to the ply for a turn notice,
``i`` for an invitation, ``o`` for the rest), so the reply itself says what it answers, and a
``List-Unsubscribe`` with a one-click https URL (RFC 8058) and a mailto that mails ``stop
notices`` to such an address (:func:`unsubscribe`). The wording lives in the templates
(``templates/``); this module gathers the facts they show.

Phone first (issue 27): the HTML parts are one narrow column that wraps whatever is long
(``templates/_styles.html``), a turn notice says whose turn in one paragraph and then gives the
menu, and it weighs at most :data:`NOTICE_BUDGET` as sent: the board picture gets the room the
rest leaves (service/delivery/rasterise.py has the figures), or is linked when it cannot fit.

In the reader's language (issue 29): every function that writes a letter takes the ``language`` of
its recipient's address (service.storage.preferences: chosen, else the invitation's, else English;
an invitation is written in its creator's language until the invitee chooses). The templates say
their words through the catalogs (service.delivery.mail), the facts gathered here are rendered in
that language: the menu's labels, the events, the board (``Game.render``), the seats' colours, the
subjects and the clock's words (service/delivery/clock_words.py).
"""

from __future__ import annotations

import json
import logging
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from service.clock import parse_iso
from service.config import Settings
from service.delivery import clock_words
from service.delivery import unsubscribe as one_click
from service.delivery.clock import SeatStatus
from service.delivery.mail import InlineImage, Mail, render, shell_line, to_message, wire_bytes
from service.delivery.rasterise import to_mail_png
from service.games.base import Game
from service.games.undo import fold_undone
from service.games.words import rules_url
from service.i18n import DEFAULT as EN
from service.i18n import render as say
from service.i18n import tr, tr_n
from service.play.mail.answers import board_text
from service.play.mail.menu import SHOWN, menu
from service.play.mail.reply_address import Kind, reply_address
from service.play.matches import Matches
from service.play.views import boards
from service.proof.chain import visible_events
from service.proof.match_record import MatchMeta

log = logging.getLogger("portolan.letters")

INVITER_CHARS = 80
"""The most of a creator's name a mail quotes (a name is checked to this length at creation)."""
NOTICE_BUDGET = 64 * 1024
"""The most a turn notice may weigh as sent (the whole message, every part), in bytes: light on a
phone's data plan and far from any mailbox's limit. The board picture is what may not fit: it is
then left out and linked (:func:`notice_of`, service/delivery/rasterise.py)."""
HEADER_MARGIN = 2048
"""Bytes kept free for what delivery may add to a notice after it is written (a DKIM signature)."""
PICTURE_PART = 600
"""About what the picture's MIME part adds besides its base64 body (boundary, headers, alt text)."""

HISTORY_SCAN = 200
"""How far back a notice looks for what happened since the seat last acted."""


def match_link(public_url: str, match_id: str) -> str:
    """The link to a match a mail gives: its page in the web client on this server."""
    return f"{public_url}/match/{match_id}"


def claim_link(public_url: str, match_id: str, seat: int, token: str) -> str:
    """The web client's page that claims ``seat`` with its invite ``token``. The token rides in
    the fragment, which browsers never send to a server: it stays out of access logs and
    ``Referer`` headers, and only the page's script reads it."""
    return f"{public_url}/claim/{match_id}/{seat}#token={token}"


def record_link(public_url: str, match_id: str) -> str:
    """The link to a match's verifiable record."""
    return f"{public_url}/v1/matches/{match_id}/record"


def reply_to(m: Matches, settings: Settings, kind: Kind, match_id: str, seat: int, ply: int = 0, *,
             game_over: bool = False, at: datetime | None = None) -> str:
    """The reply address of a mail of ``kind`` about ``seat`` (at ``ply`` for a turn notice), good
    for ``PORTOLAN_MAIL_TOKEN_DAYS`` (``PORTOLAN_MAIL_GAME_OVER_TOKEN_DAYS`` for a mail about an
    ended match) from ``at`` (default now). A turn notice dates its tokens from the turn's start,
    so that a resend on another day is the same message (issue 28, item 9)."""
    days = settings.mail_game_over_token_days if game_over else settings.mail_token_days
    return reply_address(m.server_key, settings.reply_base(), kind, match_id, seat, ply, days=days,
                         now=None if at is None else at.timestamp())


def unsubscribe(m: Matches, settings: Settings, match_id: str, seat: int, email: str,
                at: datetime | None = None) -> tuple[tuple[str, str], ...]:
    """The unsubscribe headers of a mail to ``email`` about ``seat``: ``List-Unsubscribe`` (RFC 2369)
    with two ways, the one-click https URL of ``email`` first (RFC 8058 section 3.1: the receiver
    POSTs ``List-Unsubscribe=One-Click`` to it, service/api/unsubscribe.py; the token names the
    address, service.delivery.unsubscribe) and a mail with the subject ``stop notices`` to the seat's
    ``o`` reply address, which the mail desk reads as that command; and ``List-Unsubscribe-Post``,
    which says the URL takes the POST. Both are signed by DKIM (dkim_sign.SIGNED_HEADERS), as
    Gmail's rules ask, and written unfolded (mail.HEADER_POLICY).

    RFC 8058 is for an ``https`` URL only: a server whose ``PUBLIC_URL`` is plain ``http`` (``portolan
    dev``, a test) still lists its URL, which a mail client may open (its page has the button), but
    says nothing of one-click, which no receiver would honour there."""
    url = one_click.url_of(m.server_key, m.public_url, email)
    mailto = f"mailto:{reply_to(m, settings, 'o', match_id, seat, at=at)}?subject=stop%20notices"
    listed = ("List-Unsubscribe", f"<{url}>, <{mailto}>")
    return (listed, one_click.POST_HEADER) if url.startswith("https://") else (listed,)


def cli_line(match_id: str, seat: int, action: Mapping[str, Any], *, ply: int | None = None, server: str = "") -> str:
    """The exact command that submits ``action`` for this seat (at ``ply``, so a command pasted
    after the position changed is refused as stale rather than played somewhere else), on
    ``server``; every word shell-quoted (an action's JSON may hold a quote: see
    :func:`service.delivery.mail.shell_line`)."""
    words: list[object] = ["portolan", "move", match_id, "--seat", seat]
    if ply is not None:
        words += ["--ply", ply]
    if server:
        words += ["--server", server]
    return shell_line([*words, json.dumps(action, separators=(",", ":"))])


def players_of(game: Game[Any], meta: MatchMeta, language: str = EN) -> list[dict[str, Any]]:
    """Every seat as the mails list it: seat number, colour, and who plays it (a person's name,
    ``random bot``, or nobody yet), in ``language``. Invited addresses are never shown to the other players."""
    colours = [say(c, language) for c in game.seat_names(meta.players)]
    rows = []
    for row in meta.seats:
        if row.kind == "bot":
            who = tr(language, "{kind} bot", kind=row.bot or "random")
        elif row.claimed:
            who = row.name or tr(language, "a player with no name")
        else:
            who = tr(language, "invited, not joined yet")
        rows.append({"seat": row.seat, "colour": colours[row.seat], "who": who,
                     "custodial": row.custody == "server"})
    return rows


def inviter_of(meta: MatchMeta) -> str:
    """Who invited: the creator's name as given at creation ("" when none was given), for the body
    only, where the templates quote it as the creator's own words; never in a Subject (issue 28:
    a name like "Claim your prize at evil.example" made every invitation a stranger's advert).
    Checked at creation (service.play.seats.people.check_name), bounded and stripped of control
    and format characters again here for matches stored before that check."""
    text = "".join(ch for ch in str(meta.creator_name or "") if not unicodedata.category(ch).startswith("C"))
    return " ".join(text.split())[:INVITER_CHARS]


def happened_since(m: Matches, match_id: str, seat: int, ply: int) -> list[str]:
    """Events since the seat's own last move (at most the last HISTORY_SCAN moves), as that seat
    may see them, in words (``Game.describe_event``: phrases, rendered by the letter in its
    reader's language). Steps a player took back are left out, with the undo itself: what was
    undone did not happen (:func:`service.games.undo.fold_undone`)."""
    start = max(0, ply - HISTORY_SCAN)
    entries = m.store.log(match_id, start, ply - 1) if ply > 0 else []
    since: list[dict[str, Any]] = []
    for entry in reversed(entries):
        if entry["seat"] == seat:
            break
        since[:0] = entry["events"]
    # fold before filtering: an undo counts the events it takes back as the log holds them
    game = m.game_of(m.meta(match_id)) if since else None
    return [game.describe_event(e) if game is not None else e.get("text", e["type"])
            for e in visible_events(fold_undone(since), seat)]


def _common(m: Matches, settings: Settings, meta: MatchMeta, seat: int, at: datetime | None = None,
            language: str = EN) -> dict[str, Any]:
    """What every mail about ``seat`` of a match shows (its tokens dated from ``at``, default now)."""
    game = m.game_of(meta)
    players = players_of(game, meta, language)
    return {"match": meta.id, "seat": seat, "game_title": game.title, "players": players,
            "you": players[seat], "name": meta.seats[seat].name, "inviter": inviter_of(meta),
            "public_url": m.public_url, "link": match_link(m.public_url, meta.id),
            "rules_link": f"{m.public_url}{rules_url(game.id)}" if rules_url(game.id) else "",
            "custodial": meta.seats[seat].custody == "server",
            "reply_o": reply_to(m, settings, "o", meta.id, seat, game_over=meta.status in ("finished", "aborted"),
                                at=at)}


def board_svg(m: Matches, meta: MatchMeta, view: Mapping[str, Any], seat: int, language: str = EN) -> str | None:
    """The seat's board as SVG for the notice, its words in the recipient's ``language``, or None
    when there is none to give.

    A picture is a nicety: the plain-text board and the menu say everything a reply needs. So a
    game without a renderer, or a renderer that fails, costs the picture only, never the notice
    (logged, so the failure is seen and fixed)."""
    try:
        return boards.draw(meta.game, view["board"], view.get("legal_actions", []), boards.picture_edition(m, meta),
                           language)
    except Exception:  # any failure of the picture's code, whatever it is, must not stop the mail
        log.warning("no picture for the notice of match %s seat %s at ply %s", meta.id, seat, view["ply"],
                    exc_info=True)
        return None


def board_picture(m: Matches, meta: MatchMeta, view: Mapping[str, Any], seat: int, svg: str,
                  max_bytes: int, language: str = EN) -> InlineImage | None:
    """The seat's board ``svg`` as an inline PNG of at most ``max_bytes`` bytes for the notice
    (service.delivery.rasterise.to_mail_png), or None when it does not fit or cannot be drawn
    (logged: a nicety lost, never the notice)."""
    game = m.game_of(meta)
    try:
        png = to_mail_png(svg, max_bytes)
    except Exception:  # as in board_svg: the rasteriser's failure costs the picture only
        log.warning("no picture for the notice of match %s seat %s at ply %s", meta.id, seat, view["ply"],
                    exc_info=True)
        return None
    if png is None:
        log.info("the board of match %s at ply %s does not fit the notice's budget: linked instead", meta.id,
                 view["ply"])
        return None
    colour = say(game.seat_names(meta.players)[seat], language)
    return InlineImage(cid=f"board.{meta.id}.{seat}.{view['ply']}@{_cid_domain(m.public_url)}", png=png,
                       alt=tr(language, "The board of {game}, match {match} at ply {ply}, as {colour} (seat {seat}) "
                                        "sees it", game=game.title, match=meta.id, ply=view["ply"], colour=colour,
                              seat=seat))


def mail_size(settings: Settings, mail: Mail) -> int:
    """The bytes of ``mail`` as sent over SMTP (8-bit bodies, CRLF lines: the larger of the wire's
    and the outbox file's forms), before any DKIM signature (:data:`HEADER_MARGIN`)."""
    return len(wire_bytes(to_message(mail, settings.mail_from, settings.message_domain()), None))


def picture_room(size_without: int) -> int:
    """How many PNG bytes fit a notice that weighs ``size_without`` bytes without its picture:
    the budget less :data:`HEADER_MARGIN`, less the picture part's own headers, less base64's
    growth (4 characters for 3 bytes, and a CRLF every 76)."""
    free = NOTICE_BUDGET - HEADER_MARGIN - PICTURE_PART - size_without
    return max(0, free * 3 * 76 // (4 * 78))


def _cid_domain(public_url: str) -> str:
    """The host of the public URL, for the right side of a Content-ID (RFC 2392: an addr-spec)."""
    host = public_url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
    return host or "portolan.invalid"


class PositionMoved(Exception):
    """The match is no longer at the ply a turn notice is for: the notice is not written."""


def turn_began(m: Matches, meta: MatchMeta, ply: int) -> datetime:
    """When the match reached ``ply`` (by the service's clock): the acceptance time of the move
    before it, or the start of the match."""
    entries = m.store.log(meta.id, ply - 1, ply - 1) if ply > 0 else []
    return parse_iso(str(entries[0]["accepted_at"]) if entries else str(meta.started_at or meta.updated_at))


def turn_notice(m: Matches, settings: Settings, match_id: str, seat: int, key: str, ply: int,
                began: int | None = None, language: str = EN) -> Mail | None:
    """The turn notice of ``seat`` for ``ply`` (None: the seat has no address); raises
    :class:`PositionMoved` when the match is at another ply by now. ``began``: the ply the
    seat's turn began at, when only other seats' match actions (votes) came since (default ``ply``):
    the deadline's words are read from there.

    A function of (match, seat, ply): the position, the menu, the ply of the ``Reply-To``, the
    CLI line and the deadline's words (read at the moment the turn began, never "now") are those
    of ``ply`` only, so the notice's content, its Message-ID (from ``key``) and its ply agree, and
    a resend after a lost "sent" mark is the same message (issue 28, item 9). The numbers a reply
    picks mean what the notice showed, at the ply the reply address names."""
    meta = m.meta(match_id)
    if not meta.seats[seat].email:
        return None
    view = m.view(match_id, seat, meta)
    if int(view["ply"]) != ply:
        raise PositionMoved(f"match {match_id} is at ply {view['ply']}, the notice is for ply {ply}")
    return notice_of(m, settings, meta, seat, view, happened_since(m, match_id, seat, ply), key,
                     at=turn_began(m, meta, ply if began is None else began), language=language)


def notice_of(m: Matches, settings: Settings, meta: MatchMeta, seat: int, view: Mapping[str, Any],
              happened: Sequence[str], key: str, at: datetime | None = None, language: str = EN) -> Mail:
    """The turn notice of ``seat`` from a view of it and what happened since it last acted: the
    part of :func:`turn_notice` that reads nothing more of the match, so that the size budget can
    be checked over any position a game reaches (tests/delivery/test_notice_size.py). ``at``: the
    moment the deadline's words are read at (the turn's start; default now)."""
    match_id = meta.id
    row = meta.seats[seat]
    ply = int(view["ply"])
    items = menu(view.get("legal_actions", []))
    listed = [replace(item, text=say(item.text, language)) for item in items[:SHOWN]]
    ctx = _common(m, settings, meta, seat, at, language)
    to_act = [p for p in ctx["players"] if p["seat"] in view["active_seats"]]
    game = m.game_of(meta)
    ctx.update({
        "ply": ply, "board": board_text(game, view, language), "happened": [say(h, language) for h in happened],
        "items": listed, "more_items": max(0, len(items) - SHOWN),
        "others_to_act": [p for p in to_act if p["seat"] != seat],
        "cli_line": cli_line(match_id, seat, items[0].action, ply=ply, server=m.public_url) if items else "",
        "pick_line": shell_line(["portolan", "move", match_id, "--seat", seat, "--pick", "N", "--server", m.public_url]),
        "head": view["head"], "commitment": meta.commitment,
        "deadline": clock_words.deadline_line(m, meta, seat, at, language),
    })
    subject = tr(language, "[Portolan] Your turn in {game} ({match}, ply {ply})", game=game.title, match=match_id, ply=ply)
    mail = partial(render, "turn_notice", row.email, subject, key, language=language,
                   reply_to=reply_to(m, settings, "t", match_id, seat, ply, at=at),
                   headers=unsubscribe(m, settings, match_id, seat, row.email, at=at))
    svg = board_svg(m, meta, view, seat, language)
    if svg is None:
        return mail(ctx)
    # the picture gets what room the rest of the mail leaves it (module docstring of rasterise)
    # the link names the language: a mail client fetches it without the reader's Accept-Language
    lang = "" if language == EN else f"&lang={language}"
    linked = mail({**ctx, "picture_link": f"{m.public_url}/v1/matches/{match_id}/board.png?ply={ply}{lang}"})
    picture = board_picture(m, meta, view, seat, svg, picture_room(mail_size(settings, linked)), language)
    if picture is None:
        return linked
    shown = mail(ctx, images=(picture,))
    return shown if mail_size(settings, shown) <= NOTICE_BUDGET - HEADER_MARGIN else linked


def invitation(m: Matches, settings: Settings, match_id: str, seat: int, email: str, token: str, key: str,
               language: str = EN) -> Mail:
    """The invitation to ``seat``: who invites, to what, with whom; how to join by replying, and
    the one line that installs the CLI and claims the seat.

    Its ``List-Unsubscribe`` is the notices' one (:func:`unsubscribe`): the invited address's
    one-click URL, and ``stop notices`` to the seat's ``o`` address, which the desk takes from the
    invited address; either sets that address's preference to ``off``, and
    ``workers.jobs.send_invite`` sends no invitation to an address that chose ``off``."""
    meta = m.meta(match_id)
    ctx = _common(m, settings, meta, seat, language=language)
    claim = ["portolan", "claim", match_id, seat, token, "--name", tr(language, "Your name"), "--email", email,
             "--server", m.public_url]
    ctx.update({"token": token, "to": email, "commitment": meta.commitment, "claim_line": shell_line(claim),
                "claim_link": claim_link(m.public_url, match_id, seat, token),
                "install_line": f"python3 -m venv ~/portolan-venv && . ~/portolan-venv/bin/activate && "
                                f"{settings.install} && portolan keygen && {shell_line(claim)}"})
    # fixed words and the game's name only: no text the creator chose goes into a Subject
    return render("invite", email, tr(language, "[Portolan] An invitation to play {game} ({match})",
                                      game=ctx["game_title"], match=match_id), key, ctx,
                  reply_to=reply_to(m, settings, "i", match_id, seat),
                  headers=unsubscribe(m, settings, match_id, seat, email), language=language)


def match_over(m: Matches, settings: Settings, match_id: str, seat: int, key: str, language: str = EN) -> Mail | None:
    """The game-over mail of ``seat``: the standings by name, colour, score and rank, and how to
    fetch and verify the record (None: the seat has no address)."""
    meta = m.meta(match_id)
    row = meta.seats[seat]
    if not row.email:
        return None
    ctx = _common(m, settings, meta, seat, language=language)
    last = m.store.log(match_id, -1, -1) if int(meta.ply) > 0 else []
    ctx.update(clock_words.ending(meta, last[0].get("events", []) if last else [], language))
    if meta.status == "aborted":
        ctx.update({"ply": meta.ply, "head": meta.head, "record": record_link(m.public_url, match_id)})
        return render("match_aborted", row.email, tr(language, "[Portolan] {game} {match} was aborted",
                                                     game=ctx["game_title"], match=match_id), key,
                      ctx, reply_to=ctx["reply_o"], headers=unsubscribe(m, settings, match_id, seat, row.email),
                      language=language)
    outcome = meta.outcome or {"scores": [], "ranks": []}
    standings = sorted(({**ctx["players"][s], "score": outcome["scores"][s], "rank": outcome["ranks"][s]}
                        for s in range(len(outcome["scores"]))), key=lambda r: (r["rank"], r["seat"]))
    ctx.update({"ply": meta.ply, "standings": standings, "head": meta.head,
                "record": record_link(m.public_url, match_id)})
    return render("match_over", row.email, tr(language, "[Portolan] {game} {match} is over", game=ctx["game_title"],
                                              match=match_id), key, ctx,
                  reply_to=ctx["reply_o"], headers=unsubscribe(m, settings, match_id, seat, row.email), language=language)


def waiting_lines(m: Matches, settings: Settings, email: str, seats: Sequence[tuple[str, int, str]],
                  language: str = EN) -> tuple[list[dict[str, Any]], list[tuple[str, int]]]:
    """Of the seats noted for a digest, the ones still waiting for ``email`` (one line each: game,
    match, whose turn, since when, link, reply address) and the ones that no longer wait."""
    lines: list[dict[str, Any]] = []
    gone: list[tuple[str, int]] = []
    metas = m.store.metas([mid for mid, _, _ in seats], ("id", "game", "status", "ply", "active", "seats", "players",
                                                         "creator_name"))
    for (mid, seat, since), meta in zip(seats, metas, strict=True):
        waiting = (meta is not None and meta.status == "active" and seat in meta.active
                   and seat < len(meta.seats) and meta.seats[seat].email.lower() == email.strip().lower())
        if meta is None or not waiting:
            gone.append((mid, seat))
            continue
        game = m.game_of(meta)
        players = players_of(game, meta, language)
        lines.append({"match": mid, "seat": seat, "game_title": game.title, "ply": meta.ply, "since": since[:16].replace("T", " "),
                      "you": players[seat], "to_act": [p for p in players if p["seat"] in meta.active],
                      "link": match_link(m.public_url, mid), "reply": reply_to(m, settings, "o", mid, seat)})
    return lines, gone


def digest(m: Matches, settings: Settings, email: str, lines: list[dict[str, Any]], day: datetime, key: str,
           language: str = EN) -> Mail:
    """The daily digest to ``email``: every match waiting for it, one block each."""
    first = lines[0]
    ctx = {"to": email, "lines": lines, "day": day.date().isoformat(), "public_url": m.public_url,
           "digest_hour": settings.digest_hour}
    subject = tr_n(language, "[Portolan] {n} match waiting for you ({day})", "[Portolan] {n} matches waiting for you ({day})",
                   len(lines), day=ctx["day"])
    return render("digest", email, subject, key, ctx, reply_to=first["reply"],
                  headers=unsubscribe(m, settings, first["match"], first["seat"], email), language=language)


def reminder(m: Matches, settings: Settings, match_id: str, seat: int, status: SeatStatus, now: datetime,
             key: str, language: str = EN) -> Mail | None:
    """The reminder to ``seat`` that its move is due (None: the seat has no address)."""
    meta = m.meta(match_id)
    row = meta.seats[seat]
    if not row.email:
        return None
    ctx = _common(m, settings, meta, seat, language=language)
    due = clock_words.due_in(status, now, language)
    ctx.update({"ply": meta.ply, "lines": clock_words.reminder_lines(meta, status, now, language)})
    return render("clock_note", row.email, tr(language, "[Portolan] Your move in {game} ({match}) is due {due}",
                                              game=ctx["game_title"], match=match_id, due=due),
                  key, ctx, reply_to=reply_to(m, settings, "t", match_id, seat, int(meta.ply)),
                  headers=unsubscribe(m, settings, match_id, seat, row.email), language=language)


def late_note(m: Matches, settings: Settings, match_id: str, late: int, seat: int, day: int,
              status: SeatStatus, now: datetime, key: str, language: str = EN) -> Mail | None:
    """The daily note to ``seat`` that seat ``late`` is late (None: ``seat`` has no address)."""
    meta = m.meta(match_id)
    row = meta.seats[seat]
    if not row.email:
        return None
    ctx = _common(m, settings, meta, seat, language=language)
    who = ctx["players"][late]
    ctx.update({"ply": meta.ply, "lines": clock_words.late_lines(meta, status, who, late == seat, day, language)})
    # the late seat by its colour, not its player's chosen name: no player's text in a Subject
    subject = (tr(language, "[Portolan] You are late in {game} ({match})", game=ctx["game_title"], match=match_id)
               if late == seat else
               tr(language, "[Portolan] The {colour} seat is late in {game} ({match})", colour=who["colour"],
                  game=ctx["game_title"], match=match_id))
    return render("clock_note", row.email, subject, key, ctx, reply_to=ctx["reply_o"],
                  headers=unsubscribe(m, settings, match_id, seat, row.email), language=language)
