"""Replaying a match from its seed and its accepted moves.

The one piece of code behind three uses: the offline verifier (``portolan verify``), the
operator's rebuild (``portolan rebuild``), and the tests that prove the stored state is only a
cache of the log. Pure: no Redis, no clock.

Records of format 4 (the match clock) walk every entry through :func:`service.proof.standing.judge`,
the very function the service runs when it accepts a move, with the standing that the header's
seats start from and its timeout policy: so a timeout, a stand-in's move, a resignation or an
abort vote replays exactly as it was accepted. Older formats replay the game actions alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service import games
from service.games import edition_check, editions
from service.games.base import Game, GameError, Rng
from service.proof import fairness
from service.proof.chain import RECORD_FORMAT
from service.proof.standing import Standing, StandingError, check_timeout_policy, judge
from service.proof.time_control import TimeControlError


class ReplayMismatch(Exception):
    """The log does not replay: ``where`` names the ply (or "setup"), ``what`` the difference."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what


def plain(obj: Any) -> Any:
    """The JSON form of a value (tuples become lists), for comparing events."""
    return json.loads(json.dumps(obj))


NARRATION = ("text",)
"""Event fields that are the server's words, not the rules' facts: replay does not re-derive them."""


def same_events(replayed: Sequence[Mapping[str, Any]], logged: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a record's events say what the replay says.

    The facts must agree: as many events, in order, and every field the record holds equal to
    the replayed one, except the narration (``text``). The sentences are the server's words when
    the move was made; the events' digest, the chain and the receipt prove that the server wrote
    them, so a later release may reword its sentences (issue 16) or add a field to an event (a
    field the record lacks is one its release did not write) without making old records fail.
    A field the record holds that the replay does not produce, or holds with another value, is a
    mismatch."""
    if len(replayed) != len(logged):
        return False
    for new, old in zip(replayed, logged, strict=True):
        if not isinstance(old, Mapping):
            return False
        new_plain, old_plain = plain(dict(new)), plain(dict(old))
        for key, value in old_plain.items():
            if key in NARRATION:
                continue
            if key not in new_plain or new_plain[key] != value:
                return False
    return True


@dataclass
class Step:
    """The match after one entry (``ply``; -1: after setup): the rules state, the events the
    entry caused and who plays each seat (for records before format 4 it never changes)."""

    ply: int
    state: Any
    events: list[dict[str, Any]]
    standing: Standing


def game_for(header: Mapping[str, Any], documents: Sequence[Any] = ()) -> Game[Any]:
    """The game of a header, playing with the data edition the header pins (docs/editions.md).

    A header without ``edition`` (records from before editions) or pinning the shipped data's
    digest plays the shipped data. Any other pin needs its document among ``documents`` (the
    record's own ``edition``, or a file the verifier was given): it is checked like an installed
    edition and must hash to the pinned digest, so no other numbers can replay the match."""
    game = games.get(str(header.get("game")))
    if game is None:
        raise ReplayMismatch("header", f"this verifier does not know the game {header.get('game')!r}")
    pin = header.get("edition")
    if pin is None:
        return game
    digest = str(pin.get("digest"))
    if digest == editions.shipped(game).digest:
        return game
    offered = [d for d in documents if d is not None]
    for document in offered:
        try:
            edition = edition_check.check(document, {game.id: game})
        except edition_check.EditionError as exc:
            raise ReplayMismatch("edition", f"the edition document is not usable: {exc}") from exc
        if edition.digest == digest:
            return editions.bind(game, edition)
    if offered:
        raise ReplayMismatch("edition", f"the header pins edition {pin.get('id')!r} with digest {digest}; the edition "
                                        "document given has another digest: these are not the numbers the match was played with")
    raise ReplayMismatch("edition", f"the header pins edition {pin.get('id')!r} (digest {digest}), which is neither "
                                    "the shipped data nor in the record: give its file with --edition")


def replay(header: Mapping[str, Any], seed: bytes, entries: Sequence[Mapping[str, Any]],
           setup_events: Sequence[Mapping[str, Any]] | None = None, game: Game[Any] | None = None) -> Iterator[Step]:
    """Yield the state after setup (ply -1) and after every entry, checking that each move was
    made by a seat that had to act and that every action applies (format 4: that ``judge``
    accepts the entry). When ``setup_events`` or an entry's ``events`` are given they must equal
    what the replay produces. ``game`` is the game with the match's edition bound (default: the
    one :func:`game_for` finds for a header that needs no edition document)."""
    game = game_for(header) if game is None else game
    clocked = header.get("format") == RECORD_FORMAT
    standing = Standing.start([str(s.get("kind", "human")) for s in header["seats"]])
    policy: dict[str, Any] = {}
    if clocked:
        try:
            policy = check_timeout_policy(header.get("timeout_policy"))
        except TimeControlError as exc:
            raise ReplayMismatch("header", f"the timeout policy is not one this verifier knows: {exc.message}") from exc
    secret = fairness.match_secret(seed, header["match"], header["seats"])
    state, events = game.setup(header["players"], header["options"], fairness.setup_rng(secret))
    if setup_events is not None and not same_events(events, list(setup_events)):
        raise ReplayMismatch("setup", "the setup events differ from what the seed produces")
    yield Step(-1, state, events, standing)
    for i, entry in enumerate(entries):
        seat = entry["seat"]
        rng = fairness.ply_rng(secret, i)
        actions = entry["envelope"]["actions"]
        if clocked:
            state, standing, caused = _judged(game, state, standing, policy, i, entry, rng)
        else:
            state, caused = _applied(game, state, i, seat, actions, rng)
        if "events" in entry and not same_events(caused, entry["events"]):
            raise ReplayMismatch(f"ply {i}", "the stored events differ from what the replay produces")
        yield Step(i, state, caused, standing)


def _applied(game: Game[Any], state: Any, ply: int, seat: int, actions: Sequence[Mapping[str, Any]],
             rng: Rng) -> tuple[Any, list[dict[str, Any]]]:
    """One entry of a record before format 4: its game actions, in order."""
    caused: list[dict[str, Any]] = []
    for k, action in enumerate(actions):
        if seat not in game.active_seats(state):
            raise ReplayMismatch(f"ply {ply}", f"action {k}: seat {seat} did not have to act")
        try:
            state, ev = game.apply(state, seat, action, rng)
        except GameError as exc:
            raise ReplayMismatch(f"ply {ply}", f"action {k} does not apply: {exc.message}") from exc
        caused.extend(ev)
    return state, caused


def _judged(game: Game[Any], state: Any, standing: Standing, policy: Mapping[str, Any], ply: int,
            entry: Mapping[str, Any], rng: Rng) -> tuple[Any, Standing, list[dict[str, Any]]]:
    """One entry of a format-4 record, through the service's own ``judge``."""
    try:
        return judge(game, state, standing, policy, int(entry["seat"]), str(entry["by"]),
                     list(entry["envelope"]["actions"]), rng)
    except StandingError as exc:
        raise ReplayMismatch(f"ply {ply}", f"the entry (by {entry['by']}) is not one the match allowed: "
                                           f"{exc.message}") from exc
    except GameError as exc:
        raise ReplayMismatch(f"ply {ply}", f"action {getattr(exc, 'index', 0)} does not apply: {exc.message}") from exc


def final_state(header: Mapping[str, Any], seed: bytes, entries: Sequence[Mapping[str, Any]]) -> Any:
    """The state after the whole log."""
    state = None
    for step in replay(header, seed, entries):
        state = step.state
    return state
