"""The El Capitán board picture (:mod:`service.pictures.el_capitan`).

Seeded random playouts of every player count render the spectator view and the seats' views at
sampled plies (every ply where an action type or stage shows up for the first time, and a regular
sample besides) and check each SVG: it parses, has its title and viewBox, every spot's
``data-actions`` are indices of the legal list, and every legal action that ``spot`` maps has its
spot. The draw decks are the only hidden part of El Capitán (R-25: hands, money and loans are
public); no picture may show a card that lies in a deck.

Golden pictures of three seeded positions are compared exactly. After an intended change of the
picture, regenerate them with ``PORTOLAN_UPDATE_GOLDEN=1 pytest tests/pictures/test_el_capitan.py``
and look at the difference (rasterise one with resvg) before committing it.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import resvg_py

from service.games import registry
from service.games.base import Rng
from service.games.undo import without_undo
from service.pictures import el_capitan as picture
from service.pictures import el_capitan_parts as parts
from service.pictures import render as render_by_id

GAME = registry()["el-capitan"]
NS = "{http://www.w3.org/2000/svg}"
GOLDEN = Path(__file__).with_name("golden")
# expansion tiles per player count, so that every tile and the pirate are played somewhere
EXPANSIONS = {2: ["canarias"], 3: ["porto", "lisboa", "canarias"], 4: [], 5: ["porto", "lisboa"]}


def playout(players: int, seed: str, options: Mapping[str, Any],
            plies: int | None = None) -> Iterator[tuple[int, Any, list[Any]]]:
    """The positions of one seeded random game: (ply, state, the active seat's legal actions) before
    each move, then the final one (no legal actions)."""
    rng = Rng.from_seed(seed)
    state = GAME.setup(players, options, rng).state
    ply = 0
    while GAME.outcome(state) is None and (plies is None or ply < plies):
        seat = GAME.active_seats(state)[0]
        actions = without_undo(GAME.legal_actions(state, seat))
        yield ply, state, actions
        state = GAME.apply(state, seat, rng.choice(actions), rng).state
        ply += 1
    yield ply, state, []


def legal_of(state: Any, seat: int) -> list[dict[str, Any]]:
    """The legal list as the API gives it."""
    return [{"action": a, "text": GAME.describe_action(a)} for a in without_undo(GAME.legal_actions(state, seat))]


def check_picture(svg: str, legal: Sequence[Mapping[str, Any]]) -> ET.Element:
    """The checks every picture passes; returns the parsed root."""
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert root.get("role") == "img" and root.get("aria-labelledby") == "title"
    w, h = root.get("viewBox", "").split()[2:]
    assert int(w) == 900 and int(h) > 600
    title = root.find(f"{NS}title")
    assert title is not None and (title.text or "").startswith("El Capitán – phase")
    spots: dict[str, list[int]] = {}
    for g in root.iter(f"{NS}g"):
        if g.get("class") == "spot":
            sid = g.get("data-spot", "")
            assert sid not in spots, f"spot {sid} drawn twice"
            indices = [int(i) for i in g.get("data-actions", "").split()]
            assert indices and all(0 <= i < len(legal) for i in indices)
            assert g.get("role") == "button" and g.get("tabindex") == "0" and g.get("aria-label")
            spots[sid] = indices
    expected: dict[str, list[int]] = {}
    for i, item in enumerate(legal):
        mapped = picture.spot(item["action"])
        if mapped is not None:
            expected.setdefault(mapped, []).append(i)
    assert spots == expected
    return root


def drawn_cards(root: ET.Element) -> set[str]:
    return {el.get("data-card", "") for el in root.iter() if el.get("data-card")}


def sampled(players: int, seed: str, every: int, plies: int | None = None) -> Iterator[tuple[int, Any, list[Any]]]:
    """Plies of a playout where something new happens (an action shape or a stage seen for the first
    time), every ``every``-th ply and the end."""
    seen: set[str] = set()
    for ply, state, actions in playout(players, seed, {"expansions": EXPANSIONS[players]}, plies):
        kinds = {state.stage} | {a["type"] + str(sorted(a)) for a in actions}
        if kinds - seen or ply % every == 0 or not actions:
            seen |= kinds
            yield ply, state, actions


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_playouts_render_every_view(players: int) -> None:
    """A whole game and an opening per player count: the acting seat's picture with its legal
    actions at every sampled ply, the spectator's and every seat's pictures at some of them."""
    count = 0
    games = [(f"picture/{players}/0", 250, None), (f"picture/{players}/1", 12, 60)]
    for seed, every, plies in games:
        for k, (ply, state, actions) in enumerate(sampled(players, seed, every, plies)):
            active = GAME.active_seats(state)
            hidden = set(state.dest_deck) | set(state.conn_deck)
            seats: list[int | None] = list(active)
            if k % 8 == 0 or not active:
                seats = [None, *range(players)]
            for seat in seats:
                legal = [{"action": a, "text": GAME.describe_action(a)} for a in actions] if seat in active else []
                root = check_picture(picture.render(GAME.view(state, seat), legal), legal)
                cards = drawn_cards(root)
                assert not cards & hidden, f"ply {ply}: a card of a draw deck is drawn"
                assert cards <= set(GAME.view(state, seat)["cards"])
                count += 1
    assert count > 30


def test_what_the_view_leaves_out_is_not_drawn() -> None:
    """Hands are public in El Capitán (R-25), so every view holds them; a view that leaves the other
    seats' hands out (as a frontend or a later ruling may) gets a picture without them."""
    state = _position(4, "picture/hands", lambda ply, s: ply == 80)
    view = GAME.view(state, 1)
    assert all(p["hand"] for p in view["players"])
    everyone = drawn_cards(ET.fromstring(picture.render(view)))
    assert all(set(p["hand"]) <= everyone for p in view["players"])
    own = dict(view, players=[p if p["seat"] == 1 else {k: v for k, v in p.items() if k != "hand"}
                              for p in view["players"]])
    drawn = drawn_cards(ET.fromstring(picture.render(own)))
    others = {c for p in view["players"] if p["seat"] != 1 for c in p["hand"]} - set(view["players"][1]["hand"])
    assert others and not drawn & others and set(view["players"][1]["hand"]) <= drawn


def test_the_registry_finds_the_picture() -> None:
    state = next(playout(3, "picture/registry", {}))[1]
    view = GAME.view(state, None)
    assert render_by_id("el-capitan", view) == picture.render(view)


def test_spot_ids() -> None:
    """Each action with a place on the board names it; pass and end-turn stay buttons."""
    cases: list[tuple[dict[str, Any], str | None]] = [
        ({"type": "buy-card", "card": "D03"}, "card:D03"),
        ({"type": "sail", "card": "C11", "to": "napoli"}, "city:napoli"),
        ({"type": "build-warehouse"}, "warehouse"),
        ({"type": "build-warehouse", "site": 2, "colour": "green"}, "warehouse:2"),
        ({"type": "reopen"}, "reopen"),
        ({"type": "build-fortress", "space": 2}, "fortress:2"),
        ({"type": "move-pirate", "to": "tunis", "harbour": 1, "means": "money"}, "pirate:tunis:1"),
        ({"type": "move-pirate", "to": "tunis", "means": "card", "card": "D15"}, "pirate:tunis"),
        ({"type": "take-loan", "amount": 16}, "loan:16"),
        ({"type": "settle-loan", "loan": 0, "choice": "extend"}, "settle:0"),
        ({"type": "choose-start-player", "seat": 2}, "start-player:2"),
        ({"type": "pass"}, None),
        ({"type": "end-turn"}, None),
    ]
    for action, expected in cases:
        assert picture.spot(action) == expected, action


def _position(players: int, seed: str, stop: Any) -> Any:
    for ply, state, _ in playout(players, seed, {"expansions": EXPANSIONS[players]}):
        if stop(ply, state):
            return state
    raise AssertionError("the position was not reached")


GOLDEN_POSITIONS: dict[str, tuple[int, str, Any, bool]] = {
    # name: (players, seed, stop at, render for the active seat with its legal actions)
    "3p-expansions-opening": (3, "golden/3", lambda ply, s: ply == 14, True),
    "5p-midgame-spectator": (5, "golden/5", lambda ply, s: ply == 700, False),
    "2p-loan-settlement": (2, "golden/2", lambda ply, s: s.stage == "settle", True),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_POSITIONS))
def test_golden_pictures(name: str) -> None:
    players, seed, stop, as_seat = GOLDEN_POSITIONS[name]
    state = _position(players, seed, stop)
    seat = GAME.active_seats(state)[0] if as_seat else None
    legal = legal_of(state, seat) if seat is not None else []
    svg = picture.render(GAME.view(state, seat), legal)
    check_picture(svg, legal)
    path = GOLDEN / f"el_capitan-{name}.svg"
    if os.environ.get("PORTOLAN_UPDATE_GOLDEN") == "1":
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8"), f"{path.name} changed (PORTOLAN_UPDATE_GOLDEN=1 to accept)"


def test_provisional_values_are_marked_and_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    """Provisional values carry the class and a star, with the footnote; the values themselves are the
    view's; with nothing provisional neither the class nor the footnote appears."""
    state = next(playout(4, "picture/provisional", {}))[1]
    view = GAME.view(state, None)
    root = ET.fromstring(picture.render(view))
    marked = [el for el in root.iter() if el.get("class") == "provisional"]
    assert marked and all(el.find(f"{NS}tspan") is not None for el in marked if el.tag == f"{NS}text")
    notes = [el.text for el in root.iter(f"{NS}text") if el.get("class") == "footnote"]
    assert "* provisional value: not yet checked against the printed game" in notes
    venezia = next(el for el in root.iter(f"{NS}g") if el.get("data-city") == "venezia")
    printed = [el.text for g in venezia.iter(f"{NS}g") if g.get("class") == "site" for el in g.iter(f"{NS}text")]
    city = next(c for c in view["cities"] if c["id"] == "venezia")
    assert printed == [str(v) for v in city["track"]]
    # Marseille's harbour prices are verified: no star on them
    marseille = next(el for el in root.iter(f"{NS}g") if el.get("data-city") == "marseille")
    harbour_texts = [el for g in marseille.iter(f"{NS}g") if g.get("class") == "harbour" for el in g.iter(f"{NS}text")]
    assert harbour_texts and all(el.get("class") is None for el in harbour_texts)

    monkeypatch.setattr(parts, "provisional_paths", frozenset)
    svg = picture.render(view)
    assert 'class="provisional"' not in svg and "provisional value" not in svg


def test_the_picture_rasterises() -> None:
    """resvg draws it (the PNG of the turn notices)."""
    state = _position(3, "picture/png", lambda ply, s: ply == 30)
    seat = GAME.active_seats(state)[0]
    png = bytes(resvg_py.svg_to_bytes(svg_string=picture.render(GAME.view(state, seat), legal_of(state, seat))))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 20_000
