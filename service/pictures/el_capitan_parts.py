"""Pieces of the El Capitán picture: the drawing context, pieces and spots, the bank, the card
displays and the players' panels. The city grid and the entry point are in
:mod:`service.pictures.el_capitan`."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from service.games import registry
from service.games.el_capitan import data as shipped_rules
from service.games.el_capitan import words
from service.i18n import DEFAULT, render, tr, tr_n

from .svg import Drawing, provisional_paths_of, rules_of, said

__all__ = ["Ctx", "bank", "displays", "players", "provisional_paths"]

_CHAR = 0.58
"""Average advance of a DejaVu Sans glyph in font sizes, to fit words in boxes."""


@cache
def provisional_paths() -> frozenset[str]:
    """The data paths the game marks provisional (``cities.venezia.track``, ``destination_cards.D03``)."""
    return frozenset(p.path for p in registry()["el-capitan"].provisional())


@dataclass
class Ctx:
    """What every part of one picture needs: the drawing, its data file, the view and the spots."""

    d: Drawing
    cfg: Mapping[str, Any]
    view: Mapping[str, Any]
    legal: Sequence[Mapping[str, Any]]
    spots: dict[str, list[int]]
    drawn: set[str] = field(default_factory=set)
    used_provisional: bool = False
    language: str = DEFAULT
    """The reader's language: every word of the picture is said in it."""

    @property
    def col(self) -> Mapping[str, str]:
        """The picture's colours."""
        colours: Mapping[str, str] = self.cfg["colours"]
        return colours

    def font(self, kind: str) -> int:
        """A font size of the data file."""
        size: int = self.cfg["font"][kind]
        return size

    def piece(self, colour: str) -> Mapping[str, str]:
        """Fill, text colour, outline, one-letter label and name of a player colour (or the pirate)."""
        piece: Mapping[str, str] = self.cfg["pieces"][colour]
        return piece

    def city_name(self, city_id: str) -> str:
        """A city's name as the view spells it (short form for narrow cards)."""
        for c in self.view["cities"]:
            if c["id"] == city_id:
                return str(c["name"])
        return city_id.capitalize()

    def short_name(self, city_id: str) -> str:
        """The name fitted to a card: from the data file where the full name is too long."""
        short: Mapping[str, str] = self.cfg["short_names"]
        return short.get(city_id) or self.city_name(city_id)

    def chip_name(self, city_id: str) -> str:
        """The name fitted to a hand chip, which holds two names of a connection card."""
        short: Mapping[str, str] = self.cfg["chip_names"]
        return short.get(city_id) or self.city_name(city_id)

    @cached_property
    def rules(self) -> Any:
        """The game's data module as the match's edition binds it (its chart, loans, displays)."""
        return rules_of(self.view, shipped_rules)

    @cached_property
    def provisional(self) -> frozenset[str]:
        """The paths provisional in the match's edition (the view's ``edition``, else the shipped data's)."""
        return provisional_paths_of(self.view, provisional_paths())

    def is_provisional(self, path: str) -> bool:
        """Whether a data path of the game (``cities.napoli.harbours``) is provisional; remembers it was drawn."""
        hit = path in self.provisional
        self.used_provisional |= hit
        return hit

    def city_provisional(self, city_id: str, key: str) -> bool:
        """Whether field ``key`` of a city (base or expansion tile) is provisional."""
        return self.is_provisional(f"cities.{city_id}.{key}") or self.is_provisional(f"expansion_cities.{city_id}.{key}")

    def number(self, parent: ET.Element, x: float, y: float, value: object, provisional: bool, **attrs: Any) -> ET.Element:
        """A printed value; a provisional one gets the class and a trailing ``*`` (never a changed value)."""
        if provisional:
            attrs["class_"] = "provisional"
        el = self.d.text(parent, x, y, str(value), **attrs)
        if provisional:
            # a smaller star keeps the printed number itself readable in a small space
            ET.SubElement(el, "tspan", {"font-size": f"{0.8 * float(attrs.get('font_size', 11)):.1f}"}).text = "*"
        return el

    def spot(self, parent: ET.Element, sid: str, x: float, y: float, w: float, h: float, place: str) -> None:
        """The clickable outline of spot ``sid`` over the box (x, y, w, h), when some legal action maps to it."""
        indices = self.spots.get(sid)
        if not indices:
            return
        texts = [said(self.legal[i]["text"], self.language) for i in indices]
        g = self.d.spot(parent, sid, indices, f"{place}: " + "; ".join(texts))
        self.d.rect(g, x - 2, y - 2, w + 4, h + 4, rx=5, fill=self.col["spot"], fill_opacity="0.14",
                    stroke=self.col["spot"], stroke_width=3, stroke_dasharray="6 3")
        self.d.tooltip(g, "\n".join(texts))
        self.drawn.add(sid)

    def label_box(self, parent: ET.Element, x: float, y: float, w: float, h: float, colour: str, *,
                  text: str | None = None, rx: float = 3, size: int | None = None) -> None:
        """A box in a player's colour with its letter (never colour alone)."""
        pc = self.piece(colour)
        self.d.rect(parent, x, y, w, h, rx=rx, fill=pc["fill"], stroke=pc["stroke"], stroke_width=1.5)
        self.d.text(parent, x + w / 2, y + h / 2 + (size or self.font("site")) * 0.36, text or pc["label"],
                    font_size=size or self.font("site"), font_weight="bold", fill=pc["text"], text_anchor="middle")

    def ship(self, parent: ET.Element, x: float, y: float, w: float, h: float, colour: str) -> None:
        """A ship (hull, mast and sail) in a player's colour with its letter; ``pirate`` is the black ship."""
        pc = self.piece(colour)
        hull_top = y + h * 0.45
        self.d.line(parent, x + w / 2, y + 1, x + w / 2, hull_top, stroke=pc["stroke"], stroke_width=1.5)
        self.d.polygon(parent, [(x + w / 2 + 1, y + 2), (x + w / 2 + 1, hull_top - 2), (x + w * 0.85, hull_top - 2)],
                       fill=pc["fill"], stroke=pc["stroke"], stroke_width=1)
        self.d.polygon(parent, [(x, hull_top), (x + w, hull_top), (x + w * 0.82, y + h), (x + w * 0.18, y + h)],
                       fill=pc["fill"], stroke=pc["stroke"], stroke_width=1.5)
        size = self.font("small")
        self.d.text(parent, x + w / 2, y + h - (h * 0.55 - size) / 2 - 1.5, pc["label"], font_size=size,
                    font_weight="bold", fill=pc["text"], text_anchor="middle")

    def colour_of_seat(self, seat: int) -> str:
        """The main colour of a seat."""
        return str(self.view["players"][seat]["colour"])

    def colour_name(self, colour: str) -> str:
        """A player colour (or the pirate) in words: the data file's name in English (an edition may
        rename a colour), the game's own word for it in another language."""
        if self.language == DEFAULT:
            return self.piece(colour)["name"]
        if colour == "pirate":
            return tr(self.language, "Pirate")
        return render(words.seat_name(colour), self.language)

    def seat_name(self, seat: int) -> str:
        """A seat in words: its colour's name."""
        return self.colour_name(self.colour_of_seat(seat))


def fit(text: str, width: float, size: float) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` pixels at font ``size``."""
    limit = max(1, int(width / (size * _CHAR)))
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


def fit_size(text: str, width: float, size: int, smallest: int = 8) -> int:
    """The font size (at most ``size``, at least ``smallest``) at which ``text`` fits ``width`` pixels:
    a long city name shrinks a little rather than lose letters."""
    return max(smallest, min(size, int(width / (max(1, len(text)) * _CHAR))))


# -- the bank: ships there, the two loan stacks, the proliferation chart, the bonus cards ---------


def bank(ctx: Ctx, y: float) -> float:
    """The bank harbour strip at ``y``; returns the y below it."""
    d, cfg, col = ctx.d, ctx.cfg["bank"], ctx.col
    m = ctx.cfg["margin"]
    w = ctx.cfg["width"] - 2 * m
    h = cfg["height"]
    g = d.group(d.root, class_="bank")
    d.rect(g, m, y, w, h, rx=8, fill=col["sea"], stroke=col["sea_edge"], stroke_width=1.5)
    d.text(g, m + 10, y + 18, tr(ctx.language, "Bank harbour"), font_size=ctx.font("heading"), font_weight="bold", fill=col["ink"])
    # ships lying at the bank
    x = m + 12
    at_bank = [p for p in ctx.view["players"] if p["ship"] == "bank"]
    for k, p in enumerate(at_bank):
        # three ships a row, so five fit left of the loan stacks
        ctx.ship(g, x + (k % 3) * 34, y + 26 + (k // 3) * 26, 28, 24, p["colour"])
    if not at_bank:
        d.text(g, x, y + 46, tr(ctx.language, "no ship"), font_size=ctx.font("small"), fill=col["muted"])
    # loan stacks
    lx = m + 150
    # k is also the loan's index in the game's data file (10 before 16), as its provisional paths use it
    for k, (amount, (repay, extended)) in enumerate(sorted(ctx.rules.LOANS.items())):
        bx = lx + k * (cfg["loan_width"] + 8)
        card = d.group(g, class_="loan-stack")
        d.rect(card, bx, y + 8, cfg["loan_width"], 58, rx=5, fill=col["card"], stroke=col["tile_edge"])
        d.text(card, bx + 8, y + 26, tr(ctx.language, "Loan {amount} Florin", amount=amount), font_size=ctx.font("card"), font_weight="bold",
               fill=col["ink"])
        d.text(card, bx + 8, y + 42, tr(ctx.language, "repay {repay}", repay=repay), font_size=ctx.font("small"), fill=col["ink"])
        ctx.number(card, bx + 8, y + 58, tr(ctx.language, "extended {extended}", extended=extended), ctx.is_provisional(f"loans.{k}.repay_extended"),
                   font_size=ctx.font("small"), fill=col["ink"])
        ctx.spot(g, f"loan:{amount}", bx, y + 8, cfg["loan_width"], 58, tr(ctx.language, "Loan {amount}", amount=amount))
    # bonus cards left
    bx = lx + 2 * (cfg["loan_width"] + 8) + 6
    d.text(g, bx, y + 22, tr(ctx.language, "Bonus cards"), font_size=ctx.font("small"), font_weight="bold", fill=col["ink"])
    for k, value in enumerate(ctx.view["bonus_cards_left"]):
        d.rect(g, bx + k * 30, y + 30, 26, 34, rx=3, fill=col["value_marker"], stroke=col["tile_edge"])
        d.text(g, bx + k * 30 + 13, y + 52, str(value), font_size=ctx.font("small"), font_weight="bold",
               fill=col["ink"], text_anchor="middle")
    if not ctx.view["bonus_cards_left"]:
        d.text(g, bx, y + 50, tr(ctx.language, "none left"), font_size=ctx.font("small"), fill=col["muted"])
    d.text(g, m + 10, y + h - 8, _pool(ctx), font_size=ctx.font("small"), fill=col["ink"])
    _chart(ctx, g, m + w - len(ctx.rules.CHART) * cfg["chart_cell"] - 8, y + 8)
    return float(y + h + ctx.cfg["board"]["gap"])


def _pool(ctx: Ctx) -> str:
    """The common pool of the colours in play, in words (pieces handed out at each phase)."""
    colours = [p["colour"] for p in ctx.view["players"]] + [p["neutral_colour"] for p in ctx.view["players"]
                                                            if p.get("neutral_colour")]
    pool = ctx.view["pool"]

    def counts(kind: str) -> str:
        return " ".join(f"{ctx.piece(c)['label']}{pool[kind].get(c, 0)}" for c in colours)

    return tr(ctx.language, "Common pool: warehouses {warehouses} · fortresses {fortresses}",
              warehouses=counts("warehouses"), fortresses=counts("fortresses"))


def _chart(ctx: Ctx, g: ET.Element, x: float, y: float) -> None:
    """The proliferation chart: income by the number of cities holding an operating warehouse."""
    d, col, cell = ctx.d, ctx.col, ctx.cfg["bank"]["chart_cell"]
    d.text(g, x, y + 12, tr(ctx.language, "Proliferation: cities → Florin"), font_size=ctx.font("small"), font_weight="bold",
           fill=col["ink"])
    size = ctx.font("small")
    for i, value in enumerate(ctx.rules.CHART):
        cx = x + i * cell
        d.rect(g, cx, y + 20, cell - 2, 52, rx=3, fill=col["tile"], stroke=col["tile_edge"])
        d.text(g, cx + cell / 2 - 1, y + 36, str(i), font_size=size, fill=col["muted"], text_anchor="middle")
        ctx.number(g, cx + cell / 2 - 1, y + 58, value, ctx.is_provisional(f"proliferation_chart.{i}"),
                   font_size=size, font_weight="bold", fill=col["ink"], text_anchor="middle")


# -- the two card displays ---------------------------------------------------------------------


def card(ctx: Ctx, parent: ET.Element, cid: str, x: float, y: float) -> None:
    """One sailing card as printed: a destination (city, red seals, price) or a connection (two cities, price)."""
    d, col, cw, ch = ctx.d, ctx.col, ctx.cfg["cards"]["width"], ctx.cfg["cards"]["height"]
    info = ctx.view["cards"].get(cid, {})
    dest = info.get("kind") == "destination"
    prov = ctx.is_provisional(f"{'destination' if dest else 'connection'}_cards.{cid}")
    g = d.group(parent, class_="card", data_card=cid)
    d.rect(g, x, y, cw, ch, rx=5, fill=col["card"], stroke=col["tile_edge"], stroke_width=1.2)
    d.rect(g, x, y, cw, 18, rx=5, fill=col["card_dest" if dest else "card_conn"])
    size = ctx.font("card")
    if dest:
        d.text(g, x + 5, y + 12, tr(ctx.language, "Destination"), font_size=size - 3, fill=col["ink"])
        name = ctx.short_name(info["city"])
        fs = fit_size(name, cw - 10, size)
        d.text(g, x + 5, y + 33, fit(name, cw - 10, fs), font_size=fs, font_weight="bold", fill=col["ink"])
        for k in range(int(info["seals"])):
            d.circle(g, x + 11 + k * 15, y + ch - 12, 6, fill=col["seal"], stroke="#5a0a0a")
        d.tooltip(g, tr(ctx.language, "{id}: {city}, {seals}, price {cost}", id=cid, city=ctx.city_name(info["city"]),
                        seals=tr_n(ctx.language, "{n} seal", "{n} seals", int(info["seals"])), cost=info["cost"]))
    elif info:
        d.text(g, x + 5, y + 12, tr(ctx.language, "Connection"), font_size=size - 3, fill=col["ink"])
        a, b = ctx.short_name(info["a"]), "– " + ctx.short_name(info["b"])
        fa, fb = fit_size(a, cw - 10, size - 1), fit_size(b, cw - 10, size - 1)
        d.text(g, x + 5, y + 33, fit(a, cw - 10, fa), font_size=fa, font_weight="bold", fill=col["ink"])
        d.text(g, x + 5, y + 49, fit(b, cw - 10, fb), font_size=fb, font_weight="bold", fill=col["ink"])
        d.tooltip(g, tr(ctx.language, "{id}: {a} – {b}, price {cost}", id=cid, a=ctx.city_name(info["a"]),
                        b=ctx.city_name(info["b"]), cost=info["cost"]))
    if info:
        # the price coin sits in the corner of the band, leaving the card's width to the city names
        d.circle(g, x + cw - 11, y + 10, 9.5, fill=col["coin"], stroke="#7a5c10")
        ctx.number(g, x + cw - 11, y + 14, info["cost"], prov, font_size=size, font_weight="bold",
                   fill=col["ink"], text_anchor="middle")
    ctx.spot(parent, f"card:{cid}", x, y, cw, ch, tr(ctx.language, "card {id}", id=cid))


def displays(ctx: Ctx, y: float) -> float:
    """The destination and connection displays with their deck sizes; returns the y below them."""
    d, cfg, col, m = ctx.d, ctx.cfg["cards"], ctx.col, ctx.cfg["margin"]
    g = d.group(d.root, class_="displays")
    x = m
    view = ctx.view
    titles = {"destination": tr(ctx.language, "Destination cards (deck {deck}, discards {discards})",
                                deck=view["decks"]["destination"], discards=len(view["discards"]["destination"])),
              "connection": tr(ctx.language, "Connection cards (deck {deck}, discards {discards})",
                               deck=view["decks"]["connection"], discards=len(view["discards"]["connection"]))}
    for kind, title in titles.items():
        ids = view["displays"][kind]
        d.text(g, x, y + 14, title,
               font_size=ctx.font("small"), font_weight="bold", fill=col["ink"])
        slots = max(len(ids), ctx.rules.DISPLAY_DESTINATION if kind == "destination" else ctx.rules.DISPLAY_CONNECTION)
        for k in range(slots):
            cx = x + k * (cfg["width"] + cfg["gap"])
            if k < len(ids):
                card(ctx, g, ids[k], cx, y + cfg["heading"])
            else:
                d.rect(g, cx, y + cfg["heading"], cfg["width"], cfg["height"], rx=5, fill="none",
                       stroke=col["panel_edge"], stroke_dasharray="4 3")
        x += slots * (cfg["width"] + cfg["gap"]) + cfg["group_gap"] - cfg["gap"]
    return float(y + cfg["heading"] + cfg["height"] + ctx.cfg["board"]["gap"])


# -- the players -------------------------------------------------------------------------------


def _chip(ctx: Ctx, parent: ET.Element, x: float, y: float, w: float, text: str, *, fill: str,
          prov: bool = False, data_card: str | None = None) -> None:
    d, h = ctx.d, ctx.cfg["players"]["chip_height"]
    g = d.group(parent, class_="chip", data_card=data_card)
    d.rect(g, x, y, w, h, rx=4, fill=fill, stroke=ctx.col["panel_edge"])
    size = fit_size(text, w - 14, ctx.font("small"), 9)
    ctx.number(g, x + 5, y + h - 5, fit(text, w - 14, size), prov, font_size=size, fill=ctx.col["ink"])


def _hand_text(ctx: Ctx, cid: str) -> tuple[str, bool]:
    info = ctx.view["cards"].get(cid, {})
    if info.get("kind") == "destination":
        return (f"{ctx.short_name(info['city'])} {'●' * int(info['seals'])} ƒ{info['cost']}",
                ctx.is_provisional(f"destination_cards.{cid}"))
    if info:
        return (f"{ctx.chip_name(info['a'])}–{ctx.chip_name(info['b'])} ƒ{info['cost']}",
                ctx.is_provisional(f"connection_cards.{cid}"))
    return cid, False


def _wrap(count: int, width: float, chip: float, gap: float) -> int:
    per_line = max(1, int((width + gap) // (chip + gap)))
    return (count + per_line - 1) // per_line


def players(ctx: Ctx, y: float) -> float:
    """One panel per player: colour and name, money, ship, supply, loans, bonus card, hand; returns the y below."""
    d, cfg, col, m = ctx.d, ctx.cfg["players"], ctx.col, ctx.cfg["margin"]
    view = ctx.view
    w = ctx.cfg["width"] - 2 * m
    # the chips start right of the row labels: at 72 as always in English, after longer words elsewhere
    labels = (tr(ctx.language, "Loans"), tr(ctx.language, "Hand"))
    indent = 72 if ctx.language == DEFAULT else max(72, 20 + round(max(map(len, labels)) * ctx.font("small") * 0.68))
    inner = w - 24 - 60 - (indent - 72)
    g = d.group(d.root, class_="players")
    for p in view["players"]:
        seat = p["seat"]
        hand_lines = max(1, _wrap(len(p["hand"]), inner, cfg["hand_chip"], 4)) if "hand" in p else 0
        loan_lines = _wrap(len(p["loans"]), inner, cfg["loan_chip"], 4)
        h = cfg["row_head"] + cfg["line"] * (1 + max(1, loan_lines) + hand_lines) + 6
        active = seat == view.get("active_seat")
        pg = d.group(g, class_="player", data_seat=seat)
        d.rect(pg, m, y, w, h, rx=6, fill=col["active"] if active else col["panel"],
               stroke=col["ink"] if active else col["panel_edge"], stroke_width=2.5 if active else 1)
        ctx.label_box(pg, m + 8, y + 5, 22, 22, p["colour"])
        title = tr(ctx.language, "{colour} (seat {seat})", colour=ctx.colour_name(p["colour"]), seat=seat)
        if seat == view.get("seat"):
            title += tr(ctx.language, " – you")
        d.text(pg, m + 38, y + 21, title, font_size=ctx.font("heading"), font_weight="bold", fill=col["ink"])
        tags = []
        if active:
            tags.append(tr(ctx.language, "▶ to move"))
        if seat == view.get("start_player"):
            tags.append(tr(ctx.language, "El Capitán (start player)"))
            # the start-player token, drawn as on the table: a gold disc beside the name
            tx = m + w - 150
            d.circle(pg, tx, y + 15, 10, fill=col["value_marker"], stroke=col["tile_edge"], stroke_width=1.5)
            d.text(pg, tx, y + 19, "EC", font_size=ctx.font("small") - 1, font_weight="bold", fill=col["ink"],
                   text_anchor="middle")
        if tags:
            d.text(pg, m + 38 + len(title) * ctx.font("heading") * _CHAR + 14, y + 21, " · ".join(tags),
                   font_size=ctx.font("small"), font_weight="bold", fill=col["ink"])
        d.text(pg, m + w - 10, y + 21, tr(ctx.language, "{money} Florin", money=p["money"]), font_size=ctx.font("heading"), font_weight="bold",
               fill=col["ink"], text_anchor="end")
        ctx.spot(pg, f"start-player:{seat}", m + 4, y + 2, w - 8, cfg["row_head"], ctx.colour_name(p["colour"]))
        ly = y + cfg["row_head"] + cfg["line"] - 6
        d.text(pg, m + 12, ly, _facts(ctx, p), font_size=ctx.font("small"), fill=col["ink"])
        ly += 6
        # loans, one chip per loan card so settling can point at it
        d.text(pg, m + 12, ly + 13, tr(ctx.language, "Loans"), font_size=ctx.font("small"), font_weight="bold", fill=col["ink"])
        x0 = m + indent
        per = max(1, int((inner + 4) // (cfg["loan_chip"] + 4)))
        if not p["loans"]:
            d.text(pg, x0, ly + 13, tr(ctx.language, "none"), font_size=ctx.font("small"), fill=col["muted"])
        for k, loan in enumerate(p["loans"]):
            cx = x0 + (k % per) * (cfg["loan_chip"] + 4)
            cy = ly + (k // per) * cfg["line"]
            text = f"{loan['amount']}→{loan['due']}" + (tr(ctx.language, " ext.") if loan["extended"] else "")
            _chip(ctx, pg, cx, cy, cfg["loan_chip"], text, fill=col["card"],
                  prov=bool(loan["extended"]) and loan["amount"] == 10 and ctx.is_provisional("loans.0.repay_extended"))
            if active:
                ctx.spot(pg, f"settle:{k}", cx, cy, cfg["loan_chip"], cfg["chip_height"], tr(ctx.language, "loan card {k}", k=k))
        ly += cfg["line"] * max(1, loan_lines)
        if "hand" in p:
            d.text(pg, m + 12, ly + 13, tr(ctx.language, "Hand"), font_size=ctx.font("small"), font_weight="bold", fill=col["ink"])
            per = max(1, int((inner + 4) // (cfg["hand_chip"] + 4)))
            for k, cid in enumerate(p["hand"]):
                text, prov = _hand_text(ctx, cid)
                kind = ctx.view["cards"].get(cid, {}).get("kind")
                _chip(ctx, pg, x0 + (k % per) * (cfg["hand_chip"] + 4), ly + (k // per) * cfg["line"],
                      cfg["hand_chip"], text, fill=col["card_dest" if kind == "destination" else "card_conn"],
                      prov=prov, data_card=cid)
            if not p["hand"]:
                d.text(pg, x0, ly + 13, tr(ctx.language, "no cards"), font_size=ctx.font("small"), fill=col["muted"])
        y += h + cfg["gap"]
    return y


def _facts(ctx: Ctx, p: Mapping[str, Any]) -> str:
    """Ship, supply, bonus card and net worth of a player in one line of words."""
    ship = p["ship"]
    lang = ctx.language
    if ship == "bank":
        where = tr(lang, "at the bank")
    elif ship == "off-board":
        where = tr(lang, "not yet on the board")
    elif p.get("harbour"):
        where = tr(lang, "in {city}, harbour space {harbour}", city=ctx.city_name(ship), harbour=p["harbour"])
    else:
        where = tr(lang, "in {city}", city=ctx.city_name(ship))
    sup = p["supply"]
    supply = tr(lang, "{warehouses} warehouses, {fortresses} fortress(es)", warehouses=sup["warehouses"],
                fortresses=sup["fortresses"])
    if "neutral_warehouses" in sup and p.get("neutral_colour"):
        supply += tr(lang, ", {n} neutral {colour}", n=sup["neutral_warehouses"],
                     colour=ctx.colour_name(p["neutral_colour"]))
    bonus = tr(lang, " · bonus card {value}", value=p["bonus_card"]) if p.get("bonus_card") else ""
    return tr(lang, "Ship {where} · supply {supply}{bonus} · net worth {worth}", where=where, supply=supply,
              bonus=bonus, worth=p["net_worth"])
