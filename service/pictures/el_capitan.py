"""The El Capitán board picture: the city grid, the bank, the card displays and the players.

:func:`render` draws a view of :mod:`service.games.el_capitan` (what :meth:`Game.view` gives a
seat or a spectator) as SVG. Only what the view holds is drawn: the draw decks appear as their
size, never their order (R-25). Geometry, sizes and colours are in ``data/el_capitan.json``; every
printed value (track, prices, cards) comes from the view, and the ones the game lists as
provisional carry the class ``provisional`` and a ``*``, explained in a footnote.

Each city tile follows the printed board: the name, the 12 building sites bent in a U around the
city (sites 1-7 left to right on top, 8-12 right to left below, then the hatched 13th space and
the city's payout value ``V``), dark shut-down spaces (a triangle marks the 2-3-player one), the
harbour spaces with their warehouse price and the ship anchored there, the fortress spaces with
their price and owner, and the counts of shut-down warehouses per colour.

Spots (``spot(action)``, the places a legal action is clicked on):

* ``card:<card id>`` buy that displayed card (on the card in its display);
* ``city:<city id>`` sail there, with any card of the hand (on the city's name bar);
* ``warehouse`` build a warehouse on the next site, ``warehouse:<site>`` on site 1 or 2 of an
  empty track (on that site of the city where the seat's ship lies; 2-player colours share it);
* ``reopen`` / ``reopen:<site>`` re-open a shut-down warehouse (a button under that city's track);
* ``fortress:<space>`` build a fortress on that space (in the ship's city);
* ``pirate:<city id>:<harbour>`` move the pirate ship to that harbour space (free, paid or by
  card), ``pirate:<city id>`` a stop of a pirate voyage by cards (a button in that city);
* ``loan:<amount>`` take a loan (on the bank's loan stack);
* ``settle:<loan index>`` repay or extend that loan card (on the chip in the player's panel);
* ``start-player:<seat>`` make that seat the next start player (on its panel).

``pass`` and ``end-turn`` have no place on the board: they stay buttons of the client.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from service.games.el_capitan.data import ALL_CITIES, GRID_ROWS
from service.i18n import DEFAULT, tr

from .el_capitan_parts import Ctx, bank, displays, fit, players
from .svg import Drawing, data, edition_note, spots_of

__all__ = ["render", "spot"]

_STYLE = (".spot{cursor:pointer}.spot:hover rect,.spot:focus rect{fill-opacity:.35}"
          ".spot:focus{outline:none}.provisional{font-style:italic}")


def spot(action: Mapping[str, Any]) -> str | None:
    """The spot id of a legal action (see the module docstring), None when it has no place on the board."""
    kind = action.get("type")
    if kind == "buy-card":
        return f"card:{action['card']}"
    if kind == "sail":
        return f"city:{action['to']}"
    if kind in ("build-warehouse", "reopen"):
        name = "warehouse" if kind == "build-warehouse" else "reopen"
        return f"{name}:{action['site']}" if "site" in action else name
    if kind == "build-fortress":
        return f"fortress:{action['space']}"
    if kind == "move-pirate":
        return f"pirate:{action['to']}:{action['harbour']}" if "harbour" in action else f"pirate:{action['to']}"
    if kind == "take-loan":
        return f"loan:{action['amount']}"
    if kind == "settle-loan":
        return f"settle:{action['loan']}"
    if kind == "choose-start-player":
        return f"start-player:{action['seat']}"
    return None


def render(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]] = (), language: str = DEFAULT) -> str:
    """The SVG picture of an El Capitán view, with a spot for each legal action that has a place,
    its words in ``language``."""
    cfg = data("el_capitan")
    seat = view.get("seat")
    who = tr(language, "spectator view") if seat is None else tr(language, "view of seat {seat}", seat=seat)
    head = tr(language, "El Capitán – phase {phase}, round {round}", phase=view["phase"], round=view["round"])
    title = f"{head} ({who})"
    d = Drawing(cfg["width"], 100, title, style=_STYLE)
    ctx = Ctx(d, cfg, view, legal, spots_of(legal, spot), language=language)
    _defs(ctx)
    d.rect(d.root, 0, 0, cfg["width"], 100, fill=ctx.col["background"], class_="background")
    y = _header(ctx, head)
    y = _grid(ctx, y)
    y = bank(ctx, y)
    y = displays(ctx, y)
    y = players(ctx, y)
    notes = _legend(ctx)
    if ctx.used_provisional:
        notes.append(tr(language, "* provisional value: not yet checked against the printed game"))
    notes += edition_note(view, language)
    height = int(y + len(notes) * cfg["footnote"]["line"] + 8)
    d.height = height
    d.root.set("viewBox", f"0 0 {cfg['width']} {height}")
    d.root.set("height", str(height))
    d.root.find("rect[@class='background']").set("height", str(height))  # type: ignore[union-attr]
    d.footnote(notes, size=ctx.font("small"))
    return d.to_string()


def _defs(ctx: Ctx) -> None:
    """The hatching of the 13th track space."""
    defs = ctx.d.add(ctx.d.root, "defs")
    pat = ctx.d.add(defs, "pattern", id="hatch", width=6, height=6, patternUnits="userSpaceOnUse",
                    patternTransform="rotate(45)")
    ctx.d.rect(pat, 0, 0, 6, 6, fill=ctx.col["hatched"])
    ctx.d.line(pat, 0, 0, 0, 6, stroke=ctx.col["tile_edge"], stroke_width=2)


def _header(ctx: Ctx, title: str) -> float:
    d, v, m = ctx.d, ctx.view, ctx.cfg["margin"]
    d.text(d.root, m, 28, title, font_size=ctx.font("title"), font_weight="bold", fill=ctx.col["ink"])
    size = ctx.font("subtitle")
    lines = textwrap.wrap(_status(ctx), width=int((ctx.cfg["width"] - 2 * m) / (size * 0.58)))
    for k, line in enumerate(lines):
        d.text(d.root, m, 48 + k * (size + 4), line, font_size=size, fill=ctx.col["ink"])
    seat = v.get("seat")
    who = (tr(ctx.language, "Spectator view") if seat is None
           else tr(ctx.language, "Seen by {colour} (seat {seat})", colour=ctx.seat_name(seat), seat=seat))
    d.text(d.root, ctx.cfg["width"] - m, 28, who, font_size=size, fill=ctx.col["muted"], text_anchor="end")
    return float(ctx.cfg["header"]["height"] + (len(lines) - 1) * (size + 4))


def _status(ctx: Ctx) -> str:
    """Whose move it is and what the turn has done so far, in words."""
    v, lang = ctx.view, ctx.language
    stage, active = v["stage"], v.get("active_seat")
    if stage == "over" or active is None:
        return tr(lang, "The game is over: the richest player wins.")
    name = ctx.seat_name(active)
    if stage == "settle":
        text = tr(lang, "Loan settlement after the payday: {player} settles a loan card.", player=name)
    elif stage == "choose-start":
        text = tr(lang, "{player}, the poorest player, chooses the next start player.", player=name)
    else:
        t = v.get("turn", {})
        done = [w for w, key in ((tr(lang, "has sailed"), "sailed"), (tr(lang, "has acted"), "action_done"),
                                 (tr(lang, "has moved the pirate"), "pirate_moved")) if t.get(key)]
        if done:
            text = tr(lang, "{player} to move ({done}).", player=name, done=", ".join(done))
        else:
            text = tr(lang, "{player} to move.", player=name)
        if t.get("pirate_in_transit"):
            text += tr(lang, " The pirate is under way, stopping at {city}.",
                       city=ctx.city_name(t["pirate_in_transit"]))
        if t.get("free_pirate_move_due"):
            text += tr(lang, " The free pirate move is due.")
    if v.get("phase_ending"):
        text += tr(lang, " The phase ends with this round.")
    return text


def _legend(ctx: Ctx) -> list[str]:
    """What the letters on the pieces stand for (2-player neutral colours named with their owner)."""
    lang = ctx.language
    names = []
    for p in ctx.view["players"]:
        piece = ctx.piece(p["colour"])
        names.append(f"{piece['label']} {ctx.colour_name(p['colour'])}")
        if p.get("neutral_colour"):
            neutral = ctx.piece(p["neutral_colour"])
            names.append(tr(lang, "{label} {colour} ({owner}'s neutral)", label=neutral["label"],
                            colour=ctx.colour_name(p["neutral_colour"]), owner=ctx.colour_name(p["colour"])))
    if ctx.view.get("pirate"):
        names.append(tr(lang, "P the pirate"))
    return [tr(lang, "Pieces: {pieces}. Loans: amount→repayment (ext.: extended).", pieces=", ".join(names)),
            tr(lang, "Track: sites 1–7 on top, 8–12 back below, then the hatched 13th space; dark squares are "
                     "shut-down spaces (▲ the 2–3-player one); V is the city's payout value.")]


# -- the city grid -----------------------------------------------------------------------------


def _grid(ctx: Ctx, y: float) -> float:
    """The sea with the city tiles on their grid cells (expansion tiles in the column left of the board)."""
    cfg, m, d = ctx.cfg["board"], ctx.cfg["margin"], ctx.d
    cities = ctx.view["cities"]
    cols = sorted({c["pos"][1] for c in cities})
    width = ctx.cfg["width"] - 2 * m
    tw = (width - 2 * cfg["padding"] - (len(cols) - 1) * cfg["gap"]) / len(cols)
    s = min(cfg["site_max"], (tw - 16 - 6 * cfg["site_gap"]) / 7)
    th = cfg["bar_height"] + 6 + 2 * s + cfg["site_gap"] + cfg["row_gap"] + cfg["harbour_height"] + 6 + 20 + 4
    height = 2 * cfg["padding"] + GRID_ROWS * th + (GRID_ROWS - 1) * cfg["gap"]
    sea = d.group(d.root, class_="board")
    d.rect(sea, m, y, width, height, rx=10, fill=ctx.col["sea"], stroke=ctx.col["sea_edge"], stroke_width=2)
    for c in cities:
        row, col = c["pos"]
        x = m + cfg["padding"] + cols.index(col) * (tw + cfg["gap"])
        ty = y + cfg["padding"] + row * (th + cfg["gap"])
        _tile(ctx, sea, c, x, ty, tw, th, s)
    return float(y + height + cfg["gap"])


def _acting_city(ctx: Ctx) -> str | None:
    """The city where the acting seat's ship lies (where it builds), if any."""
    seat = ctx.view.get("seat")
    if seat is None:
        seat = ctx.view.get("active_seat")
    if seat is None:
        return None
    ship = ctx.view["players"][seat]["ship"]
    return None if ship in ("bank", "off-board") else str(ship)


def _tile(ctx: Ctx, parent: ET.Element, c: Mapping[str, Any], x: float, y: float, w: float, h: float,
          s: float) -> None:
    d, cfg, col = ctx.d, ctx.cfg["board"], ctx.col
    cid = c["id"]
    g = d.group(parent, class_="city", data_city=cid)
    d.rect(g, x, y, w, h, rx=6, fill=col["tile"], stroke=col["tile_edge"], stroke_width=1.5)
    bar = col["bar_off_board"] if c.get("off_board") else col["bar"]
    d.rect(g, x, y, w, cfg["bar_height"], rx=6, fill=bar)
    name = c["name"] + (tr(ctx.language, " (expansion)") if c.get("off_board") and w > 240 else "")
    ctx.number(g, x + 8, y + 17, fit(name, w - 90, ctx.font("city")), ctx.city_provisional(cid, "pos"),
               font_size=ctx.font("city"), font_weight="bold", fill=col["bar_text"])
    d.text(g, x + w - 8, y + 17, tr(ctx.language, "{n} operating", n=c["operating"]), font_size=ctx.font("small"), fill=col["bar_text"],
           text_anchor="end")
    ctx.spot(g, f"city:{cid}", x, y, w, cfg["bar_height"], f"{c['name']}")
    acting = _acting_city(ctx) == cid
    _track(ctx, g, c, x, y + cfg["bar_height"] + 6, w, s, acting)
    _harbours_forts(ctx, g, c, x + 8, y + cfg["bar_height"] + 6 + 2 * s + cfg["site_gap"] + cfg["row_gap"], acting)
    _closed(ctx, g, c, x + 8, y + h - 24, w - 16, acting)


def _site_xy(n: int, tx: float, ty: float, s: float, gap: float) -> tuple[float, float]:
    """Top-left of track space ``n`` (1..13; 14 is the value marker): a U, 1-7 on top, then back below."""
    if n <= 7:
        return tx + (n - 1) * (s + gap), ty
    return tx + (14 - n) * (s + gap), ty + s + gap


def _track(ctx: Ctx, g: ET.Element, c: Mapping[str, Any], x: float, y: float, w: float, s: float,
           acting: bool) -> None:
    d, col, gap = ctx.d, ctx.col, ctx.cfg["board"]["site_gap"]
    cid = c["id"]
    tx = x + (w - (7 * s + 6 * gap)) / 2
    prov_track = ctx.city_provisional(cid, "track")
    prov_dark = ctx.city_provisional(cid, "dark")
    cities = ctx.rules.ALL_CITIES
    triangle = cities[cid].triangle if cid in cities else None
    shut = set(c["shutdown_sites"])
    size = ctx.font("site") if s >= 30 else ctx.font("small")
    for i, owner in enumerate(c["sites"]):
        n = i + 1
        sx, sy = _site_xy(n, tx, y, s, gap)
        site = d.group(g, class_="site", data_site=n)
        dark = n in shut
        d.rect(site, sx, sy, s, s, rx=3, fill=col["dark"] if dark else col["site"],
               stroke=col["site_edge"], stroke_width=1, class_="provisional" if dark and prov_dark else None)
        if n == triangle:
            d.polygon(site, [(sx + 2, sy + 2), (sx + 11, sy + 2), (sx + 2, sy + 11)],
                      fill=col["dark_text"] if dark else col["dark"])
        if owner:
            ctx.label_box(site, sx + 3, sy + 3, s - 6, s - 6, owner, size=size + 1)
            d.tooltip(site, tr(ctx.language, "site {n}: {colour} warehouse", n=n, colour=ctx.colour_name(owner)))
        else:
            ctx.number(site, sx + s / 2, sy + s / 2 + size * 0.36, c["track"][i], prov_track, font_size=size,
                       font_weight="bold", fill=col["dark_text"] if dark else col["ink"], text_anchor="middle")
            d.tooltip(site, tr(ctx.language, "site {n}, printed value {value}", n=n, value=c["track"][i])
                      + (tr(ctx.language, ", shut-down space") if dark else ""))
    hx, hy = _site_xy(13, tx, y, s, gap)
    d.rect(g, hx, hy, s, s, rx=3, fill="url(#hatch)", stroke=col["site_edge"])
    d.rect(g, hx + s / 2 - size, hy + s / 2 - size * 0.7, 2 * size, size * 1.4, rx=2, fill=col["site"])
    ctx.number(g, hx + s / 2, hy + s / 2 + size * 0.36, c["hatched"], ctx.city_provisional(cid, "hatched"),
               font_size=size, font_weight="bold", fill=col["ink"], text_anchor="middle")
    vx, vy = _site_xy(14, tx, y, s, gap)
    marker = d.group(g, class_="value-marker")
    d.circle(marker, vx + s / 2, vy + s / 2, s / 2, fill=col["value_marker"], stroke=col["tile_edge"], stroke_width=1.5)
    ctx.number(marker, vx + s / 2, vy + s / 2 + size * 0.36, f"V{c['value']}", prov_track and c["value"] > 0,
               font_size=size, font_weight="bold", fill=col["value_text"], text_anchor="middle")
    d.tooltip(marker, tr(ctx.language, "payout value of {city}: {value}", city=c["name"], value=c["value"]))
    if acting:
        for sid, site_n in [("warehouse", (c["next_sites"] or [0])[0]), ("warehouse:1", 1), ("warehouse:2", 2)]:
            if sid in ctx.spots and site_n:
                sx, sy = _site_xy(site_n, tx, y, s, gap)
                ctx.spot(g, sid, sx, sy, s, s, tr(ctx.language, "{city} site {n}", city=c["name"], n=site_n))


def _harbours_forts(ctx: Ctx, g: ET.Element, c: Mapping[str, Any], x: float, y: float, acting: bool) -> None:
    d, cfg, col = ctx.d, ctx.cfg["board"], ctx.col
    cid = c["id"]
    hw, hh, fw = cfg["harbour_width"], cfg["harbour_height"], cfg["fort_width"]
    small = ctx.font("small") - 1
    prov_h = ctx.city_provisional(cid, "harbours")
    for k, hb in enumerate(c["harbours"]):
        hx = x + k * (hw + 3)
        box = d.group(g, class_="harbour", data_harbour=k + 1)
        d.rect(box, hx, y, hw, hh, rx=4, fill=col["harbour"], stroke=col["sea_edge"])
        ship = hb["ship"]
        if ship is None:
            ctx.number(box, hx + hw / 2, y + hh / 2 + 4, hb["price"], prov_h, font_size=ctx.font("site"),
                       font_weight="bold", fill=col["ink"], text_anchor="middle")
            d.tooltip(box, tr(ctx.language, "harbour space {n}: warehouses cost {price}", n=k + 1, price=hb["price"]))
        else:
            ctx.number(box, hx + 3, y + 10, hb["price"], prov_h, font_size=small, fill=col["ink"])
            colour = "pirate" if ship == "pirate" else ctx.colour_of_seat(int(ship))
            ctx.ship(box, hx + hw - 25, y + 3, 22, hh - 5, colour)
            d.tooltip(box, tr(ctx.language, "harbour space {n} (price {price}): {colour} ship", n=k + 1,
                              price=hb["price"], colour=ctx.colour_name(colour)))
        ctx.spot(g, f"pirate:{cid}:{k + 1}", hx, y, hw, hh,
                 tr(ctx.language, "{city} harbour space {n}", city=c["name"], n=k + 1))
    fx0 = x + len(c["harbours"]) * (hw + 3) + 8
    prov_f = ctx.city_provisional(cid, "fortresses")
    for k, fort in enumerate(c["fortresses"]):
        fx = fx0 + k * (fw + 3)
        box = d.group(g, class_="fortress", data_space=k + 1)
        owner = fort["colour"]
        pc = ctx.piece(owner) if owner else None
        # a tower with three merlons, the shape of the printed fortress spaces
        top = y + 6
        merlons = "".join(f"h{fw / 7:.1f}v-5h{fw / 7:.1f}v5" for _ in range(3))
        path = f"M{fx:.1f},{y + hh:.1f}V{top:.1f}{merlons}h{fw / 7:.1f}V{y + hh:.1f}Z"
        d.path(box, path, fill=pc["fill"] if pc else col["fort"], stroke=pc["stroke"] if pc else col["tile_edge"],
               stroke_width=1.2)
        if pc:
            d.text(box, fx + fw / 2, y + hh - 4, pc["label"], font_size=ctx.font("site"), font_weight="bold",
                   fill=pc["text"], text_anchor="middle")
            ctx.number(box, fx + fw / 2, y + 15, fort["price"], prov_f, font_size=small - 1, fill=pc["text"],
                       text_anchor="middle")
            d.tooltip(box, tr(ctx.language, "fortress space {n} (price {price}): {colour} fortress", n=k + 1,
                              price=fort["price"], colour=ctx.colour_name(owner)))
        else:
            ctx.number(box, fx + fw / 2, y + hh / 2 + 7, fort["price"], prov_f, font_size=ctx.font("site"),
                       font_weight="bold", fill=col["ink"], text_anchor="middle")
            d.tooltip(box, tr(ctx.language, "fortress space {n}: price {price}", n=k + 1, price=fort["price"]))
        if acting:
            ctx.spot(g, f"fortress:{k + 1}", fx, y + 1, fw, hh - 1,
                     tr(ctx.language, "{city} fortress space {n}", city=c["name"], n=k + 1))


def _closed(ctx: Ctx, g: ET.Element, c: Mapping[str, Any], x: float, y: float, w: float, acting: bool) -> None:
    """The shut-down warehouses of the city by colour, and the re-open and pirate-stop buttons."""
    d, col = ctx.d, ctx.col
    size = ctx.font("small")
    cx = x
    closed = dict(c["closed"])
    if closed:
        d.text(g, cx, y + 14, tr(ctx.language, "shut:"), font_size=size, fill=col["ink"])
        cx += 32
        for colour, count in closed.items():
            ctx.label_box(g, cx, y + 2, 16, 16, colour, size=size)
            d.text(g, cx + 19, y + 14, f"×{count}", font_size=size, fill=col["ink"])
            cx += 42
    removed = ctx.view.get("removed_in_porto") or {}
    # Porto: a shut-down warehouse leaves the game (spec §8.2); the view counts them per colour
    if c["id"] in ALL_CITIES and "shutdown_removes_from_game" in ALL_CITIES[c["id"]].special and removed:
        d.text(g, cx, y + 14, tr(ctx.language, "removed: {pieces}",
                                 pieces=" ".join(f"{ctx.piece(k)['label']}×{n}" for k, n in removed.items())),
               font_size=size, fill=col["ink"])
        cx += 70
    buttons = []
    if acting:
        buttons += [(sid, text) for sid, text in (("reopen", tr(ctx.language, "re-open")),
                                                  ("reopen:1", tr(ctx.language, "re-open {n}", n=1)),
                                                  ("reopen:2", tr(ctx.language, "re-open {n}", n=2)))
                    if sid in ctx.spots]
    if f"pirate:{c['id']}" in ctx.spots:
        buttons.append((f"pirate:{c['id']}", tr(ctx.language, "pirate stop")))
    bx = x + w
    for sid, text in reversed(buttons):
        bw = len(text) * size * 0.6 + 12
        bx -= bw + 4
        d.rect(g, bx, y + 1, bw, 18, rx=4, fill=col["panel"], stroke=col["tile_edge"])
        d.text(g, bx + bw / 2, y + 14, text, font_size=size, fill=col["ink"], text_anchor="middle")
        ctx.spot(g, sid, bx, y + 1, bw, 18, tr(ctx.language, "{city} {button}", city=c["name"], button=text))
