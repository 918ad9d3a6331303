"""Player-facing words: the scan of random positions of every game and player count, and the
rules pages that the messages cite (issue 16, item 4).

What a box owner reads (events, menu labels, renderings, the views' sentences, refusals) must be
plain English: a rule cited only by an id that ``docs/rules/<game>.md`` defines, no "seed", "spec"
or "unverified" outside the provisional footnote, no "1 coins" or "worker(s)", names instead of
ids and seat numbers. ``tests/games/player_words.py`` gathers the texts along the playthroughs of
tests/helpers/playthrough.py (the ones the conformance and undo checks walk) and holds the checks.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from service.games import registry
from service.games.base import Game
from service.games.words import RULES_PAGES, count, plural
from tests.games.player_words import RULE_REF, page_ids, problems, scan
from tests.helpers.playthrough import SLOW_SEEDS, default_seeds, playthrough

GAMES: dict[str, Game[Any]] = {k: g for k, g in registry().items() if k in RULES_PAGES}
"""The games that have a rules reference page (a plugin game installed beside them has its own words)."""
CASES = [(g, n) for g in GAMES.values() for n in g.players]
IDS = [f"{g.id}-{n}p" for g, n in CASES]
PACKAGES = {"el-capitan": "el_capitan", "nauticus": "nauticus", "ophir": "ophir"}


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_the_words_of_random_positions_are_plain(game: Game[Any], players: int) -> None:
    # every 10th position's views and refusals (events and labels at every one): a few seconds per
    # game and player count; the slow twin looks closer. Odd seeds of El Capitán have the expansions.
    found = scan((playthrough(game.id, players, seed) for seed in default_seeds(players)), every=10)
    assert not found, "\n".join(f"{why}: {text!r}" for why, text in found.items())


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_the_words_of_many_random_positions_are_plain(game: Game[Any], players: int) -> None:
    found = scan((playthrough(game.id, players, seed) for seed in SLOW_SEEDS), every=2)
    assert not found, "\n".join(f"{why}: {text!r}" for why, text in found.items())


@pytest.mark.parametrize(
    ("game_id", "text", "why"),
    [
        ("el-capitan", "Red repays 3 loan(s): 40.", "writes a plural as (s)"),
        ("ophir", "Green bought 1 silver for 1 coins.", "'1 coins': one with a plural noun"),
        ("ophir", "gather one gems", "pairs one with a plural"),
        ("el-capitan", "a voyage may not end where it began (R-99)", "cites R-99, which docs/rules/el-capitan.md does not define"),
        ("ophir", "the supply is empty (rule §10 item 12).", "cites a rule the page does not number so"),
        ("nauticus", "d = fourth crest (not named in the seed)", "speaks of the seed (a source only the developers know)"),
        ("nauticus", "crests: a = light-green anchor", "a crest by its letter"),
        ("nauticus", "buy a mast-a for 1 thaler", "a mast or sail by its id instead of its crest"),
        ("nauticus", "silver value unverified: 3", "says unverified outside the provisional footnote"),
        ("el-capitan", "napoli is not within 2 seal steps", "city id 'napoli' instead of 'Napoli'"),
        ("el-capitan", "it is seat 1's move, not seat 0's", "names a seat by its number instead of its colour"),
        ("el-capitan", "(rules §4.2 of the spec)", "cites the specification instead of the rules page"),
        ("ophir", "draft the temple_guard", "prints an internal id (with an underscore)"),
        ("nauticus", "sells only ['sail-a', 'sail-b']", "prints a Python value"),
        ("nauticus", "takes the bonus: 2 vp", "writes VP in lower case"),
        ("el-capitan", "Bonus cards left: [15, 10, 5]", "prints a Python value"),
    ],
)
def test_the_scan_finds_each_kind_of_slip(game_id: str, text: str, why: str) -> None:
    assert why in problems(GAMES[game_id], text)


@pytest.mark.parametrize(
    "text",
    [
        "Red repays 1 loan: 12.",
        "Green bought 1 silver for 1 coin (rule §5.3).",
        "* provisional value: the silver price is unverified in the printed box",
        "a voyage may not end in the city where it began (R-7)",
        "Yellow is the starting player (server draw, rule §10.15).",
        "1 is the first harbour space; 1 bonus card left",
    ],
)
def test_plain_words_pass_the_scan(text: str) -> None:
    game = GAMES["ophir"] if "§10.15" in text or "silver" in text else GAMES["el-capitan"]
    assert problems(game, text) == []


@pytest.mark.parametrize("game_id", sorted(PACKAGES))
def test_every_rule_the_code_cites_is_on_the_rules_page(game_id: str) -> None:
    """Static twin of the scan: every rule id in a string of the game's code (docstrings aside,
    which players never read) is a section of its rules page, so a refusal the random playouts
    never provoke cannot cite a rule the page lacks either."""
    ids = page_ids(game_id)
    assert RULES_PAGES[game_id] == f"docs/rules/{game_id}.md"
    package = Path(__file__).resolve().parents[2] / "service" / "games" / PACKAGES[game_id]
    missing: list[str] = []
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # a string standing alone as a statement is a docstring (of a module, class, function or field)
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                missing += [f"{path.name}:{node.lineno} {m.group(0)}" for m in RULE_REF.finditer(node.value)
                            if m.group(0).replace(" ", "") not in ids]
    assert not missing, f"cited but not on docs/rules/{game_id}.md: {missing}"


def test_counted_nouns() -> None:
    assert [count(1, "coin"), count(2, "coin"), count(0, "worker"), count(1, "gem"), count(3, "gem")] == [
        "1 coin", "2 coins", "0 workers", "1 gem", "3 gems"]
    assert [plural(2, "thaler"), plural(2, "VP"), plural(2, "cross"), plural(2, "ally"), plural(-1, "coin")] == [
        "thaler", "VP", "crosses", "allies", "coin"]
