"""The Ophir board picture (:mod:`service.pictures.ophir`).

Seeded random playouts for 2, 3 and 4 players render the spectator view and every seat's view
(with the seat's legal actions when it is to act) at sampled plies, and check each document:
it parses, it has the conventions of :mod:`service.pictures.svg`, every spot stands for valid
legal-action indices of the place ``spot()`` names, every legal action with a place has its spot,
and nothing hidden from a seat (another seat's VP, the face-down deck, the cards set aside, the
specialists passed in the draft, the map tokens before the reveal) is in its picture.

Golden pictures (``tests/pictures/golden/ophir-*.svg``) are compared byte for byte. After an
intended change of the picture, regenerate them with::

    PORTOLAN_UPDATE_GOLDEN=1 python -m pytest tests/pictures/test_ophir.py

and look at the difference (and at a rasterised PNG) before committing them.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import resvg_py

from service.games import registry
from service.games.base import Rng
from service.games.ophir.data import SPECIALIST_BY_ID
from service.games.ophir.state import OVER, State
from service.games.undo import without_undo
from service.pictures import ophir, render
from service.pictures.ophir_parts import FOOTNOTE, provisionals

GAME = registry()["ophir"]
NS = "{http://www.w3.org/2000/svg}"
GOLDEN = Path(__file__).with_name("golden")
SAMPLES = 6  # plies rendered per game, spread over the whole game (the machine is shared: < 20 s in all)


def _legal(state: State, seat: int) -> list[dict[str, Any]]:
    """The API's legal-action list for ``seat`` (empty when it is not to act)."""
    if seat not in GAME.active_seats(state):
        return []
    return [{"action": a, "text": GAME.describe_action(a)} for a in without_undo(GAME.legal_actions(state, seat))]


def _playout(players: int, seed: int) -> list[State]:
    """Every state of one uniformly random game."""
    rng = Rng.from_seed(f"picture-ophir/{players}/{seed}")
    state = GAME.setup(players, {}, rng).state
    states = [state]
    while GAME.active_seats(state):
        seat = GAME.active_seats(state)[0]
        actions = without_undo(GAME.legal_actions(state, seat))
        state = GAME.apply(state, seat, actions[rng.randbelow(len(actions))], rng).state
        states.append(state)
    return states


def _check(svg: str, legal: list[dict[str, Any]]) -> ET.Element:
    """The document conventions and the spots; returns the parsed root."""
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox", ""))
    assert root.get("role") == "img" and root.get("aria-labelledby") == "title"
    title = root.find(f"{NS}title")
    assert title is not None and (title.text or "").startswith("Ophir")
    seen: dict[str, list[int]] = {}
    for el in root.iter():
        sid = el.get("data-spot")
        if sid is None:
            continue
        assert sid not in seen, f"spot {sid} drawn twice"
        seen[sid] = [int(i) for i in el.get("data-actions", "").split()]
        if seen[sid]:
            assert el.get("class") == "spot" and el.get("role") == "button" and el.get("aria-label")
        for i in seen[sid]:
            assert 0 <= i < len(legal), f"spot {sid}: index {i} outside the {len(legal)} legal actions"
            assert ophir.spot(legal[i]["action"]) == sid
    for i, item in enumerate(legal):
        sid = ophir.spot(item["action"])
        if sid is not None:
            assert i in seen.get(sid, []), f"legal action {i} {item['action']} has no spot {sid}"
    return root


def _hidden_from(state: State, seat: int | None) -> list[str]:
    """Texts that must not appear in ``seat``'s picture: the ids of the face-down deck below the
    future card and of the cards set aside (and of every market card before the market is
    revealed), and the names of the draft offer when this seat did not see it."""
    hidden = list(state.deck[1:]) + list(state.removed)
    if not state.market_revealed:
        hidden += [c for c in state.demand if c is not None] + list(state.deck[:1])
    if state.phase == "draft":
        picked = {i for i, p in enumerate(state.seats) if p.specialist}
        if seat is None or not (seat == state.draft_order[0] or seat in picked):
            held = {p.specialist for p in state.seats}
            hidden += [SPECIALIST_BY_ID[s].name for s in state.draft_pool if s not in held]
    return hidden


def _assert_private(root: ET.Element, state: State, seat: int | None) -> None:
    over = state.phase == OVER
    for board in root.iter():
        owner = board.get("data-seat")
        if owner is None:
            continue
        for el in board.iter():
            if el.get("data-vp") is not None and not over:
                assert seat is not None and owner == str(seat), f"seat {owner}'s VP in the picture of seat {seat}"
    words: set[str] = set()
    texts: list[str] = []
    for el in root.iter():
        assert el.get("data-token") is None or state.revealed, "a face-down map token drawn"
        for text in (el.text, el.tail, *el.attrib.values()):
            if text and text.strip():
                texts.append(text)
                words.update(re.findall(r"\w+", text))
    joined = "\n".join(texts)
    for hidden in _hidden_from(state, seat):
        found = hidden in joined if " " in hidden else hidden in words
        assert not found, f"hidden {hidden!r} in the picture of seat {seat}"


def _samples(players: int) -> Iterator[State]:
    """Three games: every setup ply of the first, then plies spread over each game (shifted per
    game so the three cover different turns), always the last one (game over)."""
    for seed in range(3):
        states = _playout(players, seed)
        setup = players + 3 if seed == 0 else 0
        step = max(1, len(states) // SAMPLES)
        picks = set(range(setup)) | set(range(setup + seed * step // 3, len(states), step)) | {len(states) - 1}
        yield from (states[k] for k in sorted(picks))


@pytest.mark.parametrize("players", list(GAME.players))
def test_playouts_render_every_view(players: int) -> None:
    for state in _samples(players):
        for seat in [None, *range(players)]:
            legal = _legal(state, seat) if seat is not None else []
            _assert_private(_check(render("ophir", GAME.view(state, seat), legal), legal), state, seat)


def test_spectator_sees_no_vp_and_a_seat_only_its_own() -> None:
    states = _playout(3, 7)
    state = states[len(states) // 2]
    assert state.phase == "play"
    spectator = ET.fromstring(ophir.render(GAME.view(state, None)))
    assert not [el for el in spectator.iter() if el.get("data-vp") is not None]
    mine = ET.fromstring(ophir.render(GAME.view(state, 1), _legal(state, 1)))
    assert [el.get("data-vp") for el in mine.iter() if el.get("data-vp") is not None] == [str(state.seats[1].vp)]


def test_every_action_kind_has_a_place_or_is_a_button() -> None:
    """A new action kind must be given a spot or named here as a button-only action."""
    buttons = {"end-turn", "decline-rival-trade", "undo"}  # undo is a button of every game
    samples: dict[str, dict[str, Any]] = {
        "place-barrier": {"edge": 3}, "draft-specialist": {"specialist": "priest"}, "move": {"hex": "C"},
        "move-rival": {"hex": "L"}, "gather": {"good": "wood"}, "buy-metal": {"metal": "gold", "pay": "coins"},
        "trade": {"slot": 2}, "donate-goods": {"slot": 1}, "sell-specialty": {"good": "stone"},
        "donate-metal": {"metal": "silver"}}
    for kind in GAME.actions:
        sid = ophir.spot({"type": kind, **samples.get(kind, {})})
        assert (sid is None) == (kind in buttons), kind
    assert ophir.spot({"type": "move", "hex": "TR"}) == "hex-TR"
    assert ophir.spot({"type": "donate-goods", "slot": 1}) == "donate-1"


def _position(players: int, seed: int, ply: int) -> State:
    return _playout(players, seed)[ply]


# name -> (players, seed, ply, seat): a 2-player turn with the rival, a 3-player draft pick, a
# 4-player game over seen by a spectator
POSITIONS: dict[str, tuple[int, int, int | None, int | None]] = {
    "2p-play": (2, 1, 120, 0),
    "3p-draft": (3, 2, 3, None),
    "4p-over": (4, 0, None, None),
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_golden(name: str) -> None:
    players, seed, ply, seat = POSITIONS[name]
    states = _playout(players, seed)
    state = states[-1] if ply is None else states[ply]
    if seat is None and state.phase != OVER:
        seat = GAME.active_seats(state)[0]
    svg = ophir.render(GAME.view(state, seat), _legal(state, seat) if seat is not None else [])
    path = GOLDEN / f"ophir-{name}.svg"
    if os.environ.get("PORTOLAN_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(svg + "\n", encoding="utf-8")
    assert svg + "\n" == path.read_text(encoding="utf-8"), f"{path.name} changed; see the module docstring"


def test_provisional_values_are_marked_with_a_footnote(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _position(4, 0, 10)
    svg = ophir.render(GAME.view(state, None))
    root = ET.fromstring(svg)
    marked = [el for el in root.iter() if el.get("class") == "provisional"]
    assert marked and all((el.text or "").endswith("*") for el in marked)
    assert "5/2*" in [el.text for el in marked]  # a tier the catalogue lists as provisional
    assert "3/1*" not in [el.text for el in marked]  # one it does not
    assert FOOTNOTE in svg
    # With an empty catalogue nothing is marked and the footnote goes.
    monkeypatch.setattr(GAME, "provisional", lambda: [])
    provisionals.cache_clear()
    try:
        plain = ophir.render(GAME.view(state, None))
    finally:
        monkeypatch.undo()
        provisionals.cache_clear()
    assert 'class="provisional"' not in plain and FOOTNOTE not in plain


def test_rasterises_to_png(tmp_path: Path) -> None:
    state = _position(2, 1, 120)
    svg = ophir.render(GAME.view(state, 0), _legal(state, 0))
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


def test_each_action_kind_with_a_place_is_clicked_there() -> None:
    """The sampled plies may miss rare steps (the rival's trade, a specialty sale): find, in
    whole games, the first position offering each action kind and check its spot is drawn."""
    missing = {kind for kind in GAME.actions if ophir.spot({"type": kind, "edge": 1, "specialist": "priest",
                                                             "hex": "C", "good": "wood", "metal": "gold",
                                                             "slot": 0}) is not None}
    for players in GAME.players:
        for seed in range(3):
            for state in _playout(players, seed):
                if not missing:
                    return
                seat = GAME.active_seats(state)[0] if GAME.active_seats(state) else None
                if seat is None:
                    continue
                kinds = {a["type"] for a in without_undo(GAME.legal_actions(state, seat))} & missing
                if kinds:
                    legal = _legal(state, seat)
                    root = _check(ophir.render(GAME.view(state, seat), legal), legal)
                    spots = {el.get("data-spot") for el in root.iter() if el.get("data-actions")}
                    for item in legal:
                        if item["action"]["type"] in kinds:
                            assert ophir.spot(item["action"]) in spots, item
                    missing -= kinds
    assert not missing, f"no random game offered {sorted(missing)}: choose other seeds"
