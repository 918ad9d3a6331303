"""Rules beyond the worked examples: setup, round flow, ship legality, golden rule, the extra action,
errors, views and rendering."""

from __future__ import annotations

import pytest

from service.games.base import IllegalAction, InvalidAction, Rng
from service.games.nauticus import GAME, data
from service.games.nauticus.ships import hull_ends, is_closed, is_complete, placement_error, placements
from service.games.nauticus.state import State
from service.games.undo import without_undo

from .helpers import act, choosing, fresh, in_turn, player, set_player, ship

# --------------------------------------------------------------------------------------------
# Setup


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (2, [(15, 4), (16, 4)]),
        (3, [(15, 4), (16, 4), (17, 5)]),
        (4, [(15, 4), (16, 4), (16, 5), (17, 6)]),
    ],
)
def test_setup_with_seat_compensation(players: int, expected: list[tuple[int, int]]) -> None:
    applied = GAME.setup(players, {}, Rng.from_seed(1))
    s = applied.state
    assert [(p.thaler, p.workers) for p in s.players] == expected
    assert all(p.vp == 10 and p.extra and p.warehouse == () and p.ships == () for p in s.players)
    assert dict(zip(data.STACKS, s.supply, strict=True))["middle"] == 9
    assert sum(s.supply) == 18 * 3 + 9 + 72 * 2 + 48
    assert (s.round, s.phase, s.step, s.chooser, s.anchor) == (1, 1, "choose", 0, 0)
    assert sorted(s.layout) == sorted(data.ACTIONS)
    laid = [e for e in applied.events if e["type"] == "tiles-laid"]
    assert laid and laid[0]["layout"] == list(s.layout)
    # the anchor segment points at the 3-worker bonus: 0 blue workers there
    assert data.BONUSES[s.anchor] == {"workers": 3}
    assert GAME.view(s, None)["spaces"][s.anchor]["blue_workers"] == 0


def test_chooser_takes_bonus_even_when_passing() -> None:
    s = choosing(GAME.setup(2, {}, Rng.from_seed(2)).state, "money", 0, chooser=0)
    w = player(s, 0).workers
    s = act(s, 0, {"type": "choose-action", "action": "money"})
    assert player(s, 0).workers == w + 3
    s = act(s, 0, {"type": "pass"})
    assert player(s, 0).workers == w + 3 and player(s, 0).flipped[0]
    # the other player gets no bonus
    assert player(s, 1).workers == 4


def test_tile_bonus_goes_to_the_warehouse_by_choice() -> None:
    s = choosing(GAME.setup(2, {}, Rng.from_seed(3)).state, "deliver", 1, chooser=0)
    s = act(s, 0, {"type": "choose-action", "action": "deliver"})
    assert s.step == "bonus"
    legal = without_undo(GAME.legal_actions(s, 0))
    assert sorted(a["item"] for a in legal) == sorted(data.NORMAL_MASTS)
    s = act(s, 0, {"type": "take-bonus", "item": "mast-c"})
    assert player(s, 0).warehouse == ("mast-c",) and s.step == "turn"


def test_tile_bonus_forfeited_when_the_warehouse_is_full() -> None:
    s = choosing(GAME.setup(2, {}, Rng.from_seed(3)).state, "deliver", 1, chooser=0)
    s = set_player(s, 0, warehouse=("coffee",) * 11)  # 11 of 12 spaces: no room for a mast
    s = act(s, 0, {"type": "choose-action", "action": "deliver"})
    assert s.step == "turn" and player(s, 0).warehouse == ("coffee",) * 11


def test_round_flow_seven_phases_rotation_and_game_length() -> None:
    for players in (2, 3, 4):
        s = GAME.setup(players, {}, Rng.from_seed(4)).state
        choosers = []
        laid_rounds = 1
        step = 0
        while s.step != "over":
            seat = GAME.active_seats(s)[0]
            if s.step == "choose":
                choosers.append(seat)
                first_of_round = s.phase == 1
                action = without_undo(GAME.legal_actions(s, seat))[0]
                s2 = GAME.apply(s, seat, action, Rng.from_seed(step)).state
                if first_of_round:
                    assert s2.anchor_tile == s2.space
                s = s2
            else:
                legal = without_undo(GAME.legal_actions(s, seat))
                pick = next((a for a in legal if a["type"] in ("pass", "take-bonus")), legal[0])
                applied = GAME.apply(s, seat, pick, Rng.from_seed(step))
                laid_rounds += sum(1 for e in applied.events if e["type"] == "tiles-laid")
                s = applied.state
            step += 1
        rounds = data.ROUNDS[players]
        assert laid_rounds == rounds and s.round == rounds
        assert len(choosers) == 7 * rounds
        assert choosers == [k % players for k in range(7 * rounds)]


def test_eighth_tile_stays_unplayed_and_used_tiles_cannot_be_chosen() -> None:
    s = GAME.setup(2, {}, Rng.from_seed(5)).state
    s = s._replace(face_down=(True,) * 6 + (False, False), phase=7)
    legal = without_undo(GAME.legal_actions(s, s.chooser))
    assert len(legal) == 2
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, s.chooser, {"type": "choose-action", "action": s.layout[0]}, Rng.from_seed(0))
    assert err.value.code == "action-used"


# --------------------------------------------------------------------------------------------
# Ships


def test_hull_legality() -> None:
    assert hull_ends(ship("single"), "middle") == ()
    assert hull_ends(ship("middle"), "middle") == ("front", "back")
    assert hull_ends(ship("middle", "middle"), "middle") == ()  # at most two middles
    assert hull_ends(ship("bow", "stern"), "middle") == ()  # no insertion once closed
    assert hull_ends(ship("bow"), "bow") == ()
    assert hull_ends(ship("stern"), "bow") == ("front",)
    assert hull_ends(ship("bow", "middle"), "stern") == ("back",)
    assert hull_ends(ship("bow", "middle", "middle"), "middle") == ()
    assert is_closed(ship("single")) and is_closed(ship("bow", "stern"))
    assert not is_closed(ship("bow", "middle"))
    # a single hull never joins anything and nothing joins it
    assert placements((ship("bow"),), "single") == [("new", -1, "")]
    assert is_complete(ship("single:mast-a:sail-a"))
    assert not is_complete(ship("bow:mast-a:sail-a", "middle:mast-a:sail-a"))


def test_one_crest_per_ship_with_crowned_jokers() -> None:
    ships = (ship("bow:mast-a", "stern:mast-crown"),)
    # a brown-wheel sail is illegal on that ship, even on its crowned mast
    assert placement_error(ships, "sail-c", ("hull", 0, 1)) is not None
    assert placement_error(ships, "sail-a", ("hull", 0, 1)) is None
    assert placement_error(ships, "sail-crown", ("hull", 0, 0)) is None
    # a crowned-only ship takes any crest, which then fixes it
    assert placement_error((ship("bow:mast-crown", "stern"),), "mast-d", ("hull", 0, 1)) is None
    assert placement_error(ships, "sail-a", ("hull", 0, 5)) is not None
    assert placement_error(ships, "mast-a", ("hull", 0, 0)) is not None  # one mast per hull piece


def test_warehouse_capacity_and_mast_size() -> None:
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(6)).state, "mast", 2, seat=0, blue=3)
    s = set_player(s, 0, warehouse=("coffee",) * 11)
    legal = without_undo(GAME.legal_actions(s, 0))
    assert not [a for a in legal if a.get("to") == "warehouse"]  # a mast needs two spaces
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "buy", "item": "mast-a", "to": "warehouse"}, Rng.from_seed(0))
    assert err.value.code in ("warehouse-full", "golden-rule")


def test_delivery_needs_a_complete_loaded_ship_and_a_worker_per_good() -> None:
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(7)).state, "deliver", 2, seat=0, blue=1)
    full = ship("bow:mast-a:sail-a:coffee", "middle:mast-a:sail-a:coffee", "stern:mast-a:sail-a:salt")
    s = set_player(s, 0, workers=1, ships=(full, ship("single:mast-b:sail-b")))
    assert not [a for a in without_undo(GAME.legal_actions(s, 0)) if a["type"] == "deliver"]  # 2 workers for 3 goods
    s = set_player(s, 0, workers=2)
    s = act(s, 0, {"type": "deliver", "ship": 0})
    p = player(s, 0)
    assert p.workers == 0 and dict(zip(data.GOODS, p.delivered, strict=True)) == {
        "coffee": 2,
        "grain": 0,
        "salt": 1,
        "fish": 0,
    }
    assert all(h.good is None for h in p.ships[0])


def test_take_money() -> None:
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(8)).state, "money", 4, seat=1, blue=2)
    t = player(s, 1).thaler
    s = act(s, 1, {"type": "take-money", "workers": 3})
    assert player(s, 1).thaler == t + 6 and player(s, 1).workers == 3


# --------------------------------------------------------------------------------------------
# The extra action


def test_extra_action_before_the_normal_action() -> None:
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(9)).state, "money", 4, seat=0, blue=2)
    s = set_player(s, 0, ships=(ship("bow"),))
    s = act(s, 0, {"type": "extra-action", "action": "hull", "pass_first": False})
    p = player(s, 0)
    assert not p.extra and p.workers == 4 + data.EXTRA_WORKERS
    assert s.turn is not None and s.turn.extra is not None and s.turn.extra.blue == 0  # no blue workers
    # every first item costs the base price, whatever the printed row says; repeats 4
    t = p.thaler
    s = act(s, 0, {"type": "buy", "item": "single", "to": "new-ship"})
    s = act(s, 0, {"type": "buy", "item": "stern", "to": "ship", "ship": 0, "end": "back"})
    s = act(s, 0, {"type": "buy", "item": "stern", "to": "new-ship"})
    assert player(s, 0).thaler == t - 2 * data.EXTRA_BASE_PRICE - data.REPEAT_PRICE
    s = act(s, 0, {"type": "done"})
    # back to the normal action with its blue pool intact, and no second extra action
    assert s.turn is not None and s.turn.extra is None and s.turn.normal.blue == 2
    assert not [a for a in without_undo(GAME.legal_actions(s, 0)) if a["type"] == "extra-action"]
    s = act(s, 0, {"type": "take-money", "workers": 2})
    s = act(s, 0, {"type": "done"})
    assert s.turn is not None and s.turn.seat == 1


def test_extra_action_after_executing_ends_the_turn() -> None:
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(10)).state, "money", 4, seat=0, blue=2)
    s = act(s, 0, {"type": "take-money", "workers": 1})
    assert {"type": "extra-action", "action": "crowns", "pass_first": True} not in without_undo(GAME.legal_actions(s, 0))
    s = act(s, 0, {"type": "extra-action", "action": "money", "pass_first": False})
    s = act(s, 0, {"type": "take-money", "workers": 1})
    assert s.turn is not None and s.turn.extra is not None and s.turn.extra.blue == 0
    s = act(s, 0, {"type": "done"})
    assert s.turn is not None and s.turn.seat == 1


def test_extra_action_after_passing_gives_a_second_crown_scoring() -> None:
    """Seed p.9: the extra action allows a second crown scoring in a round, with its own 15 cap."""
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(11)).state, "crowns", 6, seat=0, blue=3)
    s = set_player(s, 0, workers=10, warehouse=("mast-crown", "sail-crown", "sail-crown", "mast-crown"))
    vp = player(s, 0).vp
    s = act(s, 0, {"type": "score-crowns", "workers": 4})
    assert player(s, 0).vp == vp + 15
    s = act(s, 0, {"type": "extra-action", "action": "crowns", "pass_first": False})
    s = act(s, 0, {"type": "score-crowns", "workers": 4})
    assert player(s, 0).vp == vp + 30
    s = act(s, 0, {"type": "done"})
    assert s.turn is not None and s.turn.seat == 1

    # passing first flips a pass tile, whose crown then counts
    s = in_turn(GAME.setup(2, {}, Rng.from_seed(11)).state, "hull", 6, seat=0)
    s = set_player(s, 0, warehouse=("sail-crown",))
    s = act(s, 0, {"type": "extra-action", "action": "crowns", "pass_first": True})
    assert player(s, 0).flipped == (True, False, False)
    vp = player(s, 0).vp
    s = act(s, 0, {"type": "score-crowns", "workers": 2})
    assert player(s, 0).vp == vp + 4
    s = act(s, 0, {"type": "done"})
    assert s.turn is not None and s.turn.seat == 1


# --------------------------------------------------------------------------------------------
# Errors, views, rendering


def test_invalid_and_illegal_actions() -> None:
    s = GAME.setup(2, {}, Rng.from_seed(12)).state
    rng = Rng.from_seed(0)
    for bad in (
        {"type": "fly"},
        {"type": "choose-action"},
        {"type": "choose-action", "action": "sing"},
        {"type": "buy", "item": "anchor", "to": "warehouse"},
        {"type": "buy", "item": "bow", "to": "moon"},
        {"type": "take-money", "workers": 0},
        {"type": "pass", "extra": 1},
    ):
        with pytest.raises(InvalidAction):
            GAME.apply(s, 0, bad, rng)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 1, {"type": "choose-action", "action": "hull"}, rng)
    assert err.value.code == "not-your-turn"
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "pass"}, rng)
    assert err.value.code == "not-in-turn"
    s = in_turn(s, "hull", 3, seat=0)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "take-money", "workers": 1}, rng)
    assert err.value.code == "wrong-action"


def test_view_is_public_and_render_shows_the_table() -> None:
    s = in_turn(GAME.setup(3, {}, Rng.from_seed(13)).state, "hull", 3, seat=0, blue=2)
    s = set_player(s, 0, ships=(ship("bow:mast-a:sail-a:coffee", "stern:mast-a"),), warehouse=("sail-a",))
    views = [GAME.view(s, seat) for seat in (None, 0, 1, 2)]
    assert all(
        {k: v for k, v in v.items() if k != "seat"} == {k: v for k, v in views[0].items() if k != "seat"} for v in views
    )
    text = GAME.render(views[1])
    for needle in (
        "round 1/5",
        "Buy hull",
        "shipyard",
        "bow/light-green anchor mast/light-green anchor sail/[coffee]",  # tiles by name, not by id
        "warehouse (1/12)",
        "Red",
        "crests: light-green anchor, red whale",  # the crests in words
    ):
        assert needle in text
    assert GAME.describe_action({"type": "buy", "item": "bow", "to": "ship", "ship": 0, "end": "front"}) == (
        "buy a bow and put it at the front of ship 0"
    )
    for a in without_undo(GAME.legal_actions(s, 0)):
        assert GAME.describe_action(a)


def test_provisional_values_are_reported() -> None:
    paths = {p.path for p in GAME.provisional()}
    assert {"wheel.segments_clockwise_from_anchor", "warehouse.capacity", "ship_rewards.workers"} <= paths


def test_start_player_switch_for_the_rejected_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec §13.3.1 keeps the round-end reading a single data switch: with it off, the 7th phase's
    chooser also opens the next round."""
    from service.games.nauticus import flow

    assert [flow.chooser_of(k, 3) for k in range(1, 10)] == [0, 1, 2, 0, 1, 2, 0, 1, 2]
    monkeypatch.setattr(data, "START_PLAYER_PASSES_AFTER_LAST_PHASE", False)
    assert [flow.chooser_of(k, 3) for k in range(1, 10)] == [0, 1, 2, 0, 1, 2, 0, 0, 1]


# --------------------------------------------------------------------------------------------
# Limited supply and the extra action's own price tracking


def _empty(s: State, *stacks: str) -> State:
    supply = list(s.supply)
    for stack in stacks:
        supply[data.STACK_INDEX[stack]] = 0
    return s._replace(supply=tuple(supply))


def test_empty_stacks_cannot_be_bought_taken_as_bonus_or_reward() -> None:
    """Spec §1 and ruling §10.6: an empty stack cannot be bought, a bonus tile not supplied is not gained,
    a tile reward not supplied is unavailable, and 2 different goods need 2 goods types in stock."""
    # buying
    s = _empty(in_turn(fresh(2, "stock"), "mast", 2, seat=0, blue=2), "mast-a")
    assert not [a for a in without_undo(GAME.legal_actions(s, 0)) if a.get("item") == "mast-a"]
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "buy", "item": "mast-a", "to": "warehouse"}, Rng.from_seed(0))
    assert err.value.code == "sold-out"
    # a board bonus: a normal mast of choice, none left of any crest
    s = _empty(choosing(fresh(2, "stock"), "deliver", 1, chooser=0), *data.NORMAL_MASTS)
    s = act(s, 0, {"type": "choose-action", "action": "deliver"})
    assert s.step == "turn" and player(s, 0).warehouse == ()
    # rewards: no crowned masts left, and only one goods type left
    s = in_turn(fresh(2, "stock"), "transfer", 5, seat=0, blue=2)
    s = set_player(s, 0, ships=(ship("single:mast-a"),), warehouse=("sail-a",))
    s = _empty(s, data.CROWN_MAST, "coffee", "grain", "salt")
    s = act(s, 0, {"type": "transfer", "item": "sail-a", "to": "ship", "ship": 0, "hull": 0})
    rewards = {a["reward"] for a in without_undo(GAME.legal_actions(s, 0))}
    assert rewards == {"crown-sail", "thaler", "workers", "vp"}
    with pytest.raises(IllegalAction) as err:
        GAME.apply(s, 0, {"type": "take-reward", "reward": "crown-mast"}, Rng.from_seed(0))
    assert err.value.code == "reward-unavailable"


def test_extra_action_counts_first_of_type_and_all_four_apart_from_the_normal_turn() -> None:
    """Ruling §10.12: a paid extra action in the same phase tracks its own first-of-type prices (the
    fixed base price), repeat prices and all-four bonus, apart from the player's normal turn."""
    s = in_turn(fresh(2, "extra-buy"), "goods", 4, seat=0, blue=3)
    s = set_player(s, 0, thaler=40)
    s = act(s, 0, {"type": "buy", "item": "coffee", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "grain", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "salt", "to": "warehouse"})
    s = act(s, 0, {"type": "extra-action", "action": "goods", "pass_first": False})
    t = player(s, 0).thaler
    # coffee was bought in the normal turn, but in the extra action it is a first of its type
    s = act(s, 0, {"type": "buy", "item": "coffee", "to": "warehouse"})
    assert player(s, 0).thaler == t - data.EXTRA_BASE_PRICE
    # fish would be the normal turn's 4th kind; in the extra action it is only the 2nd: no free item
    s = act(s, 0, {"type": "buy", "item": "fish", "to": "warehouse"})
    assert s.turn is not None and s.turn.free_item is None
    s = act(s, 0, {"type": "buy", "item": "coffee", "to": "warehouse"})
    assert player(s, 0).thaler == t - 2 * data.EXTRA_BASE_PRICE - data.REPEAT_PRICE
    s = act(s, 0, {"type": "buy", "item": "grain", "to": "warehouse"})
    s = act(s, 0, {"type": "buy", "item": "salt", "to": "warehouse"})
    assert s.turn is not None and s.turn.free_item == "goods"  # the extra action's own 4th kind


def test_all_four_bonus_at_most_once_per_turn() -> None:
    """Spec §5.1 / ruling §10.7: one free item for buying all four kinds, at most once per turn; a repeat
    bought afterwards (4 thaler) brings no second free item."""
    s = in_turn(fresh(2, "all-four"), "goods", 4, seat=0, blue=3)
    s = set_player(s, 0, thaler=40)
    for g in data.GOODS:
        s = act(s, 0, {"type": "buy", "item": g, "to": "warehouse"})
    assert s.turn is not None and s.turn.free_item == "goods"
    s = act(s, 0, {"type": "take-bonus", "item": "fish"})
    t = player(s, 0).thaler
    s = act(s, 0, {"type": "buy", "item": "coffee", "to": "warehouse"})
    assert player(s, 0).thaler == t - data.REPEAT_PRICE
    assert s.turn is not None and s.turn.free_item is None
    assert not [a for a in without_undo(GAME.legal_actions(s, 0)) if a["type"] == "take-bonus"]
    assert sorted(player(s, 0).warehouse) == ["coffee", "coffee", "fish", "fish", "grain", "salt"]


def test_done_with_no_unit_is_a_pass() -> None:
    """Ruling §10.2: a done with zero units counts as a pass (§5.10): it flips the most negative pass tile.
    An extra action played before the normal one is not a unit of it, so a done after it still passes."""
    s = in_turn(fresh(2, "done-pass"), "money", 4, seat=0, blue=2)
    s = GAME.apply(s, 0, {"type": "done"}, Rng.from_seed(0)).state
    assert player(s, 0).flipped == (True, False, False)
    assert s.turn is not None and s.turn.seat == 1

    s = in_turn(fresh(2, "done-pass"), "money", 4, seat=0, blue=2)
    s = act(s, 0, {"type": "extra-action", "action": "money", "pass_first": False})
    s = act(s, 0, {"type": "take-money", "workers": 1})
    s = act(s, 0, {"type": "done"})  # ends the extra action
    assert player(s, 0).flipped == (False, False, False)
    s = GAME.apply(s, 0, {"type": "done"}, Rng.from_seed(0)).state  # no unit of the normal action
    assert player(s, 0).flipped == (True, False, False)
    assert s.turn is not None and s.turn.seat == 1
