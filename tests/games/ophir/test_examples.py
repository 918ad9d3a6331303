"""Every worked example of the Ophir rulebook (seed 004, restored digits per spec §9) as a
scenario with the book's numbers. Seat 0 plays the example's active colour."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.games.base import IllegalAction, Rng
from service.games.ophir import GAME
from service.games.ophir.data import CUBE_INDEX
from service.games.ophir.setup import new_match
from service.games.ophir.state import DRAFT, Options
from service.games.undo import without_undo
from tests.games.ophir.builders import Dice, act, player, position, types

STONE, WOOD, CLOTH, GEMS = (CUBE_INDEX[g] for g in ("stone", "wood", "cloth", "gems"))
GOLD, SILVER = CUBE_INDEX["gold"], CUBE_INDEX["silver"]


# -- influence tests (rulebook p.3-4) -----------------------------------------------------------


def test_successful_influence_test_roll_equal_to_defender() -> None:
    """Yellow sails into the occupied centre, rolls 5 against Green's 5: success (>=); Yellow's
    die now shows 5, Green's stays 5, and Yellow may sail on or act in the centre."""
    s = position([player(hex="TR", die=1), player(hex="C", die=5), player(hex="BL", die=2)])
    s, ev = act(s, {"type": "move", "hex": "C"}, Dice(5))
    test = next(e for e in ev if e["type"] == "influence-test")
    assert (test["roll"], test["against"], test["success"]) == (5, 5, True)
    assert s.seats[0].hex == "C" and s.seats[0].die == 5 and s.seats[1].die == 5
    assert s.turn is not None and s.turn.moves == 1
    assert {"move", "end-turn"} <= types(s)


def test_failed_influence_test_lowers_defender_and_leaves_four_options() -> None:
    """Yellow rolls 3 against Green's 5: failure. Yellow's die shows 3, Green's drops to 4,
    Yellow stays put with one move left: A retest, B another hex, C influence move, D anchor."""
    s = position([player(hex="TR", die=6, favor=2), player(hex="C", die=5), player(hex="BL", die=2)])
    s, ev = act(s, {"type": "move", "hex": "C"}, Dice(3))
    test = next(e for e in ev if e["type"] == "influence-test")
    assert (test["roll"], test["against"], test["success"], test["lowered"]) == (3, 5, False, [1])
    assert s.seats[0].hex == "TR" and s.seats[0].die == 3 and s.seats[1].die == 4
    legal = without_undo(GAME.legal_actions(s, 0))
    assert {"type": "move", "hex": "C"} in legal  # A
    assert {"type": "move", "hex": "R"} in legal and {"type": "move", "hex": "TL"} in legal  # B
    assert {"type": "declare-influence"} in legal and {"type": "anchor"} in legal  # C, D
    assert "end-turn" not in types(s)  # navigation is compulsory
    # Without favor only A and B remain.
    poor = position([player(hex="TR", die=6, favor=0), player(hex="C", die=5), player(hex="BL", die=2)])
    poor, _ = act(poor, {"type": "move", "hex": "C"}, Dice(3))
    assert types(poor) == {"move"}


def test_two_failed_tests_end_the_turn_without_actions() -> None:
    s = position([player(hex="TR", die=6), player(hex="C", die=5), player(hex="BL", die=2)])
    s, _ = act(s, {"type": "move", "hex": "C"}, Dice(3))
    s, ev = act(s, {"type": "move", "hex": "C"}, Dice(2))
    assert s.seats[1].die == 3 and s.seats[0].die == 2 and s.seats[0].hex == "TR"
    assert [e["type"] for e in ev][-2:] == ["navigation-failed", "turn-started"]
    assert s.active == 1


def test_several_defenders_all_highest_dice_lowered() -> None:
    """R-19: T is the highest die in the hex; on a failure every die showing T drops by 1."""
    s = position([player(hex="TR"), player(hex="C", die=5), player(hex="C", die=5), player(hex="C", die=3)])
    s, _ = act(s, {"type": "move", "hex": "C"}, Dice(4))
    assert [p.die for p in s.seats[1:]] == [4, 4, 3]


def test_influence_move_example() -> None:
    """Blue starts on the gems hex, spends 1 favor and sails into the wood hex past Green and
    Yellow without any test; no die changes."""
    layout = {"C": "market", "TR": "temple", "R": "metals", "BR": "stone", "BL": "cloth", "L": "wood", "TL": "gems"}
    s = position([player(hex="TL", favor=2, die=2), player(hex="L", die=6), player(hex="L", die=5)], layout=layout)
    s, _ = act(s, {"type": "declare-influence"})
    s, ev = act(s, {"type": "move", "hex": "L"})  # Dice() with no rolls: any roll would fail the test
    assert s.seats[0].hex == "L" and s.seats[0].favor == 1
    assert [p.die for p in s.seats] == [2, 6, 5]
    assert ev[0]["type"] == "sailed"


# -- anchoring and gathering (rulebook p.4-5) -----------------------------------------------------


def test_anchoring_then_stone_pickup() -> None:
    """Yellow starts on the stone hex, anchors for 1 favor, and takes a stone."""
    s = position([player(hex="L", favor=1), player(hex="C"), player(hex="R")])
    s, _ = act(s, {"type": "anchor"})
    assert s.seats[0].favor == 0 and s.seats[0].hex == "L"
    assert "move" not in types(s)
    s, _ = act(s, {"type": "gather", "good": "stone", "discard": []})
    assert s.seats[0].hold[STONE] == 1 and s.supply[STONE] == 4
    assert "gather" not in types(s)  # one good per turn


def test_stone_pickup_after_sailing() -> None:
    s = position([player(hex="BL"), player(hex="C"), player(hex="R")])
    s, _ = act(s, {"type": "move", "hex": "L"})
    s, ev = act(s, {"type": "gather", "good": "stone", "discard": []})
    assert s.seats[0].hold[STONE] == 1 and ev[0]["type"] == "gathered"


def test_gather_with_full_hold_throws_a_good_back() -> None:
    s = position([player(hex="L", favor=1, hold={"wood": 1, "gems": 1}), player(hex="C"), player(hex="R")])
    s, _ = act(s, {"type": "anchor"})
    gathers = [a for a in without_undo(GAME.legal_actions(s, 0)) if a["type"] == "gather"]
    assert [a["discard"] for a in gathers] == [["wood"], ["gems"]]
    s, _ = act(s, {"type": "gather", "good": "stone", "discard": ["wood"]})
    assert s.seats[0].hold[WOOD] == 0 and s.seats[0].hold[STONE] == 1 and s.supply[WOOD] == 5


# -- market (rulebook p.6, p.11) --------------------------------------------------------------------


def test_market_trade_with_plus_one_modifier() -> None:
    """Yellow fills the 1-stone card on the left stand: 1 coin for the card +1 for the modifier
    = 2 coins; the rightmost card is discarded, the others slide right, the future card joins."""
    s = position([player(hex="TR", hold={"stone": 1}), player(hex="BL"), player(hex="R")],
                 demand=("A14", "A02", "A03"), deck=("B01", "B02", "B03"), modifiers=(1, 0, -1))
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, ev = act(s, {"type": "trade", "slot": 0, "favor_for": []})
    assert s.seats[0].coins == 2 and s.seats[0].hold[STONE] == 0 and s.supply[STONE] == 5
    assert s.demand == ("B01", "A14", "A02") and s.deck == ("B02", "B03") and s.discard == ("A03",)
    assert [e["type"] for e in ev] == ["traded", "market-shifted"]
    assert "trade" not in types(s)  # one trade per turn


def test_specialty_goods_example() -> None:
    """Blue (stone specialty) has 2 stones: trades one on the left (+1) stand for 1+1 = 2 coins
    and sells the other for 1 coin; the market shifts once, for the trade."""
    s = position([player("harbormaster", hex="TR", hold={"stone": 2}), player(hex="BL"), player(hex="R")],
                 demand=("A18", "A02", "A03"), deck=("B01", "B02"))
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, _ = act(s, {"type": "trade", "slot": 0, "favor_for": []})
    s, ev = act(s, {"type": "sell-specialty", "good": "stone"})
    assert s.seats[0].coins == 3 and s.seats[0].hold[STONE] == 0 and s.supply[STONE] == 5
    assert [e["type"] for e in ev] == ["specialty-sold"] and s.demand == ("B01", "A18", "A02")


def test_specialty_sale_alone_does_not_shift_market() -> None:
    s = position([player("priest", hex="TR", hold={"stone": 1}), player(hex="BL"), player(hex="R")])
    demand = s.demand
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, _ = act(s, {"type": "sell-specialty", "good": "stone"})
    assert s.demand == demand and s.seats[0].coins == 1


# -- metals (rulebook p.6-7) ------------------------------------------------------------------------


def test_metal_purchase_for_coins_and_favor() -> None:
    """Green has 3 coins and 6 favor; gold costs 6 and silver 3 coins (tier 6/3). Green pays 3
    coins for silver and 5 favor for gold, throwing back the wood to make room."""
    s = position([player(hex="C", coins=3, favor=6, hold={"wood": 1}, capacity=4, upgrades=2),
                  player(hex="BL"), player(hex="TL")], tier=3)
    assert s.current_tier() is not None and s.current_tier().id == "6/3"  # type: ignore[union-attr]
    s, _ = act(s, {"type": "move", "hex": "R"})
    legal = without_undo(GAME.legal_actions(s, 0))
    assert {"type": "buy-metal", "metal": "gold", "pay": "coins", "discard": []} not in legal  # 6 coins > 3
    s, _ = act(s, {"type": "buy-metal", "metal": "silver", "pay": "coins", "discard": []})
    s, ev = act(s, {"type": "buy-metal", "metal": "gold", "pay": "favor", "discard": ["wood"]})
    p = s.seats[0]
    assert (p.coins, p.favor, p.hold[GOLD], p.hold[SILVER], p.hold[WOOD]) == (0, 1, 1, 1, 0)
    assert s.supply[GOLD] == 4 and s.supply[SILVER] == 4 and s.supply[WOOD] == 5
    assert ev[0]["cost"] == 5 and ev[0]["pay"] == "favor"


def test_metal_donation_completes_tier_and_continues_on_the_next() -> None:
    """Green puts silver on the last empty space (5 VP): the tier is complete, its metals go
    back, the next tier is laid; then the gold goes on the new tier (10 VP)."""
    s = position([player(hex="R", hold={"silver": 1, "gold": 1}, capacity=4, upgrades=2),
                  player(hex="BL"), player(hex="TL")], temple=("gold", "gold"))
    s, _ = act(s, {"type": "move", "hex": "TR"})
    s, ev = act(s, {"type": "donate-metal", "metal": "silver"})
    assert [e["type"] for e in ev] == ["metal-donated", "tier-completed"]
    assert s.tier == 1 and s.temple == () and s.current_tier().id == "4/2"  # type: ignore[union-attr]
    assert s.supply[GOLD] == 4 and s.supply[SILVER] == 5
    s, _ = act(s, {"type": "donate-metal", "metal": "gold"})
    assert s.temple == ("gold",) and s.seats[0].vp == 15 and s.supply[GOLD] == 4


def test_goods_donation_example() -> None:
    """Yellow hands in stone and cloth from the card under the temple merchant: 3 VP (a 1 and a
    2 card) and 3 favor, from 1 to 4; the market then shifts."""
    s = position([player(hex="R", favor=1, hold={"stone": 1, "cloth": 1}), player(hex="BL"), player(hex="TL")],
                 demand=("A01", "A19", "A02"), merchant=1, deck=("B01", "B02"))
    s, _ = act(s, {"type": "move", "hex": "TR"})
    s, ev = act(s, {"type": "donate-goods", "slot": 1})
    p = s.seats[0]
    assert (p.vp, p.favor, p.hold[STONE], p.hold[CLOTH]) == (3, 4, 0, 0)
    assert s.demand == ("B01", "A01", "A19") and [e["type"] for e in ev] == ["goods-donated", "market-shifted"]


def test_second_move_may_not_return_to_start() -> None:
    s = position([player(hex="TR"), player(hex="BL"), player(hex="TL")])
    s, _ = act(s, {"type": "move", "hex": "R"})
    assert {"type": "move", "hex": "TR"} not in without_undo(GAME.legal_actions(s, 0))
    assert {"type": "move", "hex": "BR"} in without_undo(GAME.legal_actions(s, 0))


def test_goods_donation_favor_capped_at_six() -> None:
    """R-21: favor above 6 is lost; the VP count in full."""
    s2 = position([player(hex="R", favor=5, hold={"stone": 1, "cloth": 1}), player(hex="BL"), player(hex="TL")],
                  demand=("A19", "A01", "A02"), merchant=0)
    s2, _ = act(s2, {"type": "move", "hex": "TR"})
    s2, _ = act(s2, {"type": "donate-goods", "slot": 0})
    assert s2.seats[0].favor == 6 and s2.seats[0].vp == 3


def test_cargo_upgrade_for_two_coins() -> None:
    """Yellow starts on the cloth hex with 4 coins, sails one hex to the temple, pays 2 coins and
    takes a cargo tile single side up: 3 holds. Only one upgrade per turn."""
    layout = {"C": "temple", "TR": "market", "R": "metals", "BR": "wood", "BL": "cloth", "L": "stone", "TL": "gems"}
    s = position([player(hex="BL", coins=4), player(hex="R"), player(hex="TL")], layout=layout)
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, _ = act(s, {"type": "upgrade-cargo"})
    p = s.seats[0]
    assert (p.coins, p.capacity, p.upgrades, s.tiles) == (2, 3, 1, 2)
    assert "upgrade-cargo" not in types(s)


# -- the rival (rulebook p.10) ------------------------------------------------------------------------


def test_rival_example() -> None:
    """Blue beats the rival's die, enters its hex and must move it: one hex, onto the market.
    Blue rolls the rival's die (2), takes the rival trade (a market shift), then sails on with
    the second move to the stone hex and takes a stone."""
    layout = {"C": "metals", "TR": "temple", "R": "market", "BR": "wood", "BL": "stone", "L": "cloth", "TL": "gems"}
    s = position([player(hex="TL", die=1), player(hex="TR")], layout=layout, rival="C", rival_die=4,
                 demand=("A01", "A02", "A03"), deck=("B01", "B02"))
    s, ev = act(s, {"type": "move", "hex": "C"}, Dice(5))
    assert s.seats[0].hex == "C" and ev[-1]["type"] == "rival-entered"
    assert types(s) == {"move-rival"}  # the turn pauses; TR has Green's ship, C is the origin
    assert {a["hex"] for a in without_undo(GAME.legal_actions(s, 0))} == {"R", "BR", "BL", "L", "TL"}
    s, _ = act(s, {"type": "move-rival", "hex": "R"})
    assert types(s) == {"move-rival", "stop-rival"}
    s, ev = act(s, {"type": "stop-rival"}, Dice(2))
    assert s.rival is not None and s.rival.hex == "R" and s.rival.die == 2
    assert ev[0] == {"type": "rival-die-rolled", "seat": 0, "value": 2, "text": "Yellow rolled the rival's die: 2."}
    assert types(s) == {"rival-trade", "decline-rival-trade"}
    s, ev = act(s, {"type": "rival-trade"})
    assert s.demand == ("B01", "A01", "A02") and s.seats[0].coins == 0
    s, _ = act(s, {"type": "move", "hex": "BL"})
    s, _ = act(s, {"type": "gather", "good": "stone", "discard": []})
    assert s.seats[0].hex == "BL" and s.seats[0].hold[STONE] == 1


def test_failed_test_against_rival_lowers_its_die() -> None:
    s = position([player(hex="TL", die=1), player(hex="TR")], rival="C", rival_die=4)
    s, _ = act(s, {"type": "move", "hex": "C"}, Dice(3))
    assert s.rival is not None and s.rival.die == 3 and s.seats[0].hex == "TL"


def test_rival_hex_entered_only_once_per_turn() -> None:
    layout = {"C": "metals", "TR": "temple", "R": "market", "BR": "wood", "BL": "stone", "L": "cloth", "TL": "gems"}
    s = position([player(hex="TL", favor=1), player(hex="BR")], layout=layout, rival="C")
    s, _ = act(s, {"type": "declare-influence"})
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, _ = act(s, {"type": "move-rival", "hex": "R"})
    s, _ = act(s, {"type": "stop-rival"}, Dice(6))
    s, _ = act(s, {"type": "decline-rival-trade"})
    assert {"type": "move", "hex": "R"} not in without_undo(GAME.legal_actions(s, 0))
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "move", "hex": "R"}, Dice())
    assert err.value.code == "cannot-move-there" and "once per turn" in err.value.message


# -- specialists (rulebook p.12) ---------------------------------------------------------------------


def test_advisor_example() -> None:
    """The Advisor at the temple has 1 wood and 1 stone; the wood+stone card is not under the
    temple merchant, but the Advisor may use it: 3 favor and 3 VP."""
    s = position([player("advisor", hex="R", favor=1, hold={"wood": 1, "stone": 1}), player(hex="BL"),
                  player(hex="TL")], demand=("A01", "A13", "A02"), merchant=0)
    s, _ = act(s, {"type": "move", "hex": "TR"})
    assert {"type": "donate-goods", "slot": 1} in without_undo(GAME.legal_actions(s, 0))
    s, _ = act(s, {"type": "donate-goods", "slot": 1})
    assert (s.seats[0].favor, s.seats[0].vp, s.seats[0].basic_goods()) == (4, 3, 0)
    other = position([player("priest", hex="R", hold={"wood": 1, "stone": 1}), player(hex="BL"), player(hex="TL")],
                     demand=("A01", "A13", "A02"), merchant=0)
    other, _ = act(other, {"type": "move", "hex": "TR"})
    with pytest.raises(IllegalAction) as err:
        GAME.apply(other, 0, {"type": "donate-goods", "slot": 1}, Dice())
    assert err.value.code == "not-merchant-card"


def test_ambassador_example() -> None:
    """The Yellow player drafts the Ambassador: a cargo tile double side up, 4 holds, 0 favor."""
    state, _ = new_match(2, Options(barriers="random"), Rng.from_seed(3))
    assert state.phase == DRAFT
    state = replace(state, draft_pool=("ambassador", "advisor", "priest"))
    picker = state.active
    state, ev = GAME.apply(state, picker, {"type": "draft-specialist", "specialist": "ambassador"}, Dice())
    p = state.seats[picker]
    assert (p.capacity, p.upgrades, p.favor, state.tiles) == (4, 2, 0, 1)
    assert any(e["type"] == "ambassador-cargo" for e in ev)


def test_chancellor_example() -> None:
    """The Chancellor has cloth but no gems for the gems+cloth card: pays 1 favor for the gem and
    gets the card's coins (3, modifier 0)."""
    s = position([player("chancellor", hex="TR", favor=1, hold={"cloth": 1}), player(hex="BL"), player(hex="R")],
                 demand=("A01", "A08", "A02"), modifiers=(1, 0, -1))
    s, _ = act(s, {"type": "move", "hex": "C"})
    trades = [a for a in without_undo(GAME.legal_actions(s, 0)) if a["type"] == "trade" and a["slot"] == 1]
    assert trades == [{"type": "trade", "slot": 1, "favor_for": ["gems"]}]
    s, _ = act(s, {"type": "trade", "slot": 1, "favor_for": ["gems"]})
    p = s.seats[0]
    assert (p.coins, p.favor, p.hold[CLOTH], s.supply[GEMS]) == (3, 0, 0, 5)


def test_chancellor_may_replace_held_goods_unless_option() -> None:
    """R-10: any of the card's goods, held or not; the option narrows it to missing goods."""
    s = position([player("chancellor", hex="TR", favor=2, hold={"cloth": 1}), player(hex="BL"), player(hex="R")],
                 demand=("A01", "A08", "A02"))
    s, _ = act(s, {"type": "move", "hex": "C"})
    ways = [a["favor_for"] for a in without_undo(GAME.legal_actions(s, 0)) if a["type"] == "trade" and a["slot"] == 1]
    assert ways == [["gems"], ["cloth", "gems"]]
    n = position([player("chancellor", hex="TR", favor=2, hold={"cloth": 1}), player(hex="BL"), player(hex="R")],
                 demand=("A01", "A08", "A02"), options=Options(chancellor_missing_only=True))
    n, _ = act(n, {"type": "move", "hex": "C"})
    assert [a["favor_for"] for a in without_undo(GAME.legal_actions(n, 0)) if a["type"] == "trade" and a["slot"] == 1] == [["gems"]]


def test_harbormaster_example() -> None:
    """The Harbormaster spends 1 favor on an influence move, sails into the occupied wood hex
    without a test and gathers wood, then sails on to the empty temple, donates and buys a
    cargo upgrade."""
    layout = {"C": "temple", "TR": "market", "R": "metals", "BR": "stone", "BL": "cloth", "L": "wood", "TL": "gems"}
    s = position([player("harbormaster", hex="TL", favor=2, coins=2), player(hex="L", die=6), player(hex="BR")],
                 layout=layout, demand=("A01", "A02", "A03"), merchant=0)
    s, _ = act(s, {"type": "declare-influence"})
    s, _ = act(s, {"type": "move", "hex": "L"})
    s, _ = act(s, {"type": "gather", "good": "wood", "discard": []})
    assert "move" in types(s)  # the Harbormaster sails on after acting
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, _ = act(s, {"type": "donate-goods", "slot": 0})
    s, _ = act(s, {"type": "upgrade-cargo"})
    p = s.seats[0]
    assert (p.hex, p.favor, p.vp, p.coins, p.capacity, p.hold[WOOD]) == ("C", 2, 1, 0, 3, 0)
    assert types(s) == {"end-turn"}


def test_harbormaster_limits_stay_per_turn_and_need_an_early_influence_move() -> None:
    """§10 item 5: one good per turn even at two goods hexes; without an influence move declared
    before the first move, acting ends navigation as for everyone."""
    layout = {"C": "stone", "TR": "market", "R": "metals", "BR": "temple", "BL": "cloth", "L": "wood", "TL": "gems"}
    s = position([player("harbormaster", hex="TL", favor=2, capacity=4), player(hex="TR"), player(hex="BR")],
                 layout=layout)
    s, _ = act(s, {"type": "declare-influence"})
    s, _ = act(s, {"type": "move", "hex": "L"})
    s, _ = act(s, {"type": "gather", "good": "wood", "discard": []})
    s, _ = act(s, {"type": "move", "hex": "C"})
    assert "gather" not in types(s)
    late = position([player("harbormaster", hex="TL", favor=2), player(hex="TR"), player(hex="BR")], layout=layout)
    late, _ = act(late, {"type": "move", "hex": "L"})
    late, _ = act(late, {"type": "declare-influence"})
    late, _ = act(late, {"type": "gather", "good": "wood", "discard": []})
    assert "move" not in types(late)
