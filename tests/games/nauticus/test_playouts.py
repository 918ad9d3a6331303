"""Seeded random playouts: no crash, no dead end, the right length, invariants after every step,
dump/load and replay identity, public views; plus a fuzz check that ``apply`` accepts exactly what
``legal_actions`` lists."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from service.games.base import GameError, IllegalAction, InvalidAction, Rng
from service.games.nauticus import GAME, data
from service.games.nauticus.ships import CATEGORY, ship_crest, warehouse_used
from service.games.nauticus.state import State
from service.games.undo import without_undo

from .helpers import choosing, fresh, in_turn, set_player, ship

MAX_STEPS = 5_000


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def check_invariants(s: State) -> None:
    """Supplies never negative or exceeded, tiles conserved, warehouse capacity, ship legality."""
    held: Counter[str] = Counter()
    for p in s.players:
        assert p.workers >= 0 and p.thaler >= 0
        assert warehouse_used(p.warehouse) <= data.WAREHOUSE_CAPACITY
        assert list(p.warehouse) == sorted(p.warehouse)
        held.update(p.warehouse)
        for g, n in zip(data.GOODS, p.delivered, strict=True):
            held[g] += n
        for boat in p.ships:
            pieces = [h.piece for h in boat]
            assert 1 <= len(boat) <= 4
            if "single" in pieces:
                assert pieces == ["single"]
            assert "bow" not in pieces[1:] and "stern" not in pieces[:-1]
            assert pieces.count("middle") <= 2
            crests = set()
            for h in boat:
                held[h.piece] += 1
                for t in (h.mast, h.sail, h.good):
                    if t is not None:
                        held[t] += 1
                assert h.sail is None or h.mast is not None
                for t in (h.mast, h.sail):
                    if t is not None and not t.endswith("crown"):
                        crests.add(t[5:])
                assert h.mast is None or CATEGORY[h.mast] == "mast"
                assert h.sail is None or CATEGORY[h.sail] == "sail"
                assert h.good is None or CATEGORY[h.good] == "good"
            assert len(crests) <= 1 and (not crests or ship_crest(boat) in crests)
    for stack, left in zip(data.STACKS, s.supply, strict=True):
        assert 0 <= left <= data.SUPPLY[stack]
        assert left + held[stack] == data.SUPPLY[stack], stack


def playout(players: int, seed: int, check: bool = True) -> tuple[State, list[tuple[int, dict[str, Any]]], int]:
    """Random legal play to the end; returns the final state, the action log and the setup seed."""
    pick = Rng.from_seed(f"nauticus-playout/{players}/{seed}")
    s = GAME.setup(players, {}, Rng.from_seed(f"setup/{seed}")).state
    log: list[tuple[int, dict[str, Any]]] = []
    while GAME.active_seats(s):
        assert len(log) < MAX_STEPS, "no end"
        (seat,) = GAME.active_seats(s)
        legal = without_undo(GAME.legal_actions(s, seat))
        assert legal, "dead end"
        for other in range(players):
            if other != seat:
                assert without_undo(GAME.legal_actions(s, other)) == []
        action = legal[pick.randbelow(len(legal))]
        before = _canon(GAME.dump(s)) if check else ""
        s2 = GAME.apply(s, seat, action, Rng.from_seed(f"{seed}/{len(log)}")).state
        log.append((seat, action))
        if check:
            assert _canon(GAME.dump(s)) == before, "apply mutated its input"
            assert GAME.load(json.loads(_canon(GAME.dump(s2)))) == s2
            check_invariants(s2)
        s = s2
    return s, log, seed


def replay(players: int, seed: int, log: list[tuple[int, dict[str, Any]]]) -> State:
    s = GAME.setup(players, {}, Rng.from_seed(f"setup/{seed}")).state
    for i, (seat, action) in enumerate(log):
        s = GAME.apply(s, seat, action, Rng.from_seed(f"{seed}/{i}")).state
    return s


def _check_game(players: int, seed: int) -> None:
    s, log, _ = playout(players, seed)
    rounds = data.ROUNDS[players]
    assert s.step == "over" and s.round == rounds and s.game_phase - 1 == rounds * data.PHASES_PER_ROUND
    assert GAME.dump(replay(players, seed, log)) == GAME.dump(s)
    out = GAME.outcome(s)
    assert out is not None and len(out.scores) == players and min(out.ranks) == 1
    json.dumps(out.to_json())
    views = [GAME.view(s, seat) for seat in [None, *range(players)]]
    assert len({_canon({k: v for k, v in v.items() if k != "seat"}) for v in views}) == 1
    assert GAME.render(views[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts(players: int) -> None:
    for seed in range(3):
        _check_game(players, seed)


@pytest.mark.soak  # 200 random games per player count: a hunt for rare faults
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_large(players: int) -> None:
    for seed in range(3, 203):
        _check_game(players, seed)


def _candidates(s: State, seat: int) -> list[dict[str, Any]]:
    """A broad set of well-formed actions, legal or not, around the current position."""
    p = s.players[seat]
    out: list[dict[str, Any]] = [{"type": "pass"}, {"type": "done"}]
    out += [{"type": "choose-action", "action": a} for a in data.ACTIONS]
    out += [{"type": "extra-action", "action": a, "pass_first": f} for a in data.ACTIONS for f in (False, True)]
    out += [{"type": "take-money", "workers": n} for n in range(1, 8)]
    out += [{"type": "score-crowns", "workers": n} for n in range(1, 8)]
    out += [{"type": "deliver", "ship": k} for k in range(len(p.ships) + 1)]
    out += [{"type": "take-reward", "reward": r} for r in data.REWARDS if r != "goods"]
    # goods in tile order (legal_actions lists each pair once, in that order) and doubled goods
    out += [
        {"type": "take-reward", "reward": "goods", "goods": [a, b]}
        for i, a in enumerate(data.GOODS)
        for b in data.GOODS[i:]
    ]
    for item in CATEGORY:
        out.append({"type": "take-bonus", "item": item})
        for kind in ("buy", "transfer"):
            out.append({"type": kind, "item": item, "to": "warehouse"})
            out.append({"type": kind, "item": item, "to": "new-ship"})
            for k in range(len(p.ships) + 1):
                out.append({"type": kind, "item": item, "to": "ship", "ship": k, "end": "front"})
                out.append({"type": kind, "item": item, "to": "ship", "ship": k, "end": "back"})
                for h in range(5):
                    out.append({"type": kind, "item": item, "to": "ship", "ship": k, "hull": h})
    return out


def assert_consistent(s: State, seat: int) -> None:
    """Every candidate action applies iff legal_actions lists it (no other seat may act at all)."""
    legal = without_undo(GAME.legal_actions(s, seat))
    for cand in _candidates(s, seat):
        try:
            GAME.apply(s, seat, cand, Rng.from_seed(0))
            ok = True
        except GameError:
            ok = False
        listed = cand in legal
        # "done" with no unit done counts as a pass (spec §10.2), so it applies unlisted
        if cand == {"type": "done"} and not listed and {"type": "pass"} in legal:
            continue
        assert ok == listed, (cand, listed, ok)
    for other in range(len(s.players)):
        if other != seat:
            for cand in legal:
                with pytest.raises(GameError):
                    GAME.apply(s, other, cand, Rng.from_seed(0))


@pytest.mark.parametrize("players", [2, 4])
def test_apply_accepts_exactly_the_legal_actions(players: int) -> None:
    """Fuzz: along a random game, every candidate action applies iff legal_actions lists it."""
    _, log, seed = playout(players, 77, check=False)
    s = GAME.setup(players, {}, Rng.from_seed(f"setup/{seed}")).state
    for i, (seat, action) in enumerate(log):
        if i % 3 == 0:
            assert_consistent(s, seat)
        s = GAME.apply(s, seat, action, Rng.from_seed(f"{seed}/{i}")).state


def test_apply_accepts_exactly_the_legal_actions_in_special_positions() -> None:
    """The same fuzz on prompts random play rarely reaches: bonus choice, ship rewards, the all-four
    item, a running extra action, a nearly full warehouse, crowns near the cap."""
    base = fresh(3, "special")
    yard = (
        ship("bow:mast-a:sail-a", "stern:mast-a"),
        ship("single:mast-crown:sail-crown:salt"),
        ship("middle:mast-b"),
        ship("bow:mast-c:sail-c:coffee", "stern:mast-c:sail-c:fish"),
    )
    positions = []
    s = choosing(base, "deliver", 1, chooser=1)
    positions.append(GAME.apply(s, 1, {"type": "choose-action", "action": "deliver"}, Rng.from_seed(0)).state)
    for action, space in (("sail", 2), ("transfer", 5), ("goods", 7), ("hull", 3), ("crowns", 6), ("deliver", 0)):
        s = in_turn(base, action, space, seat=2, blue=2)
        s = set_player(
            s, 2, ships=yard, warehouse=("coffee", "sail-a", "sail-crown", "mast-d"), flipped=(True, False, False)
        )
        positions.append(s)
        s_full = set_player(s, 2, warehouse=("grain",) * 11)
        positions.append(s_full)
        for a in without_undo(GAME.legal_actions(s, 2)):
            if a["type"] in ("extra-action", "buy", "transfer"):
                nxt = GAME.apply(s, 2, a, Rng.from_seed(0)).state
                if nxt.turn is not None and (
                    nxt.turn.rewards or nxt.turn.free_item or (nxt.turn.extra and a["type"] == "extra-action")
                ):
                    positions.append(nxt)
    # a ship reward in progress, and the all-four item after buying every kind
    s = in_turn(base, "transfer", 5, seat=2, blue=2)
    s = set_player(s, 2, ships=yard, warehouse=("sail-a",))
    s = GAME.apply(
        s, 2, {"type": "transfer", "item": "sail-a", "to": "ship", "ship": 0, "hull": 1}, Rng.from_seed(0)
    ).state
    assert s.turn is not None and s.turn.rewards is not None
    positions.append(s)
    s = GAME.apply(
        s, 2, {"type": "take-reward", "reward": "goods", "goods": ["coffee", "salt"]}, Rng.from_seed(0)
    ).state
    positions.append(s)
    s = in_turn(base, "goods", 7, seat=2, blue=3)
    for g in data.GOODS:
        s = GAME.apply(s, 2, {"type": "buy", "item": g, "to": "warehouse"}, Rng.from_seed(0)).state
    assert s.turn is not None and s.turn.free_item == "goods"
    positions.append(s)
    for pos in positions:
        (seat,) = GAME.active_seats(pos)
        assert_consistent(pos, seat)


def test_out_of_turn_errors() -> None:
    s = fresh(2, "turns")
    with pytest.raises(InvalidAction):
        GAME.apply(s, 1, {"type": "choose-action", "action": "nonsense"}, Rng.from_seed(0))
    with pytest.raises(InvalidAction):
        GAME.apply(s, 5, {"type": "pass"}, Rng.from_seed(0))
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 1, {"type": "choose-action", "action": "hull"}, Rng.from_seed(0))
    assert err.value.code == "not-your-turn"
    over = s._replace(step="over")
    assert GAME.active_seats(over) == [] and without_undo(GAME.legal_actions(over, 0)) == []
    with pytest.raises(IllegalAction) as err:
        GAME.apply(over, 0, {"type": "pass"}, Rng.from_seed(0))
    assert err.value.code == "game-over"


def test_listed_actions_match_their_published_schemas() -> None:
    """Every action legal_actions lists validates against its JSON Schema; malformed ones do not."""
    jsonschema = pytest.importorskip("jsonschema")
    validators = {t: jsonschema.Draft202012Validator(sc) for t, sc in GAME.action_schemas.items()}
    assert set(validators) == set(GAME.actions)
    for v in validators.values():
        v.check_schema(v.schema)
    seen = set()
    for players in (2, 4):
        _, log, _ = playout(players, 5, check=False)
        for _seat, action in log:
            validators[action["type"]].validate(action)
            seen.add(action["type"])
    assert {"choose-action", "buy", "pass", "done", "extra-action"} <= seen
    goods: list[dict[str, Any]] = [
        {"type": "take-reward", "reward": "goods", "goods": ["coffee", "salt"]},
        {"type": "transfer", "item": "sail-crown", "to": "ship", "ship": 0, "hull": 1},
        {"type": "buy", "item": "middle", "to": "ship", "ship": 2, "end": "front"},
    ]
    for good in goods:
        validators[good["type"]].validate(good)
    bads: list[dict[str, Any]] = [
        {"type": "buy", "item": "bow", "to": "ship", "ship": 0},
        {"type": "buy", "item": "bow", "to": "warehouse", "ship": 0},
        {"type": "buy", "item": "bow", "to": "ship", "ship": 0, "end": "front", "hull": 0},
        {"type": "take-reward", "reward": "goods"},
        {"type": "take-reward", "reward": "thaler", "goods": ["coffee", "salt"]},
        {"type": "take-money", "workers": 0},
    ]
    for bad in bads:
        assert not validators[bad["type"]].is_valid(bad), bad
