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
from service.play.mail.match_words import abort_votes_waiting, event_text, votes_needed_text
from service.tools.cli.common import (
    CommandMaker,
    api_client,
    ensure_key,
    load_key,
    out,
    remember_seat,
    remembered_seats,
    seat_and_key,
)
from service.tools.cli.friend_lines import claimed_text, invitations_text
from service.tools.cli.mail import delegation_line
from service.tools.cli.time_control import add_create_flags, clock_lines, clock_request, clock_summary
from service.tools.terminal import say

# -- the match in words ----------------------------------------------------------------------


def render_view(view: dict[str, Any], now: str | None = None) -> str:
    """A readable text page of a match view; ``now`` is the service clock's time when it was read."""
    lines = [f"Match {view['id']} · {view['game']} · {view['status']} · ply {view['ply']}"]
    names = {s["seat"]: (s["name"] or s["kind"]) for s in view["seats"]}
    lines.append("Seats: " + ", ".join(f"{i}={n}" for i, n in names.items()))
    if view["open_seats"]:
        lines.append(f"Open seats: {view['open_seats']}")
    if view["status"] == "active":
        lines.append("To act: " + ", ".join(f"seat {s} ({names[s]})" for s in view["active_seats"]))
    if view.get("outcome"):
        o = view["outcome"]
        lines.append("Final: " + ", ".join(f"seat {i}: {sc} (rank {r})" for i, (sc, r) in enumerate(zip(o["scores"], o["ranks"], strict=False))))
    lines += clock_lines(view, parse_iso(now) if now else None)
    if view.get("text"):
        lines += ["", view["text"]]
    if view.get("legal_actions"):
        lines += ["", f"Your legal actions ({len(view['legal_actions'])}): {shell_line(['portolan', 'actions', view['id']])}"]
    if view.get("match_actions"):
        kinds = {a["action"]["type"] for a in view["match_actions"]}
        lines.append("Or: " + ", ".join(shell_line(["portolan", cmd, view["id"]]) for kind, cmd in
                                        (("match:resign", "resign"), ("match:abort", "abort"), ("match:return", "back"))
                                        if kind in kinds))
    lines.append(f"Chain head: {view['head']}")
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
    say(f"match {result['id']} ({result['game']}) created, status {result['status']}")
    say(f"seed commitment: {result['commitment']}")
    say(clock_summary(clock))
    say(f"created by your key {args.key!r}; only it may abort the match while it waits for players: "
        + shell_line(["portolan", "abort", result["id"], *([] if args.key == "default" else ["--key", args.key]),
                      "--server", args.server]))
    say(invitations_text(result["id"], result["invites"], args.invite, args.server))
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
    say(f"seat {args.seat} of match {args.match} is yours; match is {result['status']}")
    say(delegation_line(args.match, args.seat, not args.no_mail))
    say(claimed_text(args.match, args.seat, args.email or "", args.server))
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
    if not legal:
        say(f"seat {seat} need not act now (to act: {view['active_seats']})")
        return 0
    for i, a in enumerate(legal, 1):
        say(f"{i:>3}. {a['text']}\n     {json.dumps(a['action'], separators=(',', ':'))}")
    say(f"\nplay one with: {shell_line(['portolan', 'move', args.match])} --pick N")
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
            raise SystemExit(f"--pick must be 1..{len(legal)} (see {shell_line(['portolan', 'actions', args.match])})")
        actions, ply = [legal[args.pick - 1]["action"]], view["ply"]
    else:
        actions = [_action_argument(a) for a in args.actions]
        if not actions:
            raise SystemExit("give one or more actions as JSON, or --pick N")
        ply = args.ply
    result = client.move(args.match, seat, private, actions, ply=ply)
    if args.json:
        out(result, True)
        return 0
    for e in result["events"]:
        say(f"- {e.get('text', e['type'])}")
    say(f"accepted at ply {result['accepted_ply']}; match now at ply {result['ply']} ({result['status']})")
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
        raise SystemExit(f"each action is a JSON object: {exc.message}") from exc
    if not isinstance(action, dict):
        raise SystemExit(f"each action is a JSON object, like '{{\"type\": \"roll\"}}', not {text[:40]!r}")
    return action


def cmd_log(args: argparse.Namespace) -> int:
    """The accepted moves of a match, from ply ``--from`` on."""
    data = api_client(args).log(args.match, args.start)
    if args.json:
        out(data, True)
        return 0
    for e in data["entries"]:
        texts = "; ".join(ev.get("text", ev["type"]) for ev in e["events"]) or json.dumps(e["envelope"]["actions"])
        say(f"{e['ply']:>4} seat {e['seat']} ({e['by']}) {e['accepted_at']}: {texts}")
    say(f"head {data['head']}")
    return 0


def cmd_my_turns(args: argparse.Namespace) -> int:
    """The matches waiting for the key's seats."""
    turns = api_client(args).my_turns(load_key(args.key))
    if args.json:
        out(turns, True)
    elif not turns:
        say("no match is waiting for you")
    else:
        for t in turns:
            say(f"{t['match']} ({t['game']}) seat {t['seat']}, ply {t['ply']}: {shell_line(['portolan', 'show', t['match']])}")
    return 0


# -- resign, abort, back -----------------------------------------------------------------------


def _events_text(events: Sequence[Mapping[str, Any]]) -> list[str]:
    return [f"- {event_text(e)}" for e in events]


def _send(args: argparse.Namespace, kind: str) -> tuple[int, dict[str, Any]]:
    """Send the match action for the caller's seat (flags, else the seat ``claim`` remembered)."""
    seat, key = seat_and_key(args)
    return seat, api_client(args).match_action(args.match, seat, load_key(key), kind)


def confirmed(question: str) -> bool:
    """Ask on the terminal; only ``yes`` is yes (an empty answer or end of input is no)."""
    print(question, end=" ", flush=True)
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        return False
    return answer.strip().lower() == "yes"


def cmd_resign(args: argparse.Namespace) -> int:
    """Give up a seat: ranked last; the match's timeout policy says what follows."""
    seat, _ = seat_and_key(args)
    if not args.yes and not confirmed(f"Resign seat {seat} of match {args.match}? You are ranked last and cannot take "
                                      "the seat back. Type yes to resign:"):
        say("not resigned (nothing was sent)")
        return 1
    seat, result = _send(args, "match:resign")
    if args.json:
        out(result, True)
        return 0
    say(f"seat {seat} of match {args.match} resigned; the match is now {result['status']}")
    for line in _events_text(result["events"]):
        say(line)
    return 0


def cmd_abort(args: argparse.Namespace) -> int:
    """While the match waits: the creator cancels it. Once it runs: a vote for the caller's seat."""
    client = api_client(args)
    if client.show(args.match)["status"] == "waiting":
        result = client.abort(args.match, private_key=load_key(args.key or "default"))
        out(result if args.json else f"match {args.match} is {result['status']}", args.json)
        return 0
    seat, result = _send(args, "match:abort")
    if args.json:
        out(result, True)
        return 0
    waiting = abort_votes_waiting(result["events"])
    if result["status"] == "aborted" or not waiting:
        say(f"your vote was the last one needed: match {args.match} is {result['status']}, with no result")
    else:
        say(f"seat {seat} voted to abort match {args.match}; still needed: {votes_needed_text(waiting)} "
            f"(each remaining player runs {shell_line(['portolan', 'abort', args.match])})")
    return 0


def cmd_back(args: argparse.Namespace) -> int:
    """Take a seat back from its stand-in (any move signed for the seat does so too)."""
    seat, result = _send(args, "match:return")
    out(result if args.json else f"seat {seat} of match {args.match} is yours again: no stand-in plays it", args.json)
    if not args.json and result["view"].get("legal_actions"):
        say(f"it is your turn: {shell_line(['portolan', 'actions', args.match])}")
    return 0


# -- the parser -------------------------------------------------------------------------------


def add_create(cmd: CommandMaker) -> None:
    """Register ``create``."""
    sp = cmd("create", cmd_create, "create a match")
    sp.add_argument("game")
    sp.add_argument("--invite", action="append", default=[], metavar="EMAIL", help="invite a person (repeatable)")
    sp.add_argument("--bot", action="append", default=[], metavar="KIND",
                    help="add a bot seat: random, heuristic, search:easy, search:medium or search:hard "
                         "(a game's bots: GET /v1/games/GAME)")
    sp.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option (JSON value)")
    sp.add_argument("--key", default="default", help="the key that signs the creation (made if missing)")
    sp.add_argument("--name", help="your name, as the invitations and notices say who invited")
    add_create_flags(sp)
    sp.add_argument("--edition", help="the data edition to play (GET /v1/games/GAME lists them; default: the "
                                      "server's default edition, else the shipped data)")


def add_match_actions(cmd: CommandMaker) -> None:
    """Register ``abort``, ``resign`` and ``back``."""
    sp = cmd("abort", cmd_abort, "cancel a match: yours while it waits for players; once it runs, your vote to "
             "abort it (it is aborted, with no result, when every remaining player voted)")
    sp.add_argument("match")
    sp.add_argument("--seat", type=int, help="your seat (a vote; default: the seat claim remembered)")
    sp.add_argument("--key", help="the key that created the match (waiting) or holds your seat (default: "
                                  "'default', or the remembered seat's)")
    sp = cmd("resign", cmd_resign, "give up your seat in a running match (you are ranked last)")
    sp.add_argument("match")
    sp.add_argument("--seat", type=int)
    sp.add_argument("--key")
    sp.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    sp = cmd("back", cmd_back, "take your seat back from the stand-in bot that played it while you were late")
    sp.add_argument("match")
    sp.add_argument("--seat", type=int)
    sp.add_argument("--key")


def add_claim(cmd: CommandMaker) -> None:
    """Register ``claim``."""
    sp = cmd("claim", cmd_claim, "take an invited seat with its token")
    sp.add_argument("match")
    sp.add_argument("seat", type=int)
    sp.add_argument("token")
    sp.add_argument("--name", required=True)
    sp.add_argument("--email", default="")
    sp.add_argument("--key", default="default")
    sp.add_argument("--no-mail", action="store_true",
                    help="do not sign a mail delegation: replies to turn notices will not move for this seat")


def add_seat_commands(cmd: CommandMaker) -> None:
    """Register ``show``, ``actions``, ``move``, ``log`` and ``my-turns``."""
    for name, fn, help_ in (("show", cmd_show, "show a match (your seat's view if you hold one)"),
                            ("actions", cmd_actions, "list your legal actions, numbered"),
                            ("move", cmd_move, "sign and submit a move")):
        sp = cmd(name, fn, help_)
        sp.add_argument("match")
        sp.add_argument("--seat", type=int)
        sp.add_argument("--key")
        if name == "move":
            sp.add_argument("actions", nargs="*", help="actions as JSON objects, applied in order")
            sp.add_argument("--pick", type=int, help="play the N-th of `portolan actions`")
            sp.add_argument("--ply", type=int, help="the ply the move is based on (default: current)")
    sp = cmd("log", cmd_log, "the accepted moves of a match")
    sp.add_argument("match")
    sp.add_argument("--from", dest="start", type=int, default=0)
    sp = cmd("my-turns", cmd_my_turns, "matches waiting for you")
    sp.add_argument("--key", default="default")
