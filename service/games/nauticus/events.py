"""Nauticus's events in words, computed from their fields (issue 29): :func:`describe_event`.

The rules make an event as its fields and take its stored English ``"text"`` from here (:func:`event`),
so the text and the words a reader gets in their language are one sentence. An event of an older record
that lacks a field its sentence needs is said as its stored text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import Event
from service.i18n import Phrase, phrase, phrase_n

from . import data, words


def event(kind: str, **fields: Any) -> Event:
    """An event of type ``kind`` with ``fields`` and its English text."""
    out: Event = {"type": kind, **fields}
    out["text"] = str(describe_event(out))
    return out


def _int(e: Mapping[str, Any], *keys: str) -> bool:
    return all(isinstance(e.get(k), int) and not isinstance(e.get(k), bool) for k in keys)


def _seat(e: Mapping[str, Any]) -> Phrase:
    return words.seat_name(e["seat"])


def _flipped(e: Mapping[str, Any], seat: Phrase) -> Phrase:
    value = e.get("flipped")
    if value is None:
        return phrase("{seat} passes.", seat=seat)
    return phrase("{seat} passes and flips the {value} pass tile to its crown.", seat=seat, value=value)


def _placed(e: Mapping[str, Any], seat: Phrase) -> Phrase | None:
    known, where = words.placement_of(e.get("place"))
    if not known or not isinstance(e.get("item"), str):
        return None
    item = words.item_object(e["item"])
    if e["type"] == "bought":
        if not _int(e, "thaler"):
            return None
        return phrase("{seat} buys a {item} for {thaler} thaler and 1 worker, to {place}.", seat=seat, item=item,
                      thaler=e["thaler"], place=words.place(where, e["item"]))
    return phrase("{seat} moves a {item} from the warehouse to {place}.", seat=seat, item=item, place=words.place(where, e["item"]))


def _reward(e: Mapping[str, Any], seat: Phrase) -> Phrase | None:
    r = e.get("reward")
    what: words.Words
    if r in ("crown-mast", "crown-sail"):
        tile = data.CROWN_MAST if r == "crown-mast" else data.CROWN_SAIL
        what = phrase("a {item} to the warehouse", item=words.item(tile))
    elif r == "goods":
        goods = e.get("goods")
        if not isinstance(goods, list):
            return None
        what = phrase("{the_goods} to the warehouse", the_goods=words.joined([words.item(str(g)) for g in goods], " and "))
    elif r == "thaler":
        what = words.thaler(data.REWARD_AMOUNT[r])
    elif r == "workers":
        what = words.workers(data.REWARD_AMOUNT[r])
    elif r == "vp":
        what = words.vp(data.REWARD_AMOUNT[r])
    else:
        return None
    return phrase("{seat} takes a ship reward: {what}.", seat=seat, what=what)


def _chosen(e: Mapping[str, Any], seat: Phrase) -> Phrase | None:
    space = e.get("space")
    if not isinstance(space, int) or not 0 <= space < data.SPACES:
        return None
    gained = words.gains(data.BONUSES[space])
    name = words.action(str(e.get("action")))
    if gained:
        return phrase("{seat} chooses {the_action} (space {space}) and takes the bonus: {bonus}.", seat=seat, the_action=name,
                      space=space, bonus=words.joined(gained))
    return phrase("{seat} chooses {the_action} (space {space}).", seat=seat, the_action=name, space=space)


def _laid(e: Mapping[str, Any]) -> Phrase | None:
    layout = e.get("layout")
    if not _int(e, "round", "anchor") or not isinstance(layout, list):
        return None
    spaces = [phrase("space {space}: {the_action}", space=s, the_action=words.action(str(a))) for s, a in enumerate(layout)]
    return phrase("Round {round}: the wheel's anchor points at space {anchor}; action tiles laid ({layout}).",
                  round=e["round"], anchor=e["anchor"], layout=words.joined(spaces))


def _of_seat(e: Mapping[str, Any]) -> Phrase | None:
    t = e.get("type")
    seat = _seat(e)
    if t == "action-chosen":
        return _chosen(e, seat)
    if t == "bonus-forfeited":
        if e.get("bonus") == "all-four":
            return phrase("{seat} cannot take the free item: none in stock or no warehouse room (rule §10.5).", seat=seat)
        if isinstance(e.get("bonus"), str):
            return phrase("{seat} cannot take the bonus {bonus}: none in stock or no warehouse room (rule §10.5).",
                          seat=seat, bonus=words.bonus_tile(e["bonus"]))
        return None
    if t == "bonus-taken" and isinstance(e.get("item"), str):
        if e.get("source") == "space":
            return phrase("{seat} takes a bonus {item} to the warehouse.", seat=seat, item=words.item_object(e["item"]))
        if e.get("source") == "all-four":
            return phrase("{seat} takes a free {item} for buying all four kinds (to the warehouse).", seat=seat,
                          item=words.item_object(e["item"]))
        return None
    if t == "passed":
        return _flipped(e, seat)
    if t == "extra-action-done":
        return phrase("{seat} ends the extra action.", seat=seat)
    if t == "turn-done":
        return phrase("{seat} ends the turn.", seat=seat)
    if t == "extra-action":
        return phrase_n("{seat} plays the extra-action tile: {n} worker, then {the_action}.",
                        "{seat} plays the extra-action tile: {n} workers, then {the_action}.", data.EXTRA_WORKERS,
                        seat=seat, the_action=words.action(str(e.get("action"))))
    if t == "all-four":
        return phrase("{seat} bought all four kinds and gets one free item (rule §5.1).", seat=seat)
    if t == "ship-completed" and _int(e, "ship", "size"):
        return phrase_n("{seat} completes {the_ship} (size {size}) and takes {n} reward.",
                        "{seat} completes {the_ship} (size {size}) and takes {n} rewards.", e["size"], seat=seat,
                        the_ship=words.ship(e["ship"]), size=e["size"])
    if t in ("bought", "transferred"):
        return _placed(e, seat)
    if t == "delivered" and isinstance(e.get("goods"), list):
        return phrase("{seat} delivers {the_ship}'s cargo ({the_goods}).", seat=seat, the_ship=words.ship(e.get("ship")),
                      the_goods=words.joined([words.item(str(g)) for g in e["goods"]]))
    if t == "money-taken" and _int(e, "workers", "thaler"):
        return phrase_n("{seat} takes {thaler} thaler with {n} worker.", "{seat} takes {thaler} thaler with {n} workers.",
                        e["workers"], seat=seat, thaler=e["thaler"])
    if t == "crowns-scored" and _int(e, "crowns", "workers", "vp"):
        return phrase("{seat} scores {n_crowns} x {n_workers} = {vp} VP.", seat=seat, n_crowns=words.crowns(e["crowns"]),
                      n_workers=words.workers(e["workers"]), vp=e["vp"])
    if t == "reward-taken":
        return _reward(e, seat)
    if t == "pass-penalty" and _int(e, "vp"):
        return phrase("{seat} loses {n} VP for pass tiles still showing numbers.", seat=seat, n=-e["vp"])
    return None


def describe_event(e: Mapping[str, Any]) -> str:
    """An event in words for its reader (a :class:`service.i18n.Phrase`), else its stored text."""
    t = e.get("type")
    said: Phrase | None = None
    if t == "setup" and _int(e, "players", "rounds"):
        said = phrase("{players} players, {rounds} rounds; {seat} is the start player.", players=e["players"],
                      rounds=e["rounds"], seat=words.seat_name(0))
    elif t == "tiles-laid":
        said = _laid(e)
    elif t == "game-over":
        said = phrase("The last round is over; final scoring.")
    elif _int(e, "seat") and 0 <= e["seat"] < len(words.SEATS):
        said = _of_seat(e)
    if said is None:
        return str(e.get("text") or t or "")
    return said
