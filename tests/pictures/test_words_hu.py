"""The board pictures in Hungarian (issue 29, item 4 for the pictures): their words are the reader's.

Over the recorded random playthroughs of every game and player count (tests/helpers/playthrough.py),
a few positions each (the setup, some steps, the end) are drawn for the spectator and for the seat to
move (with its legal actions as spots, labelled as the API labels them) in Hungarian. The words a
person reads in the SVG (the text of ``<text>`` and its runs, ``<title>`` tooltips, ``aria-label``)
hold no English word (``tests.helpers.untranslated.english_words``) but the proper names: the cities,
the Florin, the games' names. A few Hungarian words are pinned exactly, and English stays the picture's
default (the golden pictures pin its bytes: tests/pictures/test_el_capitan.py and the others).
"""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from service import pictures
from service.games import registry
from service.games.el_capitan.data import ALL_CITIES
from service.games.undo import without_undo
from service.i18n import catalogs
from tests.helpers.playthrough import Playthrough, default_seeds, playthrough
from tests.helpers.untranslated import english_words

NS = "{http://www.w3.org/2000/svg}"
GAMES = ["el-capitan", "nauticus", "ophir"]
CASES = [(g, n) for g in GAMES for n in registry()[g].players]
SAMPLES = 4
"""Positions looked at per playthrough besides its setup and its end, spread over its steps."""

PROPER = {"florin", "capitán", "nauticus", "ophir"} | {w for c in ALL_CITIES.values() for w in c.name.split()}
"""Names that stay as they are in every language (docs/i18n.md): the cities, the coin, the games."""


def words_of(svg: str) -> list[str]:
    """What a person reads in a picture: the text of every ``<text>`` (its runs too), every
    ``<title>``, every ``aria-label``."""
    root = ET.fromstring(svg)
    out: list[str] = []
    for el in root.iter():
        if el.tag in (f"{NS}text", f"{NS}title"):
            out.append("".join(el.itertext()))
        if el.get("aria-label"):
            out.append(str(el.get("aria-label")))
    return out


def positions(p: Playthrough) -> Iterator[tuple[Any, int | None, list[dict[str, Any]]]]:
    """(state, viewer, the viewer's legal actions as the API gives them) at a few places of ``p``."""
    game = p.game
    steps = p.steps
    picked = [steps[i * len(steps) // (SAMPLES + 1)] for i in range(1, SAMPLES + 1)] if steps else []
    yield p.setup_state, None, []
    for step in picked:
        legal = [{"action": a, "text": game.label_action(step.before, step.seat, a)} for a in without_undo(step.legal)]
        yield step.before, step.seat, legal
    yield p.final, None, []
    yield p.final, 0, []


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_a_picture_in_hungarian_has_no_english_word(game_id: str, players: int) -> None:
    game = registry()[game_id]
    found: dict[str, str] = {}
    for seed in default_seeds(players):
        p = playthrough(game_id, players, seed)
        assert p.failure is None, p.failure
        for state, seat, legal in positions(p):
            svg = pictures.render(game_id, game.view(state, seat), legal, "hu")
            for text in words_of(svg):
                for word in english_words(text, allow=PROPER):
                    found.setdefault(word, text)
    assert found == {}, f"English left in {game_id}'s Hungarian picture: {found}"


@pytest.mark.parametrize("game_id", GAMES)
def test_english_is_the_default_and_hungarian_is_another_picture(game_id: str) -> None:
    game = registry()[game_id]
    p = playthrough(game_id, min(game.players), default_seeds(min(game.players))[0])
    state, seat, legal = next(x for x in positions(p) if x[2])
    view = game.view(state, seat)
    english = pictures.render(game_id, view, legal)
    assert pictures.render(game_id, view, legal, "en") == english
    hungarian = pictures.render(game_id, view, legal, "hu")
    assert hungarian != english
    # the same drawing: the spots (the places to click and their actions) do not depend on the language
    spots = [(g.get("data-spot"), g.get("data-actions")) for g in ET.fromstring(english).iter(f"{NS}g")
             if g.get("class") == "spot"]
    assert spots == [(g.get("data-spot"), g.get("data-actions")) for g in ET.fromstring(hungarian).iter(f"{NS}g")
                     if g.get("class") == "spot"]


def test_the_hungarian_words_are_the_rulebooks() -> None:
    p = playthrough("el-capitan", 3, default_seeds(3)[0])
    texts = words_of(pictures.render("el-capitan", registry()["el-capitan"].view(p.setup_state, None), (), "hu"))
    assert "Nézői nézet" in texts and "Bank kikötője" in texts and "Bónusz kártyák" in texts
    assert any(t.startswith("El Capitán – 1. fázis, 1. kör") for t in texts)
    assert any(t.startswith("Közös készlet: raktárházak ") for t in texts)
    n = playthrough("nauticus", 2, default_seeds(2)[0])
    words = words_of(pictures.render("nauticus", registry()["nauticus"].view(n.setup_state, None), (), "hu"))
    assert "Készlet" in words and "Raktár" in words
    o = playthrough("ophir", 2, default_seeds(2)[0])
    words = words_of(pictures.render("ophir", registry()["ophir"].view(o.setup_state, None), (), "hu"))
    assert "Templom" in words and "Piac" in words and "Pakli" in words


SHORT = {(None, "favor+VP"), (None, "crowns × workers VP"), ("picture strip", "{n} VP")}
"""Labels too small for the whole term, abbreviated "GyP" (győzelmi pont): the Ophir donation badge's
"kegy+GyP" under a 28-pixel disc, the Nauticus crown tile's rule and the VP in a player's strip."""


def _strings(value: object) -> list[str]:
    return [s for s in value if s] if isinstance(value, tuple | list) else [str(value)] if value else []


@pytest.mark.parametrize("game", ["el_capitan", "nauticus", "ophir"])
def test_the_pictures_say_each_games_terms_as_its_glossary(game: str) -> None:
    """The game glossaries' check (tests/i18n/test_glossary.py) over the ``pictures`` messages of each
    game's picture modules: one domain holds all three pictures, so a glossary cannot simply name it
    (El Capitán's "warehouse" is a raktárház, Nauticus's a raktár); each message answers to the
    glossaries of the games whose picture code says it."""
    glossary = tomllib.loads((Path(catalogs.__file__).parent / "glossary" / f"{game}.toml").read_text(encoding="utf-8"))
    with catalogs.catalog_path("hu", "pictures").open("rb") as handle:
        catalog = read_po(handle, locale="hu")
    wrong: list[str] = []
    checked = 0
    for message in catalog:
        if not message.id or (message.context, message.id) in SHORT or not any(path.startswith(f"service/pictures/{game}")
                                                            for path, _ in message.locations):
            continue
        english = re.sub(r"\{[^{}]*\}", " ", " ".join(_strings(message.id)))
        for name, term in glossary["terms"].items():
            said = english
            for other in term.get("not_in", []):
                said = re.sub(re.escape(other), " ", said, flags=re.IGNORECASE)
            words = [term["en"], *term.get("forms", [])]
            if not re.search(r"\b(" + "|".join(map(re.escape, words)) + r")\b", said, re.IGNORECASE):
                continue
            checked += 1
            stems = [s.lower() for s in term["hu"]]
            for string in _strings(message.string):
                if not any(stem in string.lower() for stem in stems):
                    wrong.append(f"{english!r} -> {string!r} lacks {stems[0]!r} ({name})")
    assert checked > 5 and not wrong, "\n".join(wrong)
