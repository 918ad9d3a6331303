"""The 2-player rules (§7): main and neutral colours, the supply ratio, the 3/4 run limits, majority
paid only to a main colour in first place, and the phase end."""

from __future__ import annotations

from service.games.el_capitan import GAME
from service.games.el_capitan import data as D
from service.games.el_capitan.payday import income
from service.games.el_capitan.state import CHOOSE_START, FREE, replace

from .helpers import B, G, R, Y, act, anchor, city, fresh, legal, player, refused, set_city, set_player, turn

_ = (FREE, B)


def colours(s, seat):  # type: ignore[no-untyped-def]
    return sorted({str(a.get("colour")) for a in legal(s, seat, "build-warehouse")})


def test_colours_and_supply() -> None:
    assert GAME.seat_names(2) == ["red", "yellow"]
    s = fresh(2)
    # A takes red (main) and green (neutral), B yellow and blue; 6 + 2 warehouses and 1 fortress each.
    assert (player(s, 0).warehouses, player(s, 0).neutral, player(s, 0).fortresses) == (6, 2, 1)
    assert s.pool_warehouses[R] == 12 and s.pool_warehouses[G] == 16


def test_supply_ratio_examples() -> None:
    s = anchor(fresh(2), 0, "tunis")
    assert colours(s, 0) == ["green", "red"]  # (6 + 2): either
    s = set_player(s, 0, warehouses=3, neutral=2)
    assert colours(s, 0) == ["green"]  # (3 + 2): red would leave 2 + 2
    err = refused(s, 0, {"type": "build-warehouse", "site": 1, "colour": "red"})
    assert err.code == "limit"
    s = set_player(s, 0, warehouses=1, neutral=1)
    assert colours(s, 0) == ["green"]  # (1 + 1): the last green first
    s = set_player(s, 0, warehouses=1, neutral=0)
    assert colours(s, 0) == ["red"]  # (1 + 0): the last red empties the supply


def test_example_1_neutral_first_pays_nobody() -> None:
    s = anchor(fresh(2), 0, "tunis")
    s, _ev = act(s, 0, {"type": "build-warehouse", "site": 1, "colour": "green"})
    s = anchor(turn(s, 1), 1, "tunis")
    s, _ev = act(s, 1, {"type": "build-warehouse", "colour": "yellow"})
    assert city(s, "tunis").sites[:2] == (G, Y)
    inc = income(s)
    assert inc[0]["majority"] == {} and inc[1]["majority"] == {}


def test_example_2_both_warehouses_by_a_still_nothing() -> None:
    s = anchor(fresh(2), 0, "tunis")
    s, _ev = act(s, 0, {"type": "build-warehouse", "site": 1, "colour": "green"})
    s, _ev = act(turn(s, 0), 0, {"type": "build-warehouse", "colour": "red"})
    assert city(s, "tunis").sites[:2] == (G, R)
    assert income(s)[0]["majority"] == {}


def test_majority_only_first_place_main_colour_no_second_place() -> None:
    s = fresh(2)
    s = set_city(s, "tunis", sites=(Y, Y, R, R, G))
    inc = income(s)
    v = D.ALL_CITIES["tunis"].track[5]  # the space after site 5
    assert inc[1]["majority"] == {"tunis": v} and inc[0]["majority"] == {}
    # Proliferation counts main colours only.
    s = set_city(s, "napoli", sites=(G,))
    assert income(s)[0]["cities"] == 1


def test_run_limits_three_main_four_own() -> None:
    s = set_city(fresh(2), "tunis", sites=(R, R, R))
    s = anchor(turn(s, 0), 0, "tunis")
    assert colours(s, 0) == ["green"]  # fourth red in a row is out, a fourth own warehouse is fine
    s = set_city(s, "tunis", sites=(R, R, G, R))
    assert colours(s, 0) == []  # five own warehouses in a row
    s = set_city(s, "tunis", sites=(R, G, R, Y))
    assert colours(s, 0) == ["green", "red"]


def test_phase_end_start_player_triggers_other_player_gets_one_more_turn() -> None:
    s = fresh(2)
    s = set_player(s, 0, warehouses=1, neutral=0, fortresses=0)
    s = anchor(s, 0, "tunis")
    s, _ev = act(s, 0, {"type": "build-warehouse", "site": 1, "colour": "red"})
    s, _ev = act(s, 0, {"type": "end-turn"})
    assert s.ending and s.seat == 1 and s.stage == "turn"
    s = anchor(s, 1, "tanger")
    s, _ev = act(s, 1, {"type": "build-warehouse", "site": 1, "colour": "yellow"})
    s, _ev = act(s, 1, {"type": "end-turn"})
    assert s.stage == CHOOSE_START


def test_phase_end_second_player_triggers_ends_at_once() -> None:
    s = replace(fresh(2), start=0)
    s = set_player(s, 1, warehouses=0, neutral=1, fortresses=0)
    s = anchor(turn(s, 1), 1, "tunis")
    s, _ev = act(s, 1, {"type": "build-warehouse", "site": 1, "colour": "blue"})
    s, _ev = act(s, 1, {"type": "end-turn"})
    assert s.stage == CHOOSE_START


def test_poorer_player_chooses_start_player() -> None:
    s = set_player(set_player(fresh(2), 0, money=50), 1, money=10)
    s = replace(s, ending=True)
    s = replace(turn(s, 1), turn=replace(turn(s, 1).turn, acted=True))
    s, _ev = act(s, 1, {"type": "end-turn"})
    assert s.stage == CHOOSE_START and s.seat == 1
    assert legal(s, 1) == [{"type": "choose-start-player", "seat": 0}, {"type": "choose-start-player", "seat": 1}]
    s, _ev = act(s, 1, {"type": "choose-start-player", "seat": 1})
    assert s.start == 1 and (player(s, 1).warehouses, player(s, 1).neutral) == (12, 4)
