"""Ophir's actions in words (issue 29): :func:`describe` says an action without its position (a logged
move), :func:`label` as the menu shows it now (where a hex lies, what a card pays, what a metal costs).

Both give :class:`~service.i18n.Phrase` objects of the ``ophir`` catalog whose English is the text the
menus always showed, so stored records and the English notices stay byte for byte as they were.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.i18n import phrase, phrase_in

from . import words as w
from .data import CARDS, EDGES, FAVOR_PRICE, HEX_NAMES, SPECIALIST_BY_ID
from .state import State


def label(state: State, a: Mapping[str, Any], plain: str) -> str:
    """A legal action as a menu shows it: where a hex lies and what it holds, what a metal costs."""
    kind = a.get("type")
    hex_id = a.get("hex")
    if kind in ("move", "move-rival") and hex_id in HEX_NAMES:
        what = w.hex_kind(state.kind(hex_id)) if state.revealed else phrase("the hex")
        if kind == "move-rival":
            return phrase("sail the rival to {hex} ({name}, {id})", hex=what, name=w.hex_name(hex_id), id=hex_id)
        return phrase("sail to {hex} ({name}, {id})", hex=what, name=w.hex_name(hex_id), id=hex_id)
    slot = a.get("slot")
    if kind in ("trade", "donate-goods") and isinstance(slot, int) and 0 <= slot < len(state.demand):
        cid = state.demand[slot]
        card = CARDS.get(cid) if cid else None
        if card is not None:
            goods = w.goods_list(card.goods, " + ")
            if kind == "donate-goods":
                return phrase("donate {goods} (card {card}, stand {stand}) to the temple for {n} favor and VP",
                              goods=goods, card=cid, stand=slot + 1, n=card.favor_vp)
            paid = w.coins(max(0, card.coins + state.modifiers[slot]))
            sub = a.get("favor_for") or []
            if sub:
                return phrase("fill card {card} on stand {stand} ({goods}) for {paid}, paying favor for {sub}",
                              card=cid, stand=slot + 1, goods=goods, paid=paid, sub=w.goods_list(sub, " and "))
            return phrase("fill card {card} on stand {stand} ({goods}) for {paid}", card=cid, stand=slot + 1,
                          goods=goods, paid=paid)
    if kind == "place-barrier" and a.get("edge") in EDGES:
        x, y = EDGES[a["edge"]]
        return phrase("place a barrier between the {first} and the {second} hex (edge {edge})",
                      first=w.hex_name(x), second=w.hex_name(y), edge=a["edge"])
    tier = state.current_tier()
    if kind == "buy-metal" and a.get("metal") in FAVOR_PRICE and tier is not None:
        metal = str(a["metal"])
        pay = "coins" if a.get("pay") == "coins" else "favor"
        cost = (tier.gold_coins if metal == "gold" else tier.silver_coins) if pay == "coins" else FAVOR_PRICE[metal]
        if a.get("discard"):
            return phrase("buy one {metal} for {price}, throwing back {goods}", metal=w.good(metal),
                          price=w.amount(cost, pay), goods=w.goods_list(a["discard"], " and "))
        return phrase("buy one {metal} for {price}", metal=w.good(metal), price=w.amount(cost, pay))
    return plain


def describe(a: Mapping[str, Any]) -> str:
    """An action in plain words."""
    kind = a.get("type")
    discard = a.get("discard") or []
    if kind == "place-barrier":
        e = EDGES.get(a.get("edge", 0), ("?", "?"))
        return phrase("place a barrier on edge {edge} (between {first} and {second})", edge=a.get("edge"),
                      first=e[0], second=e[1])
    if kind == "draft-specialist":
        spec = SPECIALIST_BY_ID.get(str(a.get("specialist")))
        if spec is None:
            return phrase("draft the specialist {id}", id=a.get("specialist"))
        name = w.specialist_name(spec.id)
        if spec.specialty:
            return phrase("draft the {name} (specialty {good}, starting favor {n})", name=name,
                          good=w.good(spec.specialty), n=spec.starting_favor)
        return phrase("draft the {name} (no specialty, starting favor {n})", name=name, n=spec.starting_favor)
    if kind == "move":
        return phrase("sail to hex {hex}", hex=a.get("hex"))
    if kind == "move-rival":
        return phrase("sail the rival to hex {hex}", hex=a.get("hex"))
    if kind == "gather":
        if discard:
            return phrase("gather {good}, throwing back {goods}", good=w.one_good(str(a.get("good"))),
                          goods=w.goods_list(discard, " and "))
        return phrase("gather {good}", good=w.one_good(str(a.get("good"))))
    if kind == "trade":
        sub = a.get("favor_for") or []
        stand = int(a.get("slot", 0)) + 1
        if sub:
            return phrase("fill the demand card on stand {stand}, paying favor for {goods}", stand=stand,
                          goods=w.goods_list(sub, " and "))
        return phrase("fill the demand card on stand {stand}", stand=stand)
    if kind == "sell-specialty":
        return phrase("sell {good} (specialty) for 1 coin", good=w.one_good(str(a.get("good"))))
    if kind == "buy-metal":
        metal = w.good(str(a.get("metal")))
        pay = phrase_in("paid with", "coins") if a.get("pay") == "coins" else phrase_in("paid with", "favor")
        if discard:
            return phrase("buy one {metal} with {pay}, throwing back {goods}", metal=metal, pay=pay,
                          goods=w.goods_list(discard, " and "))
        return phrase("buy one {metal} with {pay}", metal=metal, pay=pay)
    if kind == "donate-metal":
        return phrase("donate one {metal} to the temple", metal=w.good(str(a.get("metal"))))
    if kind == "donate-goods":
        return phrase("donate the goods of the card on stand {stand} to the temple", stand=int(a.get("slot", 0)) + 1)
    plain = {
        "declare-influence": phrase("spend 1 favor on an influence move"),
        "anchor": phrase("spend 1 favor to anchor"),
        "stop-rival": phrase("leave the rival where it is"),
        "rival-trade": phrase("make the rival trade (shift the market)"),
        "decline-rival-trade": phrase("skip the rival trade"),
        "upgrade-cargo": phrase("buy a cargo upgrade for 2 coins"),
        "end-turn": phrase_in("ophir", "end the turn"),  # its menu speaks in the imperative (El Capitán names its steps)
    }
    return plain.get(str(kind), str(dict(a)))
