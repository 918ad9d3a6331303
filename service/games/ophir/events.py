"""Ophir's events in words (issue 29): each event's sentence computed from its fields as a phrase.

The rules code records what happened as fields (:func:`said` adds the English ``"text"`` the
records keep, made by the same function), and :meth:`.game.Ophir.describe_event` says it again for
a reader in any language. Events of records older than a field some sentence needs fall back to
their stored English text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games.base import Event
from service.i18n import phrase, phrase_n

from . import words as w
from .data import (
    ANCHOR_COST,
    CARDS,
    DIE_LOWEST,
    EDGES,
    FAVOR_MAX,
    HEXES,
    HOLDS_AFTER_UPGRADE,
    INFLUENCE_COST,
    RIVAL_DIE_START,
    SPECIALIST_BY_ID,
    TEMPLE_GUARD_BONUS,
    TEST_PENALTY,
)
from .labels import describe

__all__ = ["said", "sentence"]


def said(event: Event) -> Event:
    """``event`` with its English ``"text"`` (what the record keeps), made from its fields."""
    words = sentence(event)
    assert words is not None, event["type"]
    event["text"] = str.__str__(words)
    return event


def _seat(e: Mapping[str, Any]) -> str:
    return w.seat_name(int(e["seat"]))


def _owner(owner: int | None) -> str:
    return phrase("the rival") if owner is None else w.seat_name(owner)


def sentence(e: Mapping[str, Any]) -> str | None:
    """The words of an event of Ophir from its fields; ``None`` for a type this game does not make.

    Raises ``KeyError`` when a field the sentence needs is missing (an older record)."""
    kind = e.get("type")
    maker = _MAKERS.get(str(kind))
    return None if maker is None else maker(e)


def _setup(kind: str, e: Mapping[str, Any]) -> str:
    if kind == "start-player":
        return phrase("{seat} is the starting player (server draw, rule §10.15).", seat=_seat(e))
    if kind == "map-tokens-shuffled":
        return phrase("The seven map tokens were shuffled face down onto the hexes.")
    if kind == "market-shuffled":
        return phrase("Decks A and B were shuffled; {removed} A cards were removed unseen and A was stacked on B "
                      "({cards} cards).", removed=len(e["removed"]), cards=len(e["deck"]))
    if kind == "modifiers-placed":
        return phrase("The temple merchant stands over demand stand {stand}; price modifiers {modifiers} (left to "
                      "right).", stand=int(e["merchant"]) + 1, modifiers=", ".join(f"{m:+d}" for m in e["modifiers"]))
    if kind == "specialists-dealt":
        n = len(e["specialists"])
        return phrase_n("{n} specialist was dealt for the draft.", "{n} specialists were dealt for the draft.", n)
    if kind == "barriers-drawn":
        first, second = e["edges"]
        return phrase("The server placed the barriers at random on edges {first} and {second}.", first=first,
                      second=second)
    if kind == "barrier-placed":
        a, b = EDGES[e["edge"]]
        return phrase("{seat} placed a barrier on edge {edge} (between {first} and {second}).", seat=_seat(e),
                      edge=e["edge"], first=a, second=b)
    if kind == "map-revealed":
        tokens: dict[str, str] = e["tokens"]
        temple = next(h for h in HEXES if tokens.get(h) == "temple")
        where = w.joined([phrase("{hex} {token}", hex=h, token=w.kind_word(t)) for h, t in tokens.items()])
        return phrase("Map revealed: {tokens}. Every ship starts on the temple ({hex}).", tokens=where, hex=temple)
    if kind == "rival-placed":
        return phrase("The rival ship starts on the market ({hex}) with its die on {die}.", hex=e["hex"],
                      die=RIVAL_DIE_START)
    raise KeyError(kind)


def _draft(kind: str, e: Mapping[str, Any]) -> str:
    if kind == "specialist-drafted":
        spec = SPECIALIST_BY_ID[e["specialist"]]
        return phrase("{seat} drafted the {name} (starting favor {n}).", seat=_seat(e),
                      name=w.specialist_name(spec.id), n=spec.starting_favor)
    if kind == "ambassador-cargo":
        n = HOLDS_AFTER_UPGRADE[-1]
        return phrase_n("{seat}'s Ambassador starts with {n} hold.", "{seat}'s Ambassador starts with {n} holds.", n,
                        seat=_seat(e))
    if kind == "specialists-passed":
        n = len(e["specialists"])
        return phrase_n("{n} specialist was passed to {seat}.", "{n} specialists were passed to {seat}.", n,
                        seat=_seat(e))
    if kind == "specialist-returned":
        return phrase("The last specialist went back to the box.")
    if kind == "market-revealed":
        return phrase("The current demand is {demand}; the future demand is {future}.",
                      demand=", ".join(str(c) for c in e["demand"]), future=e["future"])
    raise KeyError(kind)


def _flow(kind: str, e: Mapping[str, Any]) -> str:
    if kind == "turn-started":
        if e["first"]:
            return phrase("{seat} takes the first turn.", seat=_seat(e))
        return phrase("{seat}'s turn.", seat=_seat(e))
    if kind == "game-ended":
        if e["reason"] == "temple-complete":
            return phrase("The last temple tier is complete: the game ends at once.")
        return phrase("The market cannot refill the current demand: the game ends at once.")
    if kind == "market-shifted":
        demand = e["demand"]
        if demand[0] is None:
            return phrase("The market shifted: {dropped} was discarded and no card is left to refill it.",
                          dropped=str(e["dropped"]))
        if e["future"]:
            return phrase("The market shifted: {dropped} was discarded, {card} joined the demand and {future} is "
                          "the new future demand.", dropped=str(e["dropped"]), card=demand[0], future=e["future"])
        return phrase("The market shifted: {dropped} was discarded, {card} joined the demand; the deck is empty.",
                      dropped=str(e["dropped"]), card=demand[0])
    if kind == "priest-favor":
        return phrase("{seat}'s Priest ends the turn at the temple and gains {favor}.", seat=_seat(e),
                      favor=w.favor(int(e["favor"])))
    if kind == "market-stalled":
        return phrase("No market shift for too long ({rounds} rounds per shift on average): the market shifts on "
                      "its own, as a rival trade would (server ruling on stalled games, rule §5.4, §7).",
                      rounds=e["rounds"])
    raise KeyError(kind)


def _navigation(kind: str, e: Mapping[str, Any]) -> str:
    if kind == "anchored":
        return phrase("{seat} spent {favor} to anchor at {hex}.", seat=_seat(e), favor=w.favor(ANCHOR_COST),
                      hex=e["hex"])
    if kind == "influence-declared":
        if e["first"]:
            return phrase("{seat} spent {favor} on an influence move covering both moves.", seat=_seat(e),
                          favor=w.favor(INFLUENCE_COST))
        return phrase("{seat} spent {favor} on an influence move for the second move.", seat=_seat(e),
                      favor=w.favor(INFLUENCE_COST))
    if kind == "influence-test":
        return _test(e)
    if kind == "navigation-failed":
        return phrase("{seat} failed both influence tests and stays at {hex} with no actions (rule §5.1).",
                      seat=_seat(e), hex=e["start"])
    if kind == "sailed":
        how = e["by"]
        if how == "navigator":
            return phrase("{seat} sailed to {hex} crossing a barrier as the Navigator, no test.", seat=_seat(e),
                          hex=e["hex"])
        if how == "influence":
            return phrase("{seat} sailed to {hex} by influence move, no test.", seat=_seat(e), hex=e["hex"])
        return phrase("{seat} sailed to {hex}.", seat=_seat(e), hex=e["hex"])
    if kind == "rival-entered":
        return phrase("{seat} entered the rival's hex and must now move the rival 1 or 2 hexes.", seat=_seat(e))
    if kind == "rival-moved":
        return phrase("{seat} moved the rival to {hex}.", seat=_seat(e), hex=e["hex"])
    if kind == "rival-die-rolled":
        return phrase("{seat} rolled the rival's die: {value}.", seat=_seat(e), value=e["value"])
    if kind == "rival-trade-declined":
        return phrase("{seat} let the rival pass the market without trading.", seat=_seat(e))
    if kind == "rival-traded":
        return phrase("{seat} made the rival trade.", seat=_seat(e))
    raise KeyError(kind)


def _test(e: Mapping[str, Any]) -> str:
    """An influence test: the roll (with the Temple Guard's bonus), and who was lowered on a failure."""
    args: dict[str, Any] = {"seat": _seat(e), "value": e["value"], "against": e["against"], "hex": e["hex"]}
    bonus = e["value"] != e["roll"]
    if e["success"]:
        if bonus:
            return phrase("{seat} rolled {value} ({roll}+{bonus} for the Temple Guard) against {against} to enter "
                          "{hex}: success.", roll=e["roll"], bonus=TEMPLE_GUARD_BONUS, **args)
        return phrase("{seat} rolled {value} against {against} to enter {hex}: success.", **args)
    lowered = w.joined([_owner(o) for o in e["lowered"]])
    die = max(DIE_LOWEST, int(e["against"]) - TEST_PENALTY)
    if bonus:
        return phrase("{seat} rolled {value} ({roll}+{bonus} for the Temple Guard) against {against} to enter "
                      "{hex}: failure; {lowered} lowered to {die}.", roll=e["roll"], bonus=TEMPLE_GUARD_BONUS,
                      lowered=lowered, die=die, **args)
    return phrase("{seat} rolled {value} against {against} to enter {hex}: failure; {lowered} lowered to {die}.",
                  lowered=lowered, die=die, **args)


def _actions(kind: str, e: Mapping[str, Any]) -> str:
    if kind == "gathered":
        goods = w.goods_count(1, e["good"])
        if e["discard"]:
            return phrase("{seat} gathered {goods}, throwing back {discard}.", seat=_seat(e), goods=goods,
                          discard=w.goods_list(e["discard"]))
        return phrase("{seat} gathered {goods}.", seat=_seat(e), goods=goods)
    if kind == "metal-bought":
        metal, price = w.goods_count(1, e["metal"]), w.amount(int(e["cost"]), e["pay"])
        if e["discard"]:
            return phrase("{seat} bought {metal} for {price}, throwing back {discard} to make room.", seat=_seat(e),
                          metal=metal, price=price, discard=w.goods_list(e["discard"]))
        return phrase("{seat} bought {metal} for {price}.", seat=_seat(e), metal=metal, price=price)
    if kind == "traded":
        base = CARDS[e["card"]].coins
        args: dict[str, Any] = {"seat": _seat(e), "card": e["card"], "stand": int(e["slot"]) + 1, "base": base,
                                "modifier": f"{int(e['coins']) - base:+d}", "paid": w.coins(int(e["coins"]))}
        if e["favor_for"]:
            return phrase("{seat} filled {card} on stand {stand} for {base}{modifier} = {paid}, paying {favor} for "
                          "{goods}.", favor=w.favor(len(e["favor_for"])), goods=w.goods_list(e["favor_for"]), **args)
        return phrase("{seat} filled {card} on stand {stand} for {base}{modifier} = {paid}.", **args)
    if kind == "specialty-sold":
        return phrase("{seat} sold {goods} (specialty) for {paid}.", seat=_seat(e), goods=w.goods_count(1, e["good"]),
                      paid=w.coins(int(e["coins"])))
    if kind == "metal-donated":
        return phrase("{seat} donated {metal} to the {tier} tier for {points}.", seat=_seat(e),
                      metal=w.goods_count(1, e["metal"]), tier=e["tier"], points=w.vp(int(e["vp"])))
    if kind == "tier-completed":
        if e["next"]:
            return phrase("The {tier} tier is complete; its metals return to the supply and the {next} tier is now "
                          "current.", tier=e["tier"], next=e["next"])
        return phrase("The {tier} tier is complete; its metals return to the supply.", tier=e["tier"])
    if kind == "goods-donated":
        goods = w.goods_list(CARDS[e["card"]].goods)
        args = {"seat": _seat(e), "goods": goods, "card": e["card"], "points": w.vp(int(e["vp"])),
                "bonus": w.favor(int(e["favor"]))}
        if e["capped"]:
            return phrase("{seat} donated {goods} ({card}) for {points} and {bonus} (favor capped at {max}).",
                          max=FAVOR_MAX, **args)
        return phrase("{seat} donated {goods} ({card}) for {points} and {bonus}.", **args)
    if kind == "cargo-upgraded":
        n = int(e["holds"])
        return phrase_n("{seat} paid {paid} for a cargo upgrade: {n} hold.",
                        "{seat} paid {paid} for a cargo upgrade: {n} holds.", n, seat=_seat(e),
                        paid=w.coins(int(e["cost"])))
    raise KeyError(kind)


def _undone(e: Mapping[str, Any]) -> str:
    return phrase("{seat} took back: {action}.", seat=_seat(e), action=describe(e["action"]))


_GROUPS = {
    _setup: ("start-player", "map-tokens-shuffled", "market-shuffled", "modifiers-placed", "specialists-dealt",
             "barriers-drawn", "barrier-placed", "map-revealed", "rival-placed"),
    _draft: ("specialist-drafted", "ambassador-cargo", "specialists-passed", "specialist-returned",
             "market-revealed"),
    _flow: ("turn-started", "game-ended", "market-shifted", "priest-favor", "market-stalled"),
    _navigation: ("anchored", "influence-declared", "influence-test", "navigation-failed", "sailed",
                  "rival-entered", "rival-moved", "rival-die-rolled", "rival-trade-declined", "rival-traded"),
    _actions: ("gathered", "metal-bought", "traded", "specialty-sold", "metal-donated", "tier-completed",
               "goods-donated", "cargo-upgraded"),
}
_MAKERS: dict[str, Any] = {
    kind: (lambda e, group=group, kind=kind: group(kind, e)) for group, kinds in _GROUPS.items() for kind in kinds
}
_MAKERS["undone"] = _undone
