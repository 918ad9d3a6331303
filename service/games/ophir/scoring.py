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
    for vp in sorted({r["vp"] for r in rows}, reverse=True):
        trail += _trail(rows, [r["seat"] for r in rows if r["vp"] == vp], 1)
    return Outcome(
        scores=tuple(r["vp"] for r in rows),
        ranks=ranks,
        detail={"end_reason": state.end_reason, "seats": rows, "tie_breaks": list(TIE_BREAKS), "trail": trail},
    )


def _trail(rows: list[dict[str, Any]], group: list[int], depth: int) -> list[dict[str, Any]]:
    """How a group tied on the first ``depth`` keys is split by the next key, recursively; a
    group still tied after the last key shares its rank (spec §8 step 4)."""
    if len(group) < 2:
        return []
    if depth >= len(TIE_BREAKS):
        return [{"tied_on": list(TIE_BREAKS), "seats": group, "shared": True}]
    key = TIE_BREAKS[depth]
    values = [rows[s][key] for s in group]
    out: list[dict[str, Any]] = [{"tied_on": list(TIE_BREAKS[:depth]), "seats": group, "compare": key,
                                  "values": values}]
    for value in sorted(set(values), reverse=True):
        out += _trail(rows, [s for s in group if rows[s][key] == value], depth + 1)
    return out
