"""Building El Capitán states directly for the scenario tests."""

from __future__ import annotations

from typing import Any

from service.games.base import IllegalAction, Rng
from service.games.el_capitan import GAME
from service.games.el_capitan import data as D
from service.games.el_capitan.payday import new_turn
from service.games.el_capitan.state import FREE, City, Player, State, replace
from service.games.undo import without_undo

R, Y, G, B, W = (D.COLOURS.index(c) for c in ("red", "yellow", "green", "blue", "white"))
_ = FREE


def fresh(players: int, expansions: list[str] | None = None, *, round_: int = 2, seat: int = 0) -> State:
    """A new game, start player seat 0, moved to ``round_`` of phase 1 with ``seat`` to act."""
    opts = GAME.validate_options({"expansions": expansions or [], "start_player": 0})
    s, _ev = GAME.setup(players, opts, Rng.from_seed("scenario"))
    return new_turn(replace(s, round=round_), seat)


def ci(s: State, city: str) -> int:
    return s.city_ids.index(city)


def city(s: State, name: str) -> City:
    return s.cities[ci(s, name)]


def set_city(s: State, name: str, **kw: Any) -> State:
    i = ci(s, name)
    cs = list(s.cities)
    c = cs[i]
    if "sites" in kw:
        sites = tuple(kw["sites"])
        kw["sites"] = sites + (FREE,) * (len(c.sites) - len(sites))
    if "closed" in kw and isinstance(kw["closed"], dict):
        cl = [0] * len(D.COLOURS)
        for k, v in kw["closed"].items():
            cl[k] = v
        kw["closed"] = tuple(cl)
    cs[i] = replace(c, **kw)
    return replace(s, cities=tuple(cs))


def set_player(s: State, seat: int, **kw: Any) -> State:
    ps = list(s.players)
    ps[seat] = replace(ps[seat], **kw)
    return replace(s, players=tuple(ps))


def player(s: State, seat: int) -> Player:
    return s.players[seat]


def anchor(s: State, seat: int, name: str, berth: int | None = None) -> State:
    """Put ``seat``'s ship on a harbour space of ``name`` (first free one by default), as if it had been there
    since before this turn."""
    p = s.players[seat]
    if p.ship >= 0 and p.berth >= 0:
        hs = list(s.cities[p.ship].harbours)
        hs[p.berth] = FREE
        s = set_city(s, s.city_ids[p.ship], harbours=tuple(hs))
    c = city(s, name)
    h = c.harbours.index(FREE) if berth is None else berth
    hs = list(c.harbours)
    hs[h] = seat
    s = set_city(s, name, harbours=tuple(hs))
    s = set_player(s, seat, ship=ci(s, name), berth=h)
    if s.seat == seat:
        s = new_turn(s, seat)
    return s


def turn(s: State, seat: int) -> State:
    """Give ``seat`` a fresh turn."""
    return new_turn(s, seat)


def act(s: State, seat: int, action: dict[str, Any], seed: int = 0) -> tuple[State, list[dict[str, Any]]]:
    new, events = GAME.apply(s, seat, action, Rng.from_seed(seed))
    return new, events


def legal(s: State, seat: int, kind: str | None = None) -> list[dict[str, Any]]:
    out = without_undo(GAME.legal_actions(s, seat))
    return [a for a in out if kind is None or a["type"] == kind]


def refused(s: State, seat: int, action: dict[str, Any]) -> IllegalAction:
    try:
        GAME.apply(s, seat, action, Rng.from_seed(0))
    except IllegalAction as exc:
        return exc
    raise AssertionError(f"{action} was not refused")
