"""Nauticus in Hungarian and English (issue 29): what a player reads, said through the catalogs.

Along the random playthroughs of every player count (tests/helpers/playthrough.py): every legal action's
label and description, every event (``describe_event``), a sample of refusals and the text board, rendered
in Hungarian, hold no English word (``tests.helpers.untranslated``); a few Hungarian sentences exactly as a
player reads them; and the English words unchanged from before the catalogs (a recorded playthrough,
``golden/words-en.json``), the stored ``text`` of every event equal to its ``describe_event``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.games.base import GameError, IllegalAction, InvalidAction, Rng
from service.games.nauticus import GAME
from service.games.nauticus import data as nau
from service.games.undo import is_undo
from service.i18n import Phrase, render
from tests.games.nauticus.helpers import fresh, in_turn, set_player, ship
from tests.helpers.playthrough import Playthrough, default_seeds, playthrough
from tests.helpers.untranslated import english_words

GOLDEN = Path(__file__).with_name("golden") / "words-en.json"
MACHINE_IDS = {w for ident in (*GAME.actions, *nau.ACTIONS, *nau.STACKS, *nau.REWARDS, "warehouse", "new-ship", "ship",
                               "front", "back", "pass_first", "workers", "goods", "reward", "item", "action", "to",
                               "end", "hull", "type", "nosuchfield", "no-such-action", "true", "false", "JSON")
               for w in re.findall(r"[^\W\d_]+", ident)}
"""The ids a refusal of malformed JSON echoes for an API client (action types, fields, tile ids): data, not words."""


def _steps(p: Playthrough, every: int) -> Iterator[tuple[str, Any]]:
    """(kind, words) of one playthrough: labels and descriptions of every legal action and every event at
    each step; every ``every`` steps the board and the refusals of earlier actions and three malformed
    ones, offered by every seat. Undo's own words (its menu description, its refusals) are undo.py's, the
    common domain's, and left out."""
    game = p.game
    for e in p.setup_events:
        yield "event", game.describe_event(e)
    earlier: list[dict[str, Any]] = []
    for step in p.steps:
        state, seat = step.before, step.seat
        for a in step.legal:
            yield "label", game.label_action(state, seat, a)
            if not is_undo(a):
                yield "action", game.describe_action(a)
        if step.index % every == 0:
            yield "board", game.render(game.view(state, None), "hu")
            malformed = [{"type": "no-such-action"}, {**step.legal[0], "nosuchfield": 1}, {"type": step.legal[0]["type"]}]
            for old in [*earlier[-12:], *malformed]:
                if is_undo(old):
                    continue
                for other in range(p.players):
                    try:
                        game.apply(state, other, old, Rng.from_seed(step.index))
                    except GameError as exc:
                        yield ("illegal" if isinstance(exc, IllegalAction) else "invalid"), exc.message
        earlier.append(step.action)
        for e in step.events:
            yield "event", game.describe_event(e)
    yield "board", game.render(game.view(p.final, None), "hu")


@pytest.mark.parametrize("players", list(GAME.players))
def test_no_english_is_left_in_hungarian(players: int) -> None:
    found: dict[str, tuple[str, str]] = {}
    seen: set[str] = set()
    kinds: set[str] = set()
    for seed in default_seeds(players):
        for kind, words in _steps(playthrough(GAME.id, players, seed), every=10):
            kinds.add(kind)
            if kind != "board":
                assert isinstance(words, Phrase), f"{kind} {words!r} is not a phrase: it cannot be said in Hungarian"
            text = render(words, "hu")
            if text in seen:
                continue
            seen.add(text)
            allow = MACHINE_IDS if kind == "invalid" else ()
            for word in english_words(text, allow=allow):
                found.setdefault(word, (kind, text))
    assert kinds >= {"event", "label", "action", "board", "illegal", "invalid"}
    assert not found, "\n".join(f"{word!r} in {kind}: {text!r}" for word, (kind, text) in found.items())


def test_hungarian_as_a_player_reads_it() -> None:
    s = in_turn(fresh(3), "hull", 3, seat=0, blue=2)
    s = set_player(s, 0, ships=(ship("bow:mast-a:sail-a:coffee", "stern:mast-a"), ship("single")), warehouse=("sail-b",))
    buy = {"type": "buy", "item": "bow", "to": "ship", "ship": 1, "end": "front"}
    assert render(GAME.describe_action(buy), "hu") == "vegyél egy hajóorrot, és tedd le az 1. hajó elejére"
    stern = {"type": "buy", "item": "stern", "to": "ship", "ship": 0, "end": "back"}
    assert render(GAME.describe_action(stern), "hu") == "vegyél egy tatot, és tedd le a 0. hajó végére"
    label = GAME.label_action(s, 0, {"type": "buy", "item": "single", "to": "new-ship"})
    price = nau.PRICE_ROWS[3][0]
    assert render(label, "hu") == f"vegyél egy 1-es hajótestet {price} tallérért, és tedd le új hajóként"
    assert render(GAME.describe_action({"type": "take-money", "workers": 3}), "hu") == "vegyél fel pénzt 3 munkással"
    assert render(GAME.describe_action({"type": "pass"}), "hu") == "passzolj (fordíts meg egy passzlapkát)"
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(s, 1, {"type": "pass"}, Rng.from_seed(0))
    assert render(refused.value.message, "hu") == "most Piros következik (szabály: §4.2)"
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(s, 0, {"type": "buy", "item": "mast-b", "to": "ship", "ship": 0, "hull": 0}, Rng.from_seed(0))
    assert refused.value.message == "Buy hull sells only single hull, bow, middle piece, stern (rule §5.1)"
    assert render(refused.value.message, "hu") == (
        "Hajótest-vásárlás: csak ezek vásárolhatók: 1-es hajótest, hajóorr, középrész, tat (szabály: §5.1)")
    assert render(GAME.describe_event({"type": "passed", "seat": 1, "flipped": -3, "text": "Yellow passes and flips the -3"
                                      " pass tile to its crown."}), "hu") == (
        "Sárga passzol, és a -3 értékű passzlapkáját a koronás oldalára fordítja.")
    board = GAME.render(GAME.view(s, None), "hu")
    assert "  raktár (1/12): piros bálnás vitorla" in board
    assert "    0. hajó (2, befejezetlen): hajóorr/világoszöld horgonyos árboc/világoszöld horgonyos vitorla/[kávé]" \
           " + tat/világoszöld horgonyos árboc" in board
    assert "Most: Piros végrehajtja ezt az akciót: Hajótest-vásárlás; 2 kék munkás maradt, 0 végrehajtás kész" in board


def test_a_crest_refusal_and_a_ship_reward_in_hungarian() -> None:
    s = in_turn(fresh(2), "mast", 3, seat=0, blue=2)
    s = set_player(s, 0, ships=(ship("bow:mast-a", "stern"),), thaler=20)
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(s, 0, {"type": "buy", "item": "mast-b", "to": "ship", "ship": 0, "hull": 1}, Rng.from_seed(0))
    assert render(refused.value.message, "hu") == (
        "a 0. hajó címere: világoszöld horgony; egy hajó minden normál árbocának és vitorlájának azonos címerűnek kell"
        " lennie, csak a koronás árbocok és vitorlák illenek bármelyik hajóra (szabály: §5.3)")
    taken = {"type": "reward-taken", "seat": 0, "reward": "goods", "goods": ["coffee", "fish"],
             "text": "Red takes a ship reward: coffee and fish to the warehouse."}
    assert render(GAME.describe_event(taken), "hu") == "Piros elvesz egy jutalmat az elkészült hajóért: kávé és hal a raktárba."
    assert str(GAME.describe_event(taken)) == taken["text"]


def test_an_older_records_event_without_the_fields_is_its_text() -> None:
    old = {"type": "bought", "seat": 0, "item": "bow", "thaler": 1, "text": "Red buys a bow for 1 thaler and 1 worker, to the warehouse."}
    assert GAME.describe_event(old) == old["text"] and not isinstance(GAME.describe_event(old), Phrase)
    assert GAME.describe_event({"type": "bonus-taken", "seat": 2, "item": "coffee", "text": "Green takes a bonus coffee"
                                " to the warehouse."}) == "Green takes a bonus coffee to the warehouse."
    assert GAME.describe_event({"type": "no-such-event"}) == "no-such-event"


@pytest.mark.parametrize("players", list(GAME.players))
def test_every_event_says_its_stored_text(players: int) -> None:
    p = playthrough(GAME.id, players, default_seeds(players)[0])
    events = [*p.setup_events, *(e for step in p.steps for e in step.events)]
    assert {e["type"] for e in events} >= {"setup", "tiles-laid", "action-chosen", "bought", "passed", "pass-penalty",
                                           "game-over"}
    for e in events:
        said = GAME.describe_event(e)
        assert isinstance(said, Phrase), e
        assert str(said) == e["text"]


def _english(p: Playthrough) -> tuple[set[str], dict[int, str]]:
    """The English words of one playthrough as ``golden/words-en.json`` recorded them (every 7th position)."""
    game = p.game
    texts: set[str] = set()
    boards: dict[int, str] = {}
    texts.update(str(e["text"]) for e in p.setup_events)
    earlier: list[dict[str, Any]] = []
    for step in p.steps:
        for a in step.legal:
            texts.update((game.describe_action(a), game.label_action(step.before, step.seat, a)))
        if step.index % 7 == 0:
            boards[step.index] = game.render(game.view(step.before, None))
            malformed = [{"type": "no-such-action"}, {**step.legal[0], "nosuchfield": 1}, {"type": step.legal[0]["type"]}]
            for old in [*earlier[-12:], *malformed]:
                for other in range(p.players):
                    try:
                        game.apply(step.before, other, old, Rng.from_seed(step.index))
                    except GameError as exc:
                        texts.add(exc.message)
        earlier.append(step.action)
        texts.update(str(e["text"]) for e in step.events)
    boards[-1] = game.render(game.view(p.final, None))
    return texts, boards


def test_english_is_as_before_the_catalogs() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    texts, boards = _english(playthrough(GAME.id, 2, 0))
    assert sorted(texts) == golden["texts"]
    assert boards[70] == golden["board_70"]
    assert boards[-1] == golden["board_end"]
    assert render(GAME.render(GAME.view(playthrough(GAME.id, 2, 0).final, None), "en"), "en") == golden["board_end"]


def test_invalid_json_is_refused_in_hungarian_with_its_ids() -> None:
    s = fresh(2)
    with pytest.raises(InvalidAction) as refused:
        GAME.apply(s, 0, {"type": "buy", "item": "bow", "to": "moon"}, Rng.from_seed(0))
    assert refused.value.message == "buy: 'to' must be 'warehouse', 'new-ship' or 'ship'"
    assert render(refused.value.message, "hu") == (
        "buy: a 'to' (hová) értéke 'warehouse' (raktár), 'new-ship' (új hajó) vagy 'ship' (meglévő hajó) lehet")


def test_the_hungarian_rules_page_has_the_english_pages_ids() -> None:
    heading = re.compile(r"^#{1,6}\s+(§\d+(?:\.\d+)*|R-\d+)\s", re.MULTILINE)
    pages = Path(__file__).resolve().parents[3] / "docs" / "rules"
    english = heading.findall((pages / "nauticus.md").read_text(encoding="utf-8"))
    hungarian = heading.findall((pages / "nauticus.hu.md").read_text(encoding="utf-8"))
    assert hungarian == english and len(english) > 20
    # every rule a Hungarian refusal cites is a heading of the Hungarian page
    catalog = (Path(__file__).resolve().parents[3] / "service" / "i18n" / "locale" / "hu" / "LC_MESSAGES" /
               "nauticus.po").read_text(encoding="utf-8")
    cited = {re.sub(r"\s+", "", m) for m in re.findall(r"§\s*\d+(?:\.\d+)*", catalog)}
    assert cited and cited <= set(hungarian)
