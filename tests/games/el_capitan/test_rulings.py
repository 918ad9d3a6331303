"""Spec §10 rulings that the rulebook examples do not pin down: R-8, R-9, R-13 (neutrals), R-18,
R-20, R-23 and R-34, each with the spec's own numbers."""

from __future__ import annotations

from dataclasses import replace as dc_replace

from service.games.el_capitan import data as D
from service.games.el_capitan.payday import income
from service.games.el_capitan.state import FREE, City, replace
from service.games.el_capitan.track import place

from .helpers import B, G, R, Y, act, anchor, city, fresh, player, set_city, set_player, turn

_ = FREE


def test_r8_reopen_on_a_shutdown_space_shuts_down_the_front_warehouse() -> None:
    # a re-open that lands on a shut-down space (site 6, the first dark square with 4 players) closes the
    # first operating warehouse of the chain (site 1) exactly like a build.
    s = fresh(4)
    s = set_city(s, "marseille", sites=(Y, G, Y, G, B), closed={R: 1}, shutdowns=0)
    s = anchor(turn(s, 0), 0, "marseille")
    s, ev = act(s, 0, {"type": "reopen"})
    m = city(s, "marseille")
    assert m.sites[:6] == (FREE, G, Y, G, B, R) and m.closed[Y] == 1 and m.closed[R] == 0 and m.shutdowns == 1
    assert [e["site"] for e in ev if e["type"] == "warehouse-shut"] == [1]


def test_r9_backwards_placement_on_a_shutdown_space_shuts_nothing() -> None:
    # R-9, with a made-up tile whose site 3 is dark (the real geometry never lets backwards building reach one).
    cd = dc_replace(D.ALL_CITIES["marseille"], dark=frozenset({3, 6, 8, 10}))
    sites = (FREE, FREE, FREE, G, Y, G, Y, B, R, B, R, B)
    c = City(sites, (0,) * len(D.COLOURS), (FREE, FREE), (FREE, FREE), 3)
    new, shut, _vacated = place(cd, c, 3, R, 4)
    assert shut is None and new.sites[2] == R and new.shutdowns == 3 and new.sites[3:] == sites[3:]


def test_r13_neutral_warehouses_count_for_the_city_with_most_warehouses() -> None:
    # R-13 (2 players): Napoli has 3 warehouses, 2 of them neutral; Tunis has 2 main ones. Napoli has the most,
    # so Red's fortress there earns the full value V, Yellow's fortress in Tunis half of its V.
    s = fresh(2)
    s = set_city(s, "napoli", sites=(G, B, R), forts=(R, FREE))
    s = set_city(s, "tunis", sites=(Y, R), forts=(Y, FREE))
    inc = income(s)
    assert inc[0]["fortresses"] == {"napoli": D.ALL_CITIES["napoli"].track[3]}
    assert inc[1]["fortresses"] == {"tunis": D.ALL_CITIES["tunis"].track[2] // 2}


def test_r18_two_players_off_board_and_lisboa() -> None:
    # in Lisboa a neutral build pays nothing at once; at payday the neutral colour earns nothing, and a
    # neutral colour in first place takes the full V from nobody (main colours present still get half).
    s = fresh(2, ["lisboa"])
    s = anchor(turn(s, 0), 0, "lisboa")
    s, ev = act(s, 0, {"type": "build-warehouse", "site": 1, "colour": "green"})
    assert player(s, 0).money == 20 and not [e for e in ev if e["type"] == "immediate-payment"]
    s = set_city(s, "lisboa", sites=(G, Y))
    v = D.ALL_CITIES["lisboa"].track[2]  # 4
    inc = income(s)
    assert inc[0]["majority"] == {} and inc[1]["majority"] == {"lisboa": v // 2}
    s = set_city(s, "lisboa", sites=(Y, G))
    assert income(s)[1]["majority"] == {"lisboa": v}


def test_r20_protection_money_ignores_closed_warehouses_and_neutrals_are_paid_by_their_chooser() -> None:
    # R-20 and R-18 (2 players, phase 2: 2 per building): Yellow arrives in Islas Canarias and sends the pirate to
    # Napoli, which holds Red 1 + green (Red's neutral) 1 + Red's fortress, a closed red warehouse and Yellow's own.
    s = fresh(2, ["canarias"])
    s = replace(s, phase=2)
    s = set_city(s, "napoli", sites=(R, G, Y), forts=(R, FREE), closed={R: 1}, shutdowns=0)
    s = set_player(anchor(turn(s, 1), 1, "tanger"), 1, hand=("D14",))  # Tanger, 1 seal
    s, _ev = act(s, 1, {"type": "sail", "card": "D14", "to": "canarias"})
    s, _ev = act(s, 1, {"type": "move-pirate", "to": "napoli", "harbour": 1, "means": "free"})
    assert player(s, 0).money == 20 - 3 * 2 and player(s, 1).money == 20 + 3 * 2


def test_r23_porto_removed_warehouses_count_as_placed_for_the_phase_end() -> None:
    # Red's last warehouse was removed from the game in Porto; its supply is empty, so the phase ends.
    s = fresh(3, ["porto"])
    s = set_player(s, 0, warehouses=1, fortresses=0)
    s = set_city(s, "porto", sites=(R, Y, G, Y, G))
    s = anchor(turn(s, 0), 0, "tunis")
    s, _ev = act(s, 0, {"type": "build-warehouse", "site": 1})
    assert player(s, 0).warehouses == 0
    s = anchor(turn(s, 1), 1, "porto")
    s, _ev = act(s, 1, {"type": "build-warehouse"})  # site 6 is dark: Red's site-1 warehouse leaves the game
    assert s.removed[R] == 1 and city(s, "porto").closed[R] == 0
    s, ev = act(s, 1, {"type": "end-turn"})
    assert s.ending and any(e["type"] == "phase-ending" for e in ev)


def test_r34_any_nine_cities_in_play_earn_the_bonus_card() -> None:
    # eight base cities plus Lisboa make nine: Red takes the 15 bonus card at once.
    s = fresh(4, ["lisboa"])
    base = [c.id for c in D.BASE_CITIES]
    for name in base[:8]:
        s = set_city(s, name, sites=(R,))
    s = anchor(turn(s, 0), 0, "lisboa")
    s, ev = act(s, 0, {"type": "build-warehouse", "site": 1})
    assert player(s, 0).bonus == 15 and any(e["type"] == "bonus-card" for e in ev)
