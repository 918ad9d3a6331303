"""The Nauticus board as SVG: the action wheel, the supply and every player's shipyard and warehouse.

Layout (geometry and colours in ``data/nauticus.json``): the eight action spaces lie clockwise
round the wheel, space 0 at the top centre. Each space shows its printed bonus, the action tile
lying on it (paid tiles dark blue with the four items and their prices, free tiles light, used
tiles grey and face down), and the blue workers the wheel gives it this round. The wheel in the
middle shows the same numbers with the anchor segment (0 workers, marked with an anchor). Right of
the wheel: whose turn it is and what is running (with the ship-reward choices while a completed
ship waits for them), then the supply stacks. Below: one strip per player with name, VP, thaler,
workers, crowns, pass tiles and extra-action tile, the shipyard (each ship with hull pieces,
masts, sails and cargo; crests are coloured *and* lettered A-D, crowned pieces carry a crown) and
the warehouse (used / capacity spaces) with the delivered goods.

Nauticus hides nothing (spec §10.1): every seat's view is the spectator's, so the seat picture
differs only by the "you" mark and, for the seat to act, the spots.

Spot ids (``data-spot``), one per place a legal action is natural to click:

* ``tile-<action>`` - the action tile ``<action>`` (``hull``, ``mast``, ``sail``, ``goods``,
  ``transfer``, ``deliver``, ``money``, ``crowns``) on the wheel: ``choose-action`` of it; while
  Take money or Score crowns runs, ``take-money`` / ``score-crowns`` with any worker count;
* ``supply-<item>`` - a supply stack (``single``, ``mast-b``, ``coffee`` ...): ``take-bonus`` of that
  item (the board bonus or the free item for buying all four kinds);
* ``ship-<k>-front`` / ``ship-<k>-back`` - the open front or back end of the acting seat's ship
  ``k``: ``buy`` / ``transfer`` of a hull piece there;
* ``ship-<k>-hull-<h>`` - hull piece ``h`` of ship ``k``: ``buy`` / ``transfer`` of a mast, sail or good
  onto it;
* ``new-ship`` - the empty place after the ships: a hull piece bought or moved as a new ship;
* ``warehouse`` - the acting seat's warehouse: ``buy`` of an item into it;
* ``ship-<k>`` - a whole ship: ``deliver`` it;
* ``reward-<reward>`` - a completed ship's reward (``crown-mast``, ``crown-sail``, ``thaler``,
  ``workers``, ``vp``, ``goods``; every goods pair at the one spot): ``take-reward``;
* ``extra-action`` - the acting seat's extra-action tile: ``extra-action`` of any action.

``pass`` and ``done`` have no place on the board: they stay buttons of the client.

Further hooks for clients and tests: ``data-space`` on each action space, ``data-stack`` on each
supply stack, ``data-seat`` on each player's strip, ``data-ship`` on each ship, ``data-price`` on
each drawn price.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from service.games import registry
from service.games.nauticus import data as rules
from service.games.nauticus import words
from service.i18n import DEFAULT, tr, tr_n
from service.i18n import render as say

from .nauticus_parts import Ctx, item_icon, player_panel, player_panel_height
from .svg import Drawing, data, edition_note, provisional_paths_of, rules_of, said, spots_of

__all__ = ["render", "spot"]

FOOTNOTE = "* provisional value: not yet checked against the printed game"
"""The footnote in English (the picture says it in its reader's language)."""


# Which provisional data path a drawn value comes from (``Game.provisional()`` paths).
_PRICES = ("action_spaces.price_rows", "action_tiles.*.items")
_WHEEL = "wheel.segments_clockwise_from_anchor"
_REWARD_PATH = {r: f"ship_rewards.{r}" for r in ("workers", "vp", "goods")}


def _free_text(action: str, language: str, thaler: int, cap: int) -> tuple[str, str]:
    """The two lines printed on a free action tile (what it does)."""
    if action == "transfer":
        return tr(language, "warehouse \u2192 shipyard"), tr(language, "1 worker per tile")
    if action == "deliver":
        return tr(language, "unload a complete, full"), tr(language, "ship: 1 worker per good")
    if action == "money":
        return tr(language, "{n} thaler per worker", n=thaler), tr(language, "(blue workers too)")
    return tr(language, "crowns \u00d7 workers VP"), tr(language, "at most {cap} per use", cap=cap)


_STYLE = (".spot{cursor:pointer}.spot:hover rect,.spot:focus rect{fill-opacity:.6}"
          ".spot:focus{outline:none}.spot:focus rect{stroke-width:5}")


def spot(action: Mapping[str, Any]) -> str | None:
    """The spot id of a legal action (see the module docstring), None for pass and done."""
    t = action.get("type")
    if t == "choose-action":
        return f"tile-{action['action']}"
    if t in ("take-money", "score-crowns"):
        return "tile-money" if t == "take-money" else "tile-crowns"
    if t == "take-bonus":
        return f"supply-{action['item']}"
    if t in ("buy", "transfer"):
        to = action.get("to")
        if to == "warehouse":
            return "warehouse"
        if to == "new-ship":
            return "new-ship"
        if "end" in action:
            return f"ship-{action['ship']}-{action['end']}"
        return f"ship-{action['ship']}-hull-{action['hull']}"
    if t == "deliver":
        return f"ship-{action['ship']}"
    if t == "take-reward":
        return f"reward-{action['reward']}"
    if t == "extra-action":
        return "extra-action"
    return None


@cache
def _provisional_paths() -> frozenset[str]:
    return frozenset(p.path for p in registry()["nauticus"].provisional())


def _bonus_text(bonus: Mapping[str, Any], language: str) -> str:
    """``{"workers": 1, "tile": "good"}`` -> ``+1 worker +1 good`` (a tile bonus is of the chooser's choice)."""
    bits = []
    if "workers" in bonus:
        bits.append(tr_n(language, "+{n} worker", "+{n} workers", bonus["workers"]))
    if "vp" in bonus:
        bits.append(tr(language, "+{n} VP", n=bonus["vp"]))
    if "thaler" in bonus:
        bits.append(tr(language, "+{n} thaler", n=bonus["thaler"]))
    if "tile" in bonus:
        bits.append(tr(language, "+1 {tile}", tile=_bonus_tile(bonus["tile"], language)))
    return " ".join(bits)


def _bonus_tile(tile: str, language: str) -> str:
    """A space's bonus tile ("mast", "sail", "good") in words."""
    return tile if language == DEFAULT else say(words.bonus_tile(tile), language)


def _title(view: Mapping[str, Any], language: str) -> str:
    names = [say(p["name"], language) for p in view["players"]]
    head = tr(language, "Nauticus, round {round} of {rounds}", round=view["round"], rounds=view["rounds"])
    if view["step"] == "over":
        return tr(language, "{head}: game over", head=head)
    head += tr(language, ", phase {phase} of {phases}", phase=min(view["phase"], view["phases_per_round"]),
               phases=view["phases_per_round"])
    who, what = _now(view, names, language)
    return f"{head}: {who} {what}"


def _now(view: Mapping[str, Any], names: Sequence[str], language: str) -> tuple[str, str]:
    """Who is to act and what they are doing, in words (("Red", "chooses an action tile"))."""
    step = view["step"]
    if step == "choose":
        return names[view["chooser"]], tr(language, "chooses an action tile")
    if step == "bonus":
        return names[view["chooser"]], tr(language, "takes the bonus: a {tile} of choice",
                                          tile=_bonus_tile(view["pending_bonus"], language))
    turn = view["turn"]
    if step != "turn" or turn is None:
        return tr(language, "nobody"), tr(language, "the game is over")
    who = names[turn["seat"]]
    if turn["rewards"]:
        return who, tr(language, "takes rewards for ship {ship}", ship=turn["rewards"]["ship"])
    if turn["free_item"]:
        return who, tr(language, "takes the free item for buying all four kinds")
    action = rules.ACTION_NAMES[turn["running"]] if language == DEFAULT else say(words.action(turn["running"]),
                                                                                     language)
    if turn["extra"]:
        return who, tr(language, "plays the extra action: {action}", action=action)
    return who, tr(language, "executes {action}", action=action)


# --------------------------------------------------------------------------------------------
# The wheel and its eight action spaces


def _cell(ctx: Ctx, s: int) -> tuple[float, float]:
    w = ctx.geo["wheel"]
    col, row = w["grid"][s]
    return w["x"] + col * (w["cell_width"] + w["gap"]), w["y"] + row * (w["cell_height"] + w["gap"])


def _tile(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], space: Mapping[str, Any], x: float, y: float) -> None:
    """The action tile lying on a space: paid tiles with items and prices, free ones with their rule."""
    d = ctx.d
    action, down = space["action"], space["face_down"]
    paid = action in rules.PAID_ACTIONS
    w, h = ctx.geo["wheel"]["cell_width"] - 16, 88
    fill = ctx.colour("face_down") if down else ctx.colour("paid_tile") if paid else ctx.colour("free_tile")
    ink = ctx.colour("face_down_text") if down else ctx.colour("paid_text") if paid else ctx.colour("free_text")
    d.rect(parent, x, y, w, h, rx=6, fill=fill, stroke=ctx.colour("ink"), stroke_width=1.5,
           stroke_dasharray="5 3" if down else None)
    d.text(parent, x + w / 2, y + 19, ctx.action(action).split(" (")[0], font_size=ctx.font("heading"),
           font_weight="bold", text_anchor="middle", fill=ink)
    if down:
        d.text(parent, x + w / 2, y + 46, tr(ctx.language, "face down:"), font_size=ctx.font("small"), text_anchor="middle", fill=ink)
        d.text(parent, x + w / 2, y + 62, tr(ctx.language, "used this round"), font_size=ctx.font("small"), text_anchor="middle",
               fill=ink)
    elif paid:
        prov = ctx.is_provisional(*_PRICES)
        items = rules.ACTION_ITEMS[action]
        step = w / len(items)
        for i, item in enumerate(items):
            ix = x + i * step + (step - 26) / 2
            d.rect(parent, ix - 3, y + 27, 32, 32, rx=4, fill=ctx.colour("free_tile"))
            item_icon(ctx, parent, item, ix, y + 30, 26)
            ctx.value(parent, x + i * step + step / 2, y + 80, str(space["prices"][item]), prov, data_price=item,
                      font_size=ctx.font("big"), font_weight="bold", text_anchor="middle", fill=ink)
    else:
        for i, text in enumerate(_free_text(action, ctx.language, ctx.rules.THALER_PER_WORKER, ctx.rules.CROWN_CAP)):
            d.text(parent, x + w / 2, y + 46 + i * 18, text, font_size=ctx.font("small"), text_anchor="middle",
                   fill=ink)
    if view["anchor_tile"] == space["space"]:
        d.circle(parent, x + w - 12, y + 12, 11, fill=ctx.colour("anchor"), stroke="#ffffff", stroke_width=1.5)
        d.text(parent, x + w - 12, y + 18, "\u2693", font_size=ctx.font("big"), text_anchor="middle", fill="#ffffff")
    lang = ctx.language
    d.tooltip(parent, tr(lang, "space {space}: {action}", space=space["space"], action=ctx.action(action))
              + (tr(lang, " (face down)") if down else "")
              + (tr(lang, " \u2013 anchor tile: this round's first action") if view["anchor_tile"] == space["space"]
                 else ""))
    ctx.spot(parent, f"tile-{action}", tr(lang, "{action} on space {space}", action=ctx.action(action),
                                          space=space["space"]), x - 2, y - 2,
             w + 4, h + 4)


def _space(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], space: Mapping[str, Any]) -> None:
    """One action space: bonus field, the tile on it, the blue workers of the wheel."""
    d, geo = ctx.d, ctx.geo["wheel"]
    s = space["space"]
    x, y = _cell(ctx, s)
    w, h = geo["cell_width"], geo["cell_height"]
    current = view["current_space"] == s
    g = d.group(parent, class_="space", data_space=s)
    d.rect(g, x, y, w, h, rx=8, fill=ctx.colour("bonus_plate"),
           stroke=ctx.colour("current") if current else ctx.colour("panel_edge"), stroke_width=5 if current else 1.5)
    bonus_prov = s == 0 and "workers" in space["bonus"] and ctx.is_provisional("action_spaces.bonuses[0].workers")
    d.text(g, x + 8, y + 17, tr(ctx.language, "bonus"), font_size=ctx.font("small"), fill=ctx.colour("muted"))
    # the value follows the label: at 50 as always in English, after a longer word in another language
    label = tr(ctx.language, "bonus")
    bx = 50 if ctx.language == DEFAULT else max(50, 12 + round(len(label) * ctx.font("small") * 0.62))
    size = ctx.font("body") if ctx.language == DEFAULT else ctx.font("small")
    bonus = ctx.value(g, x + bx, y + 17, _bonus_text(space["bonus"], ctx.language), bonus_prov, font_size=size,
                      font_weight="bold", fill=ctx.colour("ink"))
    d.tooltip(bonus, tr(ctx.language, "the chooser's bonus: a {tile} of choice to the warehouse",
                        tile=_bonus_tile(space["bonus"]["tile"], ctx.language)) if "tile" in space["bonus"]
              else tr(ctx.language, "the chooser's bonus"))
    _tile(ctx, g, view, space, x + 8, y + 24)
    blue = space["blue_workers"]
    anchor = view["anchor"] == s
    by = y + h - 22
    for i in range(blue):
        d.rect(g, x + 8 + i * 16, by, 12, 12, rx=2, fill=ctx.colour("blue_worker"), stroke=ctx.colour("ink"),
               stroke_width=1)
    if current:
        d.rect(g, x + w - 48, by - 3, 42, 18, rx=3, fill=ctx.colour("current_text"))
        d.text(g, x + w - 27, by + 11, tr(ctx.language, "NOW"), font_size=ctx.font("small"), font_weight="bold", text_anchor="middle",
               fill="#ffffff")
    label = (tr(ctx.language, "wheel anchor: 0 blue workers") if anchor
             else tr_n(ctx.language, "{n} blue worker", "{n} blue workers", blue))
    ctx.value(g, x + 8 + max(blue, 0) * 16 + (4 if blue else 0), by + 11, label,
              not anchor and ctx.is_provisional(_WHEEL), font_size=ctx.font("small"), fill=ctx.colour("ink"))


def _wheel(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any]) -> None:
    """The turntable in the middle: a segment towards each space with its blue workers."""
    d, geo = ctx.d, ctx.geo["wheel"]
    x, y = geo["x"] + geo["cell_width"] + geo["gap"], geo["y"] + geo["cell_height"] + geo["gap"]
    cx, cy = x + geo["cell_width"] / 2, y + geo["cell_height"] / 2
    r, hub = geo["radius"], geo["hub_radius"]
    g = d.group(parent, class_="wheel")
    d.circle(g, cx, cy, r + 4, fill=ctx.colour("sea_edge"))
    prov = ctx.is_provisional(_WHEEL)
    for space in view["spaces"]:
        s = space["space"]
        col, row = geo["grid"][s]
        mid = math.atan2(row - 1, col - 1)
        a0, a1 = mid - math.pi / 8, mid + math.pi / 8
        pts = [(cx + r * math.cos(a0), cy + r * math.sin(a0)), (cx + r * math.cos(a1), cy + r * math.sin(a1))]
        d.path(g, f"M{cx:.1f},{cy:.1f} L{pts[0][0]:.1f},{pts[0][1]:.1f} A{r},{r} 0 0 1 {pts[1][0]:.1f},"
                  f"{pts[1][1]:.1f} Z", fill=ctx.colour("sea"), stroke=ctx.colour("sea_edge"), stroke_width=1.5)
        lx, ly = cx + (r + hub) / 2 * math.cos(mid), cy + (r + hub) / 2 * math.sin(mid)
        if view["anchor"] == s:
            d.text(g, lx, ly + 7, "\u2693", font_size=20, text_anchor="middle", fill=ctx.colour("anchor"))
        else:
            ctx.value(g, lx, ly + 6, str(space["blue_workers"]), prov, font_size=ctx.font("big"), font_weight="bold",
                      text_anchor="middle", fill=ctx.colour("blue_worker"))
    d.circle(g, cx, cy, hub, fill=ctx.colour("panel"), stroke=ctx.colour("sea_edge"), stroke_width=1.5)
    d.text(g, cx, cy - 2, tr(ctx.language, "round"), font_size=ctx.font("small"), text_anchor="middle", fill=ctx.colour("ink"))
    d.text(g, cx, cy + 14, f"{view['round']}/{view['rounds']}", font_size=ctx.font("body"), font_weight="bold",
           text_anchor="middle", fill=ctx.colour("ink"))
    d.tooltip(g, tr(ctx.language, "the wheel: blue workers per action space this round; the anchor segment gives none"))


# --------------------------------------------------------------------------------------------
# Status, rewards and supply


def _status(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], x: float, y: float, w: float, h: float) -> None:
    """Round and phase, the start player, who acts doing what; the running execution (blue workers
    left, what was bought, the next prices), a completed ship's rewards, or the final scores."""
    d, lang = ctx.d, ctx.language
    names = [ctx.say(p["name"]) for p in view["players"]]
    g = d.group(parent, class_="status")
    d.rect(g, x, y, w, h, rx=8, fill=ctx.colour("panel"), stroke=ctx.colour("panel_edge"), stroke_width=1.5)
    over = view["step"] == "over"
    phase = min(view["phase"], view["phases_per_round"])
    d.text(g, x + 10, y + 22, tr(lang, "Round {round} of {rounds}", round=view["round"], rounds=view["rounds"]) +
           ("" if over else tr(lang, " \u00b7 phase {phase} of {phases}", phase=phase,
                               phases=view["phases_per_round"])),
           font_size=ctx.font("heading"), font_weight="bold", fill=ctx.colour("ink"))
    ty = y + 44
    if over:
        _final(ctx, g, view, x, ty)
        return
    d.text(g, x + 10, ty, tr(lang, "Start player: {player}", player=names[view["chooser"]]), font_size=ctx.font("body"), fill=ctx.colour("ink"))
    who, what = _now(view, names, lang)
    d.text(g, x + 10, ty + 22, tr(lang, "Now: {player}", player=who), font_size=ctx.font("heading"), font_weight="bold",
           fill=ctx.colour("current_text"))
    d.text(g, x + 10, ty + 40, what, font_size=ctx.font("body"), font_weight="bold", fill=ctx.colour("ink"))
    ty += 62
    turn = view["turn"]
    if turn is None:
        if view["step"] == "bonus":
            d.text(g, x + 10, ty, tr(lang, "pick the stack in the supply"), font_size=ctx.font("small"), fill=ctx.colour("muted"))
        return
    run = turn["extra"] or turn["normal"]
    if turn["rewards"]:
        _rewards(ctx, g, turn["rewards"], x + 6, ty - 8, w - 12)
        return
    lines = [tr(lang, "blue workers left {left} \u00b7 workers used {used}", left=run["blue_left"], used=run["units"])]
    if turn["free_item"]:
        lines.insert(0, tr(lang, "pick the free item's stack in the supply"))
    if run["bought"]:
        lines.append(tr(lang, "bought: {items}", items=", ".join(ctx.item(i) for i in run["bought"])))
    if run["action"] == "crowns":
        lines.append(tr(lang, "crown VP so far {vp} of {cap}", vp=run["crown_vp"], cap=ctx.rules.CROWN_CAP))
    for text in lines:
        d.text(g, x + 10, ty, text, font_size=ctx.font("small"), fill=ctx.colour("ink"))
        ty += 18
    if "prices" in run:
        # what the next item of each kind costs now: a repeat costs the (checked) repeat price, a
        # first one the printed price, or the extra action's base price
        paths = ("extra_action.base_price",) if turn["extra"] else _PRICES
        d.text(g, x + 10, ty, tr(lang, "price of the next one:"), font_size=ctx.font("small"), fill=ctx.colour("ink"))
        for i, (item, cost) in enumerate(run["prices"].items()):
            ix = x + 10 + i * 66
            item_icon(ctx, g, item, ix, ty + 6, 24)
            ctx.value(g, ix + 28, ty + 25, str(cost), item not in run["bought"] and ctx.is_provisional(*paths),
                      data_price=item, font_size=ctx.font("big"), font_weight="bold", fill=ctx.colour("ink"))


def _rewards(ctx: Ctx, parent: ET.Element, rewards: Mapping[str, Any], x: float, y: float, w: float) -> None:
    """The six rewards of a completed ship, each taken at most twice, as places to click (two columns)."""
    d, lang = ctx.d, ctx.language
    row = ctx.geo["status_rewards_row"]
    d.text(parent, x + 4, y, tr_n(lang, "ship {ship} complete: {n} reward to take", "ship {ship} complete: {n} rewards to take",
                                  rewards["left"], ship=rewards["ship"]),
           font_size=ctx.font("small"), font_weight="bold", fill=ctx.colour("complete"))
    said = {"crown-mast": "\u265b " + tr(lang, "mast"), "crown-sail": "\u265b " + tr(lang, "sail")}
    cw = (w - 4) / 2
    for i, reward in enumerate(ctx.rules.REWARDS):
        rx, ry = x + (i % 2) * (cw + 4), y + 6 + (i // 2) * row
        taken = rewards["taken"][reward]
        n = ctx.rules.REWARD_AMOUNT[reward]
        text = said[reward] if reward in said else _amount(lang, reward, n)
        d.rect(parent, rx, ry, cw, row - 3, rx=4, fill=ctx.colour("free_tile"), stroke=ctx.colour("slot_edge"),
               stroke_width=1)
        prov = reward in _REWARD_PATH and ctx.is_provisional(_REWARD_PATH[reward])
        ctx.value(parent, rx + 6, ry + 17, text, prov, font_size=ctx.font("body"), font_weight="bold",
                  fill=ctx.colour("ink"))
        d.text(parent, rx + cw - 6, ry + 17, f"{taken}/{ctx.rules.REWARD_MAX_SAME}", font_size=ctx.font("small"),
               text_anchor="end", fill=ctx.colour("muted"))
        long = {"crown-mast": tr(lang, "a crowned mast"), "crown-sail": tr(lang, "a crowned sail"),
                "goods": tr(lang, "{goods} (different kinds)", goods=text)}
        ctx.spot(parent, f"reward-{reward}", tr(lang, "reward {reward}, taken {taken} of {most}",
                                                reward=long.get(reward, text), taken=taken,
                                                most=ctx.rules.REWARD_MAX_SAME), rx, ry, cw, row - 3)


def _amount(language: str, reward: str, n: int) -> str:
    """A reward's amount with its noun ("3 workers"); the plain English forms the picture always printed."""
    if reward == "thaler":
        return tr_n(language, "{n} thaler", "{n} thaler", n)
    if reward == "workers":
        return tr(language, "{n} workers", n=n)
    if reward == "vp":
        return tr_n(language, "{n} VP", "{n} VP", n)
    return tr(language, "{n} goods", n=n)


def _final(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], x: float, y: float) -> None:
    """Each player's final score and its parts (spec §8)."""
    d, lang = ctx.d, ctx.language
    d.text(parent, x + 10, y, tr(lang, "Final scoring"), font_size=ctx.font("body"), font_weight="bold", fill=ctx.colour("ink"))
    best = max(f["total"] for f in view["final"])
    for i, (p, f) in enumerate(zip(view["players"], view["final"], strict=True)):
        fy = y + 22 + i * 36
        d.text(parent, x + 10, fy, tr(lang, "{player}: {n} VP", player=ctx.say(p["name"]), n=f["total"])
               + (tr(lang, "  \u2605 most VP") if f["total"] == best else ""),
               font_size=ctx.font("body"), font_weight="bold", fill=ctx.colour("ink"))
        d.text(parent, x + 10, fy + 16, tr(lang, "track {track} + ships {ships} + goods {goods} + money {money}",
                                           track=f["track_vp"], ships=f["ships_vp"], goods=f["goods_vp"],
                                           money=f["money_vp"]), font_size=ctx.font("small"), fill=ctx.colour("muted"))


def _supply(ctx: Ctx, parent: ET.Element, view: Mapping[str, Any], x: float, y: float, w: float, h: float) -> None:
    """The open stacks: hull pieces, masts, sails (by crest, then crowned) and goods, with counts."""
    d = ctx.d
    cw, ch = ctx.geo["side"]["supply_cell"]
    g = d.group(parent, class_="supply")
    d.rect(g, x, y, w, h, rx=8, fill=ctx.colour("panel"), stroke=ctx.colour("panel_edge"), stroke_width=1.5)
    d.text(g, x + 10, y + 20, tr(ctx.language, "Supply"), font_size=ctx.font("heading"), font_weight="bold", fill=ctx.colour("ink"))
    rows = [list(rules.HULL_PIECES), [*rules.NORMAL_MASTS, rules.CROWN_MAST], [*rules.NORMAL_SAILS, rules.CROWN_SAIL],
            list(rules.GOODS)]
    for r, items in enumerate(rows):
        for c, item in enumerate(items):
            sx, sy = x + 8 + c * cw, y + 28 + r * ch
            n = view["supply"][item]
            cell = d.group(g, data_stack=item)
            d.rect(cell, sx, sy, cw - 4, ch - 4, rx=4, fill=ctx.colour("slot") if n else ctx.colour("face_down"),
                   stroke=ctx.colour("slot_edge"), stroke_width=1)
            item_icon(ctx, cell, item, sx + 3, sy + 6, 26)
            d.text(cell, sx + cw - 8, sy + 27, str(n), font_size=ctx.font("body"), font_weight="bold",
                   text_anchor="end", fill=ctx.colour("ink"))
            d.tooltip(cell, tr(ctx.language, "{item}: {n} left", item=ctx.item(item), n=n))
            ctx.spot(g, f"supply-{item}", tr(ctx.language, "take {item} from the supply", item=ctx.item(item)),
                     sx - 1, sy - 1, cw - 2, ch - 2)


# --------------------------------------------------------------------------------------------


def _legend(language: str) -> list[str]:
    """What the letters on the tiles stand for (the box shows pictures: an anchor, a whale ...)."""
    geo = data("nauticus")

    def crest(letter: str, name: str) -> str:
        if language == DEFAULT:
            return name
        if letter == "crown":
            return tr(language, "crowned piece (fits any ship)")
        return say(words.crest(letter), language)

    def item(tile: str) -> str:
        return tile if language == DEFAULT else say(words.item(tile), language)

    crests = " \u00b7 ".join(f"{c['label']} {crest(k, c['name'])}" for k, c in geo["crests"].items())
    goods = " \u00b7 ".join(f"{geo['goods'][g]['label']} {item(g)}" for g in rules.GOODS)
    hulls = " \u00b7 ".join(f"{geo['hull_labels'][h]} {item(h)}" for h in rules.HULL_PIECES)
    return [tr(language, "Crests on masts and sails: {crests}", crests=crests),
            tr(language, "Goods: {goods}.  Hull pieces: {hulls}.", goods=goods, hulls=hulls)]


def render(view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]] = (), language: str = DEFAULT) -> str:
    """The SVG picture of a Nauticus view, with spots for ``legal`` (the API's legal actions), its
    words in ``language``."""
    geo = data("nauticus")
    m, width = geo["margin"], geo["width"]
    wheel, side = geo["wheel"], geo["side"]
    board_h = wheel["cell_height"] * 3 + wheel["gap"] * 2
    spots = spots_of(legal, spot)
    title = _title(view, language)
    ctx = Ctx(Drawing(width, 100, title, style=_STYLE), geo, provisional_paths_of(view, _provisional_paths()), spots,
              [said(item["text"], language) for item in legal], rules=rules_of(view, rules), language=language)
    d = ctx.d
    bg = d.rect(d.root, 0, 0, width, 100, fill=ctx.colour("background"))
    d.text(d.root, m + 4, 28, "NAUTICUS", font_size=ctx.font("title") + 4, font_weight="bold",
           fill=ctx.colour("anchor"), letter_spacing=2)
    d.text(d.root, m + 150, 28, title.split(": ", 1)[-1], font_size=ctx.font("title"), fill=ctx.colour("ink"))
    board = d.group(d.root, class_="board")
    for space in view["spaces"]:
        _space(ctx, board, view, space)
    _wheel(ctx, board, view)
    status_h = side["status_height"]
    _status(ctx, board, view, side["x"], wheel["y"], side["width"], status_h)
    _supply(ctx, board, view, side["x"], wheel["y"] + status_h + wheel["gap"], side["width"],
            board_h - status_h - wheel["gap"])
    y = float(wheel["y"] + board_h + 10)
    for player in view["players"]:
        h = player_panel_height(ctx, player, player["seat"] in view["active"])
        player_panel(ctx, d.root, view, player, y, h)
        y += h + 8
    footnote = tr(language, "* provisional value: not yet checked against the printed game")
    notes = _legend(language) + ([footnote] if ctx.marked else []) + edition_note(view, language)
    height = round(y + geo["footnote_height"] * len(notes) + 6)
    # the size is known only now: the players' strips grow with their ships
    d.height = height
    d.root.set("viewBox", f"0 0 {width} {height}")
    d.root.set("height", str(height))
    bg.set("height", str(height))
    d.footnote(notes, y=y + geo["footnote_height"] - 4, size=ctx.font("small"))
    return d.to_string()
