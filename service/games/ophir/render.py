"""Plain-text rendering of an Ophir view for the CLI and email: the map with ships and
barriers, the market, the temple, every seat's board and favor, and the turn in progress.

The reader is known here, so every line is a message of the ``ophir`` catalog said in ``language``
(:func:`service.i18n.tr`); English is the text this board always had. The view may have come through
JSON (plain strings), so names are taken from the seat numbers and ids, not from the view's words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.i18n import phrase_in, render, tr, tr_n

from . import words as w
from .data import EDGES, FAVOR_MAX

_ROWS: tuple[tuple[str, ...], ...] = (("TL", "TR"), ("L", "C", "R"), ("BL", "BR"))
_CELL = 22

_END_REASONS = {
    "temple-complete": phrase_in("end reason", "temple-complete"),
    "market-exhausted": phrase_in("end reason", "market-exhausted"),
}
_TURN_FLAGS = {
    "influence": phrase_in("turn so far", "influence"),
    "anchored": phrase_in("turn so far", "anchored"),
    "gathered": phrase_in("turn so far", "gathered"),
    "traded": phrase_in("turn so far", "traded"),
    "donated": phrase_in("turn so far", "donated"),
    "upgraded": phrase_in("turn so far", "upgraded"),
}


def _name(seat: int, lang: str) -> str:
    return render(w.seat_name(seat), lang)


def _goods(goods: list[str], lang: str) -> str:
    return render(w.goods_list(goods, "+"), lang)


def _coins(n: int, lang: str) -> str:
    return render(w.coins(n), lang)


def _map(view: Mapping[str, Any], lang: str) -> list[str]:
    tokens = {h["id"]: h["token"] for h in view["map"]["hexes"]}
    ships: dict[str, list[str]] = {h: [] for h in tokens}
    for p in view["players"]:
        if p["hex"]:
            ships[p["hex"]].append(f"{_name(p['seat'], lang)[0]}{p['die']}")
    rival = view.get("rival")
    if rival and rival["hex"]:
        ships[rival["hex"]].append(tr(lang, "rival{die}", die=rival["die"]))
    lines = []
    for k, row in enumerate(_ROWS):
        pad = " " * (_CELL // 2) if len(row) == 2 else ""
        cells = []
        for h in row:
            label = f"{h}:{render(w.kind_word(tokens[h]), lang) if tokens[h] else '?'}"
            if ships[h]:
                label += " " + ",".join(ships[h])
            cells.append(f"({label})".center(_CELL))
        lines.append(pad + "".join(cells))
        if k < len(_ROWS) - 1:
            lines.append("")
    bars = [f"{EDGES[e][0]}|{EDGES[e][1]}" for e in view["map"]["barriers"]]
    lines.append(tr(lang, "Barriers: {edges}", edges=", ".join(bars)) if bars else tr(lang, "Barriers: none yet"))
    first = _name(0, lang)
    example = first[0] + "3"
    lines.append(tr(lang, "Ships show colour initial and die value (e.g. {ship} = {colour}, die 3).",
                    ship=example, colour=first))
    return lines


def _card(card: Mapping[str, Any], lang: str) -> str:
    return f"{card['id']} {_goods(card['goods'], lang)}"


def _market(view: Mapping[str, Any], lang: str) -> list[str]:
    m = view["market"]
    lines = [tr(lang, "MARKET (stands left to right; the rightmost card leaves at each shift)")]
    for i, card in enumerate(m["demand"]):
        if card is None:
            body = tr(lang, "face down") if not m["revealed"] else tr(lang, "empty")
        else:
            modifier = format(m["modifiers"][i], "+d")
            body = tr(lang, "{card}: {money} ({modifier}), donate for {n} favor+VP", card=_card(card, lang),
                      money=_coins(card["coins"], lang), modifier=modifier, n=card["favor_vp"])
        if i == m["merchant"]:
            lines.append(tr(lang, "  stand {stand}: {body} <- temple merchant", stand=i + 1, body=body))
        else:
            lines.append(tr(lang, "  stand {stand}: {body}", stand=i + 1, body=body))
    fut = m["future"]
    lines.append(tr(lang, "  future: {card}: {money}, {n} favor+VP", card=_card(fut, lang),
                    money=_coins(fut["coins"], lang), n=fut["favor_vp"]) if fut else tr(lang, "  future: none"))
    lines.append(tr(lang, "  deck: {n} face-down cards; discards: {discards}", n=m["face_down"],
                    discards=len(m["discard"])))
    return lines


def _temple(view: Mapping[str, Any], lang: str) -> list[str]:
    t = view["temple"]
    if t["current"] is None:
        return [tr(lang, "TEMPLE: complete")]
    filled = render(w.goods_list(t["metals"]), lang) if t["metals"] else tr(lang, "empty")
    gold, silver = t["prices"]["gold"], t["prices"]["silver"]
    return [tr(lang, "TEMPLE: tier {tier} ({done} of {total} complete; tiers {tiers})", tier=t["current"],
               done=t["completed"], total=len(t["tiers"]), tiers=" ".join(t["tiers"])),
            tr_n(lang, "  spaces: {filled} ({used}/{spaces}); {n} metal to finish",
                 "  spaces: {filled} ({used}/{spaces}); {n} metals to finish", t["metals_to_finish"], filled=filled,
                 used=len(t["metals"]), spaces=t["spaces"]),
            tr(lang, "  prices: gold {gold} or {gold_favor} favor, silver {silver} or {silver_favor} favor",
               gold=_coins(gold["coins"], lang), gold_favor=gold["favor"], silver=_coins(silver["coins"], lang),
               silver_favor=silver["favor"])]


def _players(view: Mapping[str, Any], lang: str) -> list[str]:
    lines = [tr(lang, "PLAYERS")]
    for p in view["players"]:
        spec = render(w.specialist_name(p["specialist"]), lang) if p["specialist"] else tr(lang, "no specialist yet")
        held = [w.goods_count(n, c) for c, n in p["hold"].items()]
        hold = render(w.joined(held), lang) if held else tr(lang, "empty")
        vp = tr(lang, ", {points}", points=w.vp(p["vp"])) if "vp" in p else ""
        mark = "*" if view["active"] == p["seat"] else " "
        board = tr(lang, "favor {favor}/{max}, {money}, die {die}{points}; hold ({holds} spaces, {free} free): {hold}",
                   favor=p["favor"], max=FAVOR_MAX, money=_coins(p["coins"], lang), die=p["die"], points=vp,
                   holds=p["holds"], free=p["free_holds"], hold=hold)
        lines.append(f" {mark}{_name(p['seat'], lang):<7} {spec:<13} {board}")
    return lines


def _turn(turn: Mapping[str, Any], lang: str) -> str:
    bits = [tr(lang, "started at {hex}", hex=turn["start_hex"]),
            tr_n(lang, "{n} move used", "{n} moves used", turn["moves"]),
            tr(lang, "{n} failed", n=turn["fails"])]
    bits += [render(word, lang) for flag, word in _TURN_FLAGS.items() if turn[flag]]
    if turn["rival_step"] >= 0:
        bits.append(tr(lang, "moving the rival"))
    if turn["rival_trade"]:
        bits.append(tr(lang, "rival trade offered"))
    return tr(lang, "TURN: {bits}", bits=", ".join(bits))


def _result(result: Mapping[str, Any], lang: str) -> list[str]:
    reason = result["detail"]["end_reason"]
    lines = [tr(lang, "GAME OVER ({reason})", reason=render(_END_REASONS.get(reason, reason), lang))]
    for row in result["detail"]["seats"]:
        lines.append(tr(lang, "  #{rank} {name}: {points} ({donated} + {leftover} for metals), favor {favor}, coins "
                              "{coins}, goods {goods}", rank=result["ranks"][row["seat"]],
                        name=_name(row["seat"], lang), points=w.vp(row["vp"]), donated=row["donated_vp"],
                        leftover=row["leftover_vp"], favor=row["favor"], coins=row["coins"],
                        goods=row["basic_goods"]))
    return lines


def render_view(view: Mapping[str, Any], language: str = "en") -> str:
    """The whole view as text, in ``language``."""
    lang = language
    phase = w.phase_word(view["phase"])
    if view["active"] is not None:
        head = tr(lang, "OPHIR - phase: {phase}, {name} to act", phase=phase, name=_name(view["active"], lang))
    else:
        head = tr(lang, "OPHIR - phase: {phase}", phase=phase)
    lines = [head, *_map(view, lang), "", *_market(view, lang), "", *_temple(view, lang)]
    supply = w.joined([w.goods_count(n, c) for c, n in view["supply"].items()])
    lines.append(tr(lang, "SUPPLY: {goods}; cargo tiles on the pier: {tiles}", goods=supply,
                    tiles=view["cargo_tiles"]))
    lines += ["", *_players(view, lang)]
    draft = view.get("draft")
    if draft:
        if draft["offered"] is not None:
            offered = render(w.joined([w.specialist_name(sid) for sid in draft["offered"]]), lang)
        else:
            offered = tr(lang, "{n} hidden", n=draft["offered_count"])
        lines.append(tr(lang, "DRAFT: {name} picks from: {offered}", name=_name(draft["picker"], lang),
                        offered=offered))
    turn = view.get("turn")
    if turn and view["phase"] == "play":
        lines.append(_turn(turn, lang))
    result = view.get("outcome")
    if result:
        lines += ["", *_result(result, lang)]
    return "\n".join(lines)

