"""Pieces of the Ophir board picture shared by :mod:`service.pictures.ophir`: the drawing context
(:class:`Board`), the provisional-value catalogue, cubes, ship pills, cards, and the parts of the
board right of and below the map (temple, supply, the players' boards, the draft, the outcome).

Every size and colour comes from ``service/pictures/data/ophir.json``; every game number (favor
track, hold sizes, specialists) from the game's own data, so the picture never restates a rule.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from service.games import registry
from service.games.ophir import data as shipped_rules
from service.games.ophir import words
from service.games.ophir.data import BASIC, SPECIALIST_BY_ID
from service.i18n import DEFAULT, render, tr, tr_n

from .svg import Drawing, data, rules_of

FOOTNOTE = "* provisional value: not yet checked against the printed game"


@dataclass(frozen=True)
class Provisionals:
    """Which drawn values are provisional, read from the game's own catalogue
    (``registry()["ophir"].provisional()``): when a value is verified and leaves the catalogue,
    its mark leaves the picture with no change here."""

    tiers: frozenset[str]
    specialists: frozenset[str]
    starting_favor: frozenset[str]
    cards: bool
    supply: bool
    leftover: frozenset[str]
    donation: frozenset[str]


_BRACKETS = re.compile(r"^(\w+)\[([^\]]*)\]$")


@cache
def provisionals(paths: frozenset[str] | None = None) -> Provisionals:
    """The catalogue's paths, sorted into the parts of the picture that draw them; a path with a
    suffix (``specialists[...].starting_favor``) marks only that field. Paths the picture does
    not draw (the starting dice, the end-condition ruling) mark nothing."""
    tiers: set[str] = set()
    specialists: set[str] = set()
    starting_favor: set[str] = set()
    if paths is None:
        paths = frozenset(p.path for p in registry()["ophir"].provisional())
    for path in paths:
        m = _BRACKETS.match(path)
        if m and m.group(1) == "temple_tiers":
            tiers.update(m.group(2).split(","))
        elif m and m.group(1) == "specialists":
            specialists.update(m.group(2).split(","))
        elif path.startswith("specialists[") and path.endswith("].starting_favor"):
            starting_favor.update(path[len("specialists["):-len("].starting_favor")].split(","))
    return Provisionals(
        tiers=frozenset(tiers), specialists=frozenset(specialists),
        starting_favor=frozenset(starting_favor | specialists), cards="market" in paths,
        supply="goods.supply_per_type" in paths,
        leftover=frozenset(p.split(".", 1)[1] for p in paths if p.startswith("leftover_vp.")),
        donation=frozenset(p.split(".", 1)[1] for p in paths if p.startswith("donation_vp.")))


@dataclass
class Board:
    """One picture being drawn: the drawing, its layout data, the spots to draw and what has
    been drawn (the spots, whether any provisional value appeared)."""

    d: Drawing
    view: Mapping[str, Any]
    spots: dict[str, list[int]]
    legal: Sequence[Mapping[str, Any]]
    cfg: dict[str, Any] = field(default_factory=lambda: data("ophir"))
    drawn: set[str] = field(default_factory=set)
    marked: bool = False
    language: str = DEFAULT
    """The reader's language: every word of the picture is said in it."""

    def say(self, text: Any) -> str:
        """A phrase of the game (a seat's name in the view) in the picture's language."""
        return render(text, self.language)

    def good(self, name: str) -> str:
        """A good or metal ("wood", "gold") in the picture's language (English: its id, as always)."""
        return name if self.language == DEFAULT else render(words.good(name), self.language)

    def specialist(self, sid: str) -> str:
        """A specialist card's name in the picture's language."""
        name: str = self.rules.SPECIALIST_BY_ID[sid].name if sid in self.rules.SPECIALIST_BY_ID else sid
        return name if self.language == DEFAULT else render(words.specialist_name(sid), self.language)

    @property
    def rules(self) -> Any:
        """The game's data module as the match's edition binds it (the numbers drawn)."""
        return rules_of(self.view, shipped_rules)

    @property
    def prov(self) -> Provisionals:
        """What is provisional in the match's edition (the view's ``edition``, else the shipped data)."""
        edition = self.view.get("edition")
        paths = edition.get("provisional") if isinstance(edition, Mapping) else None
        return provisionals(frozenset(paths) if isinstance(paths, list) else None)

    @property
    def c(self) -> dict[str, str]:
        """The picture's colours by role (``ink``, ``panel``, ``spot``...)."""
        colours: dict[str, str] = self.cfg["colours"]
        return colours

    def font(self, kind: str) -> int:
        """The font size of a kind of text (``title``, ``heading``, ``label``, ``small``, ``tiny``)."""
        size: int = self.cfg["font"][kind]
        return size

    def spot(self, parent: ET.Element, spot_id: str, label: str) -> ET.Element:
        """A spot group when ``spot_id`` stands for legal actions, else a plain group; the label
        names the place and the actions' own texts, for screen readers."""
        actions = self.spots.get(spot_id, [])
        if actions:
            self.drawn.add(spot_id)
            texts = "; ".join(render(self.legal[i].get("text", ""), self.language) for i in actions)
            return self.d.spot(parent, spot_id, actions, f"{label}: {texts}")
        return self.d.spot(parent, spot_id, (), label)

    def ring(self, group: ET.Element, el: ET.Element) -> None:
        """Outline a clickable shape so a spot is visible without hover (and on paper)."""
        if group.get("class") == "spot":
            el.set("stroke", self.c["spot"])
            el.set("stroke-width", "3")
            el.set("stroke-dasharray", "6 3")

    def text(self, parent: ET.Element, x: float, y: float, text: str, *, kind: str = "label",
             provisional: bool = False, **attrs: Any) -> ET.Element:
        """Text in one of the picture's sizes; a provisional value gets its class and a ``*``."""
        attrs.setdefault("fill", self.c["ink"])
        el = self.d.text(parent, x, y, text + ("*" if provisional else ""), font_size=self.font(kind), **attrs)
        if provisional:
            el.set("class", "provisional")
            self.marked = True
        return el

    def tspan(self, parent: ET.Element, text: str, *, provisional: bool = False, sep: str = "", **attrs: Any) -> None:
        """A run of text inside ``parent`` (a text element), marked when provisional; ``sep``
        follows the mark (the ``*`` belongs to the value, not to the comma after it)."""
        el = self.d.add(parent, "tspan", class_="provisional" if provisional else None, **attrs)
        el.text = text + ("*" if provisional else "") + sep
        self.marked = self.marked or provisional

    def panel(self, x: float, y: float, w: float, h: float, heading: str | None = None) -> ET.Element:
        """A framed part of the board with its heading; returns the group to draw into."""
        g = self.d.group(self.d.root)
        self.d.rect(g, x, y, w, h, rx=8, fill=self.c["panel"], stroke=self.c["panel_edge"], stroke_width=1.5)
        if heading:
            self.text(g, x + 10, y + 20, heading, kind="heading", font_weight="bold")
        return g

    def cube(self, parent: ET.Element, x: float, y: float, good: str, size: float = 18, *,
             wide: bool = False) -> ET.Element:
        """A goods cube with its short name on it (never colour alone); ``wide`` for a metal in a
        hold, which takes two spaces."""
        spec = self.cfg["cubes"][good]
        w = size * 2 + 2 if wide else size
        el = self.d.rect(parent, x, y, w, size, rx=3, fill=spec["fill"], stroke=self.c["ink"], stroke_width=1)
        self.d.text(parent, x + w / 2, y + size / 2 + 4, spec["short"], font_size=self.font("tiny"),
                    text_anchor="middle", fill=spec["text"], font_weight="bold")
        return el

    def ship(self, parent: ET.Element, x: float, y: float, name: str, die: int, *, active: bool,
             shown: str | None = None) -> ET.Element:
        """A ship: a pill in the seat's colour with the seat's name (``shown``, in the reader's
        language, else ``name``) and its influence die."""
        fill = self.cfg["seat_colours"].get(name, self.c["muted"])
        ink = self.cfg["seat_text"].get(name, self.c["ink"])
        el = self.d.rect(parent, x, y, 57, 18, rx=9, fill=fill, stroke=self.c["ink"] if not active else
                         self.c["highlight"], stroke_width=3 if active else 1)
        shown = name if shown is None else shown
        self.d.text(parent, x + 5, y + 13, shown, font_size=9, fill=ink, font_weight="bold")
        self.d.rect(parent, x + 42, y + 2, 13, 14, rx=2, fill="#ffffff", stroke=self.c["ink"], stroke_width=1)
        self.d.text(parent, x + 48.5, y + 13, str(die), font_size=self.font("tiny"), text_anchor="middle",
                    fill=self.c["ink"], font_weight="bold")
        self.d.tooltip(el, tr(self.language, "{name} ship, die {die}", name=shown, die=die))
        return el

    def card(self, parent: ET.Element, x: float, y: float, card: Mapping[str, Any] | None, *,
             w: float, h: float, donate: ET.Element | None = None, pays: int | None = None) -> None:
        """A market card: goods asked for, coin reward, and the favor-and-VP number a goods
        donation gives (drawn into ``donate`` when given, the donation spot); ``pays`` is what a trade
        pays on its stand. None: face down."""
        if card is None:
            self.d.rect(parent, x, y, w, h, rx=6, fill=self.c["face_down"], stroke=self.c["card_edge"])
            self.text(parent, x + w / 2, y + h / 2 + 4, tr(self.language, "face down"), text_anchor="middle", fill="#ffffff")
            return
        prov = self.prov.cards
        body = self.d.rect(parent, x, y, w, h, rx=6, fill=self.c["card"], stroke=self.c["card_edge"], stroke_width=1.5)
        self.ring(parent, body)
        self.text(parent, x + w - 6, y + 14, card["id"], kind="tiny", text_anchor="end", fill=self.c["muted"],
                  provisional=prov)
        for k, good in enumerate(card["goods"]):
            self.cube(parent, x + 8 + k * 22, y + 26, good)
        coin = self.d.circle(parent, x + 16, y + h - 14, 9, fill=self.c["coin"], stroke=self.c["ink"])
        self.d.tooltip(coin, tr(self.language, "coins for filling this card"))
        coins = self.text(parent, x + 30, y + h - 9, "")
        self.tspan(coins, tr_n(self.language, "{n} coin", "{n} coins", card["coins"]), provisional=prov)
        if pays is not None:
            # The stand's price modifier changes what a trade pays, not the printed card.
            self.tspan(coins, f" → {pays}", font_weight="bold", fill=self.c["highlight"])
        g = donate if donate is not None else parent
        badge = self.d.circle(g, x + w - 22, y + h - 32, 14, fill=self.c["favor"], stroke=self.c["ink"])
        self.ring(g, badge)
        self.d.text(g, x + w - 22, y + h - 27, str(card["favor_vp"]), font_size=self.font("label"),
                    text_anchor="middle", fill="#ffffff", font_weight="bold")
        self.text(g, x + w - 22, y + h - 6, tr(self.language, "favor+VP"), kind="tiny", text_anchor="middle", fill=self.c["muted"])


def seat_label(view: Mapping[str, Any], seat: int, language: str = DEFAULT) -> str:
    """A seat's colour name, the seat's only name in the game's own texts, in ``language``."""
    return render(view["players"][seat]["name"], language)


# -- the temple, the supply -------------------------------------------------------------------


def temple(b: Board) -> None:
    """The temple: the tiers bottom to top with their metal spaces and coin prices, the favor
    prices, the VP of a donation and of leftover metals, and the pier with its cargo tiles."""
    t = b.view["temple"]
    L = b.cfg["temple"]
    x, y, w = L["x"], L["y"], L["w"]
    tiers: list[str] = t["tiers"]
    height = 70 + len(tiers) * L["tier_h"] + 150
    lang = b.language
    g = b.panel(x, y, w, height, tr(lang, "Temple"))
    prov = b.prov
    done = t["completed"]
    b.text(g, x + w - 10, y + 20, tr(lang, "{n} metals to finish", n=t["metals_to_finish"]), kind="small", text_anchor="end",
           fill=b.c["muted"])
    top = y + 34
    for row, tier in enumerate(reversed(tiers)):
        k = len(tiers) - 1 - row
        ty = top + row * L["tier_h"]
        current = k == done
        fill = "#f7e7b0" if current else ("#e4dccb" if k < done else b.c["panel"])
        band = b.d.rect(g, x + 8, ty, w - 16, L["tier_h"] - 4, rx=4, fill=fill,
                        stroke=b.c["highlight"] if current else b.c["panel_edge"], stroke_width=2.5 if current else 1)
        gold, silver = t["all_tiers"][tier]
        state = tr(lang, "current tier") if current else (tr(lang, "complete") if k < done else tr(lang, "to come"))
        b.d.tooltip(band, tr(lang, "tier {tier} ({state}): gold {gold}, silver {silver}", tier=tier, state=state,
                             gold=tr_n(lang, "{n} coin", "{n} coins", gold),
                             silver=tr_n(lang, "{n} coin", "{n} coins", silver)))
        b.text(g, x + 16, ty + 21, tier, font_weight="bold", provisional=tier in prov.tiers)
        for s in range(t["spaces"]):
            sx, sy = x + 72 + s * (L["space"] + 6), ty + 3
            metals: list[str] = t["metals"]
            if current and s < len(metals):
                b.cube(g, sx, sy + 1, metals[s], size=L["space"] - 2)
            elif current and s == len(metals):
                sg = b.spot(g, "temple", tr(lang, "the next metal space of the temple"))
                sq = b.d.rect(sg, sx, sy, L["space"], L["space"], rx=3, fill="#ffffff", stroke=b.c["muted"])
                b.ring(sg, sq)
            else:
                b.d.rect(g, sx, sy, L["space"], L["space"], rx=3, fill="#cfc4aa" if k < done else "#ffffff",
                         stroke=b.c["muted"])
                if k < done:
                    b.d.text(g, sx + L["space"] / 2, sy + 17, "✓", font_size=b.font("label"), text_anchor="middle",
                             fill=b.c["ink"])
        b.text(g, x + w - 14, ty + 21, tr(lang, "current") if current else (tr(lang, "done") if k < done else ""), kind="small",
               text_anchor="end", fill=b.c["highlight"] if current else b.c["muted"])
    ly = top + len(tiers) * L["tier_h"] + 14
    prices = t["prices"]
    if prices is None:
        b.text(g, x + 12, ly, tr(lang, "The temple is complete."), font_weight="bold")
    else:
        for metal, dy in (("gold", 0), ("silver", 18)):
            p = prices[metal]
            el = b.text(g, x + 12, ly + dy, tr(lang, "Buy {metal}: ", metal=b.good(metal)))
            b.tspan(el, tr_n(lang, "{n} coin", "{n} coins", p["coins"]),
                    provisional=t["current"] in prov.tiers)
            b.tspan(el, tr(lang, " or {n} favor", n=p["favor"]))
    el = b.text(g, x + 12, ly + 40, tr(lang, "Donate: "), kind="small")
    # Each run ends in its separator: the writer's indentation puts a line break (a space) between runs.
    for k, metal in enumerate(("gold", "silver")):
        b.tspan(el, f"{b.good(metal)} {t['donation_vp'][metal]}", provisional=metal in prov.donation, sep=", " if k == 0 else "")
    b.tspan(el, tr(lang, " VP"))
    el = b.text(g, x + 12, ly + 56, tr(lang, "Unplaced at the end: "), kind="small")
    for k, (metal, vp) in enumerate(b.rules.LEFTOVER_VP.items()):
        b.tspan(el, f"{b.good(metal)} {vp}", provisional=metal in prov.leftover, sep=", " if k < len(b.rules.LEFTOVER_VP) - 1 else "")
    b.tspan(el, tr(lang, " VP"))
    pier(b, g, x, ly + 70, w)


def pier(b: Board, g: ET.Element, x: float, y: float, w: float) -> None:
    """The pier beside the temple with the cargo upgrade tiles still to take."""
    lang = b.language
    sg = b.spot(g, "pier", tr(lang, "the pier's cargo tiles"))
    frame = b.d.rect(sg, x + 8, y, w - 16, 44, rx=4, fill="#d8c3a0", stroke=b.c["panel_edge"])
    b.ring(sg, frame)
    tiles = int(b.view["cargo_tiles"])
    b.text(sg, x + 16, y + 17, tr_n(lang, "Pier: {n} cargo tile", "Pier: {n} cargo tiles", tiles), kind="small")
    b.text(sg, x + 16, y + 34, tr(lang, "upgrade: {cost}", cost=tr_n(lang, "{n} coin", "{n} coins",
                                                                      b.rules.UPGRADE_COST)), kind="tiny", fill=b.c["muted"])
    for k in range(tiles):
        b.d.rect(sg, x + 120 + k * 26, y + 12, 22, 22, rx=2, fill="#a0764a", stroke=b.c["ink"])
        b.d.text(sg, x + 131 + k * 26, y + 27, "+", font_size=b.font("label"), text_anchor="middle", fill="#ffffff")


def supply(b: Board) -> None:
    """What is left in the general supply of each good and metal (gathered and bought here)."""
    L = b.cfg["supply"]
    x, y, w, h = L["x"], L["y"], L["w"], L["h"]
    g = b.panel(x, y, w, h)
    prov = b.prov.supply
    b.text(g, x + 8, y + 17, tr(b.language, "Supply"), font_weight="bold")
    b.text(g, x + 8, y + 33, tr(b.language, "of {n} each", n=b.rules.SUPPLY_PER_TYPE), kind="tiny", fill=b.c["muted"], provisional=prov)
    for k, (good, n) in enumerate(b.view["supply"].items()):
        gx = x + 74 + k * 49
        sg = b.spot(g, f"supply-{good}", tr(b.language, "the {good} supply", good=b.good(good)))
        cube = b.cube(sg, gx, y + 11, good)
        b.ring(sg, cube)
        b.text(sg, gx + 22, y + 26, str(n), font_weight="bold")


# -- the players' boards ------------------------------------------------------------------------


def players(b: Board, y: float) -> float:
    """A board per seat: name and colour, specialist, favor track, coins, die, holds; the VP only
    where the view has them (the seat's own, or everyone's once the game is over). Returns the
    bottom of the row."""
    L = b.cfg["players"]
    rows: list[Mapping[str, Any]] = b.view["players"]
    n = len(rows)
    gap = L["gap"]
    w = (b.d.width - 2 * 8 - gap * (n - 1)) / n
    for k, p in enumerate(rows):
        _player(b, p, 8 + k * (w + gap), y, w, L["h"])
    return y + float(L["h"])


def _player(b: Board, p: Mapping[str, Any], x: float, y: float, w: float, h: float) -> None:
    view, lang = b.view, b.language
    name = str(p["name"])
    active = view["active"] == p["seat"]
    you = view["you"] == p["seat"]
    g = b.d.group(b.d.root, data_seat=p["seat"])
    b.d.rect(g, x, y, w, h, rx=8, fill=b.c["panel"], stroke=b.c["highlight"] if active else b.c["panel_edge"],
             stroke_width=3 if active else 1.5)
    b.d.rect(g, x, y, w, 26, rx=8, fill=b.cfg["seat_colours"].get(name, b.c["muted"]), stroke=b.c["ink"])
    tags = [t for t, on in ((tr(lang, "you"), you), (tr(lang, "to act"), active),
                            (tr(lang, "starts"), view["start_player"] == p["seat"])) if on]
    b.text(g, x + 10, y + 18, b.say(p["name"]) + (f" ({', '.join(tags)})" if tags else ""), kind="label", font_weight="bold",
           fill=b.cfg["seat_text"].get(name, b.c["ink"]))
    spec = p["specialist"]
    if spec:
        s = SPECIALIST_BY_ID[spec]
        b.text(g, x + 10, y + 44, s.name if lang == DEFAULT else b.specialist(spec), font_weight="bold",
               provisional=spec in b.prov.specialists)
        b.text(g, x + 10, y + 59, tr(lang, "specialty: {good}", good=b.good(s.specialty)) if s.specialty
               else tr(lang, "no specialty good"), kind="small")
    else:
        b.text(g, x + 10, y + 44, tr(lang, "no specialist yet"), fill=b.c["muted"])
    y += 14  # the specialty line
    # The favor track 0..6, as printed on the specialist card; the influence spot is on it
    # because declaring an influence move spends favor.
    fg = b.spot(g, "influence", tr(lang, "the favor track")) if active else b.d.group(g)
    step = min(b.cfg["favor_track"]["step"], (w - 58) / (b.rules.FAVOR_MAX - b.rules.FAVOR_MIN + 1))
    b.text(fg, x + 10, y + 68, tr(lang, "Favor"), kind="small")
    track = b.d.rect(fg, x + 46, y + 54, step * (b.rules.FAVOR_MAX - b.rules.FAVOR_MIN + 1) + 4, 20, rx=10, fill="#efe6f5",
                     stroke=b.c["favor"])
    b.ring(fg, track)
    for v in range(b.rules.FAVOR_MIN, b.rules.FAVOR_MAX + 1):
        cx = x + 48 + step / 2 + (v - b.rules.FAVOR_MIN) * step
        on = v == p["favor"]
        b.d.circle(fg, cx, y + 64, b.cfg["favor_track"]["r"], fill=b.c["favor"] if on else "#ffffff",
                   stroke=b.c["favor"])
        b.d.text(fg, cx, y + 68, str(v), font_size=b.font("tiny"), text_anchor="middle",
                 fill="#ffffff" if on else b.c["muted"], font_weight="bold" if on else None)
    coins = b.d.circle(g, x + 20, y + 92, 10, fill=b.c["coin"], stroke=b.c["ink"])
    b.d.tooltip(coins, tr(lang, "coins"))
    b.text(g, x + 36, y + 97, tr_n(lang, "{n} coin", "{n} coins", p["coins"]))
    dx = x + w / 2 + 4
    b.d.rect(g, dx, y + 82, 20, 20, rx=4, fill="#ffffff", stroke=b.c["ink"], stroke_width=1.5)
    b.text(g, dx + 10, y + 97, str(p["die"]), text_anchor="middle", font_weight="bold")
    b.text(g, dx + 26, y + 97, tr(lang, "die"), kind="small")
    if "vp" in p:
        b.text(g, x + w - 10, y + 97, tr_n(lang, "{n} VP", "{n} VP", p["vp"]), text_anchor="end", font_weight="bold", data_vp=p["vp"])
    _hold(b, g, p, x, y + 110, active)


def _hold(b: Board, g: ET.Element, p: Mapping[str, Any], x: float, y: float, active: bool) -> None:
    """The cargo holds: a slot per space, a basic good in one, a metal across two."""
    slot = b.cfg["hold_slot"]
    b.text(g, x + 10, y + 12, tr(b.language, "Hold: {free} of {holds} free · upgrades {upgrades} of {most}",
                                 free=p["free_holds"], holds=p["holds"], upgrades=p["upgrades"],
                                 most=b.rules.MAX_UPGRADES), kind="small")
    for k in range(p["holds"]):
        b.d.rect(g, x + 10 + k * (slot + 2), y + 20, slot, slot, rx=3, fill="#ffffff", stroke=b.c["muted"],
                 stroke_dasharray="3 2")
    k = 0
    hold: Mapping[str, int] = p["hold"]
    for good, count in hold.items():
        for i in range(count):
            # The specialty sale spot is the good itself, on the seller's own board.
            sg = b.spot(g, f"hold-{good}", tr(b.language, "your {good}", good=b.good(good))) if active and i == 0 and good in BASIC else g
            cube = b.cube(sg, x + 10 + k * (slot + 2), y + 20, good, size=slot, wide=good not in BASIC)
            if sg is not g:
                b.ring(sg, cube)
            k += 1 if good in BASIC else b.rules.METAL_SIZE
