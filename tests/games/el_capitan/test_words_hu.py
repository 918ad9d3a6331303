"""El Capitán in Hungarian (issue 29): every word a player reads along random playthroughs of every player
count says itself in Hungarian, with the rulebook's words, and English stays exactly as it was.

The scan walks the recorded playthroughs of tests/helpers/playthrough.py (the ones the conformance and
player-words checks walk): at every step the label and the description of every legal action, every
event's :meth:`describe_event`, and every few steps the text board of each seat and a sample of refused
actions, all rendered in Hungarian and searched for English words
(:func:`tests.helpers.untranslated.english_words`); only proper names may stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.games.base import GameError, IllegalAction, Rng
from service.games.el_capitan import GAME
from service.games.el_capitan import data as D
from service.games.el_capitan.validate import FIELDS
from service.games.undo import UNDO
from service.games.words import cited_rules
from service.i18n import render
from tests.games.el_capitan.helpers import anchor, fresh
from tests.helpers.playthrough import default_seeds, playthrough
from tests.helpers.untranslated import english_words

PROPER = {w for c in D.ALL_CITIES.values() for w in re.findall(r"\w+", c.name)} | {"El", "Capitán", "Capitan", "Florin"}
"""Proper names that stay in every language: the cities as the board prints them, El Capitán, the Florin."""

_QUOTED = re.compile(r"'[^'\s]*'")
_TYPES = re.compile(r"\b(?:" + "|".join(re.escape(t) for t in sorted(FIELDS, key=len, reverse=True)) + r")\b")


def _words_only(text: str) -> str:
    """A refusal without the JSON it echoes for an API client: quoted values ('harbour', 'card') and action
    types (build-warehouse) are the machine vocabulary, which stays English (docs/i18n.md)."""
    return _TYPES.sub("", _QUOTED.sub("", text))


def _said(players: int) -> Iterator[tuple[str, str, str]]:
    """(where, English, Hungarian) for what the players read along the default playthroughs of ``players``."""
    for seed in default_seeds(players):
        p = playthrough(GAME.id, players, seed)
        assert p.failure is None, p.failure
        for e in p.setup_events:
            said = GAME.describe_event(e)
            yield "event", str(said), render(said, "hu")
        earlier: list[dict[str, Any]] = []
        for step in p.steps:
            state, seat = step.before, step.seat
            for a in step.legal:
                if a["type"] == UNDO:  # undo's words are service/games/undo.py's, in the common catalog
                    continue
                for where, said in (("action", GAME.describe_action(a)), ("label", GAME.label_action(state, seat, a))):
                    yield where, str(said), render(said, "hu")
            if step.index % 15 == 0:
                for viewer in [None, *range(players)]:
                    board = GAME.view(state, viewer)
                    yield "render", GAME.render(board), GAME.render(board, "hu")
                malformed = [{"type": "no-such-action"}, {**step.legal[0], "nosuchfield": 1}, {"type": step.legal[0]["type"]}]
                for old in [*earlier[-10:], *malformed]:
                    for other in range(players):
                        try:
                            GAME.apply(state, other, old, Rng.from_seed(step.index))
                        except GameError as exc:
                            yield "refusal", str(exc.message), _words_only(render(exc.message, "hu"))
            if step.action["type"] != UNDO:
                earlier.append(step.action)
            for e in step.events:
                said = GAME.describe_event(e)
                yield "event", str(said), render(said, "hu")
        board = GAME.view(p.final, None)
        yield "render", GAME.render(board), GAME.render(board, "hu")


@pytest.mark.parametrize("players", list(GAME.players))
def test_random_positions_read_in_hungarian(players: int) -> None:
    found: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()  # the same words recur thousands of times: check each once
    for where, english, hungarian in _said(players):
        if (where, english) in seen:
            continue
        seen.add((where, english))
        left = english_words(hungarian, allow=PROPER)
        if left:
            found.setdefault(f"{where}: {', '.join(left)}", hungarian)
        # a refusal's citations hold in every language: the Hungarian rules page has the same ids
        if cited_rules(hungarian) != cited_rules(_words_only(english) if where == "refusal" else english):
            found.setdefault(f"{where}: cites {cited_rules(hungarian)} for {cited_rules(english)}", hungarian)
    assert not found, "\n".join(f"{why}: {text!r}" for why, text in found.items())


@pytest.mark.parametrize("players", list(GAME.players))
def test_every_event_is_described_as_it_was_stored(players: int) -> None:
    # describe_event rebuilds each new event's English exactly from its fields: the stored "text" stays
    # what it always was, and a reader in English sees the same sentence either way
    for seed in default_seeds(players):
        p = playthrough(GAME.id, players, seed)
        events = [*p.setup_events, *(e for step in p.steps for e in step.events)]
        differ = [(e["text"], str(GAME.describe_event(e))) for e in events if str(GAME.describe_event(e)) != e["text"]]
        assert not differ, differ[:5]


def test_an_older_event_without_the_new_fields_is_told_by_its_text() -> None:
    old = {"type": "card-bought", "seat": 1, "card": "D01", "cost": 5, "text": "Yellow bought card D01 for 5."}
    assert GAME.describe_event(old) == "Yellow bought card D01 for 5."
    assert render(GAME.describe_event(old), "hu") == "Yellow bought card D01 for 5."  # no words to rebuild it with


def test_exact_hungarian_events() -> None:
    built = {"type": "warehouse-built", "seat": 0, "city": "napoli", "site": 2, "colour": "red", "cost": 4, "players": 3}
    assert str(GAME.describe_event(built)) == "Red built a red warehouse in Napoli on site 2 for 4."
    assert render(GAME.describe_event(built), "hu") == "Piros épített egy piros raktárházat (Napoli, 2. építési mező) 4 Florinért."
    # with two players seat 1 plays yellow (its main colour); a count keeps the singular noun in Hungarian
    repaid = {"type": "loans-repaid", "seat": 1, "amount": 32, "loans": 2, "players": 2}
    assert str(GAME.describe_event(repaid)) == "Yellow repays 2 loans: 32."
    assert render(GAME.describe_event(repaid), "hu") == "Sárga visszafizeti a kölcsöneit (2 kölcsön): 32 Florin."
    over = {"type": "game-over", "money": [40, 75, 40], "players": 3}
    assert str(GAME.describe_event(over)) == "The game is over. Final money: Yellow 75, Red 40, Green 40."
    assert render(GAME.describe_event(over), "hu") == "A játék véget ért. A végső vagyonok: Sárga 75, Piros 40, Zöld 40."


def test_exact_hungarian_labels_and_descriptions() -> None:
    assert render(GAME.describe_action({"type": "take-loan", "amount": 10}), "hu") == "10 Florinos kölcsön felvétele"
    sail = {"type": "sail", "card": "D01", "to": D.CARDS["D01"].city}
    city = D.ALL_CITIES[D.CARDS["D01"].city].name
    seals = D.CARDS["D01"].seals
    assert render(GAME.describe_action(sail), "hu") == f"hajózás ide: {city} (D01 kártya ({city}, {seals} pecsét))"
    s = fresh(3)
    card = s.dest_display[0]
    label = GAME.label_action(s, 0, {"type": "buy-card", "card": card})
    bought = render(GAME.describe_action({"type": "buy-card", "card": card}), "hu")
    assert bought.startswith(f"vásárlás: {card} kártya (")
    assert render(label, "hu") == f"{bought} {D.CARDS[card].cost} Florinért"
    s = anchor(fresh(3), 0, "napoli")
    legal = [a for a in GAME.legal_actions(s, 0) if a["type"] == "build-warehouse"]
    assert legal, "a ship anchored in Napoli may build there"
    price = D.ALL_CITIES["napoli"].harbours[s.players[0].berth]
    texts = {render(GAME.label_action(s, 0, a), "hu") for a in legal}
    assert f"raktárház építése (Napoli, 1. építési mező) {price} Florinért" in texts
    assert {str(GAME.label_action(s, 0, a)) for a in legal} >= {f"build a warehouse in Napoli on site 1 for {price}"}


def test_a_refusal_in_hungarian_cites_the_same_rule() -> None:
    s = fresh(3, round_=1)
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(s, 0, {"type": "take-loan", "amount": 10}, Rng.from_seed(0))
    assert str(refused.value.message) == "no loans in the first round of the game (rule §5.9)"
    assert render(refused.value.message, "hu") == "a játék első körében nem lehet kölcsönt felvenni (szabály: §5.9)"
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(s, 1, {"type": "end-turn"}, Rng.from_seed(0))
    assert render(refused.value.message, "hu") == "most ez a játékos következik: Piros, nem Sárga"


def test_the_board_in_hungarian() -> None:
    s = fresh(2)
    board = GAME.view(s, 0)
    english, hungarian = GAME.render(board), GAME.render(board, "hu")
    assert english == GAME.render(board, "en")
    assert english.splitlines()[0] == "El Capitán - phase 1, round 2 - turns"
    assert hungarian.splitlines()[0] == "El Capitán - 1. fázis, 2. kör - a játékosok körei"
    assert "Játékosok:" in hungarian.splitlines()
    assert "6 raktárház, 1 erőd +2 zöld" in hungarian  # the 2-player neutral supply, by its colour
    assert len(english.splitlines()) == len(hungarian.splitlines())


def test_seat_names_are_colours_in_the_readers_language() -> None:
    assert GAME.seat_names(5) == ["red", "yellow", "green", "blue", "white"]
    assert [render(n, "hu") for n in GAME.seat_names(5)] == ["piros", "sárga", "zöld", "kék", "fehér"]


def test_the_hungarian_rules_page_has_the_english_pages_ids() -> None:
    # refusals cite "§5.4" and "R-7" in every language: the Hungarian page must define exactly the same ids
    heading = re.compile(r"^#{1,6}\s+(§\d+(?:\.\d+)*|R-\d+)\b", re.MULTILINE)
    rules = Path(__file__).resolve().parents[3] / "docs" / "rules"
    english = heading.findall((rules / "el-capitan.md").read_text(encoding="utf-8"))
    hungarian_text = (rules / "el-capitan.hu.md").read_text(encoding="utf-8")
    assert heading.findall(hungarian_text) == english
    assert english_words(hungarian_text, allow=PROPER | {"JSON"}) == []
