"""The paid pirate move by cards (spec §8.4): "one or more sailing cards", played card by card.

The rulebook: "Minden játékos mozgathatja egyszer a köre során a kalózhajót ... Ehhez fel kell használnia egy
vagy több hajózási kártyát (akár útirány/tengeri útvonal, akár megfelelő városok közötti kapcsolat kártyát)".
As for a ship's voyage (§5.2), only the final city needs a free harbour space: an intermediate stop takes no
space and bumps nobody. The final harbour follows the pirate destination rules (§8.4: a free space or an
occupied one, whose ship moves to the empty one; not the city the pirate set off from, R-36). Every played
card is discarded; no protection money is collected for a paid move.
"""

from __future__ import annotations

import json

from service.games.el_capitan import GAME
from service.games.el_capitan.state import FREE, PIRATE

from .helpers import Y, act, anchor, city, fresh, legal, player, refused, set_city, set_player, turn


def _scene(hand: tuple[str, ...]) -> object:
    """Islas Canarias in play, the pirate on its second space (setup, §8.4). Red and Yellow lie in Tanger (full),
    Green in Alexandria on space 1; Blue (seat 3) is to act, anchored in Tunis, with ``hand``."""
    s = fresh(4, ["canarias"])
    assert city(s, "canarias").harbours == (FREE, PIRATE)
    s = anchor(s, 0, "tanger")
    s = anchor(s, 1, "tanger")
    s = anchor(s, 2, "alexandria")
    s = set_city(s, "alexandria", sites=(Y, Y))
    s = anchor(turn(s, 3), 3, "tunis")
    return set_player(s, 3, hand=hand)


def test_pirate_voyage_canarias_via_full_tanger_to_alexandria() -> None:
    # The rulebook's two-card chain (§5.2: a card to Tanger, then the Tanger-Alexandria connection card), sailed by
    # the pirate: the Tanger card (1 seal) as a sea route Canarias -> Tanger (1 step, R-10), then C35.
    s = _scene(("D14", "C35"))
    money = [p.money for p in s.players]
    # Tanger is full: the pirate cannot end there (§8.4), but it may pass through.
    one_card = [a for a in legal(s, 3, "move-pirate") if a.get("card") == "D14"]
    assert {"type": "move-pirate", "to": "tanger", "means": "card", "card": "D14"} in one_card
    assert not [a for a in one_card if a["to"] == "tanger" and "harbour" in a]
    s, ev = act(s, 3, {"type": "move-pirate", "to": "tanger", "means": "card", "card": "D14"})
    # A stopover: nobody is bumped, no space is taken, the card is discarded.
    assert city(s, "tanger").harbours == (0, 1)
    assert [e["type"] for e in ev] == ["pirate-stopover"]
    assert s.turn.pirate_transit == s.city_ids.index("tanger") and s.turn.pirate_moved
    assert player(s, 3).hand == ("C35",) and s.dest_discard[-1] == "D14"
    # In transit only the voyage goes on (here: the connection card, to a free or the occupied space).
    assert legal(s, 3) == [
        {"type": "move-pirate", "to": "alexandria", "harbour": 1, "means": "card", "card": "C35"},
        {"type": "move-pirate", "to": "alexandria", "harbour": 2, "means": "card", "card": "C35"},
    ]
    view = GAME.view(s, 0)
    assert view["turn"]["pirate_in_transit"] == "tanger"
    assert "under way" in GAME.render(view)
    assert GAME.load(json.loads(json.dumps(GAME.dump(s)))) == s
    s, ev = act(s, 3, {"type": "move-pirate", "to": "alexandria", "harbour": 1, "means": "card", "card": "C35"})
    # Final harbour as for one card: the pirate takes the occupied space 1, Green's ship moves to space 2.
    assert city(s, "alexandria").harbours == (PIRATE, 2) and player(s, 2).berth == 1
    assert city(s, "canarias").harbours == (FREE, FREE) and s.pirate == s.city_ids.index("alexandria")
    assert [e["type"] for e in ev] == ["pirate-moved", "ship-bumped"]
    assert s.turn.pirate_transit == -1 and player(s, 3).hand == ()
    assert s.conn_discard[-1] == "C35"
    # Paid move: no protection money (Yellow's two warehouses pay nothing), no money spent.
    assert [p.money for p in s.players] == money
    assert legal(s, 3, "move-pirate") == []  # one pirate move per turn
    assert GAME.view(s, 0)["turn"]["pirate_in_transit"] is None


def test_stopover_may_pass_the_start_city_but_the_voyage_may_not_end_there() -> None:
    # Canarias -> Tanger (D14 as 1-seal sea route) -> back past Canarias is a stop only; R-36: a paid move ends in
    # another city than the pirate's own.
    s = _scene(("D14", "D13", "D17"))
    s, _ev = act(s, 3, {"type": "move-pirate", "to": "tanger", "means": "card", "card": "D14"})
    err = refused(s, 3, {"type": "move-pirate", "to": "canarias", "harbour": 1, "means": "card", "card": "D13"})
    assert err.code == "pirate-origin" and "R-36" in err.message
    s, _ev = act(s, 3, {"type": "move-pirate", "to": "canarias", "means": "card", "card": "D13"})
    assert city(s, "canarias").harbours == (FREE, PIRATE)  # the pirate's own space stays until the voyage ends
    # From Canarias the Alexandria card (1 seal) goes on to Alexandria as a destination; as a sea route it reaches
    # only full Tanger, where no card would be left to sail on.
    assert legal(s, 3) == [
        {"type": "move-pirate", "to": "alexandria", "harbour": 1, "means": "card", "card": "D17"},
        {"type": "move-pirate", "to": "alexandria", "harbour": 2, "means": "card", "card": "D17"},
    ]
    s, _ev = act(s, 3, {"type": "move-pirate", "to": "alexandria", "harbour": 2, "means": "card", "card": "D17"})
    assert city(s, "alexandria").harbours == (2, PIRATE) and city(s, "canarias").harbours == (FREE, FREE)
    assert s.dest_discard[-3:] == ("D14", "D13", "D17")


def test_refusals_name_the_rule() -> None:
    s = _scene(("D14",))
    # With no card left after Tanger, a stop there could never end in a city with a free space.
    err = refused(s, 3, {"type": "move-pirate", "to": "tanger", "means": "card", "card": "D14"})
    assert err.code == "voyage-cannot-end" and "§8.4" in err.message
    err = refused(s, 3, {"type": "move-pirate", "to": "tanger", "harbour": 1, "means": "card", "card": "D14"})
    assert err.code == "no-free-harbour" and "§8.4" in err.message
    err = refused(s, 3, {"type": "move-pirate", "to": "tanger", "means": "card", "card": "C35"})
    assert err.code == "card-not-in-hand" and "§8.4" in err.message
    s = _scene(("D14", "C35"))
    s, _ev = act(s, 3, {"type": "move-pirate", "to": "tanger", "means": "card", "card": "D14"})
    for action, code in (
        ({"type": "move-pirate", "to": "alexandria", "harbour": 1, "means": "money"}, "pirate-in-transit"),
        ({"type": "build-warehouse", "site": 1}, "pirate-in-transit"),
        ({"type": "take-loan", "amount": 10}, "pirate-in-transit"),
        ({"type": "buy-card", "card": s.dest_display[0]}, "pirate-in-transit"),
        ({"type": "end-turn"}, "pirate-in-transit"),
        ({"type": "move-pirate", "to": "napoli", "harbour": 1, "means": "card", "card": "C35"}, "bad-pirate-move"),
    ):
        err = refused(s, 3, action)
        assert err.code == code, (action, err.code)
        assert "§8.4" in err.message


def test_stopover_and_final_leg_describe_themselves() -> None:
    stop = GAME.describe_action({"type": "move-pirate", "to": "tanger", "means": "card", "card": "D14"})
    assert "Tanger" in stop and "on" in stop and "D14" in stop
    final = GAME.describe_action({"type": "move-pirate", "to": "alexandria", "harbour": 1, "means": "card", "card": "C35"})
    assert "harbour space 1" in final and "C35" in final


def test_harbour_is_required_for_free_and_money_moves() -> None:
    import pytest

    from service.games.base import InvalidAction, Rng

    s = _scene(("D14",))
    with pytest.raises(InvalidAction):
        GAME.apply(s, 3, {"type": "move-pirate", "to": "tunis", "means": "money"}, Rng.from_seed(0))


def test_published_schema_takes_both_legs_and_refuses_a_harbourless_paid_move() -> None:
    import jsonschema

    v = jsonschema.Draft202012Validator(GAME.action_schemas["move-pirate"])
    assert v.is_valid({"type": "move-pirate", "to": "tanger", "means": "card", "card": "D14"})
    assert v.is_valid({"type": "move-pirate", "to": "tanger", "harbour": 1, "means": "card", "card": "D14"})
    assert v.is_valid({"type": "move-pirate", "to": "tanger", "harbour": 1, "means": "money"})
    assert not v.is_valid({"type": "move-pirate", "to": "tanger", "means": "money"})
    assert not v.is_valid({"type": "move-pirate", "to": "tanger", "means": "card"})
    assert not v.is_valid({"type": "move-pirate", "to": "tanger", "harbour": 1, "means": "free", "card": "D14"})
