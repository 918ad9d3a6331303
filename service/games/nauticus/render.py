"""Plain-text rendering of a view for the CLI and mail: wheel and action spaces, then each
player's money, workers, score, pass tiles, warehouse, ships and delivered goods."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from service.games.words import count

from . import data

_BONUS_TILES = {"mast": "normal mast", "sail": "normal sail", "good": "good"}

def _tile_list(tiles: list[str]) -> str:
    if not tiles:
        return "empty"
    counts = Counter(tiles)
    return ", ".join(f"{n}x {data.item_name(t)}" if n > 1 else data.item_name(t) for t, n in sorted(counts.items()))


def _ship_line(k: int, ship: list[Mapping[str, Any]], complete: bool) -> str:
    parts = []
    for h in ship:
        bits = [h["piece"]]
        if h["mast"]:
            bits.append(data.item_name(h["mast"]))
        if h["sail"]:
            bits.append(data.item_name(h["sail"]))
        if h["good"]:
            bits.append(f"[{h['good']}]")
        parts.append("/".join(bits))
    state = "complete" if complete else "unfinished"
    return f"    ship {k} ({len(ship)}, {state}): " + " + ".join(parts)


def bonus_text(b: Mapping[str, Any]) -> str:
    """A space's bonus in words: "2 workers", "1 worker + 1 VP", "1 normal mast of choice"."""
    bits = [count(b[k], noun) for k, noun in (("workers", "worker"), ("vp", "VP"), ("thaler", "thaler")) if k in b]
    if "tile" in b:
        bits.append(f"1 {_BONUS_TILES.get(b['tile'], b['tile'])} of choice")
    return " + ".join(bits)


def render(view: Mapping[str, Any]) -> str:
    """A readable text rendering of :func:`view.view`'s output."""
    lines = [
        f"NAUTICUS - round {view['round']}/{view['rounds']}, phase {min(view['phase'], view['phases_per_round'])}"
        f"/{view['phases_per_round']} ({view['step']})"
    ]
    lines.append(f"Action spaces (wheel anchor at space {view['anchor']}):")
    for s in view["spaces"]:
        mark = "x" if s["face_down"] else ("*" if s["space"] == view["current_space"] else " ")
        prices = ""
        if "prices" in s:
            prices = "  prices " + ", ".join(f"{data.item_name(i)} {p}" for i, p in s["prices"].items())
        lines.append(
            f"  [{mark}] {s['space']}: {data.ACTION_NAMES[s['action']]:<32} blue {s['blue_workers']}"
            f"  bonus {bonus_text(s['bonus'])}{prices}"
        )
    t = view.get("turn")
    if t:
        run = t["extra"] or t["normal"]
        who = view["players"][t["seat"]]["name"]
        lines.append(
            f"Now: {who} executes {data.ACTION_NAMES[run['action']]}"
            f"{' (extra action)' if t['extra'] else ''}: {count(run['blue_left'], 'blue worker')} left,"
            f" {count(run['units'], 'unit')} done"
        )
        if t["rewards"]:
            lines.append(f"  ship {t['rewards']['ship']} completed: {count(t['rewards']['left'], 'reward')} to take")
        if t["free_item"]:
            lines.append("  free item for buying all four kinds to take")
    elif view["step"] in ("choose", "bonus"):
        who = view["players"][view["chooser"]]["name"]
        lines.append(f"Now: {who} {'chooses an action' if view['step'] == 'choose' else 'takes a bonus tile'}")
    lines.append("Supply: " + ", ".join(f"{data.item_name(k)} {n}" for k, n in view["supply"].items()))
    lines.append("  crests: " + ", ".join(data.CRESTS.values()) + "; crowned masts and sails fit any ship")
    for p in view["players"]:
        passes = " ".join("crown" if f else str(v) for v, f in zip(data.PASS_TILES, p["flipped"], strict=True))
        lines.append(
            f"{p['name']}: {p['vp']} VP, {p['thaler']} thaler, {count(p['workers'], 'worker')}, {count(p['crowns'], 'crown')},"
            f" pass tiles [{passes}], extra action {'available' if p['extra'] else 'used'}"
        )
        lines.append(f"  warehouse ({p['warehouse_used']}/{view['warehouse_capacity']}): {_tile_list(p['warehouse'])}")
        if p["ships"]:
            lines.append("  shipyard:")
            for k, ship in enumerate(p["ships"]):
                lines.append(_ship_line(k, ship, k in p["complete_ships"]))
        else:
            lines.append("  shipyard: empty")
        delivered = ", ".join(f"{g} {n}" for g, n in zip(data.GOODS, p["delivered"], strict=True) if n)
        lines.append(f"  delivered: {delivered or 'nothing'}")
    if "final" in view:
        lines.append("Final scoring:")
        for p, f in zip(view["players"], view["final"], strict=True):
            lines.append(
                f"  {p['name']}: {f['total']} VP (track {f['track_vp']}, ships {f['ships_vp']}, goods {f['goods_vp']},"
                f" money {f['money_vp']} from {f['money']} thaler, remainder {f['remainder']})"
            )
    return "\n".join(lines)
