"""Ophir rules beyond the rulebook's worked examples: setup, barriers, draft, navigation edge
cases, the four UNVERIFIED specialists, the end conditions, scoring, errors, views."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from service.games.base import IllegalAction, InvalidAction, Rng
from service.games.ophir import GAME
from service.games.ophir.data import CUBE_INDEX, DECK_A, DECK_B, LEGAL_BARRIER_PAIRS
from service.games.ophir.state import BARRIERS, DRAFT, OVER, PLAY, Options, State, Turn
from service.games.undo import without_undo
from tests.games.ophir.builders import Dice, act, player, position, types

GOLD, SILVER, WOOD = CUBE_INDEX["gold"], CUBE_INDEX["silver"], CUBE_INDEX["wood"]
A_IDS = {c.id for c in DECK_A}
B_IDS = {c.id for c in DECK_B}


# -- setup --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "tiers"), [
    (2, ("3/1", "4/2", "5/2", "6/3")), (3, ("3/1", "4/2", "5/2", "6/3", "7/4")),
    (4, ("2/1", "3/1", "4/2", "5/2", "6/3", "7/4"))])
def test_setup_by_player_count(players: int, tiers: tuple[str, ...]) -> None:
    s, events = GAME.setup(players, GAME.validate_options({}), Rng.from_seed(11))
    assert s.phase == BARRIERS and s.active == s.start_player and s.tiers == tiers
    assert GAME.view(s, 0)["temple"]["metals_to_finish"] == 3 * len(tiers)
    # 5 unseen A cards removed; 15 A on top of 24 B; 3 dealt to the demand.
    assert len(s.removed) == 5 and set(s.removed) <= A_IDS
    assert len(s.demand) == 3 and len(s.deck) == 36
    assert set(s.demand) | set(s.deck[:12]) == A_IDS - set(s.removed) and set(s.deck[12:]) == B_IDS
    assert sorted(s.modifiers) == [-1, 0, 1] and 0 <= s.merchant <= 2
    assert len(s.draft_pool) == players + 1
    assert s.draft_order == tuple((s.start_player - 1 - k) % players for k in range(players))
    assert s.draft_order[-1] == s.start_player
    assert (s.rival is not None) == (players == 2) and s.tiles == players
    assert all(p.die == 1 and p.coins == 0 and p.capacity == 2 for p in s.seats)
    secret = [e for e in events if "visible_to" in e]
    assert {e["type"] for e in secret} == {"map-tokens-shuffled", "market-shuffled", "specialists-dealt"}
    assert all(tok is None for tok in (h["token"] for h in GAME.view(s, s.start_player)["map"]["hexes"]))


def test_barrier_constraint_and_reveal() -> None:
    assert len(LEGAL_BARRIER_PAIRS) == 48
    s, _ = GAME.setup(2, GAME.validate_options({}), Rng.from_seed(5))
    first = s.active
    s, _ = act(s, {"type": "place-barrier", "edge": 1})  # TL|TR
    edges = {a["edge"] for a in without_undo(GAME.legal_actions(s, first))}
    assert edges == {4, 5, 6, 7, 8, 9, 10}  # nothing else touching TL or TR
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, first, {"type": "place-barrier", "edge": 3}, Dice())
    assert err.value.code == "barrier-closes-hex"
    s, ev = act(s, {"type": "place-barrier", "edge": 7})
    assert s.phase == DRAFT and s.revealed and s.barriers == (1, 7)
    temple, market = s.hex_of("temple"), s.hex_of("market")
    assert all(p.hex == temple for p in s.seats) and s.rival is not None and s.rival.hex == market
    assert s.rival.die == 4 and any(e["type"] == "map-revealed" for e in ev)
    assert s.active == s.draft_order[0] != s.start_player


def test_draft_in_reverse_turn_order_and_hidden_pool() -> None:
    s, _ = GAME.setup(3, GAME.validate_options({"barriers": "random"}), Rng.from_seed(21))
    assert s.phase == DRAFT and len(s.barriers) == 2
    order = s.draft_order
    outsider = next(i for i in range(3) if i != order[0])
    assert GAME.view(s, outsider)["draft"]["offered"] is None
    assert GAME.view(s, order[0])["draft"]["offered"] == list(s.draft_pool)
    assert without_undo(GAME.legal_actions(s, outsider)) == []
    for k, seat in enumerate(order):
        assert s.active == seat and len(s.draft_pool) == 4 - k
        s, _ = act(s, without_undo(GAME.legal_actions(s, seat))[0])
    assert s.phase == PLAY and s.active == s.start_player and s.market_revealed
    assert s.returned_specialist is not None and all(p.specialist for p in s.seats)
    assert all(p.favor == {"advisor": 1, "ambassador": 0, "chancellor": 1, "harbormaster": 2, "moneychanger": 2,
                           "navigator": 1, "priest": 2, "temple_guard": 2}[str(p.specialist)] for p in s.seats)
    assert GAME.view(s, None)["market"]["future"]["id"] == s.deck[0]


# -- navigation --------------------------------------------------------------------------------------


def test_navigation_is_compulsory() -> None:
    s = position([player(hex="TR", favor=1), player(hex="C"), player(hex="BL")])
    assert types(s) == {"move", "declare-influence", "anchor"}
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "end-turn"}, Dice())
    assert err.value.code == "navigate-first"


def test_no_anchor_after_a_successful_move_or_an_influence_move() -> None:
    s = position([player(hex="TR", favor=3), player(hex="BL"), player(hex="TL")])
    moved, _ = act(s, {"type": "move", "hex": "R"})
    assert "anchor" not in types(moved)
    declared, _ = act(s, {"type": "declare-influence"})
    assert types(declared) == {"move"}
    with pytest.raises(IllegalAction):
        GAME.apply(declared, 0, {"type": "declare-influence"}, Dice())


def test_second_move_failure_keeps_the_first_hex_actions() -> None:
    s = position([player(hex="TR", die=1), player(hex="BR", die=6), player(hex="TL")])
    s, _ = act(s, {"type": "move", "hex": "R"})
    s, _ = act(s, {"type": "move", "hex": "BR"}, Dice(2))
    assert s.seats[0].hex == "R" and s.seats[1].die == 5 and s.turn is not None and s.turn.nav_over
    assert "buy-metal" not in types(s) and "end-turn" in types(s)  # no coins: nothing to buy


def test_barriers_block_movement_but_not_the_navigator() -> None:
    s = position([player("navigator", hex="TR", die=1), player(hex="R", die=6), player(hex="BL")], barriers=(3, 7))
    legal = {a["hex"] for a in without_undo(GAME.legal_actions(s, 0)) if a["type"] == "move"}
    assert legal == {"C", "R", "TL"}  # the Navigator sees through the TR|R barrier
    s, ev = act(s, {"type": "move", "hex": "R"})  # no roll: Dice() has none
    assert s.seats[0].hex == "R" and s.seats[1].die == 6 and "Navigator" in ev[0]["text"]
    plain = position([player(hex="TR"), player(hex="R"), player(hex="BL")], barriers=(3, 7))
    assert {a["hex"] for a in without_undo(GAME.legal_actions(plain, 0)) if a["type"] == "move"} == {"C", "TL"}
    with pytest.raises(IllegalAction) as err:
        GAME.apply(plain, 0, {"type": "move", "hex": "R"}, Dice())
    assert err.value.code == "cannot-move-there"


def test_temple_guard_adds_one_up_to_six() -> None:
    s = position([player("temple_guard", hex="TR"), player(hex="C", die=6), player(hex="BL")])
    won, ev = act(s, {"type": "move", "hex": "C"}, Dice(5))
    assert won.seats[0].die == 6 and ev[0]["success"] and ev[0]["roll"] == 5
    capped, _ = act(s, {"type": "move", "hex": "C"}, Dice(6))
    assert capped.seats[0].die == 6


def test_a_die_showing_one_cannot_be_beaten_down() -> None:
    s = position([player(hex="TR"), player(hex="C", die=1), player(hex="BL")])
    s, ev = act(s, {"type": "move", "hex": "C"}, Dice(1))
    assert ev[0]["success"] and s.seats[1].die == 1


# -- specialists --------------------------------------------------------------------------------------


def test_priest_gains_favor_at_the_temple_even_after_failing() -> None:
    s = position([player("priest", hex="R", favor=6), player(hex="BL"), player(hex="TL")])
    s, _ = act(s, {"type": "move", "hex": "TR"})
    s, ev = act(s, {"type": "end-turn"})
    assert s.seats[0].favor == 6 and ev[0]["favor"] == 0  # capped
    fail = position([player("priest", hex="TR", favor=2), player(hex="C", die=6), player(hex="R", die=6),
                     player(hex="TL", die=6)])
    fail, _ = act(fail, {"type": "move", "hex": "C"}, Dice(1))
    fail, ev = act(fail, {"type": "move", "hex": "R"}, Dice(1))
    assert fail.seats[0].favor == 3 and any(e["type"] == "priest-favor" for e in ev)
    strict = replace(position([player("priest", hex="TR", favor=2), player(hex="C", die=6), player(hex="R", die=6),
                               player(hex="TL", die=6)]), options=Options(priest_voluntary_only=True))
    strict, _ = act(strict, {"type": "move", "hex": "C"}, Dice(1))
    strict, _ = act(strict, {"type": "move", "hex": "R"}, Dice(1))
    assert strict.seats[0].favor == 2


def test_moneychanger_trades_at_the_temple_instead_of_donating() -> None:
    s = position([player("moneychanger", hex="R", hold={"wood": 2}), player(hex="BL"), player(hex="TL")],
                 demand=("A01", "A04", "A09"), merchant=0, modifiers=(1, 0, -1))
    s, _ = act(s, {"type": "move", "hex": "TR"})
    legal = without_undo(GAME.legal_actions(s, 0))
    assert {"type": "trade", "slot": 1, "favor_for": []} in legal and {"type": "donate-goods", "slot": 0} in legal
    s, _ = act(s, {"type": "trade", "slot": 0, "favor_for": []})
    assert s.seats[0].coins == 2 and "donate-goods" not in types(s) and "trade" not in types(s)
    other = position([player("advisor", hex="R", hold={"wood": 2}), player(hex="BL"), player(hex="TL")],
                     demand=("A01", "A04", "A09"))
    other, _ = act(other, {"type": "move", "hex": "TR"})
    assert "trade" not in types(other)


def test_ambassador_cannot_upgrade_and_upgrades_stop_at_two() -> None:
    s = position([player("ambassador", hex="R", coins=9, capacity=4, upgrades=2), player(hex="BL"),
                  player(hex="TL")])
    s, _ = act(s, {"type": "move", "hex": "TR"})
    assert "upgrade-cargo" not in types(s)
    t = position([player(hex="R", coins=9, capacity=3, upgrades=1), player(hex="BL"), player(hex="TL")])
    t, _ = act(t, {"type": "move", "hex": "TR"})
    t, _ = act(t, {"type": "upgrade-cargo"})
    assert (t.seats[0].capacity, t.seats[0].upgrades, t.seats[0].coins, t.tiles) == (4, 2, 7, 3)


# -- metals and holds -----------------------------------------------------------------------------


def test_metal_needs_two_spaces_and_metals_are_never_thrown_back() -> None:
    s = position([player(hex="TR", coins=9, hold={"gold": 1}), player(hex="BL"), player(hex="TL")])
    s, _ = act(s, {"type": "move", "hex": "R"})
    assert "buy-metal" not in types(s)
    t = position([player(hex="TR", coins=9, hold={"wood": 1}), player(hex="BL"), player(hex="TL")])
    t, _ = act(t, {"type": "move", "hex": "R"})
    with pytest.raises(IllegalAction) as err:
        GAME.apply(t, 0, {"type": "buy-metal", "metal": "gold", "pay": "coins", "discard": []}, Dice())
    assert err.value.code == "bad-discard"
    t, _ = act(t, {"type": "buy-metal", "metal": "gold", "pay": "coins", "discard": ["wood"]})
    assert t.seats[0].coins == 6 and t.seats[0].hold[GOLD] == 1  # 3/1 tier: gold 3 coins


def test_no_discard_when_there_is_room() -> None:
    s = position([player(hex="BL", favor=1, hold={"wood": 1}), player(hex="C"), player(hex="R")])
    s, _ = act(s, {"type": "anchor"})
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "gather", "good": "cloth", "discard": ["wood"]}, Dice())
    assert err.value.code == "bad-discard"


# -- end of the game and scoring -------------------------------------------------------------------


def test_completing_the_last_tier_ends_at_once_and_leftover_metals_score() -> None:
    """End A (§8): the completing metal keeps its VP; the metal not yet donated stays and scores
    5 (gold); no Priest favor; leftover silver scores 3."""
    s = position([player("priest", hex="R", favor=1, hold={"silver": 1, "gold": 1}, capacity=4, upgrades=2),
                  player(hex="BL", hold={"silver": 1}, vp=12)], rival="TL", tier=3, temple=("gold", "gold"))
    s, _ = act(s, {"type": "move", "hex": "TR"})
    s, ev = act(s, {"type": "donate-metal", "metal": "silver"})
    assert s.phase == OVER and s.end_reason == "temple-complete" and ev[-1]["type"] == "game-ended"
    assert GAME.active_seats(s) == [] and without_undo(GAME.legal_actions(s, 0)) == [] and s.seats[0].favor == 1
    result = GAME.outcome(s)
    assert result is not None
    assert result.scores == (5 + 5, 12 + 3) and result.ranks == (2, 1)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "end-turn"}, Dice())
    assert err.value.code == "game-over"


def test_market_exhaustion_ends_on_the_shift_that_finds_no_card() -> None:
    """End B (§10 item 4): the shift that slides the last deck card in leaves no future card;
    the next shift cannot refill the demand and ends the game. With ``reveal`` it is one earlier."""
    def at_market(options: Options) -> State:
        return position([player(hex="TR", hold={"wood": 2}, capacity=2), player(hex="BL"), player(hex="TL")],
                        demand=("A01", "A04", "A09"), deck=("B05",), options=options)
    s = at_market(Options())
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, _ = act(s, {"type": "trade", "slot": 0, "favor_for": []})
    assert s.phase == PLAY and s.deck == () and s.demand == ("B05", "A01", "A04")
    assert GAME.view(s, 0)["market"]["future"] is None
    s = replace(s, turn=Turn("C", moves=1, moved=True))  # a later turn at the market
    s, ev = act(s, {"type": "trade", "slot": 1, "favor_for": []})
    assert ev[-1]["type"] == "game-ended"
    assert s.phase == OVER and s.end_reason == "market-exhausted" and s.seats[0].coins == 2 + 1
    r = at_market(Options(end_on_empty_deck="reveal"))
    r, _ = act(r, {"type": "move", "hex": "C"})
    r, _ = act(r, {"type": "trade", "slot": 0, "favor_for": []})
    assert r.phase == OVER and r.end_reason == "market-exhausted"


def test_rival_trade_can_end_the_game() -> None:
    layout = {"C": "metals", "TR": "temple", "R": "market", "BR": "wood", "BL": "stone", "L": "cloth", "TL": "gems"}
    s = position([player(hex="TL", favor=1), player(hex="TR")], layout=layout, rival="C", deck=())
    s, _ = act(s, {"type": "declare-influence"})
    s, _ = act(s, {"type": "move", "hex": "C"})
    s, _ = act(s, {"type": "move-rival", "hex": "R"})
    s, _ = act(s, {"type": "stop-rival"}, Dice(3))
    s, _ = act(s, {"type": "rival-trade"})
    assert s.phase == OVER and s.end_reason == "market-exhausted"


def test_tie_breaks_favor_then_coins_then_goods_then_shared() -> None:
    seats = [player(vp=10, favor=2, coins=1), player(vp=10, favor=2, coins=3), player(vp=10, favor=3),
             player(vp=4, coins=5, hold={"wood": 1}), player(vp=4, coins=5, hold={"gold": 1})]
    s = replace(position(seats[:4]), phase=OVER, turn=None, end_reason="temple-complete")
    result = GAME.outcome(s)
    assert result is not None and result.ranks == (3, 2, 1, 4)
    t = replace(position([seats[3], player(vp=4, coins=5, hold={"wood": 1})]), phase=OVER, turn=None,
                end_reason="market-exhausted")
    tied = GAME.outcome(t)
    assert tied is not None and tied.ranks == (1, 1) and tied.detail["trail"][-1]["shared"] is True
    u = replace(position([seats[3], seats[4]]), phase=OVER, turn=None, end_reason="market-exhausted")
    metal = GAME.outcome(u)
    assert metal is not None and metal.scores == (4, 9) and metal.ranks == (2, 1)


# -- errors, views, words ----------------------------------------------------------------------------


@pytest.mark.parametrize("action", [
    {"type": "fly"}, {"type": "move"}, {"type": "move", "hex": "Z"}, {"type": "end-turn", "x": 1},
    {"type": "trade", "slot": 3}, {"type": "gather", "good": "gold"}, {"type": "place-barrier", "edge": "1"},
    {"type": "buy-metal", "metal": "gold", "pay": "beads"},
])
def test_malformed_actions_are_invalid(action: dict[str, object]) -> None:
    s = position([player(hex="TR"), player(hex="C"), player(hex="BL")])
    with pytest.raises(InvalidAction):
        GAME.apply(s, 0, action, Dice())


def test_wrong_seat_and_wrong_phase_are_illegal() -> None:
    s = position([player(hex="TR"), player(hex="C"), player(hex="BL")])
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 1, {"type": "move", "hex": "R"}, Dice())
    assert err.value.code == "not-your-turn"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "place-barrier", "edge": 1}, Dice())
    assert err.value.code == "wrong-phase"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "move-rival", "hex": "R"}, Dice())
    assert err.value.code == "no-rival-move"


def test_view_hides_other_vp_and_render_and_words() -> None:
    s = position([player(hex="TR", vp=17), player(hex="C", vp=23), player(hex="BL")])
    v0 = GAME.view(s, 0)
    assert v0["players"][0]["vp"] == 17 and "vp" not in v0["players"][1]
    assert all("vp" not in p for p in GAME.view(s, None)["players"])
    text = GAME.render(v0)
    assert "17 VP" in text and "23" not in text.split("PLAYERS")[1]
    assert "stand 1:" in text and "TEMPLE: tier 3/1" in text
    assert GAME.describe_action({"type": "buy-metal", "metal": "gold", "pay": "favor", "discard": ["wood"]}) == (
        "buy one gold with favor, throwing back wood")
    assert GAME.seat_names(3) == ["Yellow", "Green", "Blue"]
    entry = GAME.describe()
    json.dumps(entry)
    assert {a["type"] for a in entry["actions"]} == set(GAME.actions) == set(GAME.action_schemas)
    assert any(p["path"] == "leftover_vp.silver" and p["value"] == 3 for p in entry["provisional"])
