"""Actions by hex type (spec §5.3) and the specialists' action abilities (spec §6.2).

Goods hex: gather one good (throwing a good back only to make room). Market: one trade (the
Chancellor may pay favor for goods), specialty sales at 1 coin. Metals hex: buy gold or silver
for coins or favor. Temple: donate metals one at a time, one goods donation (the Advisor may
pick any demand card; the Moneychanger may trade instead), one cargo upgrade.
"""

from __future__ import annotations

import itertools

from service.games.base import Action, Event, IllegalAction
from service.i18n import phrase, phrase_n

from . import words as w
from .data import (
    BASIC,
    CARDS,
    CUBE_INDEX,
    DONATION_VP,
    FAVOR_MAX,
    FAVOR_PRICE,
    HOLDS_AFTER_UPGRADE,
    MAX_UPGRADES,
    METAL_SIZE,
    METAL_SPACES,
    METALS,
    SPECIALTY_PRICE,
    UPGRADE_COST,
    Card,
)
from .events import said
from .flow import END_TEMPLE, end_game, shift_market
from .state import Player, State, Turn, add_cubes, replace, with_seat


def _discards(player: Player, room: int) -> list[list[str]]:
    """Every way to throw back exactly enough basic goods to free ``room`` spaces (rule §10
    item 11: goods go back only to make room, so no discard when there is room already)."""
    need = room - player.free_space()
    if need <= 0:
        return [[]]
    held = [g for i, g in enumerate(BASIC) for _ in range(player.hold[i])]
    return [list(c) for c in sorted(set(itertools.combinations(held, need)), key=lambda c: [BASIC.index(g) for g in c])]


def _check_discard(player: Player, room: int, discard: list[str]) -> tuple[int, ...]:
    """Validate a discard and return the hold after it."""
    need = max(0, room - player.free_space())
    if len(discard) != need:
        raise IllegalAction("bad-discard", phrase_n(
            "you need to throw back exactly {n} basic good to make room (rule §10.11: goods are thrown back only to "
            "make room).", "you need to throw back exactly {n} basic goods to make room (rule §10.11: goods are "
            "thrown back only to make room).", need), "§10.11")
    hold = add_cubes(player.hold, {g: -discard.count(g) for g in set(discard)})
    if min(hold) < 0:
        raise IllegalAction("discard-not-held", phrase("you can only throw back basic goods you carry (rule §5.3)."),
                            "§5.3")
    return hold


def can_act(turn: Turn) -> bool:
    """Actions are open once a move succeeded or the ship anchored, outside the rival's pause."""
    return (turn.moved or turn.anchored) and turn.rival_step < 0 and not turn.rival_trade


def _trade_ways(state: State, player: Player, card: Card) -> list[list[str]]:
    """The goods the trader may replace with favor (the Chancellor, §6.2 / R-10); [[]] for others."""
    need = card.need
    if player.specialist != "chancellor":
        ok = all(player.hold[i] >= need[i] for i in range(len(BASIC)))
        return [[]] if ok else []
    if state.options.chancellor_missing_only:
        sub = [g for i, g in enumerate(BASIC) for _ in range(max(0, need[i] - player.hold[i]))]
        return [sub] if len(sub) <= player.favor else []
    ways: set[tuple[str, ...]] = set()
    for k in range(min(len(card.goods), player.favor) + 1):
        for combo in itertools.combinations(sorted(card.goods, key=BASIC.index), k):
            if all(player.hold[i] >= need[i] - combo.count(g) for i, g in enumerate(BASIC)):
                ways.add(combo)
    return [list(way) for way in sorted(ways, key=lambda way: (len(way), way))]


def action_actions(state: State, seat: int, turn: Turn) -> list[Action]:
    """Every hex action open to the active player at their ship's hex."""
    player = state.seats[seat]
    assert player.hex is not None
    kind = state.kind(player.hex)
    out: list[Action] = []
    if kind in BASIC:
        if not turn.gathered and state.supply[CUBE_INDEX[kind]] > 0:
            out += [{"type": "gather", "good": kind, "discard": d} for d in _discards(player, 1)]
    elif kind == "metals":
        tier = state.current_tier()
        for metal in METALS:
            if state.supply[CUBE_INDEX[metal]] <= 0 or tier is None:
                continue
            price = tier.gold_coins if metal == "gold" else tier.silver_coins
            pays = [p for p, ok in (("coins", player.coins >= price), ("favor", player.favor >= FAVOR_PRICE[metal]))
                    if ok]
            for pay in pays:
                out += [{"type": "buy-metal", "metal": metal, "pay": pay, "discard": d}
                        for d in _discards(player, METAL_SIZE)]
    moneychanger = kind == "temple" and player.specialist == "moneychanger"
    if not turn.traded and (kind == "market" or (moneychanger and not turn.donated)):
        for slot, cid in enumerate(state.demand):
            if cid is not None:
                out += [{"type": "trade", "slot": slot, "favor_for": way} for way in _trade_ways(state, player, CARDS[cid])]
    sells_here = kind == "market" or (moneychanger and state.options.moneychanger_sells_at_temple)
    if sells_here and player.specialty is not None and player.hold[CUBE_INDEX[player.specialty]] > 0:
        out.append({"type": "sell-specialty", "good": player.specialty})
    if kind == "temple":
        if state.current_tier() is not None:
            out += [{"type": "donate-metal", "metal": m} for m in METALS if player.hold[CUBE_INDEX[m]] > 0]
        if not turn.donated:
            slots = range(len(state.demand)) if player.specialist == "advisor" else (state.merchant,)
            for slot in slots:
                cid = state.demand[slot]
                if cid is not None and all(player.hold[i] >= n for i, n in enumerate(CARDS[cid].need)):
                    out.append({"type": "donate-goods", "slot": slot})
        if not turn.upgraded and player.upgrades < MAX_UPGRADES and player.coins >= UPGRADE_COST:
            out.append({"type": "upgrade-cargo"})
    return out


def _after_action(state: State, seat: int, turn: Turn) -> Turn:
    """Rule §5: an action ends navigation, except for a Harbormaster whose influence move was
    declared before the first move, who may act at the first hex and sail on (§6.2, §10 item 5a)."""
    harbour = state.seats[seat].specialist == "harbormaster" and turn.influence_first
    return turn if harbour or turn.nav_over else replace(turn, nav_over=True)


def _require_hex(state: State, seat: int, kind: str, what: str) -> Player:
    player = state.seats[seat]
    assert player.hex is not None
    if state.kind(player.hex) != kind:
        raise IllegalAction("wrong-hex", phrase("{what} needs your ship on {wanted}; it is on {actual} (rule §5.3).",
                                                what=what, wanted=w.hex_kind(kind),
                                                actual=w.hex_kind(state.kind(player.hex))), "§5.3")
    return player


def gather(state: State, seat: int, turn: Turn, good: str, discard: list[str], events: list[Event]) -> State:
    """Take one basic good from the supply (§5.3, once per turn even for the Harbormaster)."""
    player = _require_hex(state, seat, good, phrase("gathering {good}", good=w.good(good)))
    if turn.gathered:
        raise IllegalAction("already-gathered", phrase("only one basic good may be gathered per turn (rule §5.3)."),
                            "§5.3")
    if state.supply[CUBE_INDEX[good]] <= 0:
        raise IllegalAction("supply-empty", phrase("the {good} supply is empty (rule §10.12).", good=w.good(good)),
                            "§10.12")
    hold = _check_discard(player, 1, discard)
    hold = add_cubes(hold, {good: 1})
    # Two steps, not one dict: the good thrown back may be of the gathered kind.
    supply = add_cubes(add_cubes(state.supply, {g: discard.count(g) for g in set(discard)}), {good: -1})
    events.append(said({"type": "gathered", "seat": seat, "good": good, "discard": discard}))
    seats = with_seat(state.seats, seat, replace(player, hold=hold))
    return replace(state, seats=seats, supply=supply, turn=_after_action(state, seat, replace(turn, gathered=True)))


def buy_metal(state: State, seat: int, turn: Turn, metal: str, pay: str, discard: list[str],
              events: list[Event]) -> State:
    """Buy one gold or silver for the current tier's coin price or for favor, never a mix (§5.3)."""
    player = _require_hex(state, seat, "metals", phrase("buying metal"))
    tier = state.current_tier()
    if tier is None or state.supply[CUBE_INDEX[metal]] <= 0:
        raise IllegalAction("supply-empty", phrase("no {metal} is left in the supply (rule §10.12).",
                                                   metal=w.good(metal)), "§10.12")
    cost = (tier.gold_coins if metal == "gold" else tier.silver_coins) if pay == "coins" else FAVOR_PRICE[metal]
    have = player.coins if pay == "coins" else player.favor
    if have < cost:
        raise IllegalAction("cannot-afford", phrase("{metal} costs {price} and you have {have} (rule §5.3).",
                                                    metal=w.good(metal), price=w.amount(cost, pay), have=have), "§5.3")
    hold = _check_discard(player, METAL_SIZE, discard)
    hold = add_cubes(hold, {metal: 1})
    player = replace(player, hold=hold, coins=player.coins - cost if pay == "coins" else player.coins,
                     favor=player.favor - cost if pay == "favor" else player.favor)
    supply = add_cubes(state.supply, {metal: -1, **{g: discard.count(g) for g in set(discard)}})
    events.append(said({"type": "metal-bought", "seat": seat, "metal": metal, "pay": pay, "cost": cost,
                        "discard": discard}))
    return replace(state, seats=with_seat(state.seats, seat, player), supply=supply,
                   turn=_after_action(state, seat, turn))


def trade(state: State, seat: int, turn: Turn, slot: int, favor_for: list[str], events: list[Event]) -> State:
    """Market trade (§5.3): hand in the card's goods, gain its coins plus the stand's modifier
    (at least 0), then shift the market. The Chancellor may pay favor for goods (§6.2); the
    Moneychanger may trade at the temple instead of donating goods (§6.2, §10 item 9)."""
    player = state.seats[seat]
    assert player.hex is not None
    kind = state.kind(player.hex)
    if kind != "market" and not (kind == "temple" and player.specialist == "moneychanger"):
        raise IllegalAction("wrong-hex", phrase("trading needs your ship on the market hex (rule §5.3)."), "§5.3")
    if turn.traded or (kind == "temple" and turn.donated):
        raise IllegalAction("already-traded", phrase(
            "only one trade per turn; the Moneychanger's temple trade replaces the goods donation (rules §5.3, §6.2)."),
            "§5.3")
    cid = state.demand[slot]
    if cid is None:
        raise IllegalAction("empty-stand", phrase("that demand stand is empty."), "§5.4")
    card = CARDS[cid]
    if sorted(favor_for) not in [sorted(way) for way in _trade_ways(state, player, card)]:
        goods = w.goods_list(card.goods)
        if favor_for:
            raise IllegalAction("cannot-fill-card", phrase(
                "you cannot fill {card} ({goods}) with that favor substitution (rules §5.3, §6.2: only the Chancellor "
                "pays favor for goods, 1 each).", card=cid, goods=goods), "§5.3")
        raise IllegalAction("cannot-fill-card", phrase(
            "you cannot fill {card} ({goods}) (rules §5.3, §6.2: only the Chancellor pays favor for goods, 1 each).",
            card=cid, goods=goods), "§5.3")
    handed = {g: card.goods.count(g) - favor_for.count(g) for g in set(card.goods)}
    coins = max(0, card.coins + state.modifiers[slot])
    player = replace(player, hold=add_cubes(player.hold, {g: -n for g, n in handed.items()}),
                     coins=player.coins + coins, favor=player.favor - len(favor_for))
    supply = add_cubes(state.supply, handed)
    events.append(said({"type": "traded", "seat": seat, "slot": slot, "card": cid, "coins": coins,
                        "favor_for": favor_for}))
    turn = replace(turn, traded=True, donated=turn.donated or kind == "temple")
    state = replace(state, seats=with_seat(state.seats, seat, player), supply=supply,
                    turn=_after_action(state, seat, turn))
    return shift_market(state, events)


def sell_specialty(state: State, seat: int, turn: Turn, good: str, events: list[Event]) -> State:
    """Sell one specialty good for 1 coin; no modifier, no market shift (§5.3)."""
    player = state.seats[seat]
    assert player.hex is not None
    kind = state.kind(player.hex)
    at_temple = (kind == "temple" and player.specialist == "moneychanger"
                 and state.options.moneychanger_sells_at_temple)
    if kind != "market" and not at_temple:
        raise IllegalAction("wrong-hex", phrase("specialty goods are sold only at the market (rule §5.3)."), "§5.3")
    if good != player.specialty:
        raise IllegalAction("not-specialty", phrase("{good} is not your specialist's specialty good (rule §6.2).",
                                                    good=w.good(good)), "§6.2")
    if player.hold[CUBE_INDEX[good]] <= 0:
        raise IllegalAction("not-held", phrase("you carry no {good} (rule §5.3).", good=w.good(good)), "§5.3")
    player = replace(player, hold=add_cubes(player.hold, {good: -1}), coins=player.coins + SPECIALTY_PRICE)
    events.append(said({"type": "specialty-sold", "seat": seat, "good": good, "coins": SPECIALTY_PRICE}))
    return replace(state, seats=with_seat(state.seats, seat, player), supply=add_cubes(state.supply, {good: 1}),
                   turn=_after_action(state, seat, turn))


def donate_metal(state: State, seat: int, turn: Turn, metal: str, events: list[Event]) -> State:
    """Put one metal on the current tier for 10 (gold) or 5 (silver) VP (§5.3). The third
    metal completes the tier: its metals go back to the supply and prices rise; completing the
    final tier ends the game at once (§8, R-20)."""
    player = _require_hex(state, seat, "temple", phrase("donating metal"))
    if player.hold[CUBE_INDEX[metal]] <= 0:
        raise IllegalAction("not-held", phrase("you carry no {good} (rule §5.3).", good=w.good(metal)), "§5.3")
    tier = state.current_tier()
    assert tier is not None
    vp = DONATION_VP[metal]
    player = replace(player, hold=add_cubes(player.hold, {metal: -1}), vp=player.vp + vp)
    temple = (*state.temple, metal)
    events.append(said({"type": "metal-donated", "seat": seat, "metal": metal, "vp": vp, "tier": tier.id}))
    state = replace(state, seats=with_seat(state.seats, seat, player), temple=temple,
                    turn=_after_action(state, seat, turn))
    if len(temple) < METAL_SPACES:
        return state
    supply = add_cubes(state.supply, {m: temple.count(m) for m in set(temple)})
    state = replace(state, temple=(), tier=state.tier + 1, supply=supply)
    nxt = state.current_tier()
    events.append(said({"type": "tier-completed", "tier": tier.id, "next": nxt.id if nxt else None}))
    return state if nxt is not None else end_game(state, END_TEMPLE, events)


def donate_goods(state: State, seat: int, turn: Turn, slot: int, events: list[Event]) -> State:
    """Hand in the goods of the card under the temple merchant (the Advisor: any demand card)
    for X favor (capped at 6, R-21) and X VP, then shift the market (§5.3)."""
    player = _require_hex(state, seat, "temple", phrase("donating goods"))
    if turn.donated:
        raise IllegalAction("already-donated", phrase("only one goods donation per turn (rule §5.3)."), "§5.3")
    if slot != state.merchant and player.specialist != "advisor":
        raise IllegalAction("not-merchant-card", phrase(
            "donations follow the card under the temple merchant; only the Advisor may use another demand card "
            "(rules §5.3, §6.2)."), "§6.2")
    cid = state.demand[slot]
    if cid is None:
        raise IllegalAction("empty-stand", phrase("that demand stand is empty."), "§5.4")
    card = CARDS[cid]
    if not all(player.hold[i] >= n for i, n in enumerate(card.need)):
        raise IllegalAction("cannot-fill-card", phrase("you do not carry the goods of {card} ({goods}) (rule §5.3).",
                                                       card=cid, goods=w.goods_list(card.goods)), "§5.3")
    x = card.favor_vp
    favor = min(FAVOR_MAX, player.favor + x)
    capped = player.favor + x > FAVOR_MAX
    player = replace(player, hold=add_cubes(player.hold, {g: -card.goods.count(g) for g in set(card.goods)}),
                     favor=favor, vp=player.vp + x)
    events.append(said({"type": "goods-donated", "seat": seat, "slot": slot, "card": cid, "vp": x, "favor": x,
                        "capped": capped}))
    state = replace(state, seats=with_seat(state.seats, seat, player), supply=add_cubes(state.supply, {
        g: card.goods.count(g) for g in set(card.goods)}), turn=_after_action(state, seat, replace(turn, donated=True)))
    return shift_market(state, events)


def upgrade_cargo(state: State, seat: int, turn: Turn, events: list[Event]) -> State:
    """Pay 2 coins for a cargo upgrade: 3 holds, then 4; once per turn, twice per game (§5.3)."""
    player = _require_hex(state, seat, "temple", phrase("a cargo upgrade"))
    if turn.upgraded:
        raise IllegalAction("already-upgraded", phrase("only one cargo upgrade per turn (rule §5.3)."), "§5.3")
    if player.upgrades >= MAX_UPGRADES:
        raise IllegalAction("no-more-upgrades", phrase("a ship is upgraded at most twice (rule §5.3)."), "§5.3")
    if player.coins < UPGRADE_COST:
        raise IllegalAction("cannot-afford", phrase("an upgrade costs {price} (rule §5.3).",
                                                    price=w.coins(UPGRADE_COST)), "§5.3")
    tiles = state.tiles - (1 if player.upgrades == 0 else 0)
    player = replace(player, coins=player.coins - UPGRADE_COST, capacity=HOLDS_AFTER_UPGRADE[player.upgrades],
                     upgrades=player.upgrades + 1)
    events.append(said({"type": "cargo-upgraded", "seat": seat, "holds": player.capacity, "cost": UPGRADE_COST}))
    return replace(state, seats=with_seat(state.seats, seat, player), tiles=tiles,
                   turn=_after_action(state, seat, replace(turn, upgraded=True)))
