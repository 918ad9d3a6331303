"""``portolan bot-run``: a program outside the server holds a seat with its own key.

An external bot is a player like any other: it claims a seat with its own key (``portolan
claim``), reads its seat's view, and signs its moves; the server cannot tell it from a person at
a keyboard, and its moves are logged ``by: "human"`` because a person answers for that key.
This loop does the reading and the signing; the deciding is a policy, the same interface as the
server's own bots (:class:`service.bots.policy.Policy`)::

    def decide(game, view, seat, legal, rng) -> action

``--policy mybot:decide`` imports ``decide`` from the module ``mybot`` (the current folder is on
the path); ``--bot heuristic`` or ``--bot search:hard`` runs one of Portolan's own bots on this
machine instead. The loop long-polls the seat's view, plays when the seat must act, retries a
move the server refused as stale (someone else moved first), and stops when the match is over.
docs/bots.md says more.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from service import bots, games
from service.bots.policy import Policy
from service.games import editions
from service.games.base import Game, Rng
from service.proof.replay import ReplayMismatch, game_for
from service.tools.cli.common import CommandMaker, api_client, load_key, seat_and_key
from service.tools.terminal import say

OVER = ("finished", "aborted")


def load_policy(spec: str) -> Policy:
    """``module:function`` as a policy; SystemExit saying what is wrong when it is not one."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise SystemExit(f"--policy is MODULE:FUNCTION (e.g. mybot:decide), not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(f"--policy {spec}: cannot import {module_name!r}: {exc}") from exc
    found = getattr(module, attr, None)
    if not callable(found):
        raise SystemExit(f"--policy {spec}: {module_name} has no function {attr!r}")
    chosen: Policy = found
    return chosen


def game_of(client: Any, match: str, view: Mapping[str, Any]) -> Game[Any]:
    """The rules ``match`` plays with, as a policy must judge it: the game with the shipped data,
    or with the data edition the match pinned (docs/editions.md). A non-shipped edition's document
    comes from the match's record, which carries it, and must hash to the digest the record's
    header pins (the verifier's own check), so the policy reads exactly the server's numbers."""
    game = games.get(view["game"])
    if game is None:
        raise SystemExit(f"this Portolan has no rules for {view['game']!r}: update it to play this match")
    pin = view.get("edition") or {}
    if pin.get("digest") in (None, editions.shipped(game).digest):
        return game
    record = client.record(match)
    try:
        return game_for(record["header"], [record.get("edition")])
    except ReplayMismatch as exc:
        raise SystemExit(f"match {match} plays the data edition {pin.get('id')!r}, which this machine "
                         f"cannot use: {exc}") from exc


def run(client: Any, match: str, seat: int, private_key: str, decide: Policy, rng: Rng,
        say: Callable[[str], None], wait: int = 25, max_moves: int | None = None) -> dict[str, Any]:
    """Play ``seat`` of ``match`` with ``decide`` until the match is over (or ``max_moves`` moves
    were accepted); returns the last view. Each decision gets the seat's view (``board``) and
    legal actions only, as the server's bots do."""
    from service.tools.client import ApiError

    etag: str | None = None
    view: dict[str, Any] | None = None
    game: Game[Any] | None = None
    moves = 0
    while True:
        fresh, etag = client.poll_view(match, seat, etag, private_key, wait=wait)
        if fresh is None:
            continue  # nothing new within the wait: ask again
        view = fresh
        if view["status"] in OVER:
            say(f"match {match} is {view['status']}")
            return view
        legal = [entry["action"] for entry in view.get("legal_actions", [])]
        if view["status"] != "active" or seat not in view.get("active_seats", []) or not legal:
            continue
        if game is None:  # once: a match never changes its game or its edition
            game = game_of(client, match, view)
        action = decide(game, view["board"], seat, legal, rng)
        if action not in legal:
            raise SystemExit(f"the policy chose {action!r}, which is not one of seat {seat}'s legal actions")
        try:
            result = client.move(match, seat, private_key, [action], ply=view["ply"])
        except ApiError as exc:
            if exc.status == 409:  # the match moved on (a stand-in, a timeout): read it again
                say(f"ply {view['ply']}: {exc.detail} (reading the match again)")
                etag = None
                continue
            raise
        moves += 1
        say(f"ply {view['ply']}: {game.describe_action(action)}")
        etag = None  # our own move changed the view: read it at once
        if max_moves is not None and moves >= max_moves:
            return dict(result)


def cmd_bot_run(args: argparse.Namespace) -> int:
    """Run a bot for a seat this machine holds (see the module)."""
    if (args.policy is None) == (args.bot is None):
        raise SystemExit("give exactly one of --policy MODULE:FUNCTION or --bot KIND")
    seat, key = seat_and_key(args)
    private = load_key(key)
    client = api_client(args)
    if args.policy is not None:
        decide = load_policy(args.policy)
    else:
        game_id = client.show(args.match)["game"]
        found = bots.policy(game_id, args.bot)
        if found is None:
            raise SystemExit(f"{game_id} has no bot {args.bot!r} (its bots: {', '.join(bots.kinds(game_id))})")
        decide = found
    seed = args.seed if args.seed is not None else f"{time.time_ns()}:{os.getpid()}"
    run(client, args.match, seat, private, decide, Rng.from_seed(seed), say, wait=args.wait,
        max_moves=args.max_moves)
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Add ``bot-run`` to the CLI's parser (``cmd`` makes one subcommand)."""
    sp = cmd("bot-run", cmd_bot_run, "play a seat you hold with a program: your own policy or one of Portolan's bots")
    sp.add_argument("match")
    sp.add_argument("--seat", type=int, help="the seat (default: the one `portolan claim` remembered)")
    sp.add_argument("--key", help="the key holding the seat (default: the one `portolan claim` remembered)")
    sp.add_argument("--policy", metavar="MODULE:FUNCTION",
                    help="decide(game, view, seat, legal, rng) -> action, imported from MODULE (docs/bots.md)")
    sp.add_argument("--bot", metavar="KIND", help="one of Portolan's bots instead: heuristic, search:easy|medium|hard")
    sp.add_argument("--seed", help="seed of the policy's random stream (default: fresh each run)")
    sp.add_argument("--wait", type=int, default=25, help="seconds each long poll waits for a change (default 25)")
    sp.add_argument("--max-moves", type=int, help="stop after this many moves (default: play to the end)")
