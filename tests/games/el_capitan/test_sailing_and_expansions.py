"""Sailing (§5.2, R-7, R-10), card displays (§5.3), the off-board cities (§8.1), Lisboa's immediate
payment (§8.3) and the pirate ship (§8.4)."""

from __future__ import annotations

from service.games.el_capitan import data as D
from service.games.el_capitan.payday import income
from service.games.el_capitan.state import BANK, FREE, PIRATE, replace

from .helpers import B, G, R, Y, act, anchor, city, fresh, legal, player, refused, set_city, set_player, turn

BASE = [c.id for c in D.BASE_CITIES]


def targets(s, seat, card):  # type: ignore[no-untyped-def]
    return sorted(a["to"] for a in legal(s, seat, "sail") if a["card"] == card)


def test_marseille_card_three_seals_from_valencia_reaches_every_city() -> None:
    assert D.CARDS["D01"].city == "marseille" and D.CARDS["D01"].seals == 3
    s = set_player(anchor(fresh(4), 0, "valencia"), 0, hand=("D01",))
    assert targets(s, 0, "D01") == sorted(c for c in BASE if c != "valencia")


def test_connection_card_either_direction_only_from_its_cities() -> None:
    assert D.CARDS["C13"].cost == 3 and {D.CARDS["C13"].a, D.CARDS["C13"].b} == {"venezia", "tanger"}
    s = set_player(anchor(fresh(4), 0, "tanger"), 0, hand=("C13",))
    assert targets(s, 0, "C13") == ["venezia"]
    s = anchor(s, 0, "napoli")
    assert targets(s, 0, "C13") == []


def test_from_the_bank_or_at_game_start_only_as_destination() -> None:
    s = set_player(fresh(4), 0, hand=("D03", "C01"))  # Venezia 2 seals; Marseille-Venezia
    assert targets(s, 0, "D03") == ["venezia"] and targets(s, 0, "C01") == []
    s = set_player(s, 0, ship=BANK)
    assert targets(s, 0, "D03") == ["venezia"] and targets(s, 0, "C01") == []


def test_full_harbour_passing_through_and_back_to_origin_r7() -> None:
    s = fresh(4)
    s = anchor(s, 1, "napoli")
    s = anchor(s, 2, "napoli")
    s = set_player(anchor(turn(s, 0), 0, "marseille"), 0, hand=("C04", "C11", "C01"))
    s, _ev = act(s, 0, {"type": "sail", "card": "C04", "to": "napoli"})
    assert player(s, 0).ship == s.city_ids.index("napoli") and player(s, 0).berth == -1
    assert city(s, "marseille").harbours == (FREE, FREE)
    assert legal(s, 0, "build-warehouse") == [] and legal(s, 0, "end-turn") == []
    assert refused(s, 0, {"type": "build-warehouse"}).code == "not-anchored"
    s, _ev = act(s, 0, {"type": "sail", "card": "C11", "to": "venezia"})
    assert player(s, 0).berth == 0
    s, _ev = act(s, 0, {"type": "sail", "card": "C01", "to": "marseille"})
    # Back where the voyage began: no building there.
    assert legal(s, 0, "build-warehouse") == []
    assert refused(s, 0, {"type": "build-warehouse"}).code == "back-to-origin"


def test_display_refilled_only_at_turn_end_and_deck_reshuffled() -> None:
    s = anchor(fresh(3), 0, "tunis")
    s = replace(s, dest_deck=(), dest_discard=("D05", "D06"))
    card = s.dest_display[0]
    s, _ev = act(s, 0, {"type": "buy-card", "card": card})
    assert len(s.dest_display) == 3
    s, _ev = act(s, 0, {"type": "build-warehouse", "site": 1})
    s, _ev = act(s, 0, {"type": "buy-card", "card": s.conn_display[0]})
    s, ev = act(s, 0, {"type": "end-turn"})
    assert len(s.dest_display) == 4 and len(s.conn_display) == 6
    shuffled = [e for e in ev if e["type"] == "deck-shuffled"]
    assert shuffled and shuffled[0]["deck"] == "destination" and shuffled[0]["visible_to"] == []
    assert s.dest_discard == () and len(s.dest_deck) == 1


def test_lisboa_distances_and_off_board_rules() -> None:
    s = fresh(4, ["lisboa"])
    # From Valencia one seal; from Napoli, Marseille or Tanger two; from Constantinople or Alexandria four.
    one, two, three = "D08", "D03", "D01"  # 1, 2 and 3 seals
    assert [D.CARDS[c].seals for c in (one, two, three)] == [1, 2, 3]
    s = set_player(s, 0, hand=(one, two, three))
    for start, need in (("valencia", 1), ("napoli", 2), ("marseille", 2), ("tanger", 2), ("constantinople", 4), ("alexandria", 4)):
        s = anchor(s, 0, start)
        reach = [c for c in (one, two, three) if "lisboa" in targets(s, 0, c)]
        assert reach == [c for c in (one, two, three) if D.CARDS[c].seals >= need], start
    # Not from the bank or off the board with one card.
    s = set_player(s, 0, ship=BANK, berth=-1)
    assert all("lisboa" not in targets(s, 0, c) for c in (one, two, three))
    # Leaving an off-board city takes a destination card; connection cards never name it.
    s = set_player(anchor(s, 0, "lisboa"), 0, hand=("C22",))
    assert legal(s, 0, "sail") == []


def test_porto_to_canarias_two_seals_without_lisboa() -> None:
    s = set_player(fresh(4, ["porto", "canarias"]), 0, hand=("D03", "D05"))  # 2 seals, 1 seal
    s = anchor(s, 0, "porto")
    assert "canarias" in targets(s, 0, "D03") and "canarias" not in targets(s, 0, "D05")


def test_lisboa_immediate_payment_4_4_then_3() -> None:
    s = fresh(4, ["lisboa"])
    ld = D.ALL_CITIES["lisboa"]
    assert ld.harbours == (0, 1) and (ld.track[2], ld.track[3]) == (4, 6) and len(ld.dark) == 2
    # Yellow builds first, on site 2, free on the first harbour space, and receives 4.
    s = anchor(turn(s, 1), 1, "lisboa")
    s, ev = act(s, 1, {"type": "build-warehouse", "site": 2})
    assert player(s, 1).money == 20 + 4
    assert [e["amount"] for e in ev if e["type"] == "immediate-payment"] == [4]
    # Red must build on site 1 (paying 1 on the second space) and, first by position, also receives 4.
    s = anchor(turn(s, 0), 0, "lisboa")
    s, _ev = act(s, 0, {"type": "build-warehouse"})
    assert city(s, "lisboa").sites[:2] == (R, Y) and player(s, 0).money == 20 - 1 + 4
    # Blue on site 3 is not first: half of 6 = 3.
    s = anchor(s, 1, "tunis")
    s = anchor(turn(s, 3), 3, "lisboa")
    s, _ev = act(s, 3, {"type": "build-warehouse"})
    assert player(s, 3).money == 20 + 3
    # Lisboa also scores at payday: everyone present gets half, the first the full value.
    inc = income(s)
    v = ld.track[3]
    assert inc[0]["majority"] == {"lisboa": v} and inc[1]["majority"] == {"lisboa": v // 2}
    assert inc[3]["majority"] == {"lisboa": v // 2}


def test_lisboa_reopen_pays_nothing_r19() -> None:
    s = fresh(4, ["lisboa"])
    closed = [0] * len(D.COLOURS)
    closed[B] = 1
    s = set_city(s, "lisboa", sites=(FREE, Y, R), shutdowns=1, closed=tuple(closed))
    s = anchor(turn(s, 3), 3, "lisboa")
    s, ev = act(s, 3, {"type": "reopen"})
    assert player(s, 3).money == 20 and not [e for e in ev if e["type"] == "immediate-payment"]


def _pirate_scene(phase: int) -> object:
    s = fresh(4, ["canarias"])
    s = replace(s, phase=phase)
    assert city(s, "canarias").harbours == (FREE, PIRATE)
    s = set_city(s, "marseille", sites=(Y, Y, G), forts=(Y, FREE))
    s = set_city(s, "napoli", sites=(R,))
    s = set_player(anchor(turn(s, 0), 0, "tanger"), 0, hand=("D05",))  # 1 seal
    s, _ev = act(s, 0, {"type": "sail", "card": "D05", "to": "canarias"})
    return s


def test_pirate_protection_money_by_phase_1_2_3() -> None:
    for phase, fee in ((1, 1), (2, 2), (3, 3)):
        s = _pirate_scene(phase)
        assert player(s, 0).berth == 0
        free = legal(s, 0, "move-pirate")
        assert free and all(a["means"] == "free" for a in free)
        assert {a["to"] for a in free} == set(BASE)  # not Canarias itself
        s, _ev = act(s, 0, {"type": "build-warehouse", "site": 1})
        assert legal(s, 0, "end-turn") == []  # the free move is compulsory
        money = [p.money for p in s.players]
        s, _ev = act(s, 0, {"type": "move-pirate", "to": "marseille", "harbour": 1, "means": "free"})
        # Yellow: 2 warehouses + 1 fortress; Green: 1 warehouse.
        assert player(s, 1).money == money[1] - 3 * fee
        assert player(s, 2).money == money[2] - fee
        assert player(s, 0).money == money[0] + 4 * fee
        assert legal(s, 0, "end-turn") == [{"type": "end-turn"}]
        assert legal(s, 0, "move-pirate") == [] and legal(s, 0, "sail") == []


def test_pirate_fee_takes_all_cash_when_short_and_bumps_a_ship() -> None:
    s = _pirate_scene(3)
    s = set_player(s, 2, money=1)
    s = anchor(s, 3, "marseille")
    s, ev = act(s, 0, {"type": "move-pirate", "to": "marseille", "harbour": 1, "means": "free"})
    assert player(s, 2).money == 0
    assert city(s, "marseille").harbours == (PIRATE, 3) and player(s, 3).berth == 1
    assert any(e["type"] == "ship-bumped" for e in ev)
    assert player(s, 3).money == 20  # Blue has no buildings there


def test_paid_pirate_move_two_per_step_no_fee_once_per_turn() -> None:
    s = fresh(4, ["canarias"])
    s = set_city(s, "tanger", sites=(Y,))
    s = set_player(anchor(turn(s, 0), 0, "tunis"), 0, money=7)
    paid = [a for a in legal(s, 0, "move-pirate") if a["means"] == "money"]
    # 7 Florin pay for up to 3 steps from Islas Canarias.
    assert {a["to"] for a in paid} == {"tanger", "valencia", "tunis", "marseille", "napoli", "alexandria"}
    s, _ev = act(s, 0, {"type": "move-pirate", "to": "tanger", "harbour": 2, "means": "money"})
    assert player(s, 0).money == 7 - 2 and player(s, 1).money == 20
    assert legal(s, 0, "move-pirate") == []
    assert refused(s, 0, {"type": "move-pirate", "to": "tunis", "harbour": 2, "means": "money"}).code == "pirate-moved"


def test_rulebook_chain_destination_to_tanger_then_connection_to_alexandria() -> None:
    # §5.2 example: a destination card to Tanger, then the Tanger-Alexandria connection card. Only the city where
    # the player builds needs a free harbour space: Tanger is full, the ship passes through it.
    s = fresh(4, round_=1, seat=2)
    s = anchor(s, 0, "tanger")
    s = anchor(s, 1, "tanger")
    s = set_player(turn(s, 2), 2, hand=("D14", "C35"))  # Tanger (1 seal); Tanger-Alexandria
    assert targets(s, 2, "D14") == ["tanger"] and targets(s, 2, "C35") == []  # off the board: destination use only
    s, _ev = act(s, 2, {"type": "sail", "card": "D14", "to": "tanger"})
    assert player(s, 2).berth == -1 and legal(s, 2, "build-warehouse") == []
    s, _ev = act(s, 2, {"type": "sail", "card": "C35", "to": "alexandria"})
    assert player(s, 2).berth == 0 and player(s, 2).hand == ()
    s, _ev = act(s, 2, {"type": "build-warehouse", "site": 1})
    assert player(s, 2).money == 20 - D.ALL_CITIES["alexandria"].harbours[0]
    assert s.dest_discard == ("D14",) and s.conn_discard == ("C35",)


def test_buying_after_the_action_is_not_tentative() -> None:
    # the turn commits with its mandatory action; a card bought afterwards is no tentative step and keeps
    # no turn-start snapshot (the snapshot is what a loan turn or a first-round pass would go back to).
    s = anchor(fresh(3), 0, "tunis")
    s, _ev = act(s, 0, {"type": "buy-card", "card": s.conn_display[0]})
    assert s.turn.snapshot is not None
    s, _ev = act(s, 0, {"type": "build-warehouse", "site": 1})
    assert s.turn.snapshot is None
    s, _ev = act(s, 0, {"type": "buy-card", "card": s.conn_display[0]})
    assert s.turn.snapshot is None and len(player(s, 0).hand) == 2
