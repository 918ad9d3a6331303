"""Final scoring and tie-breaks (spec §8).

Metals still in a hold score 5 (gold) and 3 (silver, UNVERIFIED) each; the total VP decides;
ties go to the most favor, then the most coins, then the most basic goods in the holds; seats
still tied share the rank.
"""

from __future__ import annotations

from typing import Any

from service.games.base import Outcome

from .data import GOLD, LEFTOVER_VP, SILVER
from .state import OVER, State, seat_name

TIE_BREAKS: tuple[str, ...] = ("vp", "favor", "coins", "basic_goods")


def breakdown(state: State) -> list[dict[str, Any]]:
    """Each seat's final numbers: donated VP, leftover metal VP, total and the tie-break keys."""
    rows: list[dict[str, Any]] = []
    for i, p in enumerate(state.seats):
        leftover = p.hold[GOLD] * LEFTOVER_VP["gold"] + p.hold[SILVER] * LEFTOVER_VP["silver"]
        rows.append({
            "seat": i, "name": seat_name(i), "donated_vp": p.vp, "leftover_gold": p.hold[GOLD],
            "leftover_silver": p.hold[SILVER], "leftover_vp": leftover, "vp": p.vp + leftover,
            "favor": p.favor, "coins": p.coins, "basic_goods": p.basic_goods(),
        })
    return rows


def outcome(state: State) -> Outcome | None:
    """The result once the game is over: scores are total VP; ranks follow the tie-breaks."""
    if state.phase != OVER:
        return None
    rows = breakdown(state)
    keys = [tuple(r[k] for k in TIE_BREAKS) for r in rows]
    ranks = tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)
    trail: list[dict[str, Any]] = []
    # Explain how each group tied on VP was separated, key by key.
    for vp in sorted({r["vp"] for r in rows}, reverse=True):
        group = [r["seat"] for r in rows if r["vp"] == vp]
        if len(group) < 2:
            continue
        for depth, key in enumerate(TIE_BREAKS[1:], start=2):
            values = {s: rows[s][key] for s in group}
            trail.append({"tied_on": list(TIE_BREAKS[: depth - 1]), "seats": group, "compare": key, "values": values})
            if len(set(values.values())) == len(group):
                break
            still = [s for s in group if keys[s][:depth] == max(keys[t][:depth] for t in group)]
            if len(still) < 2:
                break
            group = still
    return Outcome(
        scores=tuple(r["vp"] for r in rows),
        ranks=ranks,
        detail={"end_reason": state.end_reason, "seats": rows, "tie_breaks": list(TIE_BREAKS), "trail": trail},
    )
