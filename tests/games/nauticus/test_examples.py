"""Every worked example of the rulebook (seed) and the spec, with its numbers."""

from __future__ import annotations

import pytest

from service.games.base import IllegalAction, Rng
from service.games.nauticus import GAME, data
from service.games.nauticus.scoring import final_score
from service.games.nauticus.state import Player, State
from service.games.undo import without_undo

from .helpers import act, choosing, in_turn, player, set_player, ship

HULL_SPACE = 3
"""The 2-VP space: its hull prices are observed (single 0, bow 3, middle 2, stern 1; spec §3)."""


def test_hull_row_on_the_two_vp_space_is_the_observed_one() -> None:
    assert data.BONUSES[HULL_SPACE] == {"vp": 2}
    row = dict(zip(data.ACTION_ITEMS["hull"], data.PRICE_ROWS[HULL_SPACE], strict=True))
    assert row == {"single": 0, "bow": 3, "middle": 2, "stern": 1}


def test_hull_purchase_example() -> None:
    """Seed p.5: A takes the 2-VP bonus and buys all four hull parts: 6 thaler and 4 workers, of which 2
    blue and 2 own; a free part of choice goes to the warehouse. B buys bow + stern for 3 + 1 = 4 thaler
    with the 2 blue workers; C buys the single hull for 0 with 1 blue worker, to the warehouse, and the
    other blue worker is lost."""
    s = choosing(GAME.setup(3, {}, Rng.from_seed(1)).state, "hull", HULL_SPACE, chooser=0, blue=2)
    a0, b0, c0 = s.players
    s = act(s, 0, {"type": "choose-action", "action": "hull"})
    assert player(s, 0).vp == a0.vp + 2  # the bonus, before acting
    assert s.turn is not None and s.turn.normal.blue == 2
    # golden rule: the 0-thaler single hull cannot go straight to the shipyard
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "buy", "item": "single", "to": "new-ship"}, Rng.from_seed(0))
    assert err.value.code == "golden-rule"
    s = act(s, 0, {"type": "buy", "item": "single", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "bow", "to": "new-ship"})
    s = act(s, 0, {"type": "buy", "item": "middle", "to": "ship", "ship": 0, "end": "back"})
    s = act(s, 0, {"type": "buy", "item": "stern", "to": "ship", "ship": 0, "end": "back"})
    a = player(s, 0)
    assert a0.thaler - a.thaler == 6
    assert a0.workers - a.workers == 2  # 4 units: 2 blue + 2 own
    assert s.turn is not None and s.turn.normal.units == 4 and s.turn.normal.blue == 0
    # all four kinds bought: one free part of choice, and nothing else until it is taken
    legal = without_undo(GAME.legal_actions(s, 0))
    assert {x["type"] for x in legal} == {"take-bonus"}
    assert sorted(x["item"] for x in legal) == sorted(data.ACTION_ITEMS["hull"])
    s = act(s, 0, {"type": "take-bonus", "item": "middle"})
    a = player(s, 0)
    assert a.thaler == a0.thaler - 6
    assert sorted(a.warehouse) == ["middle", "single"]
    assert a.ships == (ship("bow", "middle", "stern"),)
    s = act(s, 0, {"type": "done"})

    # B: bow + stern = 4 thaler, both workers blue
    assert s.turn is not None and s.turn.seat == 1 and s.turn.normal.blue == 2
    s = act(s, 1, {"type": "buy", "item": "bow", "to": "new-ship"})
    s = act(s, 1, {"type": "buy", "item": "stern", "to": "ship", "ship": 0, "end": "back"})
    b = player(s, 1)
    assert b0.thaler - b.thaler == 4
    assert b.workers == b0.workers
    assert b.ships == (ship("bow", "stern"),)
    s = act(s, 1, {"type": "done"})

    # C: the single hull for 0 thaler with one blue worker, to the warehouse
    assert s.turn is not None and s.turn.seat == 2 and s.turn.normal.blue == 2
    s = act(s, 2, {"type": "buy", "item": "single", "to": "warehouse"})
    c = player(s, 2)
    assert (c.thaler, c.workers, c.warehouse) == (c0.thaler, c0.workers, ("single",))
    assert s.turn is not None and s.turn.normal.blue == 1
    s = act(s, 2, {"type": "done"})
    # the unused blue worker is lost: it never reaches C's supply; the phase is over
    assert player(s, 2).workers == c0.workers
    assert s.step == "choose" and s.face_down[HULL_SPACE] and s.anchor_tile == HULL_SPACE
    assert s.chooser == 1 and s.phase == 2
    # supply: 2 singles, 2 bows, 2 middles, 2 sterns gone
    stock = dict(zip(data.STACKS, s.supply, strict=True))
    assert (stock["single"], stock["bow"], stock["middle"], stock["stern"]) == (16, 16, 7, 16)


def _printed_row(monkeypatch: pytest.MonkeyPatch, space: int, action: str, prices: dict[str, int]) -> None:
    """Print ``prices`` (one per item of the paid ``action`` tile) on ``space``'s price row.

    The worked examples give prices, not spaces, and the board's real rows are UNVERIFIED placeholders
    (spec §3), so the examples construct their row rather than search the placeholder data for one."""
    assert sorted(prices) == sorted(data.ACTION_ITEMS[action]) and sorted(prices.values()) == [0, 1, 2, 3]
    row = tuple(prices[item] for item in data.ACTION_ITEMS[action])
    rows = tuple(row if s == space else r for s, r in enumerate(data.PRICE_ROWS))
    monkeypatch.setattr(data, "PRICE_ROWS", rows)


def test_every_price_row_is_a_permutation_of_0_to_3() -> None:
    """Spec §3: each space prints four prices, a permutation of 0, 1, 2, 3."""
    assert len(data.PRICE_ROWS) == data.SPACES
    assert all(sorted(row) == [0, 1, 2, 3] for row in data.PRICE_ROWS)


def test_hull_purchase_example_two_ship_and_a_separate_middle() -> None:
    """Seed p.7: all four hull parts for 4 workers and 6 thaler, so one more part free: a single hull.
    Both single hulls go to the warehouse (free, golden rule). Bow and stern laid together make a 2-tile
    ship whose size is fixed; the middle, laid apart, starts another ship that can still become a 3- or
    4-ship (spec §5.2)."""
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(21)).state, "hull", HULL_SPACE, seat=0, blue=0)
    before = player(s, 0)
    s = act(s, 0, {"type": "buy", "item": "single", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "bow", "to": "new-ship"})
    s = act(s, 0, {"type": "buy", "item": "stern", "to": "ship", "ship": 0, "end": "back"})
    s = act(s, 0, {"type": "buy", "item": "middle", "to": "new-ship"})
    s = act(s, 0, {"type": "take-bonus", "item": "single"})
    p = player(s, 0)
    assert before.thaler - p.thaler == 6 and before.workers - p.workers == 4
    assert p.warehouse == ("single", "single")
    assert p.ships == (ship("bow", "stern"), ship("middle"))
    # the 2-ship is closed: nothing can be inserted or added; the lone middle still grows at both ends
    s = set_player(s, 0, thaler=20, workers=4)
    s = s._replace(turn=s.turn._replace(normal=s.turn.normal._replace(bought=())) if s.turn else None)
    legal = without_undo(GAME.legal_actions(s, 0))
    assert not [a for a in legal if a.get("ship") == 0]
    assert {"type": "buy", "item": "middle", "to": "ship", "ship": 1, "end": "front"} in legal
    assert {"type": "buy", "item": "bow", "to": "ship", "ship": 1, "end": "front"} in legal
    assert {"type": "buy", "item": "stern", "to": "ship", "ship": 1, "end": "back"} in legal
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "buy", "item": "middle", "to": "ship", "ship": 0, "end": "back"}, Rng.from_seed(0))
    assert err.value.code == "illegal-placement"


def test_mast_purchase_example(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed p.6: one red-whale mast at 0 plus two light-green-anchor masts at 1 and 4 = 5 thaler and 3
    workers. The 0-priced mast must go to the warehouse; the two paid masts may go straight onto a ship."""
    whale, anchor = "mast-b", "mast-a"
    assert data.CRESTS["b"] == "red whale" and data.CRESTS["a"] == "light-green anchor"
    space = 2
    _printed_row(monkeypatch, space, "mast", {whale: 0, anchor: 1, "mast-c": 2, "mast-d": 3})
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(2)).state, "mast", space, seat=0, blue=0)
    s = set_player(s, 0, ships=(ship("bow", "stern"),))
    before = player(s, 0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "buy", "item": whale, "to": "ship", "ship": 0, "hull": 0}, Rng.from_seed(0))
    assert err.value.code == "golden-rule"
    s = act(s, 0, {"type": "buy", "item": whale, "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": anchor, "to": "ship", "ship": 0, "hull": 0})
    assert s.turn is not None and s.turn.normal.bought == (whale, anchor)
    assert before.thaler - player(s, 0).thaler == 0 + 1
    # the second mast of a kind costs the repeat price, 4
    s = act(s, 0, {"type": "buy", "item": anchor, "to": "ship", "ship": 0, "hull": 1})
    after = player(s, 0)
    assert before.thaler - after.thaler == 5
    assert before.workers - after.workers == 3
    assert after.warehouse == (whale,)
    assert after.ships == (ship("bow:mast-a", "stern:mast-a"),)
    # a mast takes two warehouse spaces
    assert sum(data.tile_size(t) for t in after.warehouse) == 2


def test_goods_purchase_example_and_the_cheaper_alternative(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed p.9: fish, grain and 2 coffee on a row with coffee 0, fish/grain 1/2, salt 3: 4 workers and 7
    thaler. One coffee (the 4-thaler one) and the grain go under hull pieces; the free coffee and the fish
    go to the warehouse. Buying salt (3) instead of the second coffee (4) is 1 thaler cheaper and brings a
    free second coffee (all four kinds), but then both coffees are free and go to the warehouse."""
    space = 4
    _printed_row(monkeypatch, space, "goods", {"coffee": 0, "fish": 1, "grain": 2, "salt": 3})
    start = in_turn(GAME.setup(2, {}, Rng.from_seed(3)).state, "goods", space, seat=0, blue=0)
    start = set_player(start, 0, ships=(ship("bow", "middle", "stern"),))
    before = player(start, 0)

    s = act(start, 0, {"type": "buy", "item": "fish", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "grain", "to": "ship", "ship": 0, "hull": 0})
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "buy", "item": "coffee", "to": "ship", "ship": 0, "hull": 1}, Rng.from_seed(0))
    assert err.value.code == "golden-rule"
    s = act(s, 0, {"type": "buy", "item": "coffee", "to": "warehouse"})
    # the second coffee costs 4 thaler, so it may go straight under a hull piece
    s = act(s, 0, {"type": "buy", "item": "coffee", "to": "ship", "ship": 0, "hull": 1})
    after = player(s, 0)
    assert before.thaler - after.thaler == 7
    assert before.workers - after.workers == 4
    assert sorted(after.warehouse) == ["coffee", "fish"]
    assert [h.good for h in after.ships[0]] == ["grain", "coffee", None]
    assert s.turn is not None and s.turn.free_item is None  # only three kinds bought

    # the alternative: salt instead of the second coffee
    s = act(start, 0, {"type": "buy", "item": "fish", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "grain", "to": "ship", "ship": 0, "hull": 0})
    s = act(s, 0, {"type": "buy", "item": "coffee", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "salt", "to": "ship", "ship": 0, "hull": 1})
    s = act(s, 0, {"type": "take-bonus", "item": "coffee"})
    alt = player(s, 0)
    assert before.thaler - alt.thaler == 6  # 1 thaler less
    assert before.workers - alt.workers == 4  # the free item costs no worker
    assert sorted(alt.warehouse) == ["coffee", "coffee", "fish"]  # both coffees in the warehouse
    goods_gained = len(alt.warehouse) + sum(h.good is not None for h in alt.ships[0])
    assert goods_gained == 5  # one good more than the 4 bought


def _crown_position(blue: int) -> tuple[State, int]:
    s = GAME.setup(3, {}, Rng.from_seed(4)).state
    space = 6
    s = in_turn(s, "crowns", space, seat=1, blue=blue)
    s = set_player(
        s,
        1,
        ships=(ship("single:mast-crown"),),
        warehouse=("sail-crown",),
        flipped=(True, False, False),
    )
    return s, player(s, 1).workers


def test_crown_scoring_example() -> None:
    """Seed p.9: B has a crowned mast on a ship, a crowned sail in the warehouse and one flipped pass tile:
    3 crowns. With the 2 blue workers and 1 own, 3 x 3 = 9 VP. Two more workers would reach the 15 cap."""
    s, workers = _crown_position(blue=2)
    vp = player(s, 1).vp
    assert GAME.view(s, None)["players"][1]["crowns"] == 3
    # at most ceil(15 / 3) = 5 workers count
    assert max(a["workers"] for a in without_undo(GAME.legal_actions(s, 1)) if a["type"] == "score-crowns") == 5
    s9 = act(s, 1, {"type": "score-crowns", "workers": 3})
    assert player(s9, 1).vp == vp + 9
    assert player(s9, 1).workers == workers - 1
    # with two more workers: the cap of 15
    s15 = act(s, 1, {"type": "score-crowns", "workers": 5})
    assert player(s15, 1).vp == vp + 15
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 1, {"type": "score-crowns", "workers": 6}, Rng.from_seed(0))
    assert err.value.code == "crown-cap"
    # scoring in two steps still stops at the cap: 9 now, at most 2 more workers for the last 6
    assert max(a["workers"] for a in without_undo(GAME.legal_actions(s9, 1)) if a["type"] == "score-crowns") == 2
    s_more = act(s9, 1, {"type": "score-crowns", "workers": 2})
    assert player(s_more, 1).vp == vp + 15
    assert not [a for a in without_undo(GAME.legal_actions(s_more, 1)) if a["type"] == "score-crowns"]


def _end_of_round_state(flips: list[tuple[bool, bool, bool]]) -> State:
    """The last turn of the 7th phase of round 1, the last seat to act having already passed thrice."""
    s = GAME.setup(3, {}, Rng.from_seed(5)).state
    s = in_turn(s, "money", 7, seat=2)
    s = s._replace(phase=7, game_phase=7, chooser=0, turns_taken=2, anchor_tile=4)
    s = s._replace(face_down=tuple(i not in (7, 2) for i in range(8)))
    for seat, f in enumerate(flips):
        s = set_player(s, seat, flipped=f)
    return s


def test_passing_penalties_at_round_end() -> None:
    """Seed p.9: never passed -6; passed once (flipping -3) -3; flipped all three: nothing. Tiles reset."""
    s = _end_of_round_state([(False, False, False), (True, False, False), (True, True, False)])
    vps = [p.vp for p in s.players]
    s = act(s, 2, {"type": "pass"})  # flips the -1: seat 2 has now flipped all three
    assert [p.vp for p in s.players] == [vps[0] - 6, vps[1] - 3, vps[2]]
    assert all(p.flipped == (False, False, False) for p in s.players)
    # the next round: the wheel turned to the anchor tile, which now shows 0 blue workers
    assert (s.round, s.phase, s.step, s.anchor, s.anchor_tile) == (2, 1, "choose", 4, -1)
    assert GAME.view(s, None)["spaces"][4]["blue_workers"] == 0
    assert s.face_down == (False,) * 8
    # the start-player figure passed after phase 7 too: phase 8 is chosen by seat (8 - 1) mod 3 = 1
    assert s.chooser == 1


def test_pass_penalty_applies_in_the_last_round_too() -> None:
    """Spec §4.3.2: the pass penalty also applies after the last round (only the round marker stays)."""
    s = _end_of_round_state([(False, False, False), (True, False, False), (True, True, False)])
    s = s._replace(round=data.ROUNDS[3], game_phase=7 * data.ROUNDS[3])
    vps = [p.vp for p in s.players]
    s = act(s, 2, {"type": "pass"})
    assert s.step == "over" and s.round == data.ROUNDS[3]
    assert [p.vp for p in s.players] == [vps[0] - 6, vps[1] - 3, vps[2]]


def test_pass_flips_the_most_negative_tile_and_adds_a_crown() -> None:
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(6)).state, "hull", 0, seat=0)
    s = act(s, 0, {"type": "pass"})
    assert player(s, 0).flipped == (True, False, False)
    assert GAME.view(s, None)["players"][0]["crowns"] == 1


def test_completed_ship_rewards_interrupt_a_transfer() -> None:
    """Spec §6: the sail that completes a ship interrupts the transfer; the player takes one reward per
    mast at once, and a crowned mast taken as a reward can be transferred straight away, possibly
    completing another ship."""
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(7)).state, "transfer", 1, seat=0, blue=0)
    s = set_player(
        s,
        0,
        workers=5,
        ships=(ship("bow:mast-a:sail-a", "stern:mast-crown"), ship("single")),
        warehouse=("sail-a", "sail-crown"),
    )
    thaler = player(s, 0).thaler
    s = act(s, 0, {"type": "transfer", "item": "sail-a", "to": "ship", "ship": 0, "hull": 1})
    assert s.turn is not None and s.turn.rewards is not None and s.turn.rewards.left == 2
    legal = without_undo(GAME.legal_actions(s, 0))
    assert {a["type"] for a in legal} == {"take-reward"}
    assert {a["reward"] for a in legal} == set(data.REWARDS)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(
            s, 0, {"type": "transfer", "item": "sail-crown", "to": "ship", "ship": 1, "hull": 0}, Rng.from_seed(0)
        )
    assert err.value.code == "reward-pending"
    s = act(s, 0, {"type": "take-reward", "reward": "crown-mast"})
    s = act(s, 0, {"type": "take-reward", "reward": "thaler"})
    assert s.turn is not None and s.turn.rewards is None
    assert player(s, 0).thaler == thaler + 7
    assert "mast-crown" in player(s, 0).warehouse
    # use the reward at once: crowned mast and crowned sail onto the single hull complete a 1-ship
    s = act(s, 0, {"type": "transfer", "item": "mast-crown", "to": "ship", "ship": 1, "hull": 0})
    s = act(s, 0, {"type": "transfer", "item": "sail-crown", "to": "ship", "ship": 1, "hull": 0})
    assert s.turn is not None and s.turn.rewards is not None and s.turn.rewards.left == 1
    s = act(s, 0, {"type": "take-reward", "reward": "goods", "goods": ["coffee", "fish"]})
    p = player(s, 0)
    assert sorted(p.warehouse) == ["coffee", "fish"]
    assert p.workers == 5 - 3


def test_each_reward_at_most_twice_per_ship() -> None:
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(8)).state, "sail", 0, seat=0, blue=3)
    s = set_player(
        s, 0, ships=(ship("bow:mast-c:sail-c", "middle:mast-c:sail-c", "middle:mast-crown:sail-c", "stern:mast-c"),)
    )
    item = "sail-c"
    s = act(s, 0, {"type": "buy", "item": item, "to": "ship", "ship": 0, "hull": 3})
    assert s.turn is not None and s.turn.rewards is not None and s.turn.rewards.left == 4
    vp = player(s, 0).vp
    s = act(s, 0, {"type": "take-reward", "reward": "vp"})
    s = act(s, 0, {"type": "take-reward", "reward": "vp"})
    assert not [a for a in without_undo(GAME.legal_actions(s, 0)) if a.get("reward") == "vp"]
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "take-reward", "reward": "vp"}, Rng.from_seed(0))
    assert err.value.code == "reward-limit"
    s = act(s, 0, {"type": "take-reward", "reward": "workers"})
    s = act(s, 0, {"type": "take-reward", "reward": "crown-sail"})
    p = player(s, 0)
    assert p.vp == vp + 2 * data.REWARD_AMOUNT["vp"]
    assert "sail-crown" in p.warehouse
    assert s.turn is not None and s.turn.rewards is None


def test_final_scoring_example() -> None:
    """Spec §8 worked example (the seed's): goods 2 grain + 3 fish + 6 coffee = 5 + 9 + 25 = 39; ships two
    1-ships + a 2-ship + a 3-ship = 6 + 8 + 20 = 34; leftovers 2 workers + 3 warehouse tiles + 5 parts of an
    unfinished ship + 3 undelivered goods = 13 thaler, plus 8 cash = 21 thaler = 7 VP; total 80."""
    one = ship("single:mast-a:sail-a")
    p = Player(
        thaler=8,
        workers=2,
        vp=0,
        warehouse=("bow", "mast-b", "sail-d"),
        ships=(
            one,
            ship("single:mast-b:sail-crown:salt"),
            ship("bow:mast-c:sail-c:fish", "stern:mast-c:sail-c"),
            ship("bow:mast-d:sail-d", "middle:mast-d:sail-d", "stern:mast-crown:sail-d"),
            ship("bow:mast-a:sail-a", "middle", "middle:-:-:salt"),
        ),
        delivered=tuple({"coffee": 6, "grain": 2, "salt": 0, "fish": 3}[g] for g in data.GOODS),
        flipped=(False, False, False),
        extra=False,
    )
    f = final_score(p)
    assert f["goods_vp"] == 39
    assert sorted(f["ships"]) == [1, 1, 2, 3] and f["ships_vp"] == 34
    assert f["leftover_thaler"]["workers"] + f["leftover_thaler"]["warehouse_tiles"] == 5
    assert f["leftover_thaler"]["unfinished_ship_parts"] == 5
    assert f["leftover_thaler"]["undelivered_goods_on_ships"] == 3
    assert f["leftover_thaler"]["total"] == 13
    assert (f["money"], f["money_vp"], f["remainder"]) == (21, 7, 0)
    assert f["end_game_vp"] == 80
    assert f["total"] == 80


def test_goods_group_table() -> None:
    assert [data.goods_group_vp(n) for n in range(9)] == [0, 2, 5, 9, 14, 20, 25, 30, 35]


def test_tie_breaks_remainder_then_money_then_shared() -> None:
    s = GAME.setup(4, {}, Rng.from_seed(9)).state._replace(step="over")
    blank = dict(workers=0, warehouse=(), ships=(), delivered=(0, 0, 0, 0), extra=False)
    # money 5 -> 1 VP rem 2; money 4 -> 1 VP rem 1; money 7 -> 2 VP rem 1 (track 1 less); money 4 again
    s = set_player(s, 0, vp=20, thaler=4, **blank)
    s = set_player(s, 1, vp=20, thaler=5, **blank)
    s = set_player(s, 2, vp=19, thaler=7, **blank)
    s = set_player(s, 3, vp=20, thaler=4, **blank)
    out = GAME.outcome(s)
    assert out is not None
    assert out.scores == (21, 21, 21, 21)
    # seat 1 has the larger remainder (2); seat 2 has remainder 1 and more money (7) than seats 0 and 3 (4)
    assert out.ranks == (3, 1, 2, 3)
    assert out.detail["tie_break_trail"]
