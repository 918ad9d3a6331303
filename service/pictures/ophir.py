"""The Ophir board picture: market on the left, the map of seven hexes in the middle, the temple
on the right (the printed board's three parts), the supply under the map and each seat's board
below; during the draft the specialists on offer, at the end the outcome.

Hidden things are drawn only as far as the view holds them: face-down map tokens and market
cards, another seat's VP, the specialists passed in the draft. Provisional values (the game's
``provisional()`` catalogue) carry the class ``provisional`` and a ``*``, explained in a footnote.

Spot ids (``data-spot``), the places a legal action is natural to click:

* ``edge-<n>``: map edge ``n`` (1-12), for ``place-barrier``;
* ``specialist-<id>``: a specialist card on offer in the draft, for ``draft-specialist``;
* ``hex-<id>``: a map hex (C, TR, R, BR, BL, L, TL), for ``move`` and ``move-rival``;
* ``anchor``: the active seat's own ship, for ``anchor`` (staying on the start hex);
* ``influence``: the active seat's favor track, for ``declare-influence`` (it spends favor);
* ``rival``: the rival ship, for ``stop-rival``;
* ``deck``: the market deck, for ``rival-trade`` (it shifts the market);
* ``supply-<good>``: a good or metal in the supply, for ``gather`` and ``buy-metal``;
* ``stand-<slot>``: the body of the demand card on stand 0-2, for ``trade``;
* ``donate-<slot>``: that card's favor-and-VP badge, for ``donate-goods``;
* ``hold-<good>``: the good on the active seat's own board, for ``sell-specialty``;
* ``temple``: the next empty metal space of the current tier, for ``donate-metal``;
* ``pier``: the cargo tiles on the pier, for ``upgrade-cargo``.

``end-turn`` and ``decline-rival-trade`` have no place on the board: they stay buttons.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from service.games.ophir import words
from service.games.ophir.data import EDGES, HEX_AXIAL, SPECIALIST_BY_ID
from service.i18n import DEFAULT, phrase_in, tr, tr_n
from service.i18n import render as say

from .ophir_parts import Board, players, seat_label, supply, temple
from .svg import Drawing, data, edition_note, spots_of

__all__ = ["render", "spot"]

_BY_TYPE: dict[str, str] = {
    "anchor": "anchor", "declare-influence": "influence", "stop-rival": "rival", "rival-trade": "deck",
    "donate-metal": "temple", "upgrade-cargo": "pier",
}


def spot(action: Mapping[str, Any]) -> str | None:
    """The spot id (see the module docstring) where ``action`` is natural to click, or None."""
    kind = action.get("type")
    if kind == "place-barrier":
        return f"edge-{action['edge']}"
    if kind == "draft-specialist":
        return f"specialist-{action['specialist']}"
    if kind in ("move", "move-rival"):
        return f"hex-{action['hex']}"
    if kind == "gather":
        return f"supply-{action['good']}"
    if kind == "buy-metal":
        return f"supply-{action['metal']}"
    if kind == "trade":
        return f"stand-{action['slot']}"
    if kind == "donate-goods":
        return f"donate-{action['slot']}"
    if kind == "sell-specialty":
        return f"hold-{action['good']}"
    return _BY_TYPE.get(str(kind))


def render(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]] = (), language: str = DEFAULT) -> str:
    """The SVG picture of an Ophir view, with a spot for each legal action that has a place, its
    words in ``language``."""
    cfg = data("ophir")
    b = Board(Drawing(cfg["width"], _height(view, cfg), _title(view, language)), view, spots_of(legal, spot), legal,
              language=language)
    b.d.rect(b.d.root, 0, 0, b.d.width, b.d.height, fill=b.c["background"])
    _header(b)
    _market(b)
    _map(b)
    temple(b)
    supply(b)
    y = players(b, cfg["players"]["y"]) + 8
    if view.get("draft"):
        y = _draft(b, y) + 8
    if view.get("outcome"):
        y = _outcome(b, y) + 8
    _legend(b, y)
    if b.marked or view.get("edition"):
        footnote = tr(language, "* provisional value: not yet checked against the printed game")
        b.d.footnote(([footnote] if b.marked else []) + edition_note(view, language))
    return b.d.to_string()


def _height(view: Mapping[str, Any], cfg: Mapping[str, Any]) -> int:
    """Board and players, then the optional draft and outcome panels, the legend and footnote."""
    h = cfg["players"]["y"] + cfg["players"]["h"] + 8
    if view.get("draft"):
        h += cfg["draft"]["h"] + 8
    if view.get("outcome"):
        h += 36 + 18 * len(view["players"]) + 8
    return int(h + 3 * cfg["footer"]["line"] + 10)


def _who(view: Mapping[str, Any], language: str) -> str:
    if view.get("outcome"):
        return tr(language, "game over")
    active = view["active"]
    if active is None:
        return tr(language, "waiting")
    return tr(language, "{player} to act", player=seat_label(view, active, language))


def _phase(phase: str, language: str) -> str:
    """A phase of the match in words (the view's id in English, as the picture always printed it)."""
    return phase if language == DEFAULT else say(words.phase_word(phase), language)


def _title(view: Mapping[str, Any], language: str) -> str:
    you = view["you"]
    whose = (tr(language, "spectator view") if you is None
             else tr(language, "{player}'s view", player=seat_label(view, you, language)))
    return tr(language, "Ophir, {phase} phase: {who} ({whose})", phase=_phase(view["phase"], language),
              who=_who(view, language), whose=whose)


def _header(b: Board) -> None:
    v, lang = b.view, b.language
    b.text(b.d.root, 10, 26, f"Ophir · {_who(v, lang)}", kind="title", font_weight="bold")
    you = v["you"]
    b.text(b.d.root, b.d.width - 10, 20, tr(lang, "spectator view") if you is None
           else tr(lang, "you are {player}", player=seat_label(v, you, lang)), text_anchor="end")
    b.text(b.d.root, b.d.width - 10, 38, tr(lang, "phase: {phase} · turns played: {turns}",
                                            phase=_phase(v["phase"], lang), turns=v["turns_played"]), kind="small",
           text_anchor="end", fill=b.c["muted"])
    turn = v.get("turn")
    if turn and v["phase"] == "play":
        bits = [tr(lang, "started on {hex}", hex=turn["start_hex"]),
                tr_n(lang, "{n} move", "{n} moves", turn["moves"])]
        done = {"influence": tr(lang, "influence"), "anchored": tr(lang, "anchored"),
                "gathered": tr(lang, "gathered"), "traded": tr(lang, "traded"), "donated": tr(lang, "donated"),
                "upgraded": tr(lang, "upgraded")}
        bits += [word for f, word in done.items() if turn[f]]
        if turn["fails"]:
            bits.append(tr_n(lang, "{n} failed test", "{n} failed tests", turn["fails"]))
        if turn["rival_step"] >= 0:
            bits.append(tr(lang, "moving the rival"))
        if turn["rival_trade"]:
            bits.append(tr(lang, "rival trade offered"))
        b.text(b.d.root, 10, 42, tr(lang, "This turn: {done}", done=", ".join(bits)), kind="small",
               fill=b.c["muted"])


# -- the market -----------------------------------------------------------------------------


def _market(b: Board) -> None:
    """The deck stand with the face-up future card, then the three demand stands, each with
    its fixed price modifier and, above one, the temple merchant."""
    m = b.view["market"]
    L = b.cfg["market"]
    x, y, w = L["x"], L["y"], L["w"]
    cw, ch, sh = L["card_w"], L["card_h"], L["stand_h"]
    lang = b.language
    g = b.panel(x, y, w, 30 + 4 * sh, tr(lang, "Market"))
    b.text(g, x + w - 10, y + 20, tr(lang, "{n} discarded", n=len(m["discard"])), kind="small", text_anchor="end",
           fill=b.c["muted"])
    sy = y + 30
    dg = b.spot(g, "deck", tr(lang, "the market deck"))
    pile = b.d.rect(dg, x + 10, sy + 4, 70, ch, rx=6, fill=b.c["face_down"], stroke=b.c["card_edge"],
                    stroke_width=1.5)
    b.ring(dg, pile)
    b.text(dg, x + 45, sy + 30, tr(lang, "Deck"), text_anchor="middle", fill="#ffffff", font_weight="bold")
    b.text(dg, x + 45, sy + 48, tr(lang, "{n} cards", n=m["face_down"]), kind="small", text_anchor="middle", fill="#ffffff")
    b.text(dg, x + 45, sy + 64, tr(lang, "{n} set aside", n=m["removed_unseen"]), kind="tiny", text_anchor="middle", fill="#ffffff")
    fx = x + w - cw - 10
    b.text(g, fx, sy + 2, tr(lang, "next card (not yet for sale)"), kind="tiny", fill=b.c["muted"])
    if m["future"] is not None:
        b.card(g, fx, sy + 6, m["future"], w=cw, h=ch - 4)
    else:
        b.d.rect(g, fx, sy + 6, cw, ch - 4, rx=6, fill="none", stroke=b.c["muted"], stroke_dasharray="4 3")
        b.text(g, fx + cw / 2, sy + 44, tr(lang, "none") if m["revealed"] else tr(lang, "face down"), text_anchor="middle",
               fill=b.c["muted"])
    for slot, card in enumerate(m["demand"]):
        ty = sy + (slot + 1) * sh
        b.d.line(g, x + 8, ty - 2, x + w - 8, ty - 2, stroke=b.c["panel_edge"], stroke_width=0.8)
        b.text(g, x + 12, ty + 16, tr(lang, "Stand {n}", n=slot + 1), kind="small", font_weight="bold")
        mod = int(m["modifiers"][slot])
        sign = "+1" if mod > 0 else ("−1" if mod < 0 else "±0")
        b.d.rect(g, x + 12, ty + 24, 44, 22, rx=11, fill="#ffffff", stroke=b.c["ink"])
        b.text(g, x + 34, ty + 40, sign, text_anchor="middle", font_weight="bold")
        b.text(g, x + 12, ty + 58, tr(lang, "price"), kind="tiny", fill=b.c["muted"])
        if slot == m["merchant"]:
            merchant = b.d.rect(g, x + 10, ty + 62, 66, 16, rx=3, fill=b.c["merchant"])
            b.d.tooltip(merchant, tr(lang, "the temple merchant: this card's goods can be donated at the temple"))
            b.text(g, x + 43, ty + 74, tr(lang, "MERCHANT"), kind="tiny", text_anchor="middle", fill="#ffffff",
                   font_weight="bold")
        if card is None:
            b.card(g, fx, ty + 4, None, w=cw, h=ch)
            continue
        sg = b.spot(g, f"stand-{slot}", tr(lang, "the demand card on stand {n}", n=slot + 1))
        dn = b.spot(g, f"donate-{slot}", tr(lang, "the donation badge of the card on stand {n}", n=slot + 1))
        b.card(sg, fx, ty + 4, card, w=cw, h=ch, donate=dn, pays=max(0, int(card["coins"]) + mod))


# -- the map ----------------------------------------------------------------------------------


def _centre(b: Board, hex_id: str) -> tuple[float, float]:
    """Pointy-top axial coordinates (the game data's q, r) to picture coordinates."""
    q, r = HEX_AXIAL[hex_id]
    L = b.cfg["map"]
    return L["cx"] + L["size"] * math.sqrt(3) * (q + r / 2), L["cy"] + L["size"] * 1.5 * r


def _corners(b: Board, hex_id: str) -> list[tuple[float, float]]:
    cx, cy = _centre(b, hex_id)
    size = b.cfg["map"]["size"]
    return [(cx + size * math.cos(math.radians(60 * i - 30)), cy + size * math.sin(math.radians(60 * i - 30)))
            for i in range(6)]


def _edge(b: Board, edge: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The segment two hexes share: the two corners the hexes have in common."""
    h1, h2 = EDGES[edge]
    other = _corners(b, h2)
    shared = [p for p in _corners(b, h1) if any(math.dist(p, o) < 1 for o in other)]
    return shared[0], shared[1]


def _map(b: Board) -> None:
    """The seven hexes with their tokens, the barriers, the ships (players' and the rival's)."""
    v, lang = b.view, b.language
    sea = b.d.group(b.d.root)
    L = b.cfg["map"]
    size = L["size"]
    b.d.rect(sea, L["cx"] - 2.7 * size, L["cy"] - 2.6 * size, 5.4 * size, 5.2 * size, rx=12, fill=b.c["sea"],
             stroke=b.c["sea_edge"], stroke_width=2)
    labels: list[tuple[float, float, str, str]] = []
    for h in v["map"]["hexes"]:
        hid, token = h["id"], h["token"]
        cx, cy = _centre(b, hid)
        token_words = (token if lang == DEFAULT else say(words.kind_word(token), lang)) if token else tr(lang, "face down")
        g = b.spot(b.d.root, f"hex-{hid}", tr(lang, "hex {hex} ({token})", hex=hid, token=token_words))
        spec = b.cfg["tokens"].get(token or "", {"label": "?", "fill": b.c["hex_face_down"]})
        poly = b.d.polygon(g, _corners(b, hid), fill=spec["fill"], stroke=b.c["sea_edge"], stroke_width=2,
                           data_hex=hid, data_token=token)
        b.ring(g, poly)
        label = spec["label"]
        if token and lang != DEFAULT:  # the data file's label is English: the token's own word, as a label
            word = say(words.kind_word(token), lang)
            label = word[:1].upper() + word[1:]
        labels.append((cx, cy, label, hid))
    for e in v["map"]["barriers"]:
        (x1, y1), (x2, y2) = _edge(b, e)
        bar = b.d.group(b.d.root, class_="barrier", data_edge=e)
        b.d.line(bar, x1, y1, x2, y2, stroke=b.c["barrier_edge"], stroke_width=14, stroke_linecap="round")
        ln = b.d.line(bar, x1, y1, x2, y2, stroke=b.c["barrier"], stroke_width=9, stroke_linecap="round")
        b.d.tooltip(ln, tr(lang, "barrier on edge {edge} ({a}-{b})", edge=e, a=EDGES[e][0], b=EDGES[e][1]))
    # Labels go over the barriers, with a halo, and let clicks through to the hex below.
    for cx, cy, label, hid in labels:
        b.text(b.d.root, cx, cy - 34, label, kind="heading", text_anchor="middle", font_weight="bold",
               stroke=b.c["panel"], stroke_width=3, paint_order="stroke", pointer_events="none")
        b.text(b.d.root, cx, cy - 52, hid, kind="small", text_anchor="middle", fill=b.c["muted"], font_weight="bold",
               pointer_events="none")
    if v["phase"] == "barriers":
        for e in EDGES:
            if e in v["map"]["barriers"]:
                continue
            (x1, y1), (x2, y2) = _edge(b, e)
            g = b.spot(b.d.root, f"edge-{e}", tr(lang, "edge {edge} ({a}-{b})", edge=e, a=EDGES[e][0], b=EDGES[e][1]))
            dot = b.d.circle(g, (x1 + x2) / 2, (y1 + y2) / 2, 11, fill="#ffffff", stroke=b.c["ink"])
            b.ring(g, dot)
            b.text(g, (x1 + x2) / 2, (y1 + y2) / 2 + 4, str(e), kind="tiny", text_anchor="middle", font_weight="bold")
    _ships(b)


def _ships(b: Board) -> None:
    v, lang = b.view, b.language
    at: dict[str, list[tuple[str, str, int, bool, str | None]]] = {}
    for p in v["players"]:
        if p["hex"]:
            mine = v["active"] == p["seat"]
            at.setdefault(p["hex"], []).append((str(p["name"]), b.say(p["name"]), int(p["die"]), mine,
                                                "anchor" if mine else None))
    rival = v.get("rival")
    if rival and rival["hex"]:
        at.setdefault(rival["hex"], []).append(("Rival", tr(lang, "Rival"), int(rival["die"]), False, "rival"))
    for hid, ships in at.items():
        cx, cy = _centre(b, hid)
        for k, (name, shown, die, active, sid) in enumerate(ships):
            x, y = cx - 57 + (k % 2) * 58, cy - 22 + (k // 2) * 21
            g = b.spot(b.d.root, sid, tr(lang, "{player}'s ship", player=shown)) if sid else b.d.group(b.d.root)
            b.ring(g, b.ship(g, x, y, name, die, active=active, shown=shown))


# -- the draft, the outcome, the legend -----------------------------------------------------------


def _draft(b: Board, y: float) -> float:
    """The specialists on offer, if this seat saw them; else only how many there are."""
    dr, lang = b.view["draft"], b.language
    L = b.cfg["draft"]
    g = b.panel(8, y, b.d.width - 16, L["h"], tr(lang, "Draft: {player} picks a specialist",
                                                 player=seat_label(b.view, dr["picker"], lang)))
    offered = dr["offered"]
    if offered is None:
        b.text(g, 20, y + 52, tr(lang, "{n} specialist cards on offer (hidden from you)", n=dr["offered_count"]),
               fill=b.c["muted"])
        return y + float(L["h"])
    for k, sid in enumerate(offered):
        s = b.rules.SPECIALIST_BY_ID[sid]
        cx = 16 + k * (L["card_w"] + 10)
        name = s.name if lang == DEFAULT else b.specialist(sid)
        sg = b.spot(g, f"specialist-{sid}", tr(lang, "the {specialist}", specialist=name))
        card = b.d.rect(sg, cx, y + 26, L["card_w"], L["card_h"], rx=6, fill=b.c["card"], stroke=b.c["card_edge"])
        b.ring(sg, card)
        b.text(sg, cx + 8, y + 46, name, font_weight="bold", provisional=sid in b.prov.specialists)
        b.text(sg, cx + 8, y + 64, tr(lang, "specialty: {good}", good=b.good(s.specialty) if s.specialty
                                      else tr(lang, "none")), kind="small")
        b.text(sg, cx + 8, y + 80, tr(lang, "starting favor {n}", n=s.starting_favor), kind="small",
               provisional=sid in b.prov.starting_favor)
    return y + float(L["h"])


def _outcome(b: Board, y: float) -> float:
    out = b.view["outcome"]
    rows: list[Mapping[str, Any]] = out["detail"]["seats"]
    h = 36 + 18 * len(rows)
    lang = b.language
    g = b.panel(8, y, b.d.width - 16, h, tr(lang, "Game over ({reason})", reason=_end_reason(out["detail"]["end_reason"], lang)))
    order = sorted(rows, key=lambda r: out["ranks"][r["seat"]])
    for k, r in enumerate(order):
        b.text(g, 20, y + 42 + k * 18, tr(lang, "#{rank} {player}: {vp} VP ({donated} donated + {leftover} for metals), "
                                                "favor {favor}, coins {coins}, goods {goods}",
                                          rank=out["ranks"][r["seat"]], player=b.say(r["name"]), vp=r["vp"],
                                          donated=r["donated_vp"], leftover=r["leftover_vp"], favor=r["favor"],
                                          coins=r["coins"], goods=r["basic_goods"]), data_rank=out["ranks"][r["seat"]])
    return y + h


def _end_reason(reason: str, language: str) -> str:
    """Why the game ended, in words (the outcome's id in English, as the picture always printed it)."""
    if language == DEFAULT:
        return reason
    known = {"temple-complete": phrase_in("end reason", "temple-complete"),
             "market-exhausted": phrase_in("end reason", "market-exhausted")}
    return say(known.get(reason, reason), language)


def _legend(b: Board, y: float) -> None:
    """What the marks mean, so the picture reads without the rulebook at hand."""
    line = b.cfg["footer"]["line"]
    g: ET.Element = b.d.group(b.d.root, class_="legend")
    b.d.line(g, 12, y + 4, 40, y + 4, stroke=b.c["barrier"], stroke_width=7, stroke_linecap="round")
    lang = b.language
    text = tr(lang, "barrier (no sailing across) · ships show their die · cubes: Wd wood, Cl cloth, St stone, Gm gems, "
                    "Au gold, Ag silver")
    b.text(g, 48, y + 8, text, kind="small", fill=b.c["muted"])
    extra = tr(lang, "dashed orange outline: a place you can click") if b.drawn else ""
    returned = b.view.get("returned_specialist")
    if returned:
        name = SPECIALIST_BY_ID[returned].name if lang == DEFAULT else b.specialist(returned)
        extra += (" · " if extra else "") + tr(lang, "back in the box after the draft: {specialist}", specialist=name)
    if extra:
        b.text(g, 12, y + 8 + line, extra, kind="small", fill=b.c["muted"])
