"""Rulebook payday examples: majority with ties by position (20/10, 16/8), fortress income, the
proliferation table and bonus cards, loans repaid or extended (12/16, 20/30), the money check and
the start-player choice, phase end and game end."""

from __future__ import annotations

from service.games.el_capitan import data as D
from service.games.el_capitan.payday import income
from service.games.el_capitan.state import CHOOSE_START, FREE, OVER, SETTLE, State, replace

from .helpers import B, G, R, Y, act, anchor, fresh, legal, player, refused, set_city, set_player, turn

_ = FREE

# Sites 3..12 of the rulebook's "10 warehouses, leader gets 20" city: Green 3 (first at site 4),
# Blue 3 (first at site 5), Red 2, Yellow 2.
TEN = (FREE, FREE, R, G, B, G, B, Y, G, B, R, Y)


def test_majority_tie_broken_by_first_warehouse_20_and_10() -> None:
    s = fresh(4)
    s = set_city(s, "marseille", sites=TEN, shutdowns=2)
    inc = income(s)
    assert inc[2]["majority"] == {"marseille": 20}  # Green
    assert inc[3]["majority"] == {"marseille": 10}  # Blue
    assert inc[0]["majority"] == {} and inc[1]["majority"] == {}
    # If Red builds next (backwards, on site 2), Red is first and Green second.
    s = anchor(turn(s, 0), 0, "marseille")
    s, _ev = act(s, 0, {"type": "build-warehouse"})
    inc = income(s)
    assert inc[0]["majority"] == {"marseille": 20}
    assert inc[2]["majority"] == {"marseille": 10}
    assert inc[3]["majority"] == {}


def test_fortress_income_half_or_full_in_the_city_with_most_warehouses() -> None:
    s = fresh(4)
    s = set_city(s, "marseille", sites=TEN, shutdowns=2, forts=(G, R))
    # Marseille has the most warehouses (10): each fortress earns the leader's 20.
    inc = income(s)
    assert inc[2]["fortresses"] == {"marseille": 20} and inc[0]["fortresses"] == {"marseille": 20}
    assert inc[2]["total"] == 20 + 20 and inc[0]["total"] == 20 and inc[3]["total"] == 10
    # Another city with 11 warehouses: Marseille's fortresses earn half, 10 each.
    s = set_city(s, "napoli", sites=(FREE, Y, B, Y, B, Y, B, Y, B, Y, B, Y), shutdowns=1)
    inc = income(s)
    assert inc[2]["fortresses"] == {"marseille": 10} and inc[0]["fortresses"] == {"marseille": 10}
    # Tied for the most: every such city pays the full amount.
    s = set_city(s, "napoli", sites=(FREE, FREE, Y, B, Y, B, Y, B, Y, B, Y, B), shutdowns=2, forts=(B, FREE))
    inc = income(s)
    assert inc[0]["fortresses"] == {"marseille": 20} and inc[3]["fortresses"] == {"napoli": 20}
    # A city without operating warehouses pays nothing for its fortresses.
    s = set_city(s, "tunis", forts=(Y, FREE))
    assert "tunis" not in income(s)[1]["fortresses"]


def test_three_way_tie_16_and_8_closed_warehouse_does_not_count() -> None:
    s = fresh(4)
    closed = [0] * len(D.COLOURS)
    closed[B] = 1
    s = set_city(s, "marseille", sites=(FREE, R, B, Y, R, B, Y), shutdowns=1, closed=tuple(closed))
    assert D.ALL_CITIES["marseille"].track[7] == 16
    inc = income(s)
    assert inc[0]["majority"] == {"marseille": 16}
    assert inc[3]["majority"] == {"marseille": 8}
    assert inc[1]["majority"] == {}
    # The rulebook's rounding: a first place worth 15 pays 7 to the second.
    s = set_city(s, "marseille", sites=(FREE, R, B, Y, R, B), shutdowns=1)
    assert D.ALL_CITIES["marseille"].track[6] == 15
    inc = income(s)
    assert inc[0]["majority"] == {"marseille": 15} and inc[3]["majority"] == {"marseille": 7}


def test_proliferation_table() -> None:
    assert (D.CHART[3], D.CHART[4], D.CHART[9], D.CHART[10], D.CHART[11], D.CHART[12]) == (5, 10, 60, 75, 90, 110)
    s = fresh(4)
    for k, name in enumerate(("marseille", "venezia", "napoli", "tunis")):
        s = set_city(s, name, sites=(R,) if k else (R, Y))
    inc = income(s)
    assert inc[0]["cities"] == 4 and inc[0]["proliferation"] == 10  # four cities: 10 Florin
    assert inc[1]["proliferation"] == 0
    # Closed warehouses and fortresses do not count.
    closed = [0] * len(D.COLOURS)
    closed[Y] = 3
    s = set_city(s, "athina", closed=tuple(closed), forts=(Y, FREE))
    assert income(s)[1]["cities"] == 1


def _present_in(s: State, seat_colour: int, cities: list[str]) -> State:
    for name in cities:
        s = set_city(s, name, sites=(seat_colour,))
    return s


def test_proliferation_bonus_cards_in_order_kept_after_shutdown_and_paid_at_the_end() -> None:
    s = fresh(4)
    base = [c.id for c in D.BASE_CITIES]
    s = _present_in(s, R, base[:8])
    s = anchor(turn(s, 0), 0, base[8])
    s, ev = act(s, 0, {"type": "build-warehouse", "site": 1})
    assert player(s, 0).bonus == 15 and s.bonus_left == (10, 5)
    assert any(e["type"] == "bonus-card" and e["value"] == 15 for e in ev)
    # Yellow is next to reach nine cities and takes the 10.
    for name in base[:8]:
        s = set_city(s, name, sites=(R, Y))
    s = anchor(s, 0, "napoli")
    s = anchor(turn(s, 1), 1, base[8])
    s, _ev = act(s, 1, {"type": "build-warehouse"})
    assert player(s, 1).bonus == 10 and s.bonus_left == (5,)
    # Red loses a city to a shut-down but keeps the card; it is paid at the third payday.
    s = set_city(s, "marseille", sites=(FREE, Y))
    assert player(s, 0).bonus == 15
    s = replace(s, phase=3, ending=True)
    s = set_player(s, 0, loans=((10, True), (16, False)))
    s = anchor(turn(s, 3), 3, "tunis")
    s, _ev = act(s, 3, {"type": "build-warehouse"})
    money = [p.money for p in s.players]
    inc = income(s)
    s, ev = act(s, 3, {"type": "end-turn"})
    assert s.stage == OVER
    # Red: income + 15 bonus - 16 (extended 10 loan) - 20 (16 loan, front side).
    assert player(s, 0).money == money[0] + inc[0]["total"] + 15 - 16 - 20
    assert player(s, 1).money == money[1] + inc[1]["total"] + 10
    assert player(s, 0).loans == ()


def _at_payday(s: State) -> State:
    """Seat before the start player has acted with the phase end triggered: its end-turn is the payday."""
    s = replace(s, ending=True)
    last = (s.start - 1) % s.n
    s = turn(s, last)
    return replace(s, turn=replace(s.turn, acted=True))


def test_loans_repaid_or_extended_12_16_and_20_30() -> None:
    s = fresh(3)
    s = set_player(s, 0, money=100, loans=((10, False), (16, False)))
    s = set_player(s, 1, money=100, loans=((10, False),))
    s, _ev = act(_at_payday(s), 2, {"type": "end-turn"})
    assert s.stage == SETTLE and s.seat == 0  # from the start player
    assert legal(s, 0) == [{"type": "settle-loan", "loan": 0, "choice": "repay"},
                           {"type": "settle-loan", "loan": 0, "choice": "extend"}]
    s, _ev = act(s, 0, {"type": "settle-loan", "loan": 0, "choice": "repay"})
    assert player(s, 0).money == 88 and player(s, 0).loans == ((16, False),)
    s, _ev = act(s, 0, {"type": "settle-loan", "loan": 0, "choice": "extend"})
    assert player(s, 0).loans == ((16, True),) and player(s, 0).money == 88
    assert s.seat == 1
    s, _ev = act(s, 1, {"type": "settle-loan", "loan": 0, "choice": "extend"})
    assert player(s, 1).loans == ((10, True),)
    # Money check: net worth counts loans at their current repayment value.
    assert s.stage == CHOOSE_START
    # Red 88 - 30 = 58, Yellow 100 - 16 = 84, Green 20: Green is the poorest and chooses.
    assert s.seat == 2
    s, _ev = act(s, 2, {"type": "choose-start-player", "seat": 1})
    assert s.start == 1 and s.phase == 2 and s.seat == 1
    assert player(s, 0).warehouses == 12 and player(s, 0).fortresses == 2  # 6 + 6, 1 + 1
    # The next payday: extended loans must be repaid (30 and 16), no choice left.
    s, _ev = act(_at_payday(s), 0, {"type": "end-turn"})
    assert player(s, 0).money == 88 - 30 and player(s, 0).loans == ()
    assert player(s, 1).money == 100 - 16 and player(s, 1).loans == ()
    assert s.stage == CHOOSE_START


def test_cannot_repay_an_extended_loan_takes_forced_loans() -> None:
    s = fresh(3)
    s = set_player(s, 0, money=5, loans=((16, True),))
    s, _ev = act(_at_payday(s), 2, {"type": "end-turn"})
    assert s.stage == SETTLE and legal(s, 0) == [{"type": "take-loan", "amount": 10}, {"type": "take-loan", "amount": 16}]
    s, _ev = act(s, 0, {"type": "take-loan", "amount": 16})
    assert player(s, 0).money == 21
    s, _ev = act(s, 0, {"type": "take-loan", "amount": 10})
    # 31 covers 30: repaid; the two new loans wait for the next payday.
    assert player(s, 0).money == 1 and player(s, 0).loans == ((16, False), (10, False))
    assert s.stage == CHOOSE_START


def test_repay_needs_the_money() -> None:
    s = fresh(3)
    s = set_player(s, 0, money=11, loans=((10, False),))
    s, _ev = act(_at_payday(s), 2, {"type": "end-turn"})
    assert legal(s, 0) == [{"type": "settle-loan", "loan": 0, "choice": "extend"}]
    assert refused(s, 0, {"type": "settle-loan", "loan": 0, "choice": "repay"}).code == "bad-settlement"


def test_poorest_tie_first_clockwise_from_start_player_chooses() -> None:
    s = fresh(4)
    s = replace(s, start=2)
    for seat, money in enumerate((10, 30, 40, 10)):
        s = set_player(s, seat, money=money)
    s, _ev = act(_at_payday(s), 1, {"type": "end-turn"})
    assert s.stage == CHOOSE_START and s.seat == 3  # seats 3 and 0 tie; 3 comes first from start player 2


def test_no_loan_in_the_first_round_and_a_loan_turn_undoes_purchases() -> None:
    s = fresh(3, round_=1)
    assert legal(s, 0, "take-loan") == []
    assert refused(s, 0, {"type": "take-loan", "amount": 10}).code == "no-loan-first-round"
    s = fresh(3, round_=2)
    card = s.dest_display[0]
    s, _ev = act(s, 0, {"type": "buy-card", "card": card})
    s, _ev = act(s, 0, {"type": "take-loan", "amount": 16})
    assert player(s, 0).money == 20 + 16 and player(s, 0).hand == () and card in s.dest_display
    assert player(s, 0).loans == ((16, False),) and s.seat == 1


def test_phase_ends_at_the_end_of_the_round() -> None:
    s = fresh(3)
    s = set_player(s, 1, warehouses=1, fortresses=0)
    s = anchor(turn(s, 1), 1, "tunis")
    s, _ev = act(s, 1, {"type": "build-warehouse", "site": 1})
    s, ev = act(s, 1, {"type": "end-turn"})
    assert s.ending and s.seat == 2 and any(e["type"] == "phase-ending" for e in ev)
    s = anchor(s, 2, "tanger")
    s, _ev = act(s, 2, {"type": "build-warehouse", "site": 1})
    s, ev = act(s, 2, {"type": "end-turn"})
    assert any(e["type"] == "payday-income" for e in ev) and s.phase == 1 and s.stage == CHOOSE_START


def _stuck_in_round_one(money: int) -> State:
    """Round 1, Blue (seat 3) to act with ``money``: Red and Yellow fill both harbour spaces of Marseille,
    the display offers the 1-seal Marseille card D02 (3 Florin), so buying it and sailing there leaves Blue
    passing through a full city with no card and no money."""
    s = fresh(4, round_=1, seat=3)
    s = anchor(s, 0, "marseille")
    s = anchor(s, 1, "marseille")
    s = set_player(turn(s, 3), 3, money=money)
    s = replace(s, dest_display=("D02", *s.dest_display[1:]), dest_deck=(*s.dest_deck, s.dest_display[0]))
    s, _ev = act(s, 3, {"type": "buy-card", "card": "D02"})
    s, _ev = act(s, 3, {"type": "sail", "card": "D02", "to": "marseille"})
    return s


def test_first_round_pass_from_a_dead_end_rewinds_when_a_turn_was_possible() -> None:
    # buying and sailing are tentative and may be undone back to the turn start; §5.9/R-4: only a player
    # with no legal action in the first round passes. With 20 Florin Blue could have bought a destination card
    # and built (§5.2, R-6), so "pass" from the dead end only undoes the tentative steps and Blue must still act.
    s = _stuck_in_round_one(3)
    assert legal(s, 3) == [{"type": "pass"}]  # 3 Florin: nothing was ever affordable beyond a card
    s20 = _stuck_in_round_one(20)
    s20 = set_player(s20, 3, money=0)  # spent the rest on nothing usable (as if bought and discarded)
    assert legal(s20, 3) == [{"type": "pass"}]
    after, ev = act(s20, 3, {"type": "pass"})
    assert after.seat == 3 and after.round == 1 and after.stage == "turn"
    assert player(after, 3).money == 20 and player(after, 3).hand == () and player(after, 3).ship == player(s20.turn.snapshot, 3).ship
    assert "D02" in after.dest_display and not after.turn.sailed
    assert {a["type"] for a in legal(after, 3)} >= {"buy-card"} and "pass" not in {a["type"] for a in legal(after, 3)}
    assert any(e["type"] == "turn-undone" for e in ev)


def test_first_round_pass_ends_the_turn_when_nothing_was_possible() -> None:
    # §5.9/R-4: with 3 Florin Blue can buy a card but can never afford a warehouse or fortress after it:
    # the pass ends the turn and undoes the tentative purchase, Blue stays off the board.
    s = _stuck_in_round_one(3)
    after, ev = act(s, 3, {"type": "pass"})
    assert after.seat == 0 and after.round == 2
    assert player(after, 3).money == 3 and player(after, 3).hand == () and player(after, 3).ship == -2
    assert any(e["type"] == "passed" for e in ev)
