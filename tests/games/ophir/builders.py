"""Hand-built Ophir positions for scenario tests, and a die that rolls what a test says."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from service.games.base import Rng
from service.games.ophir import GAME
from service.games.ophir.data import CUBES, DECK_A, DECK_B, HEXES, SUPPLY_PER_TYPE, tiers_for
from service.games.ophir.state import PLAY, Options, Player, Rival, State, Turn
from service.games.undo import without_undo

# A fixed map for scenarios: temple in the centre is avoided so that routes are easy to read.
LAYOUT: dict[str, str] = {
    "C": "market", "TR": "temple", "R": "metals", "BR": "wood", "BL": "cloth", "L": "stone", "TL": "gems",
}


class Dice(Rng):
    """An Rng whose die rolls are given in advance; any other draw or an extra roll fails."""

    def __init__(self, *rolls: int) -> None:
        super().__init__(b"\x00" * 32)
        self.rolls = list(rolls)

    def die(self, sides: int = 6) -> int:
        assert self.rolls, "the rules rolled a die the test did not expect"
        return self.rolls.pop(0)

    def randbelow(self, n: int) -> int:
        raise AssertionError("unexpected random draw")


def player(specialist: str | None = "advisor", *, favor: int = 0, coins: int = 0, vp: int = 0, die: int = 1,
           hex: str = "TR", hold: Mapping[str, int] | None = None, capacity: int = 2, upgrades: int = 0) -> Player:
    counts = tuple((hold or {}).get(c, 0) for c in CUBES)
    return Player(specialist, favor, coins, vp, die, hex, counts, capacity, upgrades)


def position(
    seats: Sequence[Player],
    *,
    layout: Mapping[str, str] | None = None,
    barriers: tuple[int, ...] = (),
    rival: str | None = None,
    rival_die: int = 4,
    demand: Sequence[str | None] = ("A01", "A02", "A03"),
    deck: Sequence[str] | None = None,
    merchant: int = 0,
    modifiers: tuple[int, ...] = (1, 0, -1),
    tier: int = 0,
    temple: tuple[str, ...] = (),
    active: int = 0,
    turn: Turn | None = None,
    options: Options | None = None,
) -> State:
    """A PLAY-phase state with a consistent supply (5 of each cube, minus holds and temple)."""
    lay = dict(layout or LAYOUT)
    tokens = tuple(lay[h] for h in HEXES)
    used = set(demand) | set(deck or ())
    if deck is None:
        deck = [c.id for c in DECK_A + DECK_B if c.id not in used][:10]
        used |= set(deck)
    removed = tuple(c.id for c in DECK_A if c.id not in used)[:5]
    supply = tuple(
        SUPPLY_PER_TYPE - sum(p.hold[i] for p in seats) - temple.count(c) for i, c in enumerate(CUBES)
    )
    n = len(seats)
    start_hex = seats[active].hex
    assert start_hex is not None
    return State(
        options=options or Options(), phase=PLAY, start_player=0, active=active, tokens=tokens, revealed=True,
        barriers=tuple(sorted(barriers)), draft_pool=(), draft_order=(), returned_specialist=None,
        deck=tuple(deck), removed=removed, demand=tuple(demand), discard=(), modifiers=modifiers, merchant=merchant,
        market_revealed=True, tiers=tiers_for(n), tier=tier, temple=temple, supply=supply, seats=tuple(seats),
        rival=Rival(rival, rival_die) if n == 2 else None, turn=turn or Turn(start_hex), tiles=n,
        turns_played=0, end_reason=None,
    )


def act(state: State, action: dict[str, Any], rng: Rng | None = None, seat: int | None = None
        ) -> tuple[State, list[dict[str, Any]]]:
    """Apply one action for the active seat (checking first that it is listed as legal)."""
    who = state.active if seat is None else seat
    legal = without_undo(GAME.legal_actions(state, who))
    assert action in legal, f"{action} not in legal actions {legal}"
    new, events = GAME.apply(state, who, action, rng or Dice())
    return new, events


def types(state: State, seat: int | None = None) -> set[str]:
    return {a["type"] for a in without_undo(GAME.legal_actions(state, state.active if seat is None else seat))}


def at(state: State, seat: int, **changes: Any) -> State:
    """The state with one player's fields replaced (supply is not rebalanced)."""
    seats = list(state.seats)
    seats[seat] = replace(seats[seat], **changes)
    return replace(state, seats=tuple(seats))
