"""Rulebook building examples: Marseille (site choice, forced site 1, three in a row, the forced
departure), shut-down, re-opening, the 2-3-player triangle, building backwards (the "8"/"4" example),
fortresses, Porto's removal."""

from __future__ import annotations

from service.games.el_capitan import data as D
from service.games.el_capitan.state import BANK, FREE

from .helpers import B, G, R, Y, act, anchor, city, fresh, legal, player, refused, set_city, set_player, turn

_ = FREE


def test_marseille_sequence_site_choice_forced_site_run_limit_shutdown_and_reopen() -> None:
    s = fresh(4)  # red 0, yellow 1, green 2, blue 3
    assert D.ALL_CITIES["marseille"].harbours == (4, 5) and D.ALL_CITIES["marseille"].fortresses == (8, 10)
    # Red sails to Marseille with a destination card and builds the first warehouse for 4, choosing site 2.
    s = set_player(s, 0, hand=("D01",))
    s, _ev = act(s, 0, {"type": "sail", "card": "D01", "to": "marseille"})
    assert player(s, 0).berth == 0
    assert legal(s, 0, "build-warehouse") == [{"type": "build-warehouse", "site": 1}, {"type": "build-warehouse", "site": 2}]
    s, _ev = act(s, 0, {"type": "build-warehouse", "site": 2})
    assert player(s, 0).money == 16
    assert city(s, "marseille").sites[:2] == (FREE, R)

    # Green arrives on the second harbour space (5 per warehouse); its first warehouse must go on site 1.
    s = set_player(turn(s, 2), 2, hand=("D02",), money=40)
    s, _ev = act(s, 2, {"type": "sail", "card": "D02", "to": "marseille"})
    assert player(s, 2).berth == 1
    assert legal(s, 2, "build-warehouse") == [{"type": "build-warehouse"}]
    assert refused(s, 2, {"type": "build-warehouse", "site": 2}).code == "wrong-site"
    s, _ev = act(s, 2, {"type": "build-warehouse"})
    assert city(s, "marseille").sites[:2] == (G, R) and player(s, 2).money == 35
    # Green stays and builds sites 3, 4 and 5 on later turns ...
    for expected_money in (30, 25, 20):
        s = turn(s, 2)
        s, _ev = act(s, 2, {"type": "build-warehouse"})
        assert player(s, 2).money == expected_money
    assert city(s, "marseille").sites[:5] == (G, R, G, G, G)
    # ... and now has three in a row: no fourth until someone else builds there.
    s = turn(s, 2)
    assert legal(s, 2, "build-warehouse") == []
    err = refused(s, 2, {"type": "build-warehouse"})
    assert err.code == "run-limit" and "three in a row" in err.message
    # A fortress instead: four warehouses and a fortress.
    assert legal(s, 2, "build-fortress") == [{"type": "build-fortress", "space": 1}, {"type": "build-fortress", "space": 2}]
    s, _ev = act(s, 2, {"type": "build-fortress", "space": 1})
    assert player(s, 2).money == 12 and city(s, "marseille").forts == (G, FREE)
    # The forced departure: nothing left to build in Marseille, so Green goes to the bank for a loan.
    s = turn(s, 2)
    kinds = {a["type"] for a in legal(s, 2)}
    assert "build-warehouse" not in kinds and "build-fortress" not in kinds and "take-loan" in kinds
    s, _ev = act(s, 2, {"type": "take-loan", "amount": 10})
    assert player(s, 2).ship == BANK and player(s, 2).money == 22

    # Yellow builds on the first dark space (site 6): the first warehouse of the chain (Green, site 1) is shut down.
    s = anchor(s, 0, "napoli")
    s = anchor(turn(s, 1), 1, "marseille")
    s, ev = act(s, 1, {"type": "build-warehouse"})
    m = city(s, "marseille")
    assert m.sites[:6] == (FREE, R, G, G, G, Y) and m.closed[G] == 1 and m.shutdowns == 1
    assert [e["site"] for e in ev if e["type"] == "warehouse-shut"] == [1]
    # Yellow again on site 7, then Blue on the second dark space (site 8): Red's warehouse on site 2 is shut down.
    s, _ev = act(turn(s, 1), 1, {"type": "build-warehouse"})
    s = anchor(s, 1, "tunis")
    s = anchor(turn(s, 3), 3, "marseille")
    s, _ev = act(s, 3, {"type": "build-warehouse"})
    m = city(s, "marseille")
    assert m.sites[:8] == (FREE, FREE, G, G, G, Y, Y, B) and m.closed[R] == 1 and m.shutdowns == 2
    # Red sails back to Marseille and re-opens its warehouse free of charge, next to the last one built.
    s = set_player(turn(s, 0), 0, hand=("C04",))
    money = player(s, 0).money
    s, _ev = act(s, 0, {"type": "sail", "card": "C04", "to": "marseille"})
    assert legal(s, 0, "reopen") == [{"type": "reopen"}]
    s, ev = act(s, 0, {"type": "reopen"})
    m = city(s, "marseille")
    assert m.sites[8] == R and m.closed[R] == 0 and player(s, 0).money == money
    # Re-opening is the whole action: no warehouse or fortress as well.
    assert legal(s, 0, "build-warehouse") == [] and legal(s, 0, "build-fortress") == []
    assert refused(s, 0, {"type": "build-fortress", "space": 2}).code == "already-acted"


def test_triangle_is_a_shutdown_space_with_three_players_only() -> None:
    for players, shut in ((3, True), (4, False), (5, False)):
        s = fresh(players)
        s = set_city(s, "marseille", sites=(R, Y, G, R))
        s = anchor(turn(s, 1), 1, "marseille")
        s, _ev = act(s, 1, {"type": "build-warehouse"})
        assert (city(s, "marseille").sites[0] == FREE) is shut, players
    s = fresh(2)
    assert D.ALL_CITIES["marseille"].shutdown_sites(2) == D.ALL_CITIES["marseille"].dark | {5}


def test_building_backwards_the_8_and_4_example() -> None:
    s = fresh(4)
    md = D.ALL_CITIES["marseille"]
    assert md.track[2] == 8 and md.track[1] == 4  # the "8" space (site 3) and the "4" space (site 2)
    # Three shut-downs emptied sites 1-3; site 12 is occupied, so building now goes backwards.
    s = set_city(s, "marseille", sites=(FREE, FREE, FREE, G, G, Y, B, Y, B, R, R, R), shutdowns=3)
    # Red may build at the front although the last three warehouses are red.
    s = anchor(turn(s, 0), 0, "marseille")
    assert legal(s, 0, "build-warehouse") == [{"type": "build-warehouse"}]
    # Green builds on the "8" space ...
    s = anchor(s, 0, "napoli")
    s = anchor(turn(s, 2), 2, "marseille")
    s, ev = act(s, 2, {"type": "build-warehouse"})
    assert city(s, "marseille").sites[2] == G and ev[0]["site"] == 3
    assert city(s, "marseille").shutdowns == 3  # backwards placements never shut anything down
    # ... but not then on the "4" space: that would be four green in a row.
    s = turn(s, 2)
    assert legal(s, 2, "build-warehouse") == []
    assert refused(s, 2, {"type": "build-warehouse"}).code == "run-limit"
    # Someone else fills site 2, then site 1 ("0"-space) is the last; after that nothing more is built.
    s = anchor(s, 2, "tunis")
    s = anchor(turn(s, 3), 3, "marseille")
    s, _ev = act(s, 3, {"type": "build-warehouse"})
    s, _ev = act(turn(s, 3), 3, {"type": "build-warehouse"})
    assert city(s, "marseille").sites[:3] == (B, B, G)
    s = turn(s, 3)
    assert legal(s, 3, "build-warehouse") == []
    assert refused(s, 3, {"type": "build-warehouse"}).code == "city-full"


def test_fortress_one_per_player_per_city_and_price_of_space() -> None:
    s = fresh(4)
    s = set_city(s, "marseille", forts=(B, FREE))
    s = anchor(turn(s, 0), 0, "marseille")
    assert legal(s, 0, "build-fortress") == [{"type": "build-fortress", "space": 2}]
    s, _ev = act(s, 0, {"type": "build-fortress", "space": 2})
    assert player(s, 0).money == 10 and player(s, 0).fortresses == 0
    s = set_player(turn(s, 0), 0, fortresses=1)
    assert legal(s, 0, "build-fortress") == []


def test_porto_three_harbours_one_fortress_and_shutdown_removes_from_game() -> None:
    s = fresh(4, ["porto"])
    pd = D.ALL_CITIES["porto"]
    assert len(pd.harbours) == 3 and len(pd.fortresses) == 1
    for seat in (0, 1, 2):
        s = anchor(s, seat, "porto")
    assert city(s, "porto").harbours == (0, 1, 2)
    s = set_city(s, "porto", sites=(R, Y, G, R, Y))
    s = turn(s, 2)
    s, ev = act(s, 2, {"type": "build-warehouse"})  # site 6 is dark
    assert city(s, "porto").sites[0] == FREE
    assert city(s, "porto").closed[R] == 0 and s.removed[R] == 1
    assert any("removed from the game" in e["text"] for e in ev)
