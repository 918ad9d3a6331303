"""The ``portolan`` command: run the service, and play from a terminal.

Operator commands: ``dev`` (everything on one machine), ``serve`` (the API), ``worker``,
``rebuild``. Player commands: ``keygen``, ``create``, ``abort``, ``claim``, ``show``, ``actions``, ``move``,
``resign``, ``back``, ``log``, ``my-turns``, ``notices``, ``webhook``, ``record``, ``verify``,
``mail-delegation``, ``attach-key``. Keys live in the user's config directory
(``$PORTOLAN_HOME``, else ``$XDG_CONFIG_HOME/portolan``, else ``~/.config/portolan``), mode 0600.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from shlex import join as shell_line
from typing import Any

from service.clock import parse_iso
from service.proof import signing
from service.tools.archive_commands import add_archive_commands
from service.tools.bot_commands import add_bot_commands
from service.tools.clock_commands import add_commands as add_clock_commands
from service.tools.data_commands import add_commands as add_data_commands
from service.tools.data_commands import install_editions
from service.tools.friend_lines import claimed_text, invitations_text
from service.tools.mail_commands import add_commands as add_mail_commands
from service.tools.mail_commands import delegation_line
from service.tools.match_commands import add_commands as add_match_commands
from service.tools.match_commands import add_create_flags, clock_lines, clock_request, clock_summary
from service.tools.terminal import say
from service.tools.vacation_commands import add_commands as add_vacation_commands

DEFAULT_URL = "http://127.0.0.1:8000"


# -- local config: keys and seats -------------------------------------------------------------


def home() -> Path:
    if os.environ.get("PORTOLAN_HOME"):
        return Path(os.environ["PORTOLAN_HOME"])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "portolan"


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)


def key_path(name: str) -> Path:
    return home() / "keys" / f"{name}.key"


def load_key(name: str) -> str:
    path = key_path(name)
    if not path.exists():
        raise SystemExit(f"no key named {name!r} ({path}); run: {shell_line(['portolan', 'keygen', '--key', name])}")
    return path.read_text().strip()


def seats_file() -> Path:
    return home() / "seats.json"


def remembered_seats() -> dict[str, dict[str, Any]]:
    path = seats_file()
    return json.loads(path.read_text()) if path.exists() else {}


def remember_seat(match: str, seat: int, key: str) -> None:
    seats = remembered_seats()
    seats[match] = {"seat": seat, "key": key}
    _write_private(seats_file(), json.dumps(seats, indent=2))


def seat_and_key(args: argparse.Namespace) -> tuple[int, str]:
    """The seat and key name for a match: from the flags, else from what ``claim`` remembered."""
    known = remembered_seats().get(args.match, {})
    seat = args.seat if args.seat is not None else known.get("seat")
    if seat is None:
        raise SystemExit(f"which seat? pass --seat (no claimed seat of match {args.match} is remembered here)")
    return int(seat), args.key or known.get("key", "default")


# -- output ----------------------------------------------------------------------------------


def out(obj: Any, as_json: bool) -> None:
    """Print a result as JSON or text; either way escaped for the terminal (names and texts come
    from other players: see :mod:`service.tools.terminal`). Hints to paste are shell-quoted."""
    say(json.dumps(obj, indent=2, ensure_ascii=False) if as_json else obj)


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


# -- commands --------------------------------------------------------------------------------


def _client(args: argparse.Namespace) -> Any:
    from service.tools.client import Client

    return Client(args.server)


def cmd_keygen(args: argparse.Namespace) -> int:
    path = key_path(args.key)
    if path.exists() and not args.force:
        say(f"key {args.key!r} exists ({path}); public key: {signing.public_key_of(load_key(args.key))}")
        return 0
    private = signing.generate_private_key()
    _write_private(path, private + "\n")
    say(f"new key {args.key!r} in {path} (mode 0600)\npublic key: {signing.public_key_of(private)}")
    return 0


def cmd_create(args: argparse.Namespace) -> int:
    seats: list[dict[str, str]] = [{"invite": e} for e in args.invite] + [{"bot": b} for b in args.bot]
    options: dict[str, Any] = {}
    for opt in args.option:
        name, _, raw = opt.partition("=")
        options[name] = _option_value(name, raw)
    clock = clock_request(args)  # a bad clock flag is refused before any key is made or request sent
    if not key_path(args.key).exists():  # creation is signed: the creator is a key, as a player is
        cmd_keygen(argparse.Namespace(key=args.key, force=False))
    result = _client(args).create(args.game, seats, options, private_key=load_key(args.key),
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
    if not key_path(args.key).exists():
        cmd_keygen(argparse.Namespace(key=args.key, force=False))
    result = _client(args).claim(args.match, args.seat, args.token, load_key(args.key), args.name, args.email or "",
                                 mail=not args.no_mail)
    remember_seat(args.match, args.seat, args.key)
    if args.json:
        out(result, True)
        return 0
    say(f"seat {args.seat} of match {args.match} is yours; match is {result['status']}")
    say(delegation_line(args.match, args.seat, not args.no_mail))
    say(claimed_text(args.match, args.seat, args.email or "", args.server))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    client = _client(args)
    known = args.match in remembered_seats() or args.seat is not None
    if known:
        seat, key = seat_and_key(args)
        view = client.view(args.match, seat, load_key(key))
    else:
        view = client.show(args.match)
    out(view if args.json else render_view(view, client.server_now), args.json)
    return 0


def cmd_actions(args: argparse.Namespace) -> int:
    seat, key = seat_and_key(args)
    view = _client(args).view(args.match, seat, load_key(key))
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
    seat, key = seat_and_key(args)
    private = load_key(key)
    client = _client(args)
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
    data = _client(args).log(args.match, args.start)
    if args.json:
        out(data, True)
        return 0
    for e in data["entries"]:
        texts = "; ".join(ev.get("text", ev["type"]) for ev in e["events"]) or json.dumps(e["envelope"]["actions"])
        say(f"{e['ply']:>4} seat {e['seat']} ({e['by']}) {e['accepted_at']}: {texts}")
    say(f"head {data['head']}")
    return 0


def cmd_my_turns(args: argparse.Namespace) -> int:
    turns = _client(args).my_turns(load_key(args.key))
    if args.json:
        out(turns, True)
    elif not turns:
        say("no match is waiting for you")
    else:
        for t in turns:
            say(f"{t['match']} ({t['game']}) seat {t['seat']}, ply {t['ply']}: {shell_line(['portolan', 'show', t['match']])}")
    return 0


def cmd_notices(args: argparse.Namespace) -> int:
    """``portolan notices [every|digest|off] --email ADDR``: show or set how often that address
    hears of its turns (the key must hold a seat claimed with that address)."""
    c = _client(args)
    key = load_key(args.key)
    result = c.set_notices(args.email, args.choice, private_key=key) if args.choice else c.notices(args.email, private_key=key)
    meaning = {"every": "a mail every turn", "digest": "one mail a day listing every match waiting for you",
               "off": "no turn notices (invitations still come)"}
    out(result if args.json else f"notices for {result['email']}: {result['notices']} ({meaning[result['notices']]})",
        args.json)
    return 0


def cmd_webhook(args: argparse.Namespace) -> int:
    """``portolan webhook add|list|remove|ping|deliveries``: a player's hooks, or a match's (--match)."""
    c = _client(args)
    key = load_key(args.key)
    where = ["--match", args.match] if args.match else []
    if args.action == "add":
        if not args.target:
            raise SystemExit("portolan webhook add URL [--match ID]: which URL?")
        hook = c.add_webhook(args.target, args.match, args.description or "", private_key=key)
        out(hook if args.json else f"webhook {hook['id']} -> {hook['url']} "
            f"({'match ' + args.match if args.match else 'all your matches'}); test it: "
            + shell_line(["portolan", "webhook", "ping", hook["id"], *where]), args.json)
        return 0
    if args.action == "list":
        hooks = c.webhooks(args.match, private_key=key)
        if args.json:
            out(hooks, True)
        elif not hooks:
            say("no webhooks")
        for h in [] if args.json else hooks:
            state = f"OFF since {h['disabled_at']}: {h['disabled_reason']}" if h["disabled"] else "on"
            say(f"{h['id']} {h['url']} [{state}; {h['failures']} failures in a row]")
        return 0
    if not args.target:
        raise SystemExit(f"portolan webhook {args.action} HOOK [--match ID]: which hook? (portolan webhook list)")
    if args.action == "remove":
        c.remove_webhook(args.target, args.match, private_key=key)
        out({"removed": args.target} if args.json else f"webhook {args.target} removed", args.json)
    elif args.action == "ping":
        result = c.ping_webhook(args.target, args.match, private_key=key)
        out(result if args.json else f"ping {result['event']['id']} queued; see: "
            + shell_line(["portolan", "webhook", "deliveries", args.target, *where]), args.json)
    else:
        data = c.webhook_deliveries(args.target, args.match, private_key=key)
        if args.json:
            out(data, True)
            return 0
        h = data["webhook"]
        say(f"{h['id']} {h['url']}: {'OFF: ' + str(h['disabled_reason']) if h['disabled'] else 'on'}")
        for d in data["deliveries"]:
            say(f"{d['at']} {d['event']} attempt {d['attempt']}: {d['status'] or '-'} {d['latency_ms']} ms"
                + (f" {d['error']}" if d["error"] else ""))
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    data = _client(args).record(args.match)
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if args.output:
        Path(args.output).write_text(text)
        say(f"record of {args.match} written to {args.output}")
    else:
        say(text)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from service.proof.verify import verify_file

    edition = None
    if args.edition:  # the edition the record pins, when the record does not carry it
        try:
            edition = json.loads(Path(args.edition).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"cannot read the edition {args.edition}: {exc}") from exc
    report = verify_file(args.record, server_key=args.server_key, edition=edition)
    say(report.text())
    return 0 if report.ok else 1


def cmd_rebuild(args: argparse.Namespace) -> int:
    from service.config import Settings
    from service.runtime import build
    from service.tools.rebuild import rebuild

    service = build(Settings.from_env())
    ids = service.store.match_ids() if args.all else args.matches
    if not ids:
        raise SystemExit("name match ids or pass --all")
    bad = 0
    for mid in ids:
        line = rebuild(service, mid, write=args.write)
        bad += not line.ok
        say(line.text())
    say(f"{len(ids)} matches, {bad} do not replay")
    return 1 if bad else 0


def cmd_worker(args: argparse.Namespace) -> int:
    from service.config import Settings
    from workers.worker import run

    run(Settings.from_env(), burst=args.burst, fork=args.fork, kinds=tuple(q.strip() for q in args.queues.split(",")))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from werkzeug.serving import run_simple

    from service.api import create_app

    install_editions(args.edition)
    run_simple(args.host, args.port, create_app(), threaded=True, use_reloader=False)
    return 0


def cmd_dev(args: argparse.Namespace) -> int:
    from service.tools.devserver import run_dev

    install_editions(args.edition)
    return run_dev(host=args.host, port=args.port, data_dir=args.data)



EX_DATAERR = 65
"""sysexits.h: the input was bad; an MTA bounces the message with what we wrote on stderr."""
EX_TEMPFAIL = 75
"""sysexits.h: try again later; Postfix's pipe, procmail and .forward keep the message queued."""


def cmd_mail_in(args: argparse.Namespace) -> int:
    """One message on stdin to the mail desk: exit 0 when dealt with, 65 over the size cap, 75 to
    have the MTA retry (deploy/README.md "Mail in")."""
    import logging

    from service.config import Settings
    from service.delivery.inbound import MailTooBig, deliver_raw
    from service.runtime import build, build_desk

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="portolan mail-in: %(message)s")
    settings = Settings.from_env()
    raw = _read_capped(sys.stdin.buffer, settings.mail_max_bytes)
    recipients = args.recipient or [r for r in (os.environ.get("ORIGINAL_RECIPIENT"), os.environ.get("RECIPIENT")) if r]
    sender = args.sender if args.sender is not None else os.environ.get("SENDER")
    try:
        desk = build_desk(settings, build(settings))
        say(deliver_raw(desk, raw, recipients, envelope_sender=sender, check_dkim=settings.mail_require_dkim,
                        max_bytes=settings.mail_max_bytes))
    except MailTooBig as exc:
        say(f"refused: {exc}", file=sys.stderr)
        return EX_DATAERR
    except Exception as exc:  # Redis down, a bug: the message stays with the MTA, which retries
        logging.getLogger("portolan.mail").exception("temporary failure, the mail server will try again: %s", exc)
        return EX_TEMPFAIL
    return 0


def _read_capped(stream: Any, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``stream`` (enough to know it is too big), the rest read and
    dropped, so the MTA writing into the pipe never sees it broken."""
    data = stream.read(limit + 1) if limit else stream.read()
    if limit and len(data) > limit:
        while stream.read(1 << 20):
            pass
    return bytes(data)


def cmd_mail_receiver(args: argparse.Namespace) -> int:
    """Run the SMTP (or LMTP) receiver that hands each message to the mail desk."""
    import logging

    from service.config import Settings
    from service.delivery.receiver import serve
    from service.runtime import build, build_desk

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s portolan mail: %(message)s")
    # aiosmtpd logs every connection and command at INFO ("mail.log"); our own line per message says what matters
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    settings = Settings.from_env()
    serve(build_desk(settings, build(settings)), settings, args.listen or settings.mail_receiver, lmtp=args.lmtp)
    return 0


# -- parser ----------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="portolan", description="Portolan: play-by-email El Capitán, Nauticus and Ophir.")
    p.add_argument("--server", default=os.environ.get("PORTOLAN_URL", DEFAULT_URL), help="API base URL (env PORTOLAN_URL)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    sub = p.add_subparsers(dest="command", required=True)

    def cmd(name: str, fn: Any, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(fn=fn)
        # also after the command, as the lines in mails put it (SUPPRESS: absent, the global one stands)
        sp.add_argument("--server", default=argparse.SUPPRESS, help="API base URL (env PORTOLAN_URL)")
        return sp

    sp = cmd("dev", cmd_dev, "run everything locally: embedded Redis, API, worker, mail to ./var/outbox")
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8000)
    sp.add_argument("--data", default="var", help="folder for Redis data and the outbox (default ./var)")
    sp.add_argument("--edition", action="append", default=[], metavar="FILE",
                    help="install a data edition (repeatable; adds to PORTOLAN_EDITIONS, docs/editions.md)")
    sp = cmd("serve", cmd_serve, "run the API against REDIS_URL (production: use gunicorn, see deploy/)")
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8000)
    sp.add_argument("--edition", action="append", default=[], metavar="FILE",
                    help="install a data edition (repeatable; adds to PORTOLAN_EDITIONS, docs/editions.md)")
    sp = cmd("worker", cmd_worker, "run the outbox dispatcher and an RQ worker for notices and bots against REDIS_URL")
    sp.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    sp.add_argument("--fork", action="store_true", help="run each job in a forked process")
    sp.add_argument("--queues", default="bots,notices,webhooks",
                    help="queues to work, in priority order (production: webhook workers of their own)")
    sp = cmd("mail-in", cmd_mail_in, "deliver one received mail on stdin to the mail desk (for an MTA pipe, "
             "procmail or .forward): exit 0 dealt with, 65 too big, 75 try again later")
    sp.add_argument("--recipient", action="append", default=[], metavar="ADDRESS",
                    help="the envelope recipient (repeatable; default $ORIGINAL_RECIPIENT, $RECIPIENT)")
    sp.add_argument("--sender", help="the envelope sender (default $SENDER; empty: a bounce)")
    sp = cmd("mail-receiver", cmd_mail_receiver, "run the SMTP receiver of replies (LMTP with --lmtp)")
    sp.add_argument("--listen", help="host:port (default PORTOLAN_MAIL_RECEIVER, 127.0.0.1:8025)")
    sp.add_argument("--lmtp", action="store_true", help="speak LMTP (Postfix lmtp:inet:HOST:PORT) instead of SMTP")
    sp = cmd("rebuild", cmd_rebuild, "replay matches from their logs and report any that no longer replay")
    sp.add_argument("matches", nargs="*")
    sp.add_argument("--all", action="store_true")
    sp.add_argument("--write", action="store_true", help="replace the cached state with the replayed one")
    add_archive_commands(cmd)

    sp = cmd("keygen", cmd_keygen, "create your signing key (Ed25519) in the config folder")
    sp.add_argument("--key", default="default", help="key name (several identities)")
    sp.add_argument("--force", action="store_true")
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
    add_match_commands(cmd)
    sp = cmd("claim", cmd_claim, "take an invited seat with its token")
    sp.add_argument("match")
    sp.add_argument("seat", type=int)
    sp.add_argument("token")
    sp.add_argument("--name", required=True)
    sp.add_argument("--email", default="")
    sp.add_argument("--key", default="default")
    sp.add_argument("--no-mail", action="store_true",
                    help="do not sign a mail delegation: replies to turn notices will not move for this seat")
    add_mail_commands(cmd)
    add_clock_commands(cmd)
    add_vacation_commands(cmd)
    add_bot_commands(cmd)
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
    sp = cmd("notices", cmd_notices, "show or set how often an address of yours hears of its turns")
    sp.add_argument("choice", nargs="?", choices=["every", "digest", "off"],
                    help="every turn (default), a daily digest, or off; none: show the current one")
    sp.add_argument("--email", required=True, help="the address, as you claimed a seat with it")
    sp.add_argument("--key", default="default", help="the key holding that seat")
    sp = cmd("webhook", cmd_webhook, "webhooks: events POSTed to your HTTPS URL (docs/webhooks.md)")
    sp.add_argument("action", choices=["add", "list", "remove", "ping", "deliveries"])
    sp.add_argument("target", nargs="?", help="the URL (add) or the webhook id (remove, ping, deliveries)")
    sp.add_argument("--match", help="a match's webhooks (you must have created it) instead of your own")
    sp.add_argument("--description", help="a note for yourself (add)")
    sp.add_argument("--key", default="default", help="the key that owns the webhooks (the creator's for --match)")
    sp = cmd("record", cmd_record, "download a match's verifiable record")
    sp.add_argument("match")
    sp.add_argument("-o", "--output")
    sp = cmd("verify", cmd_verify, "check a record offline: signatures, chain, seed, replay, outcome")
    sp.add_argument("record")
    sp.add_argument("--server-key", help="the server key you trust (GET /v1/server-key); default: the record's own")
    sp.add_argument("--edition", metavar="FILE", help="the data edition the record pins, when it does not carry it")
    add_data_commands(cmd)
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args, extra = p.parse_known_args(argv)
    # `move M --ply 3 '{...}'`: argparse gives the JSON after an option back as "unknown"
    if args.command == "move" and extra and not any(e.startswith("-") for e in extra):
        args.actions = [*args.actions, *extra]
    elif extra:
        p.error(f"unrecognized arguments: {' '.join(extra)}")
    import requests

    from service.tools.client import ApiError

    try:
        return int(args.fn(args))
    except ApiError as exc:
        say(f"error {exc.status} {exc.code}: {exc.detail}", file=sys.stderr)
        return 2
    except requests.ConnectionError:
        say(f"error: cannot reach the Portolan server at {args.server} (is `portolan dev` running? "
              "set --server or PORTOLAN_URL)", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
