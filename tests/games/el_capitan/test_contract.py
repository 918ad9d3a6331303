"""The contract around the rules: catalog, provisional data, options, action schemas, the two
error kinds, words for people, the outcome."""

from __future__ import annotations

import json

import jsonschema
import pytest

from service.games.base import IllegalAction, InvalidAction, Rng
from service.games.el_capitan import GAME
from service.games.el_capitan import data as D
from service.games.el_capitan.state import OVER, replace
from service.games.undo import without_undo

from .helpers import act, anchor, fresh, legal, refused, set_player, turn


def test_catalog_options_and_names() -> None:
    entry = GAME.describe()
    json.dumps(entry)
    assert entry["players"] == {"min": 2, "max": 5}
    props = entry["options_schema"]["properties"]
    assert props["expansions"]["items"]["enum"] == ["porto", "lisboa", "canarias"]
    assert GAME.validate_options({}) == {"expansions": [], "start_player": None}
    with pytest.raises(InvalidAction):
        GAME.validate_options({"expansions": ["atlantis"]})
    assert GAME.seat_names(5) == ["red", "yellow", "green", "blue", "white"]


def test_provisional_values_come_from_the_data_file() -> None:
    prov = {p.path: p for p in GAME.provisional()}
    assert "cities.venezia.track" in prov and "unverified" in prov["cities.venezia.track"].note
    assert prov["cities.venezia.track"].value == list(D.ALL_CITIES["venezia"].track)
    assert "loans.0.repay_extended" in prov and prov["loans.0.repay_extended"].value == 16
    assert "cities.marseille.harbours" not in prov  # verified: 4 and 5
    assert "proliferation_chart.9" not in prov and "proliferation_chart.6" in prov
    assert "connection_cards.C13" not in prov and "connection_cards.C01" in prov


def test_every_legal_action_matches_its_published_schema() -> None:
    validators = {k: jsonschema.Draft202012Validator(v) for k, v in GAME.action_schemas.items()}
    seen: set[str] = set()
    for players, exp in ((2, ["canarias", "lisboa"]), (4, ["porto", "canarias"])):
        s, _ = GAME.setup(players, GAME.validate_options({"expansions": exp}), Rng.from_seed(3))
        pick = Rng.from_seed(4)
        for step in range(2500):
            if not GAME.active_seats(s):
                break
            options = legal(s, s.seat)
            for a in GAME.legal_actions(s, s.seat):  # undo included: its schema and words are checked too
                key = json.dumps(a, sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                validators[a["type"]].validate(a)
                assert GAME.describe_action(a) and not GAME.describe_action(a).startswith("{")
            s, _ = GAME.apply(s, s.seat, options[pick.randbelow(len(options))], Rng.from_seed(step))
    assert {json.loads(k)["type"] for k in seen} == set(GAME.actions)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fly"},
        {"typ": "sail"},
        {"type": "sail", "card": "D01"},
        {"type": "sail", "card": "D99", "to": "marseille"},
        {"type": "sail", "card": "D01", "to": "atlantis"},
        {"type": "build-fortress", "space": "1"},
        {"type": "build-warehouse", "site": True},
        {"type": "take-loan", "amount": 12},
        {"type": "end-turn", "now": True},
        {"type": "move-pirate", "to": "tunis", "harbour": 1, "means": "card"},
    ],
)
def test_malformed_actions_are_invalid(action: dict[str, object]) -> None:
    s = fresh(3)
    with pytest.raises(InvalidAction):
        GAME.apply(s, 0, action, Rng.from_seed(0))


def test_illegal_actions_name_the_rule() -> None:
    s = fresh(3)
    err = refused(s, 1, {"type": "end-turn"})
    assert err.code == "not-your-turn"
    err = refused(s, 0, {"type": "end-turn"})
    assert err.code == "no-action-yet" and "§5.1" in err.message
    err = refused(s, 0, {"type": "sail", "card": "D01", "to": "marseille"})
    assert err.code == "card-not-in-hand"
    s = anchor(s, 0, "tunis")
    assert refused(s, 0, {"type": "build-warehouse"}).code == "site-required"
    assert refused(s, 0, {"type": "build-warehouse", "site": 1, "colour": "red"}).code == "no-colour-choice"
    assert refused(s, 0, {"type": "reopen"}).code == "nothing-closed"
    s = anchor(fresh(2), 0, "tunis")
    assert refused(s, 0, {"type": "build-warehouse", "site": 1}).code == "colour-required"
    assert refused(s, 0, {"type": "build-warehouse", "site": 1, "colour": "yellow"}).code == "not-your-colour"
    assert refused(s, 0, {"type": "move-pirate", "to": "tunis", "harbour": 1, "means": "money"}).code == "no-pirate"
    assert isinstance(refused(s, 0, {"type": "pass"}), IllegalAction)


def test_render_shows_the_board() -> None:
    s = fresh(4, ["porto", "lisboa", "canarias"])
    s = anchor(s, 0, "marseille")
    s, _ = act(s, 0, {"type": "build-warehouse", "site": 2})
    text = GAME.render(GAME.view(s, 2))
    for word in ("Marseille", "Porto (off-board)", "Islas Canarias", "P(3)", "[.R", "red", "Destination display"):
        assert word in text, word


def test_outcome_most_money_wins_ties_shared() -> None:
    s = fresh(3)
    assert GAME.outcome(s) is None
    s = replace(set_player(set_player(set_player(s, 0, money=50), 1, money=70), 2, money=50), stage=OVER)
    out = GAME.outcome(s)
    assert out is not None
    assert out.scores == (50, 70, 50) and out.ranks == (2, 1, 2)
    assert out.detail["house_order"] == [1, 0, 2]
    assert GAME.active_seats(s) == [] and without_undo(GAME.legal_actions(s, 0)) == []
    s = turn(replace(s, stage="turn"), 0)
    assert GAME.active_seats(s) == [0]
