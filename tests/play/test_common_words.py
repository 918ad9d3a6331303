"""The common catalog's words (issue 29): the match's own events, undo's words, a view's own lines.

English stays exactly what was stored and shown before; Hungarian is the catalog's, with no English
word left, over real positions of every game (tests/helpers/playthrough.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from service.games import registry
from service.games.base import IllegalAction, Rng
from service.games.undo import UNDO, TurnUndo
from service.i18n import phrase, render
from service.play import editions
from service.play.views.match import describe_event
from service.proof import standing
from tests.helpers.fixture_game import GAME as FIXTURE
from tests.helpers.playthrough import default_seeds, playthrough
from tests.helpers.untranslated import english_words

MATCH_EVENTS = [
    ("abort-voted", {"seat": 0, "waiting_for": [1, 2]}),
    ("abort-voted", {"seat": 2, "waiting_for": [1]}),
    ("abort-voted", {"seat": 1, "waiting_for": []}),
    ("timed-out", {"seat": 1, "policy": "stand-in"}),
    ("timed-out", {"seat": 1, "policy": "skip"}),
    ("timed-out", {"seat": 1, "policy": "forfeit"}),
    ("forfeited", {"seat": 3}),
    ("resigned", {"seat": 0}),
    ("returned", {"seat": 2}),
    ("match-aborted", {"reason": "every remaining player voted to abort"}),
    ("match-aborted", {"reason": "a player left under the abort policy"}),
    ("match-aborted", {"reason": "seat 3 ran out of time under the abort policy"}),
    ("match-ended", {"reason": "fewer than 2 players remain"}),
]


@pytest.mark.parametrize(("kind", "fields"), MATCH_EVENTS)
def test_a_match_event_reads_in_english_as_it_was_stored_and_in_hungarian_without_english(
        kind: str, fields: dict[str, Any]) -> None:
    event = standing._event(kind, **fields)
    said = describe_event(FIXTURE, event)
    assert render(said, "en") == event["text"]
    hungarian = render(said, "hu")
    assert hungarian != event["text"]
    assert english_words(hungarian) == []


def test_match_events_in_hungarian_word_for_word() -> None:
    voted = standing._event("abort-voted", seat=0, waiting_for=[1, 2])
    assert render(describe_event(FIXTURE, voted), "hu") == (
        "A(z) 0. hely a játszma megszakítására szavazott; még szavaznak: 1, 2. hely.")
    late = standing._event("timed-out", seat=1, policy="stand-in")
    assert render(describe_event(FIXTURE, late), "hu") == (
        "A(z) 1. hely kifutott az időből: helyettes játszik helyette, amíg a játékosa vissza nem tér.")
    # an event of the game itself is the game's to say
    assert describe_event(FIXTURE, {"type": "rolled", "text": "Seat 0 rolled 2"}) == "Seat 0 rolled 2"


def test_old_records_keep_their_words_for_an_unknown_reason() -> None:
    event = {"type": "match-aborted", "reason": "the operator said so", "text": "whatever"}
    assert render(describe_event(FIXTURE, event), "hu") == "A játszma eredmény nélkül megszakadt: the operator said so."


def _undo_games() -> list[TurnUndo[Any]]:
    return [g for g in registry().values() if isinstance(g, TurnUndo)]


@pytest.mark.parametrize("game", _undo_games(), ids=lambda g: g.id)
def test_undos_words_over_real_positions(game: TurnUndo[Any]) -> None:
    """Undo's label, description and refusal at every position of a real playthrough, in Hungarian."""
    catalog_entry = {a["type"]: a["description"] for a in game.describe()["actions"]}
    assert english_words(render(catalog_entry[UNDO], "hu")) == []
    assert render(game.describe_action({"type": UNDO}), "hu") == "utolsó lépésed visszavonása"
    assert str(game.describe_action({"type": UNDO})) == "undo your last step"
    seen = 0
    players = game.players.start  # one playthrough (the one tests/games/test_undo.py walks too): fast
    walk = playthrough(game.id, players, default_seeds(players)[0])
    for step in walk.steps[::5]:
        idle = [s for s in range(players) if s not in step.active]
        if not idle:
            continue
        with pytest.raises(IllegalAction) as refused:
            game.apply(step.before, idle[0], {"type": UNDO}, Rng.from_seed(0))
        assert str(refused.value.message) == "nothing to undo: it is not your turn"
        assert render(refused.value.message, "hu") == "nincs mit visszavonni: nem te következel"
        seen += 1
    for step in walk.steps:
        for event in step.events:
            if event.get("type") == "undone":
                said = game.describe_event(event)
                assert str(said) == event["text"]  # English: exactly the stored sentence
                assert "visszavonta" in render(said, "hu")  # a game may word it its own way (El Capitán does)
    assert seen > 0


@pytest.mark.parametrize("game", list(registry().values()), ids=lambda g: g.id)
def test_a_boards_edition_lines_in_hungarian(game: Any) -> None:
    pin = {"id": "shipped", "title": phrase("shipped data"), "provisional_values": 3}
    lines = editions.footnote(pin, game)
    if not lines:
        pytest.skip("a game with no data names no edition")
    assert [str(line) for line in lines] == [
        "Edition: shipped data (shipped).",
        f"* Provisional: 3 values are not yet checked against the printed game (the game's catalog lists them: "
        f"GET /v1/games/{game.id}).",
    ]
    hungarian = [render(line, "hu") for line in lines]
    assert hungarian[0] == "Kiadás: gyári adatok (shipped)."
    assert english_words(" ".join(hungarian), allow=["shipped", "games"]) == []  # an id and a URL
