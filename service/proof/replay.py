"""Replaying a match from its seed and its accepted moves.

The one piece of code behind three uses: the offline verifier (``portolan verify``), the
operator's rebuild (``portolan rebuild``), and the tests that prove the stored state is only a
cache of the log. Pure: no Redis, no clock.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service import games
from service.games.base import Game, GameError
from service.proof import fairness


class ReplayMismatch(Exception):
    """The log does not replay: ``where`` names the ply (or "setup"), ``what`` the difference."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what


def plain(obj: Any) -> Any:
    """The JSON form of a value (tuples become lists), for comparing events."""
    return json.loads(json.dumps(obj))


@dataclass
class Step:
    ply: int
    state: Any
    events: list[dict[str, Any]]


def game_for(header: Mapping[str, Any]) -> Game[Any]:
    game = games.get(str(header.get("game")))
    if game is None:
        raise ReplayMismatch("header", f"this verifier does not know the game {header.get('game')!r}")
    return game


def replay(header: Mapping[str, Any], seed: bytes, entries: Sequence[Mapping[str, Any]],
           setup_events: Sequence[Mapping[str, Any]] | None = None) -> Iterator[Step]:
    """Yield the state after setup (ply -1) and after every entry, checking that each move was
    made by a seat that had to act and that every action applies. When ``setup_events`` or an
    entry's ``events`` are given they must equal what the replay produces."""
    game = game_for(header)
    secret = fairness.match_secret(seed, header["match"], header["seats"])
    state, events = game.setup(header["players"], header["options"], fairness.setup_rng(secret))
    if setup_events is not None and plain(events) != plain(list(setup_events)):
        raise ReplayMismatch("setup", "the setup events differ from what the seed produces")
    yield Step(-1, state, events)
    for i, entry in enumerate(entries):
        seat = entry["seat"]
        rng = fairness.ply_rng(secret, i)
        caused: list[dict[str, Any]] = []
        for k, action in enumerate(entry["envelope"]["actions"]):
            if seat not in game.active_seats(state):
                raise ReplayMismatch(f"ply {i}", f"action {k}: seat {seat} did not have to act")
            try:
                state, ev = game.apply(state, seat, action, rng)
            except GameError as exc:
                raise ReplayMismatch(f"ply {i}", f"action {k} does not apply: {exc.message}") from exc
            caused.extend(ev)
        if "events" in entry and plain(caused) != plain(entry["events"]):
            raise ReplayMismatch(f"ply {i}", "the stored events differ from what the replay produces")
        yield Step(i, state, caused)


def final_state(header: Mapping[str, Any], seed: bytes, entries: Sequence[Mapping[str, Any]]) -> Any:
    """The state after the whole log."""
    state = None
    for step in replay(header, seed, entries):
        state = step.state
    return state
