"""Seeded random playouts of Ophir for 2, 3 and 4 players (and the rules options): no crash, no
dead end, the game ends within a bound, the invariants hold after every step, dump/load and a
replay from the recorded actions give the same states and events, every die roll is an event,
and no view shows another seat's VP or any face-down card."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from service.games.base import GameError, Rng
from service.games.ophir import GAME
from service.games.ophir.data import (
    BASIC,
    CARDS,
    CUBES,
    DECK_A,
    EDGES,
    HEXES,
    HOLDS_AFTER_UPGRADE,
    METALS,
    SPECIALISTS,
    SUPPLY_PER_TYPE,
)
from service.games.ophir.state import OVER, PLAY, State
from service.games.undo import without_undo

MAX_STEPS = 20_000
CAPACITY = {0: 2, 1: HOLDS_AFTER_UPGRADE[0], 2: HOLDS_AFTER_UPGRADE[1]}
A_IDS = {c.id for c in DECK_A}


def invariants(s: State) -> None:
    """Game-specific invariants that must hold after every step."""
    for i, cube in enumerate(CUBES):
        total = s.supply[i] + sum(p.hold[i] for p in s.seats) + s.temple.count(cube)
        assert total == SUPPLY_PER_TYPE, f"{cube}: {total} cubes in play"
        assert s.supply[i] >= 0
    for p in s.seats:
        assert 0 <= p.favor <= 6 and p.coins >= 0 and p.vp >= 0
        assert min(p.hold) >= 0 and p.used_space() <= p.capacity
        assert p.capacity == CAPACITY[p.upgrades]
        assert 1 <= p.die <= 6
    assert 0 <= s.tier <= len(s.tiers) and len(s.temple) < 3
    if s.tier == len(s.tiers):
        assert s.phase == OVER and s.end_reason == "temple-complete"
    cards = [c for c in s.demand if c] + list(s.deck) + list(s.discard) + list(s.removed)
    assert sorted(cards) == sorted(CARDS), "every market card is in exactly one place"
    assert len(s.removed) == 5 and set(s.removed) <= A_IDS
    if s.rival is not None:
        assert 1 <= s.rival.die <= 6
        moving = s.turn is not None and s.turn.rival_step >= 0
        if s.revealed and not moving:
            assert all(p.hex != s.rival.hex for p in s.seats), "the rival never shares a hex once moved"
    if s.phase == PLAY:
        assert s.turn is not None and all(p.specialist for p in s.seats)


def check_views(s: State) -> None:
    """No view shows a face-down card, a removed card or another seat's VP total."""
    hidden = set(s.removed) | set(s.deck[1:])
    if not s.market_revealed:
        hidden |= set(s.deck) | {c for c in s.demand if c}
    over = s.phase == OVER
    for seat in [None, *range(s.n)]:
        v = GAME.view(s, seat)
        text = json.dumps(v)
        leaked = [c for c in hidden if f'"{c}"' in text]
        assert not leaked, f"seat {seat} sees hidden cards {leaked}"
        for row in v["players"]:
            assert ("vp" in row) == (over or row["seat"] == seat)
        if not s.revealed:
            assert all(h["token"] is None for h in v["map"]["hexes"])
    if not over and s.n > 1:
        # Changing seat 1's VP changes nothing that seat 0 or a spectator sees.
        other = replace(s, seats=(s.seats[0], replace(s.seats[1], vp=s.seats[1].vp + 37), *s.seats[2:]))
        for seat in (None, 0):
            assert GAME.view(s, seat) == GAME.view(other, seat)


ROLL_EVENTS = {"influence-test", "rival-die-rolled"}


def playout(players: int, seed: int, options: dict[str, Any] | None = None, check: bool = True
            ) -> tuple[State, list[tuple[int, dict[str, Any], list[dict[str, Any]]]], list[dict[str, Any]]]:
    opts = GAME.validate_options(options or {})
    state, setup_events = GAME.setup(players, opts, Rng.from_seed(f"ophir-setup/{players}/{seed}"))
    pick = Rng.from_seed(f"ophir-pick/{players}/{seed}")
    log: list[tuple[int, dict[str, Any], list[dict[str, Any]]]] = []
    while GAME.active_seats(state):
        assert len(log) < MAX_STEPS, f"{players}p seed {seed}: no end after {MAX_STEPS} steps"
        (seat,) = GAME.active_seats(state)
        legal = without_undo(GAME.legal_actions(state, seat))
        assert legal, f"{players}p seed {seed}: seat {seat} has no legal action"
        action = legal[pick.randbelow(len(legal))]
        rng = Rng.from_seed(f"ophir-ply/{players}/{seed}/{len(log)}")
        state, events = GAME.apply(state, seat, action, rng)
        rolls = sum(1 for e in events if e["type"] in ROLL_EVENTS)
        assert (rng.draws > 0) == (rolls > 0) and rng.draws >= rolls, "every random draw is recorded as an event"
        log.append((seat, action, events))
        if check:
            invariants(state)
            if len(log) < 60 or len(log) % 3 == 0 or not GAME.active_seats(state):
                check_views(state)
            if len(log) % 97 == 0:
                assert GAME.load(json.loads(json.dumps(GAME.dump(state)))) == state
                for seat_view in [None, *range(players)]:
                    assert GAME.render(GAME.view(state, seat_view))
    return state, log, setup_events


def replay(players: int, seed: int, options: dict[str, Any] | None,
           log: list[tuple[int, dict[str, Any], list[dict[str, Any]]]]) -> State:
    state, _ = GAME.setup(players, GAME.validate_options(options or {}), Rng.from_seed(f"ophir-setup/{players}/{seed}"))
    for ply, (seat, action, events) in enumerate(log):
        state, again = GAME.apply(state, seat, action, Rng.from_seed(f"ophir-ply/{players}/{seed}/{ply}"))
        assert again == events, f"replay diverged at ply {ply}"
    return state


CASES = [(n, seed, opts) for n in (2, 3, 4) for seed in (0,) for opts in [None]] + [
    (2, 7, {"barriers": "random", "end_on_empty_deck": "reveal", "priest_voluntary_only": True}),
    (3, 8, {"barriers": "random", "chancellor_missing_only": True, "moneychanger_sells_at_temple": True}),
    (4, 9, {"end_on_empty_deck": "reveal"}),
]


@pytest.mark.parametrize(("players", "seed", "options"), CASES)
def test_random_playout(players: int, seed: int, options: dict[str, Any] | None) -> None:
    state, log, _ = playout(players, seed, options)
    result = GAME.outcome(state)
    assert result is not None and len(result.scores) == players and min(result.ranks) == 1
    assert state.end_reason in ("temple-complete", "market-exhausted")
    final = replay(players, seed, options, log)
    assert GAME.dump(final) == GAME.dump(state)
    assert GAME.load(json.loads(json.dumps(GAME.dump(state)))) == state


def test_playout_exercises_every_action_type() -> None:
    seen: set[str] = set()
    for n in (2, 3, 4):
        for seed in range(3):
            _, log, _ = playout(n, 100 + seed, check=False)
            seen |= {a["type"] for _, a, _ in log}
    assert seen == set(GAME.actions) - {"undo"}  # random playouts never undo (tests/games/test_undo.py does)


@pytest.mark.soak  # 40 random games per player count: a hunt for rare faults
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_random_playouts(players: int) -> None:
    for seed in range(40):
        state, log, _ = playout(players, 1000 + seed, check=seed < 10)
        assert GAME.outcome(state) is not None
        if seed < 10:
            assert GAME.dump(replay(players, 1000 + seed, None, log)) == GAME.dump(state)


def _candidates(s: State) -> list[dict[str, Any]]:
    """A broad sample of the whole action space, legal or not."""
    out: list[dict[str, Any]] = [{"type": t} for t in ("anchor", "declare-influence", "stop-rival", "rival-trade",
                                                       "decline-rival-trade", "upgrade-cargo", "end-turn")]
    out += [{"type": "place-barrier", "edge": e} for e in EDGES]
    out += [{"type": "draft-specialist", "specialist": sp.id} for sp in SPECIALISTS]
    out += [{"type": t, "hex": h} for t in ("move", "move-rival") for h in HEXES]
    singles: list[list[str]] = [[], *([g] for g in BASIC)]
    pairs = [[a, b] for i, a in enumerate(BASIC) for b in BASIC[i:]]
    out += [{"type": "gather", "good": g, "discard": d} for g in BASIC for d in singles]
    out += [{"type": "sell-specialty", "good": g} for g in BASIC]
    out += [{"type": "buy-metal", "metal": m, "pay": p, "discard": d}
            for m in METALS for p in ("coins", "favor") for d in singles + pairs]
    out += [{"type": "donate-metal", "metal": m} for m in METALS]
    out += [{"type": "donate-goods", "slot": k} for k in range(3)]
    out += [{"type": "trade", "slot": k, "favor_for": f} for k in range(3) for f in singles + pairs]
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_actions_are_exactly_the_actions_that_apply(players: int) -> None:
    """Completeness both ways: every listed action applies, and a sampled action that is not
    listed is refused with an IllegalAction (never applied, never a crash)."""
    _, log, _ = playout(players, 77, check=False)
    state, _ = GAME.setup(players, GAME.validate_options({}), Rng.from_seed(f"ophir-setup/{players}/77"))
    for ply, (seat, action, _events) in enumerate(log):
        if ply % 9 == 0:
            legal = without_undo(GAME.legal_actions(state, seat))
            for cand in _candidates(state):
                rng = Rng.from_seed(f"cand/{ply}")
                listed = cand in legal or (cand["type"] == "trade" and any(
                    a["type"] == "trade" and a["slot"] == cand["slot"] and sorted(a["favor_for"]) == sorted(
                        cand["favor_for"]) for a in legal))
                try:
                    GAME.apply(state, seat, cand, rng)
                    applied = True
                except GameError:
                    applied = False
                assert applied == listed, f"ply {ply}: {cand} applied={applied} listed={listed}"
        state, _ = GAME.apply(state, seat, action, Rng.from_seed(f"ophir-ply/{players}/77/{ply}"))
