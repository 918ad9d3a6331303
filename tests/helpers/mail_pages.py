"""Every kind of mail the service writes, as the HTML a mail client shows, for the layout checks
(tests/web/test_mail_on_a_phone.py): the real letters over real matches where the service has a
function for them, else the real template with the context its caller gives it.

Inline pictures are resolved the way a mail client does: each ``cid:`` reference becomes a
``data:`` URL of the part's PNG, so the page lays out with the picture's real size.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.config import Settings
from service.delivery import letters
from service.delivery.mail import Mail, render, shell_line
from service.play.mail.answers import seat_context
from service.play.matches import Matches
from service.runtime import build
from tests.conftest import CREATOR_KEY
from tests.helpers.notice_sizes import GAMES, happened_before, match_for, notices
from tests.helpers.playthrough import default_seeds, playthrough

MENU_KINDS = ("turn notice", "answer")
"""The mails that carry the numbered menu (it must start within a phone's first screen)."""


@dataclass(frozen=True)
class MailPage:
    """One mail's HTML part, pictures inlined as ``data:`` URLs."""

    kind: str
    """``turn notice``, ``answer``, ``invite`` ...; a turn notice's name says its game too."""
    html: str

    @property
    def has_menu(self) -> bool:
        return self.kind.split(" (")[0] in MENU_KINDS


def inlined(mail: Mail) -> str:
    """The HTML of ``mail`` with each ``cid:`` picture as a ``data:`` URL."""
    html = mail.html
    for image in mail.images:
        html = html.replace(f"cid:{image.cid}", "data:image/png;base64," + base64.b64encode(image.png).decode())
    return html


def mail_pages(settings: Settings) -> Iterator[MailPage]:
    """One page of every kind of mail: two turn notices of each game with the most players (the
    last position of a whole game: the biggest board; and the one with the longest list of what
    happened since the seat's last move), then the others over an Ophir match."""
    m = build(settings)
    for game_id in GAMES:
        players = _most(game_id)
        play = playthrough(game_id, players, default_seeds(players)[0])
        # the last step (the fullest board) and the one with the most to tell since the seat's last move
        told = max(range(len(play.steps)), key=lambda i: len(happened_before(play, i, play.steps[i].seat)))
        for notice in notices(m, settings, match_for(m, game_id, players), play, [told, len(play.steps) - 1]):
            yield MailPage(f"turn notice ({game_id}, step {notice.step})", inlined(notice.mail))
    mid = match_for(m, "ophir", 3)
    yield MailPage("answer", answer(m, settings, mid))
    yield MailPage("invite", invite(m, settings))
    common = {**letters._common(m, settings, m.meta(mid), 0), "ply": 117}  # the letters' own context for every mail of a seat
    ending = {"ended_early": "", "left": []}
    standings = [{**p, "score": 60 - 7 * p["seat"], "rank": p["seat"] + 1} for p in common["players"]]
    record = letters.record_link(m.public_url, mid)
    yield MailPage("match over", render("match_over", "p0@example.org", "over", "k", {
        **common, **ending, "standings": standings, "head": "ab" * 32, "record": record}).html)
    yield MailPage("match aborted", render("match_aborted", "p0@example.org", "aborted", "k", {
        **common, **ending, "head": "ab" * 32, "record": record}).html)
    yield MailPage("clock note", render("clock_note", "p0@example.org", "due", "k", {
        **common, "lines": ["Your move is due in 1 day 3 hours (by 2026-12-07 14:00 UTC).",
                            "If it does not come by then, the match's timeout policy plays a random bot for you."]}).html)
    lines, _ = letters.waiting_lines(m, settings, "p0@example.org", [(mid, 0, "2026-12-05T09:00:00")])
    lines = lines or [{"match": mid, "seat": 0, "game_title": "Ophir", "ply": 0, "since": "2026-12-05 09:00",
                       "you": common["you"], "to_act": common["players"][:1],
                       "link": letters.match_link(m.public_url, mid), "reply": common["reply_o"]}]
    yield MailPage("digest", letters.digest(m, settings, "p0@example.org", lines * 2, datetime(2026, 12, 5, tzinfo=UTC),
                                            "k").html)
    hook = "wh_" + "Q7" * 11
    yield MailPage("webhook disabled", render("webhook_disabled", "p0@example.org", "off", "k", {
        "hook_id": hook, "scope": f"match {mid}", "failures": 10, "public_url": m.public_url,
        "url": "https://hooks.example.org/portolan/incoming/" + "x" * 90,
        "reason": "the receiver answered 503 Service Unavailable",
        "ping_line": shell_line(["portolan", "webhook", "ping", hook, "--match", mid]),
        "deliveries_line": shell_line(["portolan", "webhook", "deliveries", hook, "--match", mid])}).html)


def _most(game_id: str) -> int:
    from service.games import registry

    return max(registry()[game_id].players)


def answer(m: Matches, settings: Settings, mid: str) -> str:
    """The mail desk's answer to a move by mail, as the answer job renders it: the seat's context
    with the menu, what the move did, and the board (the desk's ``show``)."""
    seat = m.meta(mid).active[0]
    context, _ = seat_context(m, mid, seat, settings.reply_base(), board=True)
    context.update({"verdict": "played", "headline": "Played: item 3, Take the 2 gold from the market.",
                    "rule": "", "help": [],
                    "details": ["You took 2 gold from the market (Ophir rule §5.4).",
                                "  The market now offers 1 silver, 2 copper and a card: " + "Temple " * 12]})
    return render("answer", "p0@example.org", "Re: your move", "k", context).html


def invite(m: Matches, settings: Settings) -> str:
    """An invitation to an unclaimed seat (with its claim link and the install line)."""
    made: dict[str, Any] = m.create("ophir", {}, [{"invite": "friend.with.a.long.address@example.org"},
                                                  {"bot": "random"}], creator_key=CREATOR_KEY, creator_name="Ana Lima")
    mid = str(made["id"])
    return letters.invitation(m, settings, mid, 0, "friend.with.a.long.address@example.org", made["invites"]["0"],
                              "k").html
