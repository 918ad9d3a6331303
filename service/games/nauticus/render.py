"""Plain-text rendering of a view for the CLI and mail, in the reader's language: wheel and action
spaces, then each player's money, workers, score, pass tiles, warehouse, ships and delivered goods."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from service.i18n import render as say
from service.i18n import tr, tr_n

from . import data, words


def _tile_list(tiles: list[str], language: str) -> str:
    if not tiles:
        return tr(language, "empty")
    counts = Counter(tiles)
    return ", ".join(f"{n}x {say(words.item(t), language)}" if n > 1 else say(words.item(t), language)
                     for t, n in sorted(counts.items()))


def _ship_line(k: int, ship: list[Mapping[str, Any]], complete: bool, language: str) -> str:
    parts = []
    for h in ship:
        bits = [say(words.hull_id(h["piece"]), language)]
        if h["mast"]:
            bits.append(say(words.item(h["mast"]), language))
        if h["sail"]:
            bits.append(say(words.item(h["sail"]), language))
        if h["good"]:
            bits.append(f"[{say(words.item(h['good']), language)}]")
        parts.append("/".join(bits))
    pieces = " + ".join(parts)
    if complete:
        return "    " + tr(language, "ship {k} ({size}, complete): {pieces}", k=k, size=len(ship), pieces=pieces)
    return "    " + tr(language, "ship {k} ({size}, unfinished): {pieces}", k=k, size=len(ship), pieces=pieces)


def _space_line(view: Mapping[str, Any], s: Mapping[str, Any], language: str) -> str:
    mark = "x" if s["face_down"] else ("*" if s["space"] == view["current_space"] else " ")
    prices = ""
    if "prices" in s:
        listed = ", ".join(f"{say(words.item(i), language)} {p}" for i, p in s["prices"].items())
        prices = "  " + tr(language, "prices {prices}", prices=listed)
    name = say(words.action(s["action"]), language)
    blue = tr(language, "blue {n}", n=s["blue_workers"])
    bonus = tr(language, "bonus {bonus}", bonus=words.bonus_text(s["bonus"]))
    return f"  [{mark}] {s['space']}: {name:<32} {blue}  {bonus}{prices}"


def _now(view: Mapping[str, Any], language: str) -> list[str]:
    lines: list[str] = []
    t = view.get("turn")
    if t:
        run = t["extra"] or t["normal"]
        who = words.seat_name(t["seat"])
        blue, units = words.blue_workers(run["blue_left"]), words.units(run["units"])
        name = words.action(run["action"])
        if t["extra"]:
            lines.append(tr(language, "Now: {seat} executes {the_action} (extra action): {blue} left, {units} done", seat=who,
                            the_action=name, blue=blue, units=units))
        else:
            lines.append(tr(language, "Now: {seat} executes {the_action}: {blue} left, {units} done", seat=who, the_action=name,
                            blue=blue, units=units))
        if t["rewards"]:
            lines.append("  " + tr_n(language, "ship {k} completed: {n} reward to take", "ship {k} completed: {n} rewards to take",
                                     t["rewards"]["left"], k=t["rewards"]["ship"]))
        if t["free_item"]:
            lines.append("  " + tr(language, "free item for buying all four kinds to take"))
    elif view["step"] == "choose":
        lines.append(tr(language, "Now: {seat} chooses an action", seat=words.seat_name(view["chooser"])))
    elif view["step"] == "bonus":
        lines.append(tr(language, "Now: {seat} takes a bonus tile", seat=words.seat_name(view["chooser"])))
    return lines


def _player_lines(view: Mapping[str, Any], p: Mapping[str, Any], language: str) -> list[str]:
    crown = tr(language, "crown")
    passes = " ".join(crown if f else str(v) for v, f in zip(data.PASS_TILES, p["flipped"], strict=True))
    args = {"seat": words.seat_name(p["seat"]), "vp": p["vp"], "thaler": p["thaler"], "n_workers": words.workers(p["workers"]),
            "n_crowns": words.crowns(p["crowns"]), "passes": passes}
    if p["extra"]:
        head = tr(language, "{seat}: {vp} VP, {thaler} thaler, {n_workers}, {n_crowns}, pass tiles [{passes}], extra action"
                            " available", **args)
    else:
        head = tr(language, "{seat}: {vp} VP, {thaler} thaler, {n_workers}, {n_crowns}, pass tiles [{passes}], extra action"
                            " used", **args)
    lines = [head, "  " + tr(language, "warehouse ({used}/{capacity}): {tiles}", used=p["warehouse_used"],
                                capacity=view["warehouse_capacity"], tiles=_tile_list(p["warehouse"], language))]
    if p["ships"]:
        lines.append("  " + tr(language, "shipyard:"))
        for k, ship in enumerate(p["ships"]):
            lines.append(_ship_line(k, ship, k in p["complete_ships"], language))
    else:
        lines.append("  " + tr(language, "shipyard: empty"))
    delivered = ", ".join(f"{say(words.item(g), language)} {n}" for g, n in zip(data.GOODS, p["delivered"], strict=True) if n)
    if delivered:
        lines.append("  " + tr(language, "delivered: {the_goods}", the_goods=delivered))
    else:
        lines.append("  " + tr(language, "delivered: nothing"))
    return lines


def render(view: Mapping[str, Any], language: str = "en") -> str:
    """A readable text rendering of :func:`view.view`'s output in ``language``."""
    lines = [
        tr(language, "NAUTICUS - round {round}/{rounds}, phase {phase}/{phases} ({step})", round=view["round"],
           rounds=view["rounds"], phase=min(view["phase"], view["phases_per_round"]), phases=view["phases_per_round"],
           step=words.step(view["step"])),
        tr(language, "Action spaces (wheel anchor at space {anchor}):", anchor=view["anchor"]),
    ]
    lines.extend(_space_line(view, s, language) for s in view["spaces"])
    lines.extend(_now(view, language))
    supply = ", ".join(f"{say(words.item(k), language)} {n}" for k, n in view["supply"].items())
    lines.append(tr(language, "Supply: {supply}", supply=supply))
    crests = ", ".join(say(words.crest(c), language) for c in data.CRESTS)
    lines.append("  " + tr(language, "crests: {crests}; crowned masts and sails fit any ship", crests=crests))
    for p in view["players"]:
        lines.extend(_player_lines(view, p, language))
    if "final" in view:
        lines.append(tr(language, "Final scoring:"))
        for p, f in zip(view["players"], view["final"], strict=True):
            lines.append("  " + tr(language, "{seat}: {total} VP (track {track}, ships {ships}, goods {the_goods}, money"
                                             " {money_vp} from {money} thaler, remainder {remainder})",
                                   seat=words.seat_name(p["seat"]), total=f["total"], track=f["track_vp"],
                                   ships=f["ships_vp"], the_goods=f["goods_vp"], money_vp=f["money_vp"], money=f["money"],
                                   remainder=f["remainder"]))
    return "\n".join(lines)
