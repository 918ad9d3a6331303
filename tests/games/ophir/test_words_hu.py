"""Ophir in Hungarian (issue 29, items 2 and 4): what a player reads, said with the rulebook's words.

Over the recorded random playthroughs of every player count (tests/helpers/playthrough.py): every
legal action's label and description, every event's words (``describe_event``), refusals of actions
tried where they are illegal, and the text board (``render(view, "hu")``) hold no English word
(``tests.helpers.untranslated.english_words``). A few Hungarian sentences are pinned exactly, and the
English is pinned to what it was before the words became phrases (a digest of a whole playthrough's
texts).

Left out of the scan, because their words are not Ophir's: the undo step's label and the "nothing to
undo" refusals (service/games/undo.py, the common catalog). A quoted token in a refusal ('move',
'zz') is the JSON the client sent, echoed back: a code, not a word.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.games.base import GameError, Rng
from service.games.ophir import GAME
from service.games.ophir.words import coins, goods_count, joined, seat_name
from service.games.undo import UNDO, without_undo
from service.i18n import render
from tests.helpers.playthrough import Playthrough, default_seeds, playthrough
from tests.helpers.untranslated import english_words

QUOTED = re.compile(r"'[^'\s]*'")
PLAYERS = list(GAME.players)
EVERY = 20
"""Views and refusals are looked at every this many steps (labels and events at every one)."""


def _game_refusal(exc: GameError) -> bool:
    return exc.code != "nothing-to-undo"


def hungarian_texts(p: Playthrough) -> Iterator[tuple[str, str]]:
    """``(where, text in Hungarian)`` for what a player of ``p`` reads, each distinct text once."""
    seen: set[str] = set()

    def fresh(where: str, text: Any, rendered: bool = False) -> Iterator[tuple[str, str]]:
        # the same English is the same Hungarian: each sentence is rendered once (a label recurs thousands of times)
        if str.__str__(text) not in seen:
            seen.add(str.__str__(text))
            yield where, text if rendered else render(text, "hu")

    for e in p.setup_events:
        yield from fresh("event", GAME.describe_event(e))
    earlier: list[dict[str, Any]] = []
    for step in p.steps:
        for a in without_undo(step.legal):
            yield from fresh("label", GAME.label_action(step.before, step.seat, a))
            yield from fresh("action", GAME.describe_action(a))
        if step.index % EVERY == 0:
            yield from fresh("board", GAME.render(GAME.view(step.before, step.seat), "hu"), rendered=True)
            malformed: list[dict[str, Any]] = [{"type": "no-such-action"}, {**step.legal[0], "nosuchfield": 1},
                                               {"type": step.legal[0]["type"]}]
            for old in [*earlier[-8:], *malformed]:
                for seat in range(p.players):
                    try:
                        GAME.apply(step.before, seat, old, Rng.from_seed(step.index))
                    except GameError as exc:
                        if _game_refusal(exc):
                            yield from fresh("refusal", exc.message)
        if step.action.get("type") != UNDO:
            earlier.append(step.action)
        for e in step.events:
            yield from fresh("event", GAME.describe_event(e))
    for seat in [None, *range(p.players)]:
        yield from fresh("board", GAME.render(GAME.view(p.final, seat), "hu"), rendered=True)


@pytest.mark.parametrize("players", PLAYERS, ids=[f"{n}p" for n in PLAYERS])
def test_what_a_player_reads_in_hungarian_has_no_english_word(players: int) -> None:
    found: dict[str, str] = {}
    kinds: set[str] = set()
    for seed in default_seeds(players):
        for where, text in hungarian_texts(playthrough(GAME.id, players, seed)):
            kinds.add(where)
            for word in english_words(QUOTED.sub("''", text)):
                found.setdefault(f"{where}: {word}", text)
    assert kinds == {"event", "label", "action", "board", "refusal"}
    assert not found, "\n".join(f"{why}: {text!r}" for why, text in found.items())


@pytest.mark.parametrize("players", PLAYERS, ids=[f"{n}p" for n in PLAYERS])
def test_describe_event_says_the_stored_english_text(players: int) -> None:
    # the sentence is computed from the fields; for English it is exactly what the record keeps
    p = playthrough(GAME.id, players, default_seeds(players)[0])
    events = [*p.setup_events, *(e for step in p.steps for e in step.events)]
    wrong = [(e["text"], str(GAME.describe_event(e))) for e in events if GAME.describe_event(e) != e["text"]]
    assert not wrong, wrong[:5]
    assert render(GAME.describe_event(events[0]), "hu") != events[0]["text"]


def test_an_event_of_an_older_record_reads_as_its_text() -> None:
    # before issue 29 a sail by influence move was told by its text only; the "by" field is new
    old = {"type": "sailed", "seat": 0, "hex": "C", "text": "Yellow sailed to C by influence move, no test."}
    assert GAME.describe_event(old) == old["text"]
    assert render(GAME.describe_event(old), "hu") == old["text"]
    assert GAME.describe_event({"type": "no-such-event", "text": "Something happened."}) == "Something happened."
    new = {"type": "sailed", "seat": 0, "hex": "C", "by": "influence"}
    assert render(GAME.describe_event(new), "hu") == "Sárga befolyásmozgással erre a hexára hajózott: C, befolyáspróba nélkül."


def test_a_few_hungarian_sentences_exactly() -> None:
    assert render(goods_count(3, "wood"), "hu") == "3 fa"  # the singular after a numeral
    assert render(coins(1), "hu") == "1 pénz" and render(coins(4), "hu") == "4 pénz"
    assert render(joined([goods_count(1, "gems"), goods_count(2, "stone")]), "hu") == "1 drágakő, 2 kő"
    assert render(seat_name(3), "hu") == "Piros"
    assert render(GAME.describe_action({"type": "gather", "good": "gems", "discard": []}), "hu") == (
        "szerezz alapárut: egy drágakő")
    assert render(GAME.describe_action({"type": "end-turn"}), "hu") == "fejezd be a körödet"
    assert render(GAME.describe_action({"type": "draft-specialist", "specialist": "harbormaster"}), "hu") == (
        "válaszd ezt a specialistát: Kikötőmester (specialistaáru: kő, kezdőkegy: 2)")
    event = {"type": "goods-donated", "seat": 1, "slot": 0, "card": "A01", "vp": 1, "favor": 1, "capped": False}
    assert render(GAME.describe_event(event), "hu") == (
        "Zöld árut adományozott a templomnak: fa (A01), jutalma: 1 győzelmi pont és 1 kegy.")
    assert render(GAME.describe_event({"type": "turn-started", "seat": 2, "first": False}), "hu") == "Kék következik."


def test_a_refusal_in_hungarian_cites_the_same_rule() -> None:
    p = playthrough(GAME.id, 2, default_seeds(2)[0])
    step = next(s for s in p.steps if s.before.phase == "play")
    with pytest.raises(GameError) as refused:
        GAME.apply(step.before, step.seat, {"type": "end-turn"}, Rng.from_seed(0))
    assert refused.value.message == ("navigation is compulsory: sail or anchor before taking actions or ending the "
                                     "turn (rule §5.1).")
    assert render(refused.value.message, "hu") == (
        "a navigáció kötelező: hajózz vagy vess horgonyt, mielőtt akciót hajtasz végre vagy befejezed a körödet "
        "(szabály: §5.1).")


def test_the_board_in_hungarian_and_in_english() -> None:
    p = playthrough(GAME.id, 3, default_seeds(3)[0])
    view = GAME.view(p.steps[-1].before, 0)
    hu, en = GAME.render(view, "hu"), GAME.render(view, "en")
    assert hu.startswith("OPHIR - szakasz: játék, ") and "\nJÁTÉKOSOK\n" in hu and "\nTEMPLOM: " in hu
    assert en.startswith("OPHIR - phase: play, ") and "\nPLAYERS\n" in en
    assert len(hu.splitlines()) == len(en.splitlines())
    assert GAME.render(view) == en


def english_digest(p: Playthrough) -> str:
    """A digest of every English text along ``p``: labels, descriptions, events and boards."""
    h = hashlib.sha256()
    for e in [*p.setup_events, *(e for step in p.steps for e in step.events)]:
        h.update(str(e["text"]).encode() + b"\n")
    for step in p.steps:
        for a in without_undo(step.legal):
            h.update(f"{GAME.describe_action(a)}|{GAME.label_action(step.before, step.seat, a)}\n".encode())
        if step.index % 10 == 0:
            h.update(GAME.render(GAME.view(step.before, step.seat), "en").encode())
    return h.hexdigest()


def test_the_english_is_what_it_was_before_the_words_became_phrases() -> None:
    # the digest was taken on main before issue 29's change (commit 47a3d4b): menus, notices and stored
    # records read byte for byte as they did
    assert english_digest(playthrough(GAME.id, 4, default_seeds(4)[0])) == ENGLISH_BEFORE


ENGLISH_BEFORE = "55d246cf3a75beaa7852fe8a9d55d8f84deb2f20f3cf0666da8e5df1335961ad"


def test_the_hungarian_rules_page_has_the_english_pages_sections() -> None:
    # refusals cite "§5.3" in either language: both pages must define the same section ids
    root = Path(__file__).resolve().parents[3] / "docs" / "rules"
    heading = re.compile(r"^#{1,6}\s+(§\d+(?:\.\d+)*|R-\d+)\b", re.MULTILINE)
    english = heading.findall((root / "ophir.md").read_text(encoding="utf-8"))
    hungarian_page = (root / "ophir.hu.md").read_text(encoding="utf-8")
    assert heading.findall(hungarian_page) == english and len(english) > 20
    assert english_words(hungarian_page, allow=["Ophir", "Portolan"]) == []
