"""The pieces of the Nauticus picture: tile icons and each player's shipyard, warehouse and stats.

:mod:`service.pictures.nauticus` draws the action wheel, the status and the supply and calls
:func:`player_panel` once per player; both share a :class:`Ctx` (the drawing, its data, which
values are provisional and the spots to draw).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.games.nauticus import data as rules
from service.games.nauticus import words
from service.i18n import DEFAULT, phrase_in, render, tr, tr_n

from .svg import Drawing

__all__ = ["Ctx", "item_icon", "player_panel", "player_panel_height"]


@dataclass
class Ctx:
    """What every part of one picture needs."""

    d: Drawing
    geo: Mapping[str, Any]
    """The picture data (``data/nauticus.json``)."""
    provisional: frozenset[str]
    """Paths of the game's provisional data values (``Game.provisional()``)."""
    spots: Mapping[str, list[int]]
    """Spot id -> indices of the legal actions it stands for."""
    texts: Sequence[str]
    """The words of each legal action, by index (tooltips of the spots)."""
    drawn: set[str] = field(default_factory=set)
    rules: Any = rules
    """The game's data module as the match's edition binds it (the numbers drawn)."""
    """Spot ids drawn so far (each spot is drawn once)."""
    marked: bool = False
    """A provisional value was drawn: the picture needs the footnote."""
    language: str = DEFAULT
    """The reader's language: every word of the picture is said in it."""

    def say(self, text: Any) -> str:
        """A phrase of the game (a player's name in the view, a tile) in the picture's language."""
        return render(text, self.language)

    def item(self, tile: str) -> str:
        """A tile by its id ("mast-a") in English, as the picture always wrote it; by its name elsewhere."""
        return tile if self.language == DEFAULT else render(words.item(tile), self.language)

    def action(self, tile: str) -> str:
        """An action tile's name ("Buy hull") in the picture's language."""
        return rules.ACTION_NAMES[tile] if self.language == DEFAULT else render(words.action(tile), self.language)

    def colour(self, name: str) -> str:
        """A colour of the palette by name."""
        return str(self.geo["colours"][name])

    def font(self, name: str) -> int:
        """A font size by role (title, heading, body, small, big)."""
        return int(self.geo["fonts"][name])

    def is_provisional(self, *paths: str) -> bool:
        """Whether any of ``paths`` is a provisional data value (marks the picture if so)."""
        hit = any(p in self.provisional for p in paths)
        self.marked = self.marked or hit
        return hit

    def value(self, parent: ET.Element, x: float, y: float, text: str, provisional: bool,
              **attrs: str | int | float | None) -> ET.Element:
        """A drawn value; a provisional one gets the class ``provisional`` and a trailing ``*``."""
        if provisional:
            return self.d.text(parent, x, y, f"{text}*", class_="provisional", **attrs)
        return self.d.text(parent, x, y, text, **attrs)

    def spot(self, parent: ET.Element, spot_id: str, label: str, x: float, y: float, w: float, h: float,
             mark: str = "") -> None:
        """Draw the spot ``spot_id`` as a highlighted box when it stands for legal actions.

        Drawn after (over) the thing it marks, so a click anywhere on the box hits it; the
        tooltip lists what the actions do."""
        actions = self.spots.get(spot_id)
        if not actions or spot_id in self.drawn:
            return
        self.drawn.add(spot_id)
        n = len(actions)
        g = self.d.spot(parent, spot_id, actions, tr_n(self.language, "{label} ({n} choice)", "{label} ({n} choices)",
                                                       n, label=label))
        self.d.tooltip(g, "\n".join(self.texts[i] for i in actions))
        self.d.rect(g, x, y, w, h, rx=5, fill=self.colour("spot_fill"), fill_opacity=0.35,
                    stroke=self.colour("spot_edge"), stroke_width=3, stroke_dasharray="6 3")
        if mark:
            self.d.text(g, x + w / 2, y + h / 2 + 6, mark, font_size=self.font("big"), font_weight="bold",
                        text_anchor="middle", fill=self.colour("spot_edge"))


# --------------------------------------------------------------------------------------------
# Tiles


def _crest(tile: str) -> str:
    """``mast-b`` -> ``b``, ``sail-crown`` -> ``crown``."""
    return tile.split("-", 1)[1]


def hull_shape(piece: str, x: float, y: float, w: float, h: float) -> list[tuple[float, float]]:
    """The outline of a hull piece: the bow points forward (left), the stern is rounded off behind,
    a single hull (a ship of one tile) is pointed at both ends."""
    cut = w * 0.28
    if piece == "single":
        return [(x, y), (x + w, y), (x + w - cut, y + h), (x + cut, y + h)]
    if piece == "bow":
        return [(x, y), (x + w, y), (x + w, y + h), (x + cut, y + h)]
    if piece == "stern":
        return [(x, y), (x + w, y), (x + w - cut / 2, y + h), (x, y + h)]
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


def _badge(ctx: Ctx, parent: ET.Element, cx: float, cy: float, r: float, fill: str, text: str, colour: str) -> None:
    ctx.d.circle(parent, cx, cy, r, fill=fill, stroke=ctx.colour("mast_edge"), stroke_width=1)
    ctx.d.text(parent, cx, cy + r * 0.45, text, font_size=round(r * 1.3), font_weight="bold",
               text_anchor="middle", fill=colour)


def item_icon(ctx: Ctx, parent: ET.Element, item: str, x: float, y: float, size: float) -> None:
    """A small picture of any tile (hull piece, mast, sail, good) in the box ``size`` x ``size``
    at (x, y), with a letter or symbol so no tile is told apart by colour alone."""
    d = ctx.d
    if item in rules.HULL_PIECES:
        d.polygon(parent, hull_shape(item, x, y + size * 0.3, size, size * 0.5), fill=ctx.colour("hull"),
                  stroke=ctx.colour("hull_edge"), stroke_width=1.5)
        d.text(parent, x + size / 2, y + size * 0.7, ctx.geo["hull_labels"][item], font_size=round(size * 0.4),
               font_weight="bold", text_anchor="middle", fill="#ffffff")
    elif item.startswith("mast-"):
        crest = ctx.geo["crests"][_crest(item)]
        d.rect(parent, x + size / 2 - 3, y, 6, size, fill=crest["fill"], stroke=ctx.colour("mast_edge"), stroke_width=1)
        _badge(ctx, parent, x + size / 2, y + size * 0.55, size * 0.3, crest["fill"], crest["label"], crest["text"])
    elif item.startswith("sail-"):
        crest = ctx.geo["crests"][_crest(item)]
        d.path(parent, f"M{x + 2:.1f},{y + 1:.1f} h{size - 4:.1f} q-3,{size / 2:.1f} 0,{size - 2:.1f}"
                       f" h-{size - 4:.1f} q3,-{size / 2:.1f} 0,-{size - 2:.1f} z",
               fill=crest["fill"], stroke=ctx.colour("mast_edge"), stroke_width=1)
        d.text(parent, x + size / 2, y + size * 0.68, crest["label"], font_size=round(size * 0.5), font_weight="bold",
               text_anchor="middle", fill=crest["text"])
    else:
        good = ctx.geo["goods"][item]
        d.rect(parent, x + 1, y + size * 0.15, size - 2, size * 0.7, rx=3, fill=good["fill"],
               stroke=ctx.colour("mast_edge"), stroke_width=1)
        d.text(parent, x + size / 2, y + size * 0.64, good["label"], font_size=round(size * 0.4), font_weight="bold",
               text_anchor="middle", fill=good["text"])


# --------------------------------------------------------------------------------------------
# Shipyard


def _ship_width(ctx: Ctx, ship: Sequence[Any]) -> float:
    p = ctx.geo["player"]
    return float(p["end_slot"] * 2 + p["piece_width"] * max(len(ship), 1))


def _ship_rows(ctx: Ctx, ships: Sequence[Sequence[Any]], new_slot: bool) -> list[list[tuple[int, float]]]:
    """Ships laid out in rows that fit the shipyard: [(ship index or -1 for the new-ship slot, x)]."""
    p = ctx.geo["player"]
    widths = [_ship_width(ctx, s) for s in ships] + ([float(p["piece_width"] * 2 + 10)] if new_slot else [])
    rows: list[list[tuple[int, float]]] = [[]]
    x = 0.0
    for k, w in enumerate(widths):
        if rows[-1] and x + w > p["shipyard_width"]:
            rows.append([])
            x = 0.0
        rows[-1].append((k if k < len(ships) else -1, x))
        x += w + p["ship_gap"]
    return rows


def _piece(ctx: Ctx, parent: ET.Element, hull: Mapping[str, Any], x: float, y: float) -> None:
    """One hull piece with its mast, sail and good, in a column ``piece_width`` wide."""
    d, pw, g = ctx.d, ctx.geo["player"]["piece_width"], ctx.geo["player"]["piece"]
    cx = x + pw / 2
    crests = ctx.geo["crests"]
    edge = ctx.colour("mast_edge")
    if hull["mast"]:
        crest = crests[_crest(hull["mast"])]
        top, height = g["mast"]
        d.rect(parent, cx - g["mast_width"] / 2, y + top, g["mast_width"], height, fill=crest["fill"], stroke=edge,
               stroke_width=1)
    if hull["sail"]:
        crest = crests[_crest(hull["sail"])]
        (top, height), inset = g["sail"], g["sail_inset"]
        # a square sail bellied by the wind: both sides curve the same way
        d.path(parent, f"M{x + inset:.1f},{y + top:.1f} h{pw - 2 * inset:.1f} q-{inset},{height / 2:.1f} 0,{height:.1f}"
                       f" h-{pw - 2 * inset:.1f} q{inset},-{height / 2:.1f} 0,-{height:.1f} z",
               fill=crest["fill"], stroke=edge, stroke_width=1.2)
        d.text(parent, cx, y + top + height * 0.7, crest["label"], font_size=ctx.font("big"), font_weight="bold",
               text_anchor="middle", fill=crest["text"])
    if hull["mast"]:
        crest = crests[_crest(hull["mast"])]
        _badge(ctx, parent, cx, y + g["badge_y"], g["badge_radius"], crest["fill"], crest["label"], crest["text"])
    top, height = g["hull"]
    d.polygon(parent, hull_shape(hull["piece"], x, y + top, pw, height), fill=ctx.colour("hull"),
              stroke=ctx.colour("hull_edge"), stroke_width=1.5)
    if hull["good"]:
        good = ctx.geo["goods"][hull["good"]]
        (top, height), gw = g["good"], g["good_width"]
        d.rect(parent, cx - gw / 2, y + top, gw, height, rx=3, fill=good["fill"], stroke=edge, stroke_width=1)
        d.text(parent, cx, y + top + height * 0.76, good["label"], font_size=ctx.font("small"), font_weight="bold",
               text_anchor="middle", fill=good["text"])


def _ship(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], player: Mapping[str, Any], k: int,
          x: float, y: float) -> None:
    d, p = ctx.d, ctx.geo["player"]
    ship = player["ships"][k]
    complete = k in player["complete_ships"]
    g = d.group(parent, class_="ship", data_ship=k)
    pw, slot = p["piece_width"], p["end_slot"]
    width = _ship_width(ctx, ship)
    d.rect(g, x, y, width, p["ship_height"] - 6, rx=6, fill=ctx.colour("sea"),
           stroke=ctx.colour("complete") if complete else ctx.colour("sea_edge"), stroke_width=3 if complete else 1)
    for h, hull in enumerate(ship):
        _piece(ctx, g, hull, x + slot + h * pw, y + 2)
    crowned = sum(1 for hull in ship for t in (hull["mast"], hull["sail"]) if t and t.endswith("-crown"))
    label = tr(ctx.language, "ship {k}", k=k) + (" \u2713" if complete else "")
    d.text(g, x + 6, y + p["ship_height"] - 12, label, font_size=ctx.font("small"),
           font_weight="bold" if complete else None, fill=ctx.colour("complete") if complete else ctx.colour("ink"))
    if crowned:
        d.text(g, x + width - 6, y + p["ship_height"] - 12, f"\u265b{crowned}", font_size=ctx.font("small"),
               text_anchor="end", fill=ctx.colour("ink"))
    name = ctx.say(player["name"])
    d.tooltip(g, tr(ctx.language, "{player}'s ship {k}", player=name, k=k)
              + (tr(ctx.language, " (complete)") if complete else "") + ": " + ", ".join(
        "/".join(ctx.item(str(v)) for v in (hull["piece"], hull["mast"], hull["sail"], hull["good"]) if v)
        for hull in ship))
    if player["seat"] not in view["active"]:
        return  # spots are the acting seat's: everyone's ships are numbered from 0
    # the places of this ship where legal actions go, over the drawing
    lang = ctx.language
    ctx.spot(parent, f"ship-{k}", tr(lang, "deliver {player}'s ship {k}", player=name, k=k), x, y, width,
             p["ship_height"] - 6)
    ctx.spot(parent, f"ship-{k}-front", tr(lang, "front of {player}'s ship {k}", player=name, k=k), x + 1, y + 62,
             slot - 2, 32, "+")
    ctx.spot(parent, f"ship-{k}-back", tr(lang, "back of {player}'s ship {k}", player=name, k=k),
             x + width - slot + 1, y + 62, slot - 2, 32, "+")
    for h in range(len(ship)):
        ctx.spot(parent, f"ship-{k}-hull-{h}", tr(lang, "hull piece {h} of {player}'s ship {k}", h=h, player=name, k=k),
                 x + slot + h * pw, y + 2, pw, 92)


# --------------------------------------------------------------------------------------------
# Player panel


def player_panel_height(ctx: Ctx, player: Mapping[str, Any], active: bool) -> float:
    """Height of a player's panel: its header plus the taller of the shipyard and the warehouse."""
    p = ctx.geo["player"]
    rows = len(_ship_rows(ctx, player["ships"], active and "new-ship" in ctx.spots))
    warehouse = 20 + p["slot"][1] * 2 + 30 + p["slot"][1] + 8
    return float(p["header_height"] + max(rows * p["ship_height"], warehouse) + p["gap"] * 2)


def _pass_tiles(ctx: Ctx, parent: ET.Element, player: Mapping[str, Any], x: float, y: float) -> None:
    d = ctx.d
    for i, (value, flipped) in enumerate(zip(ctx.rules.PASS_TILES, player["flipped"], strict=True)):
        tx = x + i * 30
        d.rect(parent, tx, y, 26, 24, rx=3, fill=ctx.geo["crests"]["crown"]["fill"] if flipped else "#ffffff",
               stroke=ctx.colour("ink"), stroke_width=1)
        d.text(parent, tx + 13, y + 17, "\u265b" if flipped else f"\u2212{-value}", font_size=ctx.font("small"),
               font_weight="bold", text_anchor="middle", fill=ctx.colour("ink"))


def _header(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], player: Mapping[str, Any],
            x: float, y: float, w: float) -> None:
    d, p = ctx.d, ctx.geo["player"]
    colours = ctx.geo["players"][player["name"]]
    h = p["header_height"]
    d.rect(parent, x, y, w, h, rx=6, fill=colours["fill"], stroke=ctx.colour("ink"), stroke_width=1)
    lang = ctx.language
    tags = []
    if view["seat"] == player["seat"]:
        tags.append(tr(lang, "you"))
    if view["chooser"] == player["seat"] and view["step"] != "over":
        tags.append(tr(lang, "start player"))
    if player["seat"] in view["active"]:
        tags.append(tr(lang, "to act"))
    name = d.text(parent, x + 10, y + 23, ctx.say(player["name"]), font_size=ctx.font("big"), font_weight="bold",
                  fill=colours["text"])
    name.set("class", "player-name")
    sx = 250
    if tags:
        said = "(" + ", ".join(tags) + ")"
        d.text(parent, x + 80, y + 22, said, font_size=ctx.font("small"), fill=colours["text"])
        if lang != DEFAULT:  # longer words push the numbers right (English keeps its layout)
            sx = max(sx, 80 + round(len(said) * ctx.font("small") * 0.6) + 8)
    workers, crowns = player["workers"], player["crowns"]
    # the strip's short form: the whole "győzelmi pont" leaves no room for the pass tiles in Hungarian
    stats = " \u00b7 ".join((render(phrase_in("picture strip", "{n} VP", n=player["vp"]), lang),
                             tr_n(lang, "{n} thaler", "{n} thaler", player["thaler"]),
                             tr_n(lang, "{n} worker", "{n} workers", workers),
                             "\u265b " + tr_n(lang, "{n} crown", "{n} crowns", crowns)))
    # the words of other languages run longer than the English the strip was laid out for
    size = ctx.font("body") if lang == DEFAULT else ctx.font("small")
    d.text(parent, x + sx, y + 23, stats, font_size=size, font_weight="bold", fill=colours["text"])
    d.text(parent, x + w - 296, y + 22, tr(lang, "pass"), font_size=ctx.font("small"), fill=colours["text"])
    _pass_tiles(ctx, parent, player, x + w - 262, y + 5)
    ex, ew = x + w - 166, 160
    used = not player["extra"]
    d.rect(parent, ex, y + 5, ew, 24, rx=3, fill=ctx.colour("face_down") if used else ctx.colour("free_tile"),
           stroke=ctx.colour("ink"), stroke_width=1)
    if used:
        d.text(parent, ex + ew / 2, y + 22, tr(lang, "extra action used"), font_size=ctx.font("small"),
               text_anchor="middle", fill=ctx.colour("face_down_text"))
    else:
        ctx.value(parent, ex + ew / 2, y + 22, tr(lang, "extra action +{n} workers", n=ctx.rules.EXTRA_WORKERS),
                  ctx.is_provisional("extra_action.workers_gained"), font_size=ctx.font("small"),
                  text_anchor="middle", fill=ctx.colour("free_text"))
    if player["seat"] in view["active"]:
        ctx.spot(parent, "extra-action", tr(lang, "{player}'s extra-action tile", player=ctx.say(player["name"])), ex, y + 3, ew, 28)


def _warehouse(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], player: Mapping[str, Any],
               x: float, y: float) -> None:
    """Warehouse slots (a mast fills two side by side), the room used, and the delivered goods."""
    d, p = ctx.d, ctx.geo["player"]
    cap = view["warehouse_capacity"]
    cols = p["warehouse_columns"]
    sw, sh = p["slot"]
    prov = ctx.is_provisional("warehouse.capacity")
    d.text(parent, x, y + 14, tr(ctx.language, "Warehouse"), font_size=ctx.font("body"), font_weight="bold", fill=ctx.colour("ink"))
    ctx.value(parent, x + 90, y + 14, tr(ctx.language, "{used} of {cap} spaces used", used=player["warehouse_used"], cap=cap), prov,
              font_size=ctx.font("body"), fill=ctx.colour("ink"))
    top = y + 20
    rows = -(-cap // cols)
    g = d.group(parent, class_="warehouse")
    for i in range(cap):
        d.rect(g, x + (i % cols) * sw, top + (i // cols) * sh, sw - 2, sh - 2, rx=3, fill=ctx.colour("slot"),
               stroke=ctx.colour("slot_edge"), stroke_width=1)
    # masts first, on slot pairs, so each lies on two neighbouring spaces of one row
    tiles = sorted(player["warehouse"], key=lambda t: (not t.startswith("mast-"), t))
    i = 0
    for tile in tiles:
        size = rules.tile_size(tile)
        if size == 2 and i % cols == cols - 1:
            i += 1
        col, row = i % cols, i // cols
        tx, ty = x + col * sw, top + row * sh
        if size == 2:
            d.rect(g, tx + 2, ty + sh / 2 - 3, sw * 2 - 6, 6, fill=ctx.geo["crests"][_crest(tile)]["fill"],
                   stroke=ctx.colour("mast_edge"), stroke_width=1)
            crest = ctx.geo["crests"][_crest(tile)]
            _badge(ctx, g, tx + sw - 1, ty + sh / 2 - 1, 10, crest["fill"], crest["label"], crest["text"])
        else:
            item_icon(ctx, g, tile, tx + (sw - 26) / 2, ty + (sh - 28) / 2, 26)
        i += size
    name = ctx.say(player["name"])
    d.tooltip(g, tr(ctx.language, "{player}'s warehouse: {tiles}", player=name,
                    tiles=", ".join(ctx.item(t) for t in player["warehouse"]) or tr(ctx.language, "empty")))
    if player["seat"] in view["active"]:
        ctx.spot(parent, "warehouse", tr(ctx.language, "{player}'s warehouse", player=name), x - 3, top - 2,
                 cols * sw + 4, rows * sh + 4, "")
    dy = top + rows * sh + 8
    d.text(parent, x, dy + 20, tr(ctx.language, "Delivered"), font_size=ctx.font("body"), font_weight="bold", fill=ctx.colour("ink"))
    for j, (good, n) in enumerate(zip(rules.GOODS, player["delivered"], strict=True)):
        gx = x + 76 + j * 48
        item_icon(ctx, parent, good, gx, dy + 4, 24)
        d.text(parent, gx + 27, dy + 21, str(n), font_size=ctx.font("big"), font_weight="bold", fill=ctx.colour("ink"))


def player_panel(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], player: Mapping[str, Any],
                 y: float, height: float) -> None:
    """A player's strip: header (name, VP, thaler, workers, crowns, pass tiles, extra action),
    the shipyard with its ships and the warehouse with the delivered goods."""
    d, p = ctx.d, ctx.geo["player"]
    m = ctx.geo["margin"]
    w = ctx.geo["width"] - 2 * m
    active = player["seat"] in view["active"]
    g = d.group(parent, class_="player", data_seat=player["seat"])
    d.rect(g, m, y, w, height, rx=8, fill=ctx.colour("panel"), stroke=ctx.geo["players"][player["name"]]["fill"],
           stroke_width=3)
    _header(ctx, g, view, player, m, y, w)
    top = y + p["header_height"] + p["gap"]
    yard = d.group(g, class_="shipyard")
    rows = _ship_rows(ctx, player["ships"], active and "new-ship" in ctx.spots)
    if not player["ships"]:
        d.text(yard, m + 12, top + 30, tr(ctx.language, "shipyard: no ships yet"), font_size=ctx.font("body"), fill=ctx.colour("muted"))
    for r, row in enumerate(rows):
        for k, x in row:
            sx, sy = m + 8 + x, top + r * p["ship_height"]
            if k >= 0:
                _ship(ctx, yard, view, player, k, sx, sy)
            else:
                d.text(yard, sx + p["piece_width"] + 5, sy + 50, tr(ctx.language, "new ship"), font_size=ctx.font("small"),
                       text_anchor="middle", fill=ctx.colour("muted"))
                ctx.spot(yard, "new-ship", tr(ctx.language, "a new ship in {player}'s shipyard", player=ctx.say(player["name"])), sx, sy + 56,
                         p["piece_width"] * 2 + 10, 38, "+")
    _warehouse(ctx, g, view, player, p["warehouse_x"], top)
