"""Applying one atomic action: the state transitions of a turn (§5), never mutating the input.

Each ``do_*`` function receives an action already checked against :mod:`.rules` and returns the
new state plus its events. Turn end, display refill and the phase-end trigger live here; payday
and the after-payday steps live in :mod:`.payday`.
"""

from __future__ import annotations

from typing import Any

from service.games.base import Event, Rng

from .data import (
    BONUS_CITIES,
    CARDS,
    COLOURS,
    DISPLAY_CONNECTION,
    DISPLAY_DESTINATION,
    PHASES,
    PIRATE_FEE,
    PIRATE_STEP_COST,
)
from .events import told
from .payday import begin_payday, choose_start, new_turn, set_player, settle_choice, settle_forced_loan
from .rules import city_index, distance, gen_build_fortress, gen_build_warehouse, gen_reopen
from .state import BANK, FREE, PIRATE, City, State, Turn, city_data, colour_owner, is_main, main_colour, replace
from .track import payout_value, place, ranking


def set_city(state: State, index: int, city: City) -> State:
    cs = list(state.cities)
    cs[index] = city
    return replace(state, cities=tuple(cs))


def tentative(state: State) -> Turn:
    """The turn record before a step that the player may still undo (R-1): keep the turn-start state."""
    t = state.turn
    return t if t.snapshot is not None else replace(t, snapshot=state)


# ---------------------------------------------------------------------------------------------
# Cards and sailing


def do_buy(state: State, seat: int, a: dict[str, Any]) -> tuple[State, list[Event]]:
    cid = a["card"]
    card = CARDS[cid]
    turn = state.turn if state.turn.acted else tentative(state)
    p = state.players[seat]
    p = replace(p, money=p.money - card.cost, hand=(*p.hand, cid))
    if card.kind == "destination":
        state = replace(state, dest_display=tuple(c for c in state.dest_display if c != cid))
    else:
        state = replace(state, conn_display=tuple(c for c in state.conn_display if c != cid))
    state = replace(set_player(state, seat, p), turn=turn)
    return state, [told({"type": "card-bought", "seat": seat, "card": cid, "cost": card.cost, "players": state.n})]


def discard(state: State, cid: str) -> State:
    if CARDS[cid].kind == "destination":
        return replace(state, dest_discard=(*state.dest_discard, cid))
    return replace(state, conn_discard=(*state.conn_discard, cid))


def remove_one(seq: tuple[str, ...], item: str) -> tuple[str, ...]:
    i = seq.index(item)
    return seq[:i] + seq[i + 1 :]


def do_sail(state: State, seat: int, a: dict[str, Any]) -> tuple[State, list[Event]]:
    """One leg of a voyage (§5.2): the ship leaves its space and takes the first free space of the
    city it reaches; with none free it is only passing through and must sail on (or the turn
    becomes a loan turn)."""
    cid, to = a["card"], city_index(state, a["to"])
    turn = replace(tentative(state), sailed=True)
    p = state.players[seat]
    if p.ship >= 0 and p.berth >= 0:
        c = state.cities[p.ship]
        hs = list(c.harbours)
        hs[p.berth] = FREE
        state = set_city(state, p.ship, replace(c, harbours=tuple(hs)))
    dest = state.cities[to]
    berth = dest.harbours.index(FREE) if FREE in dest.harbours else -1
    if berth >= 0:
        hs = list(dest.harbours)
        hs[berth] = seat
        state = set_city(state, to, replace(dest, harbours=tuple(hs)))
    p = replace(p, hand=remove_one(p.hand, cid), ship=to, berth=berth)
    state = discard(replace(set_player(state, seat, p), turn=turn), cid)
    return state, [told({"type": "sailed", "seat": seat, "card": cid, "to": a["to"], "harbour": berth + 1 if berth >= 0 else None,
                         "players": state.n})]


# ---------------------------------------------------------------------------------------------
# Building


def _colour_arg(state: State, seat: int, a: dict[str, Any]) -> int:
    return COLOURS.index(a["colour"]) if "colour" in a else main_colour(state.n, seat)


def _placed(state: State, seat: int, ci: int, site: int, colour: int, events: list[Event]) -> State:
    """Place a warehouse and apply the shut-down (§5.6) and bonus-card (§6.3) checks."""
    cd = city_data(state, ci)
    city, shut, vacated = place(cd, state.cities[ci], site, colour, state.n)
    state = set_city(state, ci, city)
    if shut is not None:
        owner = colour_owner(state.n, shut)
        if "shutdown_removes_from_game" in cd.special:
            rem = list(state.removed)
            rem[shut] += 1
            state = replace(state, removed=tuple(rem))
        events.append(told({"type": "warehouse-shut", "city": cd.id, "site": vacated, "colour": COLOURS[shut], "seat": owner}))
    return check_bonus(state, seat, events)


def present_cities(state: State, colour: int) -> int:
    """Cities with at least one operating warehouse of ``colour``."""
    return sum(1 for c in state.cities if colour in c.sites)


def check_bonus(state: State, seat: int, events: list[Event]) -> State:
    """§6.3, R-29, R-34: the active player takes the highest remaining bonus card on reaching 9 cities."""
    p = state.players[seat]
    if p.bonus or not state.bonus_left:
        return state
    if present_cities(state, main_colour(state.n, seat)) < BONUS_CITIES:
        return state
    value = state.bonus_left[0]
    state = replace(set_player(state, seat, replace(p, bonus=value)), bonus_left=state.bonus_left[1:])
    events.append(told({"type": "bonus-card", "seat": seat, "value": value, "players": state.n}))
    return state


def do_build_warehouse(state: State, seat: int, a: dict[str, Any]) -> tuple[State, list[Event]]:
    from .track import next_sites

    p = state.players[seat]
    ci = p.ship
    cd = city_data(state, ci)
    price = cd.harbours[p.berth]
    colour = _colour_arg(state, seat, a)
    site = a.get("site") or next_sites(state.cities[ci])[0]
    if colour == main_colour(state.n, seat):
        p = replace(p, warehouses=p.warehouses - 1, money=p.money - price)
    else:
        p = replace(p, neutral=p.neutral - 1, money=p.money - price)
    state = replace(set_player(state, seat, p), turn=replace(state.turn, acted=True, snapshot=None))
    events: list[Event] = [told({"type": "warehouse-built", "seat": seat, "city": cd.id, "site": site, "colour": COLOURS[colour],
                                 "cost": price, "players": state.n})]
    state = _placed(state, seat, ci, site, colour, events)
    if "immediate_payment" in cd.special:
        state = lisboa_payment(state, seat, ci, colour, events)
    return state, events


def lisboa_payment(state: State, seat: int, ci: int, colour: int, events: list[Event]) -> State:
    """§8.3: after a build in Lisboa the builder receives V if now first, else floor(V/2); R-18: nothing for a neutral build."""
    if not is_main(state.n, colour):
        return state
    cd = city_data(state, ci)
    sites = state.cities[ci].sites
    v = payout_value(cd, sites)
    first = ranking(sites)[0][0]
    amount = v if first == colour else v // 2
    p = state.players[seat]
    state = set_player(state, seat, replace(p, money=p.money + amount))
    events.append(told({"type": "immediate-payment", "seat": seat, "city": cd.id, "amount": amount, "first": first == colour,
                        "value": v, "players": state.n}))
    return state


def do_reopen(state: State, seat: int, a: dict[str, Any]) -> tuple[State, list[Event]]:
    from .track import next_sites

    p = state.players[seat]
    ci = p.ship
    cd = city_data(state, ci)
    colour = _colour_arg(state, seat, a)
    city = state.cities[ci]
    site = a.get("site") or next_sites(city)[0]
    closed = list(city.closed)
    closed[colour] -= 1
    state = set_city(state, ci, replace(city, closed=tuple(closed)))
    state = replace(state, turn=replace(state.turn, acted=True, snapshot=None))
    events: list[Event] = [told({"type": "warehouse-reopened", "seat": seat, "city": cd.id, "site": site, "colour": COLOURS[colour],
                                 "players": state.n})]
    return _placed(state, seat, ci, site, colour, events), events


def do_build_fortress(state: State, seat: int, a: dict[str, Any]) -> tuple[State, list[Event]]:
    p = state.players[seat]
    ci = p.ship
    cd = city_data(state, ci)
    i = a["space"] - 1
    price = cd.fortresses[i]
    city = state.cities[ci]
    forts = list(city.forts)
    forts[i] = main_colour(state.n, seat)
    state = set_city(state, ci, replace(city, forts=tuple(forts)))
    state = set_player(state, seat, replace(p, fortresses=p.fortresses - 1, money=p.money - price))
    state = replace(state, turn=replace(state.turn, acted=True, snapshot=None))
    return state, [told({"type": "fortress-built", "seat": seat, "city": cd.id, "space": i + 1, "cost": price, "players": state.n})]


# ---------------------------------------------------------------------------------------------
# Pirate


def do_move_pirate(state: State, seat: int, a: dict[str, Any]) -> tuple[State, list[Event]]:
    """§8.4: move the pirate to a harbour space of another city, bumping a ship there to the first
    empty space; a free move collects protection money, a paid one costs 2 per step or cards.

    A paid move by cards goes card by card: a card leg without ``harbour`` is a stop (the pirate is under
    way, ``Turn.pirate_transit``): it takes no space, bumps nobody and leaves the board as it is; the leg
    with ``harbour`` ends the voyage under the destination rules, like a one-card move."""
    to = city_index(state, a["to"])
    means = a["means"]
    frm = state.pirate
    turn = tentative(state) if not state.turn.acted else state.turn
    if "harbour" not in a:
        turn = replace(turn, pirate_moved=True, pirate_transit=to)
        p = state.players[seat]
        state = discard(replace(set_player(state, seat, replace(p, hand=remove_one(p.hand, a["card"]))), turn=turn), a["card"])
        return state, [told({"type": "pirate-stopover", "seat": seat, "to": a["to"], "card": a["card"], "players": state.n})]
    h = a["harbour"] - 1
    turn = replace(turn, pirate_moved=True, free_pirate=means == "free", pirate_transit=-1)
    p = state.players[seat]
    events: list[Event] = []
    paid: dict[str, Any] = {}  # what the move cost, for its sentence: Florin or the card played
    if means == "money":
        cost = PIRATE_STEP_COST * distance(city_data(state, frm), city_data(state, to))
        p = replace(p, money=p.money - cost)
        paid = {"cost": cost}
    elif means == "card":
        p = replace(p, hand=remove_one(p.hand, a["card"]))
        state = discard(state, a["card"])
        paid = {"card": a["card"]}
    state = replace(set_player(state, seat, p), turn=turn)
    old = state.cities[frm]
    state = set_city(state, frm, replace(old, harbours=tuple(FREE if x == PIRATE else x for x in old.harbours)))
    dest = state.cities[to]
    hs = list(dest.harbours)
    bumped = hs[h]
    if bumped >= 0:
        k = next(i for i, x in enumerate(hs) if x == FREE)
        hs[k] = bumped
        state = set_player(state, bumped, replace(state.players[bumped], berth=k))
        events.append(told({"type": "ship-bumped", "seat": bumped, "city": a["to"], "harbour": k + 1, "players": state.n}))
    hs[h] = PIRATE
    state = replace(set_city(state, to, replace(dest, harbours=tuple(hs))), pirate=to)
    events.insert(0, told({"type": "pirate-moved", "seat": seat, "to": a["to"], "harbour": h + 1, "means": means, **paid,
                           "players": state.n}))
    if means == "free":
        state = collect_protection(state, seat, to, events)
    return state, events


def collect_protection(state: State, seat: int, ci: int, events: list[Event]) -> State:
    """Every other owner of operating warehouses and fortresses in the city pays 1/2/3 per building by phase,
    or all their cash if short (§8.4, R-20)."""
    fee = PIRATE_FEE[min(state.phase, PHASES) - 1]
    city = state.cities[ci]
    owed = [0] * state.n
    for c in (*city.sites, *city.forts):
        if c != FREE:
            o = colour_owner(state.n, c)
            if o >= 0 and o != seat:
                owed[o] += fee
    total = 0
    for o, due in enumerate(owed):
        if due:
            payer = state.players[o]
            paid = min(due, max(payer.money, 0))
            total += paid
            state = set_player(state, o, replace(payer, money=payer.money - paid))
            events.append(told({"type": "protection-paid", "seat": o, "to": seat, "amount": paid, "players": state.n}))
    me = state.players[seat]
    return set_player(state, seat, replace(me, money=me.money + total))


# ---------------------------------------------------------------------------------------------
# Loans, pass, end of turn


def do_take_loan(state: State, seat: int, a: dict[str, Any], rng: Rng) -> tuple[State, list[Event]]:
    amount = a["amount"]
    if state.stage != "turn":
        return settle_forced_loan(state, seat, amount)
    # A loan turn contains nothing else: undo this turn's tentative steps.
    rewound = state.turn.snapshot
    if rewound is not None:
        state = rewound
    p = state.players[seat]
    if p.ship >= 0 and p.berth >= 0:
        c = state.cities[p.ship]
        hs = list(c.harbours)
        hs[p.berth] = FREE
        state = set_city(state, p.ship, replace(c, harbours=tuple(hs)))
    p = replace(p, ship=BANK, berth=-1, money=p.money + amount, loans=(*p.loans, (amount, False)))
    state = set_player(state, seat, p)
    events: list[Event] = [told({"type": "loan-taken", "seat": seat, "amount": amount, "players": state.n})]
    if rewound is not None:  # the purchases and voyage it gave back are no news (service.games.undo)
        events[0]["takes_back"] = "trail"
    state, more = end_turn(state, rng)
    return state, events + more


def direct_turn_possible(state: State, seat: int) -> bool:
    """Whether, from this turn-start state, the seat can surely complete a turn: build or re-open where its
    ship lies, or buy (or hold) one destination card, sail straight to its city and build there.

    A sufficient test (longer voyages are not searched): it decides whether a first-round "pass" from a
    dead end merely undoes the tentative steps (R-1) or really passes (§5.9, R-4)."""
    builds = (gen_build_warehouse, gen_build_fortress, gen_reopen)
    if any(g(state, seat) for g in builds):
        return True
    p = state.players[seat]
    options = [(cid, False) for cid in sorted(set(p.hand)) if CARDS[cid].kind == "destination"]
    options += [(cid, True) for cid in state.dest_display if CARDS[cid].cost <= p.money]
    for cid, buy in options:
        to = city_index(state, CARDS[cid].city)
        if to < 0 or to == p.ship:
            continue
        s = do_buy(state, seat, {"card": cid})[0] if buy else state
        s = do_sail(s, seat, {"card": cid, "to": CARDS[cid].city})[0]
        if s.players[seat].berth >= 0 and any(g(s, seat) for g in builds):
            return True
    return False


def do_pass(state: State, seat: int, rng: Rng) -> tuple[State, list[Event]]:
    """A first-round "pass" (R-4) from a dead end: the first time in a turn it undoes the tentative steps (R-1)
    while a direct turn was possible from the turn start; otherwise it really passes.

    Progress ruling (R-1 with R-4): a turn is undone from a dead end at most once. The undo restores the
    turn-start position exactly, so if it could be repeated a player (or a bot always taking the first legal
    step) could buy, sail into the same dead end and be undone for ever, and the first round would never end.
    R-1 makes the steps undoable "back to the turn start", not an endless retry; R-4 says a player with no
    legal action in the first round passes, which is where a second dead end leaves the player. The
    tentative steps are still given back (money, cards, ship), as with every undo."""
    events: list[Event] = []
    if state.turn.snapshot is not None:
        undone_before = state.turn.undone
        state = state.turn.snapshot
        if not undone_before and direct_turn_possible(state, seat):
            # A dead end reached by tentative steps is not "no legal action" (§5.9, R-4): the steps are undone
            # and the turn goes on from its start, marked so that it cannot be undone again.
            state = replace(state, turn=replace(state.turn, undone=True))
            return state, [told({"type": "turn-undone", "seat": seat, "takes_back": "trail", "passes": False,
                                 "players": state.n})]
        if undone_before:
            events.append(told({"type": "turn-undone", "seat": seat, "takes_back": "trail", "passes": True,
                                "players": state.n}))
    state, more = end_turn(state, rng)
    return state, [*events, told({"type": "passed", "seat": seat, "players": state.n}), *more]


def refill(deck: tuple[str, ...], display: tuple[str, ...], disc: tuple[str, ...], size: int, kind: str,
           rng: Rng, events: list[Event]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Refill a display at turn end, reshuffling the discard pile into a new deck when needed (§5.3, R-26)."""
    disp = list(display)
    while len(disp) < size:
        if not deck:
            if not disc:
                break
            deck = tuple(rng.shuffled(disc))
            disc = ()
            events.append(told({"type": "deck-shuffled", "deck": kind, "order": list(deck), "visible_to": []}))
        disp.append(deck[0])
        deck = deck[1:]
    return deck, tuple(disp), disc


def end_turn(state: State, rng: Rng) -> tuple[State, list[Event]]:
    """Turn end (§5.1 step 5): refill both displays, check the phase-end trigger (§6.1), next seat or payday."""
    events: list[Event] = []
    dd, dp, dc = refill(state.dest_deck, state.dest_display, state.dest_discard, DISPLAY_DESTINATION, "destination", rng, events)
    cd, cp, cc = refill(state.conn_deck, state.conn_display, state.conn_discard, DISPLAY_CONNECTION, "connection", rng, events)
    state = replace(state, dest_deck=dd, dest_display=dp, dest_discard=dc, conn_deck=cd, conn_display=cp, conn_discard=cc)
    if not state.ending:
        for s, p in enumerate(state.players):
            if p.warehouses + p.neutral + p.fortresses == 0:
                state = replace(state, ending=True)
                events.append(told({"type": "phase-ending", "seat": s, "phase": state.phase, "players": state.n}))
                break
    nxt = (state.seat + 1) % state.n
    if nxt == state.start:
        if state.ending:
            state, more = begin_payday(state)
            return state, events + more
        state = replace(state, round=state.round + 1)
    return new_turn(state, nxt), events


def do_end_turn(state: State, seat: int, rng: Rng) -> tuple[State, list[Event]]:
    return end_turn(state, rng)


def apply_checked(state: State, seat: int, a: dict[str, Any], rng: Rng) -> tuple[State, list[Event]]:
    """Dispatch a validated action."""
    kind = a["type"]
    if kind == "buy-card":
        return do_buy(state, seat, a)
    if kind == "sail":
        return do_sail(state, seat, a)
    if kind == "build-warehouse":
        return do_build_warehouse(state, seat, a)
    if kind == "reopen":
        return do_reopen(state, seat, a)
    if kind == "build-fortress":
        return do_build_fortress(state, seat, a)
    if kind == "move-pirate":
        return do_move_pirate(state, seat, a)
    if kind == "take-loan":
        return do_take_loan(state, seat, a, rng)
    if kind == "pass":
        return do_pass(state, seat, rng)
    if kind == "end-turn":
        return do_end_turn(state, seat, rng)
    if kind == "settle-loan":
        return settle_choice(state, seat, a["choice"])
    if kind == "choose-start-player":
        return choose_start(state, seat, a["seat"])
    raise AssertionError(kind)
