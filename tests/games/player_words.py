"""What a player reads, gathered along the recorded playthroughs (tests/helpers/playthrough.py),
and the checks it must pass.

A box owner reads events, the labels of the legal actions, the text rendering, the views' words and
the messages of refused actions. None of it may carry a note meant for the people who wrote the rules
core: a rule id that the game's rules reference page (``docs/rules/<game>.md``) does not define,
"seed", "spec", "unverified" outside the provisional footnote, a "(s)" plural, "1 coins", a seat
by number, or an internal id where the game has a name for the thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from service.games.base import Game, GameError, Rng
from service.games.words import RULE_REF
from tests.helpers.playthrough import Playthrough

ROOT = Path(__file__).resolve().parents[2]


_HEADING = re.compile(r"^#{1,6}\s+(§\d+(?:\.\d+)*|R-\d+)\b", re.MULTILINE)

# words ending in s that are singular, so "1 is" or "1 bonus" is fine
_SINGULAR_S = {"is", "was", "has", "this", "its", "bonus", "plus", "as", "us", "thus", "always", "across", "gives",
               "goes", "ends", "takes", "pays", "costs", "shows", "stays", "holds", "moves", "sails", "sells",
               "means", "counts", "leaves", "comes", "scores"}

_SEAT_NUMBER = "names a seat by its number instead of its colour"
_QUOTED = re.compile(r"'[^'\s]*'")
_ID_CHECKS = {"prints an internal id (with an underscore)", "writes VP in lower case"}

MARKERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bseed\b", re.IGNORECASE), "speaks of the seed (a source only the developers know)"),
    (re.compile(r"\bspec\b", re.IGNORECASE), "cites the specification instead of the rules page"),
    (re.compile(r"\bnot named\b|\bPLACEHOLDER\b"), "carries a research note"),
    (re.compile(r"\(s\)|\(es\)"), "writes a plural as (s)"),
    (re.compile(r"§\s*\d+(?:\.\d+)* item \d+|\bsetup step \d+", re.IGNORECASE), "cites a rule the page does not number so"),
    (re.compile(r"\bone (?:gems|coins|workers|metals)\b|\ba (?:gems|coins)\b"), "pairs one with a plural"),
    (re.compile(r"\bseats? \d"), _SEAT_NUMBER),
    (re.compile(r"\[\s*'|'\s*\]|\{'|\bNone\b|\[-?\d+(?:, -?\d+)+\]"), "prints a Python value"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "prints an internal id (with an underscore)"),
    (re.compile(r"\bvp\b"), "writes VP in lower case"),
]


@cache
def page_ids(game_id: str) -> frozenset[str]:
    """The section ids ("§5.4", "R-7") that the game's rules reference page defines in its headings."""
    text = (ROOT / "docs" / "rules" / f"{game_id}.md").read_text(encoding="utf-8")
    return frozenset(m.group(1) for m in _HEADING.finditer(text))


@cache
def raw_ids(game: Game[Any]) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Internal ids the game has a name for, as patterns that must not appear in player text."""
    out: list[tuple[re.Pattern[str], str]] = []
    if game.id == "el-capitan":
        from service.games.el_capitan import data as ec

        for city in ec.ALL_CITIES.values():
            if city.id != city.name:
                out.append((re.compile(rf"\b{re.escape(city.id)}\b"), f"city id {city.id!r} instead of {city.name!r}"))
    if game.id == "nauticus":
        out.append((re.compile(r"\b(?:mast|sail)-(?:[a-d]|crown)\b"), "a mast or sail by its id instead of its crest"))
        out.append((re.compile(r"\b[a-d] = "), "a crest by its letter"))
    if game.id == "ophir":
        from service.games.ophir import data as oph

        for spec in oph.SPECIALISTS:
            if spec.id != spec.name.lower():
                out.append((re.compile(rf"\b{re.escape(spec.id)}\b"), f"specialist id {spec.id!r}"))
    return tuple(out)


def problems(game: Game[Any], text: str, where: str = "") -> list[str]:
    """Everything wrong with one text a player of ``game`` reads; ``[]`` when it is fine.

    ``where`` says what the text is; an ``"action"`` (a move described without its position, as a
    log line shows it) may name a seat by its number, because the action itself holds no more."""
    found: list[str] = []
    ids = page_ids(game.id)
    for m in RULE_REF.finditer(text):
        ref = re.sub(r"\s+", "", m.group(0))
        if ref not in ids:
            found.append(f"cites {ref}, which docs/rules/{game.id}.md does not define")
    for line in text.splitlines() or [text]:
        footnote = "provisional" in line.lower()
        if not footnote and re.search(r"unverified", line, re.IGNORECASE):
            found.append("says unverified outside the provisional footnote")
        for m in re.finditer(r"(?<![\d.,/-])\b1 ([A-Za-z]+s)\b", line):
            if m.group(1).lower() not in _SINGULAR_S:
                found.append(f"'1 {m.group(1)}': one with a plural noun")
    # a quoted token ('vp', 'site', 'temple_guard') is a JSON value or field a refusal echoes for an
    # API client, not a word: the id checks read the text without them ("None" stays: JSON has null)
    words = _QUOTED.sub("''", text)
    for pattern, why in (*MARKERS, *raw_ids(game)):
        if where == "action" and why == _SEAT_NUMBER:
            continue
        if pattern.search(words if why in _ID_CHECKS else text):
            found.append(why)
    return found


_SCALARS = (int, float, bool, type(None))


def _strings(obj: Any) -> Iterator[str]:
    """Every string of words in a view (single tokens such as ids and enum values are data, not words),
    in document order."""
    # A stack, not recursion, and the JSON types by identity before the ABCs: every seat's view at
    # every other step of the slow budget's playthroughs is walked here, and nested generators with
    # Mapping checks were half of that hunt's time. Other mappings and sequences are still walked.
    stack = [obj]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if " " in item:
                yield item
        elif kind is dict:
            stack.extend(reversed(item.values()))
        elif kind is list or kind is tuple:
            stack.extend(reversed(item))
        elif kind in _SCALARS:
            continue
        elif isinstance(item, str):
            if " " in item:
                yield item
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))


def _views(game: Game[Any], state: Any, players: int) -> Iterator[tuple[str, str]]:
    """The words of every seat's and a spectator's view of ``state``, and of its rendering."""
    for seat in [None, *range(players)]:
        view = game.view(state, seat)
        for line in game.render(view).splitlines():
            yield "render", line
        for s in _strings(view):
            yield "view", s


def player_texts(p: Playthrough, *, every: int = 5) -> Iterator[tuple[str, str]]:
    """``(where, text)`` for every text a player reads along one recorded playthrough.

    Events and the labels of every legal action at every step; every ``every`` steps also each
    seat's and a spectator's view (its words and its rendering) and the refusals of actions that were
    legal earlier, offered again by every seat, and of a few malformed actions."""
    game, players = p.game, p.players
    for e in p.setup_events:
        yield "event", str(e.get("text", ""))
    earlier: list[dict[str, Any]] = []
    for step in p.steps:
        state, seat, legal = step.before, step.seat, step.legal
        if step.index % every == 0:
            yield from _views(game, state, players)
        for a in legal:
            yield "action", game.describe_action(a)
            yield "label", game.label_action(state, seat, a)
        if step.index % every == 0:
            malformed: list[dict[str, Any]] = [{"type": "no-such-action"}, {**legal[0], "nosuchfield": 1},
                                               {"type": legal[0]["type"]}]
            for old in [*earlier[-12:], *malformed]:
                for other in range(players):
                    try:
                        game.apply(state, other, old, Rng.from_seed(step.index))
                    except GameError as exc:
                        yield "error", exc.message
        earlier.append(step.action)
        for e in step.events:
            yield "event", str(e.get("text", ""))
    yield from _views(game, p.final, players)


def scan(playthroughs: Iterable[Playthrough], every: int = 5) -> dict[str, str]:
    """The problems found along ``playthroughs``: ``problem -> an example text`` (first seen)."""
    found: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()  # the same sentence recurs thousands of times: check it once
    for p in playthroughs:
        for where, text in player_texts(p, every=every):
            if (where, text) in seen:
                continue
            seen.add((where, text))
            for why in problems(p.game, text, where):
                found.setdefault(f"{where}: {why}", text)
    return found
