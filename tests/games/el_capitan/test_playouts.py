"""Seeded random playouts of El Capitán: every player count, without and with all expansion cities.

After every step: the game-specific invariants (money, piece conservation, harbours, tracks, run
limits, cards), dump/load identity and no-mutation; at the end: replay from the same seed gives
the same state, and views hide the deck order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.games.base import Rng
from service.games.el_capitan import GAME
from service.games.el_capitan import data as D
from service.games.el_capitan.state import FREE, OVER, PIRATE, State, colour_owner, is_main, replace, seat_colours
from service.games.el_capitan.track import run_length, span
from service.games.undo import without_undo

EXPANSION_SETS = [[], ["porto", "lisboa", "canarias"]]
MAX_STEPS = 20_000
DEEP_EVERY = 4


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def check_invariants(s: State) -> None:
    n = s.n
    over = s.stage == OVER
    ncol = len(D.COLOURS)
    for p in s.players:
        assert over or p.money >= 0, "negative money before the game end"
        assert p.warehouses >= 0 and p.neutral >= 0 and p.fortresses >= 0
    # piece conservation per colour
    for col in range(ncol):
        owner = colour_owner(n, col)
        sup_w = sup_f = 0
        if owner >= 0:
            p = s.players[owner]
            if col == seat_colours(n, owner)[0]:
                sup_w, sup_f = p.warehouses, p.fortresses
            else:
                sup_w = p.neutral
        board_w = sum(c.sites.count(col) for c in s.cities)
        closed = sum(c.closed[col] for c in s.cities)
        assert sup_w + board_w + closed + s.removed[col] + s.pool_warehouses[col] == D.WAREHOUSES_PER_COLOUR
        board_f = sum(c.forts.count(col) for c in s.cities)
        assert sup_f + board_f + s.pool_fortresses[col] == D.FORTRESSES_PER_COLOUR
        if owner < 0:
            assert board_w == closed == board_f == 0
    # harbours and ships
    for i, c in enumerate(s.cities):
        for h, x in enumerate(c.harbours):
            if x >= 0:
                assert s.players[x].ship == i and s.players[x].berth == h
            elif x == PIRATE:
                assert s.pirate == i
        # one fortress per player per city
        own = [x for x in c.forts if x != FREE]
        assert len(own) == len(set(own))
        # contiguous track, run limits
        lo, hi = span(c.sites)
        if hi:
            assert all(x != FREE for x in c.sites[lo - 1 : hi])
        for k, x in enumerate(c.sites):
            if x == FREE:
                continue
            if n == 2:
                if is_main(2, x):
                    assert run_length(c.sites, k + 1, frozenset((x,))) <= 3
                seat = colour_owner(2, x)
                assert run_length(c.sites, k + 1, frozenset(seat_colours(2, seat))) <= 4
            else:
                assert run_length(c.sites, k + 1, frozenset((x,))) <= 3
    for seat, p in enumerate(s.players):
        if p.ship >= 0 and p.berth >= 0:
            assert s.cities[p.ship].harbours[p.berth] == seat
    if s.pirate >= 0:
        assert sum(c.harbours.count(PIRATE) for c in s.cities) == 1
    if s.turn.pirate_transit >= 0:
        # §8.4: a pirate voyage by cards under way is the turn's pirate move; nothing else happens until it ends,
        # and a stop is only legal while the rest of the hand can still end the voyage.
        assert s.stage == "turn" and s.pirate >= 0 and s.turn.pirate_moved
        legal = without_undo(GAME.legal_actions(s, s.seat))
        assert legal and all(a["type"] == "move-pirate" and a["means"] == "card" for a in legal)
    # every sailing card exactly once
    cards = [*s.dest_deck, *s.dest_display, *s.dest_discard, *s.conn_deck, *s.conn_display, *s.conn_discard]
    for p in s.players:
        cards.extend(p.hand)
    assert sorted(cards) == sorted(D.CARDS)
    assert len(s.dest_display) <= D.DISPLAY_DESTINATION and len(s.conn_display) <= D.DISPLAY_CONNECTION
    assert len(s.bonus_left) + sum(1 for p in s.players if p.bonus) == len(D.BONUS_CARDS)


def playout(players: int, expansions: list[str], seed: int, check: bool = True) -> tuple[State, list[tuple[int, dict[str, Any]]], int]:
    opts = GAME.validate_options({"expansions": expansions})
    state, _ = GAME.setup(players, opts, Rng.from_seed(f"setup/{seed}"))
    pick = Rng.from_seed(f"pick/{players}/{seed}")
    log: list[tuple[int, dict[str, Any]]] = []
    paydays = 0
    for step in range(MAX_STEPS):
        active = GAME.active_seats(state)
        if not active:
            break
        seat = active[0]
        legal = without_undo(GAME.legal_actions(state, seat))
        assert legal, f"dead end: seat {seat} has no legal action"
        action = legal[pick.randbelow(len(legal))]
        deep = check and step % DEEP_EVERY == 0
        before = canon(GAME.dump(state)) if deep else ""
        new, events = GAME.apply(state, seat, action, Rng.from_seed(f"{seed}/{step}"))
        paydays += sum(1 for e in events if e["type"] == "payday-income" and e["seat"] == 0)
        if check:
            check_invariants(new)
        if deep:
            # The full JSON round trips are costly (the turn-start snapshot is nested); every few steps suffices
            # here, the conformance suite does them at every step.
            assert canon(GAME.dump(state)) == before, "apply mutated its input"
            assert GAME.load(json.loads(canon(GAME.dump(new)))) == new, "dump/load is not the identity"
            json.dumps(events)
        log.append((seat, action))
        state = new
    else:
        raise AssertionError(f"no end after {MAX_STEPS} steps")
    assert paydays == D.PHASES
    return state, log, paydays


def replay(players: int, expansions: list[str], seed: int, log: list[tuple[int, dict[str, Any]]]) -> State:
    opts = GAME.validate_options({"expansions": expansions})
    state, _ = GAME.setup(players, opts, Rng.from_seed(f"setup/{seed}"))
    for step, (seat, action) in enumerate(log):
        state, _ = GAME.apply(state, seat, json.loads(json.dumps(action)), Rng.from_seed(f"{seed}/{step}"))
    return state


CASES = [(n, e) for n in range(2, 6) for e in EXPANSION_SETS]


@pytest.mark.parametrize(("players", "expansions"), CASES, ids=[f"{n}p-{'all' if e else 'none'}" for n, e in CASES])
def test_random_playout_keeps_invariants_and_replays(players: int, expansions: list[str]) -> None:
    state, log, _ = playout(players, expansions, seed=11)
    assert GAME.outcome(state) is not None
    assert canon(GAME.dump(replay(players, expansions, 11, log))) == canon(GAME.dump(state))
    for seat in [None, *range(players)]:
        v = GAME.view(state, seat)
        text = json.dumps(v)
        assert "dest_deck" not in text and "conn_deck" not in text
        GAME.render(v)


def test_views_do_not_reveal_deck_order() -> None:
    opts = GAME.validate_options({})
    a, _ = GAME.setup(3, opts, Rng.from_seed("x"))
    b = replace(a, dest_deck=tuple(reversed(a.dest_deck)), conn_deck=tuple(reversed(a.conn_deck)))
    for seat in [None, 0, 1, 2]:
        assert GAME.view(a, seat) == GAME.view(b, seat)


@pytest.mark.soak  # 25 random games per case: a hunt for rare faults
@pytest.mark.parametrize(("players", "expansions"), CASES, ids=[f"{n}p-{'all' if e else 'none'}" for n, e in CASES])
def test_many_random_playouts(players: int, expansions: list[str]) -> None:
    for seed in range(25):
        state, log, _ = playout(players, expansions, seed=100 + seed)
        if seed % 5 == 0:
            assert canon(GAME.dump(replay(players, expansions, 100 + seed, log))) == canon(GAME.dump(state))


@pytest.mark.soak  # every expansion subset at every player count
@pytest.mark.parametrize("expansions", [["porto"], ["lisboa"], ["canarias"], ["porto", "canarias"], ["lisboa", "canarias"]])
def test_expansion_subsets(expansions: list[str]) -> None:
    for players in range(2, 6):
        for seed in range(4):
            playout(players, expansions, seed=seed)
