"""Data editions in the rules core (docs/editions.md): the schema, the checks that name the field
at fault, and a game bound to an edition that plays its numbers, not the shipped ones."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from service import games
from service.games import edition_check, editions
from service.games.base import Rng
from tests.helpers.editions import GAMES, changed_document, game


@pytest.mark.parametrize("game_id", GAMES)
def test_the_shipped_data_meets_its_schema_and_its_template_checks(game_id: str) -> None:
    g = game(game_id)
    shipped = editions.shipped(g)
    assert not list(Draft202012Validator(edition_check.data_schema(g)).iter_errors(dict(shipped.data)))
    edition = edition_check.check(edition_check.template(g), games.registry())
    assert edition.id == "my-box" and edition_check.diff(edition, g) == []
    assert edition.digest != shipped.digest  # another id is another edition, even with the same numbers


@pytest.mark.parametrize("game_id", GAMES)
def test_a_changed_edition_plays_a_full_match_with_its_numbers(game_id: str) -> None:
    g = game(game_id)
    edition = edition_check.check(changed_document(game_id), games.registry())
    changes = edition_check.diff(edition, g)
    assert changes and all(c["field"].startswith("data.") for c in changes)
    bound = editions.bind(g, edition)
    assert bound is not g and bound.id == g.id and bound is editions.bind(g, edition)
    # the bound game reads the edition's numbers; the shipped game's stay as they were
    ours, theirs = editions.rules_module(bound, "data"), editions.rules_module(g, "data")
    if game_id == "el-capitan":
        assert ours.BASE_CITIES[0].track != theirs.BASE_CITIES[0].track
        assert theirs.BASE_CITIES[0].track == tuple(editions.shipped(g).data["cities"][0]["track"])
    elif game_id == "nauticus":
        assert ours.PRICE_ROWS[0] == tuple(v + 1 for v in theirs.PRICE_ROWS[0])
    else:
        assert ours.DECK_A[0].favor_vp == theirs.DECK_A[0].favor_vp + 2
    rng, pick = Rng.from_seed("edition-setup"), Rng.from_seed("edition-moves")
    state, _ = bound.setup(bound.players.start, bound.validate_options({}, bound.players.start), rng)
    for ply in range(20_000):
        seats = bound.active_seats(state)
        if not seats:
            break
        legal = bound.legal_actions(state, seats[0])
        state, _ = bound.apply(state, seats[0], legal[pick.randbelow(len(legal))], Rng.from_seed(f"ply-{ply}"))
    assert bound.outcome(state) is not None, "the match did not end"
    assert bound.load(bound.dump(state)) == state


def test_verified_values_leave_the_provisional_list() -> None:
    g = game("el-capitan")
    doc = changed_document("el-capitan", "checked")
    doc["verified"] = [p["path"] for p in doc["provisional"][:5]]
    bound = editions.bind(g, edition_check.check(doc, games.registry()))
    assert len(bound.provisional()) == len(g.provisional()) - 5
    assert not {p.path for p in bound.provisional()} & set(doc["verified"])


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node = doc
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value
    return change


@pytest.mark.parametrize(("change", "field", "words"), [
    (_set(["data", "cities", 2, "track", 3], "ten"), "data.cities[2].track[3]", "is not of type 'integer'"),
    (_set(["data", "cities", 2, "track", 3], -4), "data.cities[2].track[3]", "less than the minimum"),
    (_set(["data", "cities", 2, "track"], [0, 4, 8]), "data.cities[2].track", "has 3 entries; the game has 12"),
    (_set(["data", "cities", 2, "id"], "atlantis"), "data.cities[2].id", "must stay"),
    (_set(["data", "start_money", ], None), "data.start_money", "is not of type 'integer'"),
    (_set(["data", "surprise"], 1), "data", "'surprise' was unexpected"),
    (_set(["verified"], ["cities.nowhere.track"]), "verified[0]", "not a provisional value"),
    (_set(["edition"], "My Box!"), "edition", "lower-case"),
    (_set(["edition"], "shipped"), "edition", "give your edition its own id"),
    (_set(["game"], "chess"), "game", "not a game this server hosts"),
    (_set(["colour"], "red"), "colour", "not a field of an edition"),
])
def test_a_malformed_edition_is_refused_naming_the_field(change: Callable[[dict[str, Any]], None], field: str,
                                                          words: str) -> None:
    doc = changed_document("el-capitan")
    change(doc)
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.check(doc, games.registry())
    assert caught.value.field == field and words in caught.value.message, str(caught.value)


def test_a_missing_field_is_named_with_its_parent() -> None:
    doc = changed_document("nauticus")
    del doc["data"]["action_spaces"]["price_rows"]
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.check(doc, games.registry())
    assert caught.value.field == "data.action_spaces" and "'price_rows' is a required property" in caught.value.message


def test_binding_the_shipped_edition_is_the_shipped_game_and_a_wrong_game_is_refused() -> None:
    g = game("ophir")
    assert editions.bind(g, editions.shipped(g)) is g
    other = edition_check.check(copy.deepcopy(changed_document("nauticus")), games.registry())
    with pytest.raises(ValueError, match="is for nauticus"):
        editions.bind(g, other)


def test_numbers_the_rules_cannot_play_with_are_refused_by_the_trial_match() -> None:
    doc = changed_document("el-capitan", "no-display")
    doc["data"]["display"]["destination"] = 0  # nothing to buy, the match would never end: the schema says at least 1
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.check(doc, games.registry())
    assert caught.value.field == "data.display.destination" and "less than the minimum of 1" in caught.value.message
    # the trial is the last net: a match that does not end in its moves is refused, naming it
    # (Nauticus: its whole matches are short enough for the default suite)
    nauticus = game("nauticus")
    edition = edition_check.check(changed_document("nauticus"), games.registry())
    with pytest.raises(edition_check.EditionError) as caught:
        edition_check.trial(nauticus, edition, plies=5)
    assert caught.value.field == "data" and "did not end in 5 moves" in caught.value.message
    edition_check.trial(nauticus, edition)  # the good one plays, every player count
