"""Plain-text rendering of an Ophir view for the CLI and email: the map with ships and
barriers, the market, the temple, every seat's board and favor, and the turn in progress."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .data import EDGES, FAVOR_MAX, SPECIALIST_BY_ID, goods_count

_ROWS: tuple[tuple[str, ...], ...] = (("TL", "TR"), ("L", "C", "R"), ("BL", "BR"))
_CELL = 22


def _goods(goods: list[str]) -> str:
    return "+".join(goods)


def _map(view: Mapping[str, Any]) -> list[str]:
    tokens = {h["id"]: h["token"] for h in view["map"]["hexes"]}
    ships: dict[str, list[str]] = {h: [] for h in tokens}
    for p in view["players"]:
        if p["hex"]:
            ships[p["hex"]].append(f"{p['name'][0]}{p['die']}")
    rival = view.get("rival")
    if rival and rival["hex"]:
        ships[rival["hex"]].append(f"rival{rival['die']}")
    lines = []
    for k, row in enumerate(_ROWS):
        pad = " " * (_CELL // 2) if len(row) == 2 else ""
        cells = []
        for h in row:
            label = f"{h}:{tokens[h] or '?'}"
            if ships[h]:
                label += " " + ",".join(ships[h])
            cells.append(f"({label})".center(_CELL))
        lines.append(pad + "".join(cells))
        if k < len(_ROWS) - 1:
            lines.append("")
    bars = [f"{EDGES[e][0]}|{EDGES[e][1]}" for e in view["map"]["barriers"]]
    lines.append("Barriers: " + (", ".join(bars) if bars else "none yet"))
    lines.append("Ships show colour initial and die value (e.g. Y3 = Yellow, die 3).")
    return lines


def _market(view: Mapping[str, Any]) -> list[str]:
    m = view["market"]
    lines = ["MARKET (stands left to right; the rightmost card leaves at each shift)"]
    for i, card in enumerate(m["demand"]):
        tag = " <- temple merchant" if i == m["merchant"] else ""
        body = "face down" if card is None and not m["revealed"] else (
            "empty" if card is None else
            f"{card['id']} {_goods(card['goods'])}: {_coins(card['coins'])} ({m['modifiers'][i]:+d}), "
            f"donate for {card['favor_vp']} favor+VP")
        lines.append(f"  stand {i + 1}: {body}{tag}")
    fut = m["future"]
    lines.append("  future: " + (f"{fut['id']} {_goods(fut['goods'])}: {_coins(fut['coins'])}, {fut['favor_vp']} favor+VP"
                                 if fut else "none"))
    lines.append(f"  deck: {m['face_down']} face-down cards; discards: {len(m['discard'])}")
    return lines


def _temple(view: Mapping[str, Any]) -> list[str]:
    t = view["temple"]
    if t["current"] is None:
        return ["TEMPLE: complete"]
    filled = ", ".join(t["metals"]) or "empty"
    return [f"TEMPLE: tier {t['current']} ({t['completed']} of {len(t['tiers'])} complete; tiers {' '.join(t['tiers'])})",
            f"  spaces: {filled} ({len(t['metals'])}/{t['spaces']}); {t['metals_to_finish']} {'metal' if t['metals_to_finish'] == 1 else 'metals'} to finish",
            f"  prices: gold {_coins(t['prices']['gold']['coins'])} or {t['prices']['gold']['favor']} favor, "
            f"silver {_coins(t['prices']['silver']['coins'])} or {t['prices']['silver']['favor']} favor"]


def _players(view: Mapping[str, Any]) -> list[str]:
    lines = ["PLAYERS"]
    for p in view["players"]:
        spec = SPECIALIST_BY_ID[p["specialist"]].name if p["specialist"] else "no specialist yet"
        hold = ", ".join(goods_count(n, c) for c, n in p["hold"].items()) or "empty"
        vp = f", {p['vp']} VP" if "vp" in p else ""
        mark = "*" if view["active"] == p["seat"] else " "
        lines.append(f" {mark}{p['name']:<7} {spec:<13} favor {p['favor']}/{FAVOR_MAX}, {_coins(p['coins'])}, die {p['die']}"
                     f"{vp}; hold ({p['holds']} spaces, {p['free_holds']} free): {hold}")
    return lines


def render(view: Mapping[str, Any]) -> str:
    """The whole view as text."""
    lines = [f"OPHIR - phase: {view['phase']}"
             + (f", {view['players'][view['active']]['name']} to act" if view["active"] is not None else "")]
    lines += _map(view)
    lines.append("")
    lines += _market(view)
    lines.append("")
    lines += _temple(view)
    s = view["supply"]
    lines.append("SUPPLY: " + ", ".join(goods_count(n, c) for c, n in s.items()) + f"; cargo tiles on the pier: "
                 f"{view['cargo_tiles']}")
    lines.append("")
    lines += _players(view)
    draft = view.get("draft")
    if draft:
        offered = (", ".join(SPECIALIST_BY_ID[sid].name for sid in draft["offered"]) if draft["offered"] is not None
                   else f"{draft['offered_count']} hidden")
        lines.append(f"DRAFT: {view['players'][draft['picker']]['name']} picks from: {offered}")
    turn = view.get("turn")
    if turn and view["phase"] == "play":
        bits = [f"started at {turn['start_hex']}", f"{turn['moves']} {'move' if turn['moves'] == 1 else 'moves'} used", f"{turn['fails']} failed"]
        for flag in ("influence", "anchored", "gathered", "traded", "donated", "upgraded"):
            if turn[flag]:
                bits.append(flag)
        if turn["rival_step"] >= 0:
            bits.append("moving the rival")
        if turn["rival_trade"]:
            bits.append("rival trade offered")
        lines.append("TURN: " + ", ".join(bits))
    result = view.get("outcome")
    if result:
        lines.append("")
        lines.append(f"GAME OVER ({result['detail']['end_reason']})")
        for row in result["detail"]["seats"]:
            rank = result["ranks"][row["seat"]]
            lines.append(f"  #{rank} {row['name']}: {row['vp']} VP ({row['donated_vp']} + {row['leftover_vp']} "
                         f"for metals), favor {row['favor']}, coins {row['coins']}, goods {row['basic_goods']}")
    return "\n".join(lines)


def _coins(n: int) -> str:
    return f"{n} coin" if n == 1 else f"{n} coins"
