"""The match from a player's terminal: ``create``, ``claim``, ``show``, ``actions``, ``move``,
``log``, ``my-turns``, and the match actions ``resign``, ``abort`` (the creator's before the start,
a vote after it) and ``back`` (docs/clock.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from shlex import join as shell_line
from typing import Any

from service.clock import parse_iso
from service.i18n import Phrase, phrase_in, render, tr, tr_n
from service.play.mail.match_words import abort_votes_waiting, event_text
from service.tools.cli.common import (
    CommandMaker,
    api_client,
    ensure_key,
    language,
    load_key,
    out,
    remember_seat,
    remembered_seats,
    seat_and_key,
)
from service.tools.cli.friend_lines import claimed_text, invitations_text
from service.tools.cli.mail import delegation_line
from service.tools.cli.time_control import add_create_flags, clock_lines, clock_request, clock_summary, seat_name
from service.tools.terminal import say

# -- the match in words ----------------------------------------------------------------------

STATUS: dict[str, Phrase] = {
    "waiting": phrase_in("match status", "waiting"),
    "active": phrase_in("match status", "active"),
    "finished": phrase_in("match status", "finished"),
    "aborted": phrase_in("match status", "aborted"),
}
"""A match's ``status`` (a machine field of the API) in words; an unknown one is printed as it is."""

def status_text(status: str, lang: str | None = None) -> str:
    """A match status in the output's language (English: the API's word itself)."""
    word = STATUS.get(status)
    return render(word, lang or language()) if word is not None else status


def seats_text(seats: Sequence[int], lang: str) -> str:
    """``seat 1``, ``seats 0 and 2``, ``seats 0, 1 and 3`` (service.play.mail.match_words's words)."""
    listed = [str(s) for s in seats]
    joined = tr(lang, "{items} and {last}", items=", ".join(listed[:-1]), last=listed[-1]) if len(listed) > 1 \
        else "".join(listed)
    return tr_n(lang, "seat {seats}", "seats {seats}", len(listed), seats=joined)


def votes_needed_text(waiting: Sequence[int], lang: str) -> str:
    """``1 vote (seat 2)``, ``2 votes (seats 0 and 2)``."""
    return tr_n(lang, "{n} vote ({seats})", "{n} votes ({seats})", len(waiting), seats=seats_text(waiting, lang))


def render_view(view: dict[str, Any], now: str | None = None, lang: str | None = None) -> str:
    """A readable text page of a match view; ``now`` is the service clock's time when it was read,
    ``lang`` the language of the page (default: the output's, :func:`.common.language`)."""
    L = lang or language()
    lines = [tr(L, "Match {id} · {game} · {status} · ply {ply}", id=view["id"], game=view["game"],
                status=status_text(view["status"], L), ply=view["ply"])]
    names = {s["seat"]: seat_name(s, L) for s in view["seats"]}
    lines.append(tr(L, "Seats: {seats}", seats=", ".join(f"{i}={n}" for i, n in names.items())))
    if view["open_seats"]:
        lines.append(tr(L, "Open seats: {seats}", seats=str(view["open_seats"])))
    if view["status"] == "active":
        # each part said on its own line of code: the extraction does not see a message inside another's arguments
        acting = [tr(L, "seat {seat} ({name})", seat=s, name=names[s]) for s in view["active_seats"]]
        lines.append(tr(L, "To act: {seats}", seats=", ".join(acting)))
    if view.get("outcome"):
        o = view["outcome"]
        scores = [tr(L, "seat {seat}: {score} (rank {rank})", seat=i, score=sc, rank=r)
                  for i, (sc, r) in enumerate(zip(o["scores"], o["ranks"], strict=False))]
        lines.append(tr(L, "Final: {scores}", scores=", ".join(scores)))
    lines += clock_lines(view, parse_iso(now) if now else None, L)
    if view.get("text"):
        lines += ["", view["text"]]
    if view.get("legal_actions"):
        lines += ["", tr(L, "Your legal actions ({n}): {command}", n=len(view["legal_actions"]),
                         command=shell_line(["portolan", "actions", view["id"]]))]
    if view.get("match_actions"):
        kinds = {a["action"]["type"] for a in view["match_actions"]}
        lines.append(tr(L, "Or: {commands}", commands=", ".join(
            shell_line(["portolan", cmd, view["id"]]) for kind, cmd in
            (("match:resign", "resign"), ("match:abort", "abort"), ("match:return", "back")) if kind in kinds)))
    lines.append(tr(L, "Chain head: {head}", head=view["head"]))
    return "\n".join(lines)


# -- create and claim ------------------------------------------------------------------------


def cmd_create(args: argparse.Namespace) -> int:
    """Create a match signed by ``--key`` (made if missing); say the invitations to forward and the clock."""
    seats: list[dict[str, str]] = [{"invite": e} for e in args.invite] + [{"bot": b} for b in args.bot]
    options: dict[str, Any] = {}
    for opt in args.option:
        name, _, raw = opt.partition("=")
        options[name] = _option_value(name, raw)
    clock = clock_request(args)  # a bad clock flag is refused before any key is made or request sent
    ensure_key(args.key)  # creation is signed: the creator is a key, as a player is
    result = api_client(args).create(args.game, seats, options, private_key=load_key(args.key),
                                  creator_name=args.name or "", edition=args.edition, **clock)
    if args.json:
        out(result, True)
        return 0
    L = language()
    say(tr(L, "match {id} ({game}) created, status {status}", id=result["id"], game=result["game"],
           status=status_text(result["status"], L)))
    say(tr(L, "seed commitment: {commitment}", commitment=result["commitment"]))
    say(clock_summary(clock, L))
    say(tr(L, "created by your key {key}; only it may abort the match while it waits for players: {command}",
           key=repr(args.key), command=shell_line(["portolan", "abort", result["id"],
                                                   *([] if args.key == "default" else ["--key", args.key]),
                                                   "--server", args.server])))
    say(invitations_text(result["id"], result["invites"], args.invite, args.server, L))
    return 0


def cmd_claim(args: argparse.Namespace) -> int:
    """Take an invited seat with its token and remember it (with its key) for the later commands."""
    ensure_key(args.key)
    result = api_client(args).claim(args.match, args.seat, args.token, load_key(args.key), args.name, args.email or "",
                                 mail=not args.no_mail)
    remember_seat(args.match, args.seat, args.key)
    if args.json:
        out(result, True)
        return 0
    L = language()
    say(tr(L, "seat {seat} of match {match} is yours; match is {status}", seat=args.seat, match=args.match,
           status=status_text(result["status"], L)))
    say(delegation_line(args.match, args.seat, not args.no_mail, L))
    say(claimed_text(args.match, args.seat, args.email or "", args.server, L))
    return 0


def _option_value(name: str, raw: str) -> Any:
    """``--option NAME=VALUE``: VALUE as JSON when it is JSON (within the server's bounds), else
    the text itself; JSON the server would refuse (too deep, NUL) is refused here, not a traceback."""
    from service.play.errors import BadRequest
    from service.play.limits import parse_json

    try:
        return parse_json(raw)
    except BadRequest as exc:
        if exc.code == "malformed-json":
            return raw
        raise SystemExit(f"--option {name}: {exc.message}") from exc


# -- a seat's turn ----------------------------------------------------------------------------


def cmd_show(args: argparse.Namespace) -> int:
    """The match: the seat's own view when a seat is held here (or given), else the public one."""
    client = api_client(args)
    known = args.match in remembered_seats() or args.seat is not None
    if known:
        seat, key = seat_and_key(args)
        view = client.view(args.match, seat, load_key(key))
    else:
        view = client.show(args.match)
    out(view if args.json else render_view(view, client.server_now), args.json)
    return 0


def cmd_actions(args: argparse.Namespace) -> int:
    """The seat's legal actions, numbered for ``move --pick``."""
    seat, key = seat_and_key(args)
    view = api_client(args).view(args.match, seat, load_key(key))
    legal = view.get("legal_actions", [])
    if args.json:
        out(legal, True)
        return 0
    L = language()
    if not legal:
        say(tr(L, "seat {seat} need not act now (to act: {seats})", seat=seat, seats=str(view["active_seats"])))
        return 0
    for i, a in enumerate(legal, 1):
        say(f"{i:>3}. {a['text']}\n     {json.dumps(a['action'], separators=(',', ':'))}")
    say()
    say(tr(L, "play one with: {command} --pick N", command=shell_line(["portolan", "move", args.match])))
    return 0


def cmd_move(args: argparse.Namespace) -> int:
    """Sign and submit a move: actions as JSON objects, or the N-th legal action (``--pick``)."""
    seat, key = seat_and_key(args)
    private = load_key(key)
    client = api_client(args)
    if args.pick is not None:
        view = client.view(args.match, seat, private)
        legal = view.get("legal_actions", [])
        if not 1 <= args.pick <= len(legal):
            raise SystemExit(tr(language(), "--pick must be 1..{n} (see {command})", n=len(legal),
                                command=shell_line(["portolan", "actions", args.match])))
        actions, ply = [legal[args.pick - 1]["action"]], view["ply"]
    else:
        actions = [_action_argument(a) for a in args.actions]
        if not actions:
            raise SystemExit(tr(language(), "give one or more actions as JSON, or --pick N"))
        ply = args.ply
    result = client.move(args.match, seat, private, actions, ply=ply)
    if args.json:
        out(result, True)
        return 0
    for e in result["events"]:
        say(f"- {e.get('text', e['type'])}")
    L = language()
    say(tr(L, "accepted at ply {accepted}; match now at ply {ply} ({status})", accepted=result["accepted_ply"],
           ply=result["ply"], status=status_text(result["status"], L)))
    return 0


def _action_argument(text: str) -> dict[str, Any]:
    """One action given on the command line, decoded with the server's own bounds (a pasted or
    mistyped argument nested too deep, or with a 5000-digit number, printed a Python traceback),
    and refused here unless it is a JSON object: the server would refuse it anyway."""
    from service.play.errors import BadRequest
    from service.play.limits import parse_json

    try:
        action = parse_json(text)
    except BadRequest as exc:
        raise SystemExit(tr(language(), "each action is a JSON object: {problem}", problem=exc.message)) from exc
    if not isinstance(action, dict):
        raise SystemExit(tr(language(), "each action is a JSON object, like {example}, not {given}",
                            example="'{\"type\": \"roll\"}'", given=repr(text[:40])))
    return action


def cmd_log(args: argparse.Namespace) -> int:
    """The accepted moves of a match, from ply ``--from`` on."""
    data = api_client(args).log(args.match, args.start)
    if args.json:
        out(data, True)
        return 0
    for e in data["entries"]:
        texts = "; ".join(ev.get("text", ev["type"]) for ev in e["events"]) or json.dumps(e["envelope"]["actions"])
        say(tr(language(), "{ply} seat {seat} ({by}) {at}: {texts}", ply=str(e["ply"]).rjust(4), seat=e["seat"],
               by=e["by"], at=e["accepted_at"], texts=texts))
    say(tr(language(), "head {head}", head=data["head"]))
    return 0


def cmd_my_turns(args: argparse.Namespace) -> int:
    """The matches waiting for the key's seats."""
    turns = api_client(args).my_turns(load_key(args.key))
    if args.json:
        out(turns, True)
    elif not turns:
        say(tr(language(), "no match is waiting for you"))
    else:
        for t in turns:
            say(tr(language(), "{match} ({game}) seat {seat}, ply {ply}: {command}", match=t["match"], game=t["game"],
                   seat=t["seat"], ply=t["ply"], command=shell_line(["portolan", "show", t["match"]])))
    return 0


# -- resign, abort, back -----------------------------------------------------------------------


def _events_text(events: Sequence[Mapping[str, Any]]) -> list[str]:
    return [f"- {event_text(e)}" for e in events]


def _send(args: argparse.Namespace, kind: str) -> tuple[int, dict[str, Any]]:
    """Send the match action for the caller's seat (flags, else the seat ``claim`` remembered)."""
    seat, key = seat_and_key(args)
    return seat, api_client(args).match_action(args.match, seat, load_key(key), kind)


YES = phrase_in("the answer to a question", "yes")
"""The word that confirms (``yes``; in Hungarian ``igen``; ``yes`` is always understood too)."""


def confirmed(question: str) -> bool:
    """Ask on the terminal; only ``yes`` (or its word in the output's language) is yes (an empty
    answer or end of input is no)."""
    print(question, end=" ", flush=True)
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        return False
    return answer.strip().lower() in ("yes", render(YES, language()).lower())


def cmd_resign(args: argparse.Namespace) -> int:
    """Give up a seat: ranked last; the match's timeout policy says what follows."""
    seat, _ = seat_and_key(args)
    L = language()
    if not args.yes and not confirmed(tr(L, "Resign seat {seat} of match {match}? You are ranked last and cannot take "
                                         "the seat back. Type {yes} to resign:", seat=seat, match=args.match, yes=YES)):
        say(tr(L, "not resigned (nothing was sent)"))
        return 1
    seat, result = _send(args, "match:resign")
    if args.json:
        out(result, True)
        return 0
    say(tr(L, "seat {seat} of match {match} resigned; the match is now {status}", seat=seat, match=args.match,
           status=status_text(result["status"], L)))
    for line in _events_text(result["events"]):
        say(line)
    return 0


def cmd_abort(args: argparse.Namespace) -> int:
    """While the match waits: the creator cancels it. Once it runs: a vote for the caller's seat."""
    client = api_client(args)
    if client.show(args.match)["status"] == "waiting":
        result = client.abort(args.match, private_key=load_key(args.key or "default"))
        out(result if args.json else tr(language(), "match {match} is {status}", match=args.match,
                                        status=status_text(result["status"])), args.json)
        return 0
    seat, result = _send(args, "match:abort")
    if args.json:
        out(result, True)
        return 0
    L = language()
    waiting = abort_votes_waiting(result["events"])
    if result["status"] == "aborted" or not waiting:
        say(tr(L, "your vote was the last one needed: match {match} is {status}, with no result", match=args.match,
               status=status_text(result["status"], L)))
    else:
        say(tr(L, "seat {seat} voted to abort match {match}; still needed: {votes} (each remaining player runs "
                  "{command})", seat=seat, match=args.match, votes=votes_needed_text(waiting, L),
               command=shell_line(["portolan", "abort", args.match])))
    return 0


def cmd_back(args: argparse.Namespace) -> int:
    """Take a seat back from its stand-in (any move signed for the seat does so too)."""
    seat, result = _send(args, "match:return")
    L = language()
    out(result if args.json else tr(L, "seat {seat} of match {match} is yours again: no stand-in plays it", seat=seat,
                                    match=args.match), args.json)
    if not args.json and result["view"].get("legal_actions"):
        say(tr(L, "it is your turn: {command}", command=shell_line(["portolan", "actions", args.match])))
    return 0


# -- the parser -------------------------------------------------------------------------------


def add_create(cmd: CommandMaker) -> None:
    """Register ``create``."""
    L = language()
    sp = cmd("create", cmd_create, tr(L, "create a match"))
    sp.add_argument("game")
    sp.add_argument("--invite", action="append", default=[], metavar="EMAIL", help=tr(L, "invite a person (repeatable)"))
    sp.add_argument("--bot", action="append", default=[], metavar="KIND",
                    help=tr(L, "add a bot seat: random, heuristic, search:easy, search:medium or search:hard "
                               "(a game's bots: GET /v1/games/GAME)"))
    sp.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help=tr(L, "a game option (JSON value)"))
    sp.add_argument("--key", default="default", help=tr(L, "the key that signs the creation (made if missing)"))
    sp.add_argument("--name", help=tr(L, "your name, as the invitations and notices say who invited"))
    add_create_flags(sp, L)
    sp.add_argument("--edition", help=tr(L, "the data edition to play (GET /v1/games/GAME lists them; default: the "
                                            "server's default edition, else the shipped data)"))


def add_match_actions(cmd: CommandMaker) -> None:
    """Register ``abort``, ``resign`` and ``back``."""
    L = language()
    sp = cmd("abort", cmd_abort, tr(L, "cancel a match: yours while it waits for players; once it runs, your vote to "
                                       "abort it (it is aborted, with no result, when every remaining player voted)"))
    sp.add_argument("match")
    sp.add_argument("--seat", type=int, help=tr(L, "your seat (a vote; default: the seat claim remembered)"))
    sp.add_argument("--key", help=tr(L, "the key that created the match (waiting) or holds your seat (default: "
                                        "'default', or the remembered seat's)"))
    sp = cmd("resign", cmd_resign, tr(L, "give up your seat in a running match (you are ranked last)"))
    sp.add_argument("match")
    sp.add_argument("--seat", type=int)
    sp.add_argument("--key")
    sp.add_argument("--yes", action="store_true", help=tr(L, "do not ask for confirmation"))
    sp = cmd("back", cmd_back, tr(L, "take your seat back from the stand-in bot that played it while you were late"))
    sp.add_argument("match")
    sp.add_argument("--seat", type=int)
    sp.add_argument("--key")


def add_claim(cmd: CommandMaker) -> None:
    """Register ``claim``."""
    L = language()
    sp = cmd("claim", cmd_claim, tr(L, "take an invited seat with its token"))
    sp.add_argument("match")
    sp.add_argument("seat", type=int)
    sp.add_argument("token")
    sp.add_argument("--name", required=True)
    sp.add_argument("--email", default="")
    sp.add_argument("--key", default="default")
    sp.add_argument("--no-mail", action="store_true",
                    help=tr(L, "do not sign a mail delegation: replies to turn notices will not move for this seat"))


def add_seat_commands(cmd: CommandMaker) -> None:
    """Register ``show``, ``actions``, ``move``, ``log`` and ``my-turns``."""
    L = language()
    for name, fn, help_ in (("show", cmd_show, tr(L, "show a match (your seat's view if you hold one)")),
                            ("actions", cmd_actions, tr(L, "list your legal actions, numbered")),
                            ("move", cmd_move, tr(L, "sign and submit a move"))):
        sp = cmd(name, fn, help_)
        sp.add_argument("match")
        sp.add_argument("--seat", type=int)
        sp.add_argument("--key")
        if name == "move":
            sp.add_argument("actions", nargs="*", help=tr(L, "actions as JSON objects, applied in order"))
            sp.add_argument("--pick", type=int, help=tr(L, "play the N-th of `portolan actions`"))
            sp.add_argument("--ply", type=int, help=tr(L, "the ply the move is based on (default: current)"))
    sp = cmd("log", cmd_log, tr(L, "the accepted moves of a match"))
    sp.add_argument("match")
    sp.add_argument("--from", dest="start", type=int, default=0)
    sp = cmd("my-turns", cmd_my_turns, tr(L, "matches waiting for you"))
    sp.add_argument("--key", default="default")
