"""What a seat sees (spec §10.1): everything is public.

The only secret in the physical game is the order of action tiles not yet laid, and the engine
shuffles and lays all eight in one step, so no state ever holds an unlaid tile. The view therefore
is the whole state plus derived facts a player needs (blue workers and prices per space, crowns,
warehouse room, whose turn), identical for every seat and for spectators.
"""

from __future__ import annotations

from typing import Any

from . import data, words
from .flow import blue_workers
from .rules import active_seat, current, price
from .scoring import final_score
from .ships import crowns, is_complete, warehouse_used
from .state import Exec, State, player_json


def _exec_view(e: Exec | None) -> dict[str, Any] | None:
    if e is None:
        return None
    out: dict[str, Any] = {
        "action": e.action,
        "space": e.space,
        "blue_left": e.blue,
        "units": e.units,
        "bought": list(e.bought),
        "crown_vp": e.crown_vp,
    }
    if e.action in data.PAID_ACTIONS:
        out["prices"] = {item: price(e, item) for item in data.ACTION_ITEMS[e.action]}
    return out


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The public view of the game (the same for every seat)."""
    spaces = []
    for s in range(data.SPACES):
        a = state.layout[s]
        entry: dict[str, Any] = {
            "space": s,
            "action": a,
            "face_down": state.face_down[s],
            "bonus": dict(data.BONUSES[s]),
            "blue_workers": blue_workers(state.anchor, s),
        }
        if a in data.PAID_ACTIONS:
            entry["prices"] = dict(zip(data.ACTION_ITEMS[a], data.PRICE_ROWS[s], strict=True))
        spaces.append(entry)
    players = []
    for i, p in enumerate(state.players):
        pj = player_json(p)
        pj["seat"] = i
        pj["name"] = words.seat_name(i)  # a phrase: said in the reader's language (service.i18n.localise)
        pj["crowns"] = crowns(p.ships, p.warehouse, p.flipped)
        pj["warehouse_used"] = warehouse_used(p.warehouse)
        pj["complete_ships"] = [k for k, ship in enumerate(p.ships) if is_complete(ship)]
        players.append(pj)
    t = state.turn
    turn = None
    if t is not None:
        turn = {
            "seat": t.seat,
            "normal": _exec_view(t.normal),
            "extra": _exec_view(t.extra),
            "running": current(t).action,
            "extra_used": t.extra_used,
            "closing": t.closing,
            "rewards": None
            if t.rewards is None
            else {
                "ship": t.rewards.ship,
                "left": t.rewards.left,
                "taken": dict(zip(data.REWARDS, t.rewards.taken, strict=True)),
            },
            "free_item": t.free_item,
        }
    active = active_seat(state)
    out: dict[str, Any] = {
        "seat": seat,
        "round": state.round,
        "rounds": data.ROUNDS[len(state.players)],
        "phase": state.phase,
        "phases_per_round": data.PHASES_PER_ROUND,
        "step": state.step,
        "active": [] if active is None else [active],
        "chooser": state.chooser,
        "current_space": state.space,
        "anchor": state.anchor,
        "anchor_tile": state.anchor_tile,
        "pending_bonus": state.bonus,
        "spaces": spaces,
        "supply": dict(zip(data.STACKS, state.supply, strict=True)),
        "warehouse_capacity": data.WAREHOUSE_CAPACITY,
        "players": players,
        "turn": turn,
    }
    if state.step == "over":
        out["final"] = [final_score(p) for p in state.players]
    return out
