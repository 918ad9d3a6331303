"""The Nauticus picture (``service.pictures.nauticus``): well-formed SVG for every position of
seeded playouts, spots that match the legal actions, nothing seat-specific for other eyes, the
provisional marks, golden pictures and a PNG rasterisation.

Golden pictures live in ``tests/pictures/golden/nauticus-*.svg`` and are compared exactly. After a
deliberate change of the picture, regenerate them and look at the diff::

    PORTOLAN_UPDATE_GOLDEN=1 pytest tests/pictures/test_nauticus.py -k golden
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import resvg_py

from service.games import registry
from service.games.base import Action, Rng
from service.games.undo import without_undo
from service.pictures import nauticus
from service.pictures.nauticus import FOOTNOTE, render, spot

GAME = registry()["nauticus"]
NS = "{http://www.w3.org/2000/svg}"
GOLDEN = Path(__file__).with_name("golden")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

Legal = list[dict[str, Any]]
BUILDING = ("buy", "transfer", "take-reward", "deliver")


def _policy(rng: Rng, legal: Sequence[Action]) -> Action:
    """Random, but three times in four a step that builds, so ships get completed and delivered."""
    building = [a for a in legal if a["type"] in BUILDING and a.get("to") != "warehouse"]
    pool = building if building and rng.randbelow(4) else list(legal)
    return pool[rng.randbelow(len(pool))]


def _playout(players: int, seed: str) -> Iterator[tuple[int, Any]]:
    """Every position (ply, state) of one seeded game, the final one included."""
    rng = Rng.from_seed(seed)
    state = GAME.setup(players, {}, rng).state
    ply = 0
    while True:
        yield ply, state
        if GAME.outcome(state) is not None:
            return
        seat = GAME.active_seats(state)[0]
        state = GAME.apply(state, seat, _policy(rng, without_undo(GAME.legal_actions(state, seat))), rng).state
        ply += 1


def _position(players: int, seed: str, ply: int) -> Any:
    for p, state in _playout(players, seed):
        if p == ply:
            return state
    raise AssertionError(f"the game {seed} ended before ply {ply}")


def _legal(state: Any, seat: int) -> Legal:
    """The API's legal_actions list of ``seat``."""
    return [{"action": a, "text": GAME.describe_action(a)} for a in without_undo(GAME.legal_actions(state, seat))]


def _spots(svg: str) -> dict[str, list[int]]:
    root = ET.fromstring(svg)
    out: dict[str, list[int]] = {}
    for g in root.iter(f"{NS}g"):
        if "spot" in g.get("class", "").split():
            assert g.get("data-spot") not in out, f"spot {g.get('data-spot')} drawn twice"
            assert g.get("role") == "button" and g.get("tabindex") == "0" and g.get("aria-label")
            out[g.get("data-spot", "")] = [int(i) for i in g.get("data-actions", "").split()]
    return out


def check_picture(svg: str, legal: Sequence[Mapping[str, Any]]) -> None:
    """A well-formed picture whose spots are exactly the board places of ``legal``."""
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    width, height = root.get("width"), root.get("height")
    assert root.get("viewBox") == f"0 0 {width} {height}" and int(width or 0) == 900 and int(height or 0) > 500
    assert root.get("role") == "img" and root.get("aria-labelledby") == "title"
    title = root.find(f"{NS}title")
    assert title is not None and title.get("id") == "title" and (title.text or "").startswith("Nauticus, round ")
    spots = _spots(svg)
    seen: list[int] = []
    for sid, indices in spots.items():
        assert indices, sid
        for i in indices:
            assert 0 <= i < len(legal), (sid, i)
            assert spot(legal[i]["action"]) == sid, (sid, legal[i])
        seen += indices
    assert len(seen) == len(set(seen))
    for i, item in enumerate(legal):
        place = spot(item["action"])
        if place is not None:
            assert i in spots.get(place, []), f"no spot {place} for legal action {i}: {item['text']}"


def _kinds(legal: Legal) -> frozenset[str]:
    """What a legal list asks of the picture: spot ids without their numbers."""
    return frozenset(re.sub(r"\d+", "N", s) for a in legal if (s := spot(a["action"])) is not None)


@pytest.mark.parametrize("players", sorted(GAME.players))
def test_playouts_render_every_seat(players: int) -> None:
    """Sampled positions of two seeded games per player count: the active seat's picture with its
    spots (at every new kind of decision and every 30th ply), the spectator's and every seat's at
    every 90th ply and at the end."""
    for game in range(2):
        kinds: set[frozenset[str]] = set()
        for ply, state in _playout(players, f"picture-{players}-{game}"):
            active = GAME.active_seats(state)
            over = not active
            if active:
                legal = _legal(state, active[0])
                if _kinds(legal) not in kinds or ply % 30 == 0:
                    kinds.add(_kinds(legal))
                    check_picture(render(GAME.view(state, active[0]), legal), legal)
            if over or ply % 90 == 0:
                check_picture(render(GAME.view(state, None)), [])
                for seat in range(players):
                    legal = _legal(state, seat) if seat in active else []
                    check_picture(render(GAME.view(state, seat), legal), legal)
        assert any("ship-N" in k or "ship-N-hull-N" in k for k in kinds), "no ship spot was ever drawn"


def test_seen_decisions_cover_every_kind_of_spot() -> None:
    """The playouts above reach every kind of spot the module documents (else they test little)."""
    kinds: set[str] = set()
    for players in sorted(GAME.players):
        for _, state in _playout(players, f"picture-{players}-0"):
            for seat in GAME.active_seats(state):
                kinds |= _kinds(_legal(state, seat))
    assert {"tile-hull", "tile-money", "supply-coffee", "ship-N-front", "ship-N-back", "ship-N-hull-N", "new-ship",
            "warehouse", "ship-N", "reward-thaler", "reward-goods", "extra-action"} <= kinds


def test_nothing_seat_specific_for_other_eyes() -> None:
    """Nauticus hides nothing (spec §10.1): a seat's picture is the spectator's plus its own "you"
    mark, and only the acting seat's own picture holds spots. A spectator's picture has no spots,
    no data-actions and none of the acting seat's action words."""
    for ply, state in _playout(3, "picture-3-0"):
        if ply % 40:
            continue
        spectator = render(GAME.view(state, None))
        assert 'class="spot"' not in spectator and "data-actions" not in spectator and "(you" not in spectator
        for seat in GAME.active_seats(state):
            for item in _legal(state, seat):
                assert item["text"] not in spectator
        for seat in range(3):
            mine = render(GAME.view(state, seat))
            assert "(you" in mine
            assert re.sub(r"<text[^>]*>\(you\)</text>\n", "", mine).replace("(you, ", "(") == spectator


def test_spot_ids() -> None:
    """Each action kind's place on the board; pass and done have none."""
    assert spot({"type": "choose-action", "action": "hull"}) == "tile-hull"
    assert spot({"type": "take-money", "workers": 2}) == "tile-money"
    assert spot({"type": "score-crowns", "workers": 1}) == "tile-crowns"
    assert spot({"type": "take-bonus", "item": "mast-b"}) == "supply-mast-b"
    assert spot({"type": "buy", "item": "bow", "to": "ship", "ship": 2, "end": "front"}) == "ship-2-front"
    assert spot({"type": "transfer", "item": "sail-a", "to": "ship", "ship": 0, "hull": 1}) == "ship-0-hull-1"
    assert spot({"type": "buy", "item": "single", "to": "new-ship"}) == "new-ship"
    assert spot({"type": "buy", "item": "coffee", "to": "warehouse"}) == "warehouse"
    assert spot({"type": "deliver", "ship": 3}) == "ship-3"
    assert spot({"type": "take-reward", "reward": "goods", "goods": ["salt", "fish"]}) == "reward-goods"
    assert spot({"type": "extra-action", "action": "crowns", "pass_first": True}) == "extra-action"
    assert spot({"type": "pass"}) is None and spot({"type": "done"}) is None


def test_provisional_values_are_marked_and_unaltered() -> None:
    """Prices, blue workers and the warehouse capacity are provisional data: drawn with class
    ``provisional`` and a "*", with the footnote; the drawn prices are the view's own."""
    view = GAME.view(_position(2, "picture-2-0", 0), None)
    svg = render(view)
    root = ET.fromstring(svg)
    assert FOOTNOTE in svg
    marked = [t for t in root.iter(f"{NS}text") if t.get("class") == "provisional"]
    assert marked and all((t.text or "").endswith("*") for t in marked)
    for space in view["spaces"]:
        group = next(g for g in root.iter(f"{NS}g") if g.get("data-space") == str(space["space"]))
        drawn = {t.get("data-price"): t for t in group.iter(f"{NS}text") if t.get("class") == "provisional"}
        if "prices" in space and not space["face_down"]:
            assert {i: drawn[i].text for i in space["prices"]} == {i: f"{p}*" for i, p in space["prices"].items()}
        if space["space"] != view["anchor"]:
            blue = space["blue_workers"]
            assert drawn[None].text == f"{blue} blue worker{'s' if blue != 1 else ''}*"
    assert any((t.text or "").endswith(f"of {view['warehouse_capacity']} spaces used*") for t in marked)


def test_repeat_prices_are_not_marked() -> None:
    """The next-item prices of a running purchase: a repeat costs the checked repeat price (no
    mark), a first item of a kind its provisional printed price."""
    players, seed, ply, _ = GOLDEN_POSITIONS["buy-3p"]
    view = GAME.view(_position(players, seed, ply), None)
    run = view["turn"]["normal"]
    assert run["bought"], "the position should have a purchase under way"
    status = next(g for g in ET.fromstring(render(view)).iter(f"{NS}g") if g.get("class") == "status")
    drawn = {t.get("data-price"): t for t in status.iter(f"{NS}text") if t.get("data-price")}
    for item, cost in run["prices"].items():
        bought = item in run["bought"]
        assert drawn[item].text == (str(cost) if bought else f"{cost}*")
        assert (drawn[item].get("class") == "provisional") is not bought


def test_no_marks_once_nothing_is_provisional(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the data is checked against the printed game, the stars and the footnote go."""
    monkeypatch.setattr(nauticus, "_provisional_paths", frozenset)
    svg = render(GAME.view(_position(2, "picture-2-0", 0), None))
    assert "provisional" not in svg and FOOTNOTE not in svg and "*<" not in svg


GOLDEN_POSITIONS = {
    # name: (players, seed, ply, seat whose picture it is, or None for the spectator's)
    "start-2p": (2, "picture-2-0", 0, None),
    "buy-3p": (3, "picture-3-0", 99, "active"),
    "final-4p": (4, "picture-4-0", -1, None),
}


def _golden_svg(players: int, seed: str, ply: int, seat: str | None) -> str:
    if ply < 0:
        *_, (_, state) = _playout(players, seed)
    else:
        state = _position(players, seed, ply)
    if seat is None:
        return render(GAME.view(state, None))
    active = GAME.active_seats(state)[0]
    return render(GAME.view(state, active), _legal(state, active))


@pytest.mark.parametrize("name", sorted(GOLDEN_POSITIONS))
def test_golden(name: str) -> None:
    """Fixed positions drawn exactly as stored (see the module docstring to regenerate)."""
    svg = _golden_svg(*GOLDEN_POSITIONS[name])
    path = GOLDEN / f"nauticus-{name}.svg"
    if os.environ.get("PORTOLAN_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(svg + "\n", encoding="utf-8")
    assert svg + "\n" == path.read_text(encoding="utf-8")


def test_golden_buy_position_has_spots() -> None:
    """The seat golden picture shows a decision with places to click (it guards the spot drawing)."""
    spots = _spots(_golden_svg(*GOLDEN_POSITIONS["buy-3p"]))
    assert any(s.startswith("ship-") for s in spots), spots


def test_rasterises_to_png() -> None:
    """resvg reads the picture (its PNG is what mail carries)."""
    svg = _golden_svg(*GOLDEN_POSITIONS["buy-3p"])
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
    assert png[:8] == PNG_MAGIC and len(png) > 10_000
