"""Final scoring and tie-breaks (spec §8)."""

from __future__ import annotations

from typing import Any

from service.games.base import Outcome

from . import data
from .ships import is_complete
from .state import Player, State


def final_score(p: Player) -> dict[str, Any]:
    """The end-game breakdown of one player (spec §8.1-8.4).

    Completed ships score by size; delivered goods by group size per type; every unused worker,
    ship part outside a completed ship (unfinished ship or warehouse) and undelivered good is worth
    1 thaler; then all thaler convert at 3 to 1 VP, the remainder kept for the tie-break.
    """
    ships_vp = 0
    sizes: list[int] = []
    parts_unfinished = 0
    goods_on_ships = 0
    for ship in p.ships:
        goods_on_ships += sum(1 for h in ship if h.good is not None)
        if is_complete(ship):
            sizes.append(len(ship))
            ships_vp += data.SHIP_VP[len(ship)]
        else:
            parts_unfinished += sum(1 + (h.mast is not None) + (h.sail is not None) for h in ship)
    goods_vp = sum(data.goods_group_vp(n) for n in p.delivered)
    warehouse_tiles = len(p.warehouse)
    leftovers = (p.workers + parts_unfinished + warehouse_tiles + goods_on_ships) * data.LEFTOVER_THALER
    money = p.thaler + leftovers
    money_vp, remainder = divmod(money, data.THALER_PER_VP)
    total = p.vp + ships_vp + goods_vp + money_vp
    return {
        "track_vp": p.vp,
        "ships": sizes,
        "ships_vp": ships_vp,
        "delivered": dict(zip(data.GOODS, p.delivered, strict=True)),
        "goods_vp": goods_vp,
        "leftover_thaler": {
            "workers": p.workers,
            "warehouse_tiles": warehouse_tiles,
            "unfinished_ship_parts": parts_unfinished,
            "undelivered_goods_on_ships": goods_on_ships,
            "total": leftovers,
        },
        "cash": p.thaler,
        "money": money,
        "money_vp": money_vp,
        "remainder": remainder,
        "end_game_vp": ships_vp + goods_vp + money_vp,
        "total": total,
    }


def outcome(state: State) -> Outcome | None:
    """Scores and ranks once the game is over; ties broken by the larger unconverted remainder, then
    the larger money (spec §8.5); still tied players share the place."""
    if state.step != "over":
        return None
    detail = [final_score(p) for p in state.players]
    keys = [(d["total"], d["remainder"], d["money"]) for d in detail]
    ranks = tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)
    trail = []
    for seat, mine in enumerate(keys):
        tied = [o for o, k in enumerate(keys) if o != seat and k[0] == mine[0]]
        if tied:
            trail.append(
                {
                    "seat": seat,
                    "tied_on_vp_with": tied,
                    "remainder": mine[1],
                    "money": mine[2],
                    "rank": ranks[seat],
                }
            )
    return Outcome(
        scores=tuple(k[0] for k in keys),
        ranks=ranks,
        detail={
            "players": detail,
            "tie_breaks": ["larger thaler remainder (0-2) after converting", "larger total money"],
            "tie_break_trail": trail,
        },
    )
