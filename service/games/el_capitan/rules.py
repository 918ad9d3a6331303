"""Legal-action generation by the printed rules: every atomic step the acting seat may take now.

One generator per action type, so :mod:`.validate` can check an incoming action against the
generator of its own type only (an action listed here always applies; anything else is refused
with a message naming the rule). The action vocabulary is described in ``__init__``.

The progress rulings (:mod:`.progress`) narrow two of these lists; they need to try steps ahead
(:mod:`.moves`), which apply what is generated here, so they are applied one floor up, where the
game lists its legal actions (:mod:`.legal`), and nothing here imports them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache

from .data import ALL_CITIES, CARDS, COLOURS, LOAN_AMOUNTS, LOANS, PIRATE_STEP_COST, CityData
from .state import CHOOSE_START, FREE, SETTLE, TURN, State, city_data, main_colour, neutral_colour
from .track import next_sites, run_limit_ok

Action = dict[str, object]


def distance(a: CityData, b: CityData) -> int:
    """Seal steps between two cities: their grid (Manhattan) distance (R-10)."""
    return abs(a.row - b.row) + abs(a.col - b.col)


def city_index(state: State, city_id: str) -> int:
    """Index of a city in play, -1 if the city is not in play."""
    try:
        return state.city_ids.index(city_id)
    except ValueError:
        return -1


def first_round(state: State) -> bool:
    """The first round of the game: no loans (§5.9, R-4)."""
    return state.phase == 1 and state.round == 1


def at_building_city(state: State, seat: int) -> bool:
    """The ship lies on a harbour space of a city where the turn's mandatory action may happen:
    anchored, and not back in the city it started from after sailing (R-7)."""
    p = state.players[seat]
    t = state.turn
    if p.ship < 0 or p.berth < 0 or t.acted:
        return False
    return not (t.sailed and p.ship == t.origin)


def canarias_index(state: State) -> int:
    """Index of Islas Canarias in play, -1 without it."""
    return _canarias(state.city_ids)


@cache
def _canarias(city_ids: tuple[str, ...]) -> int:
    for i, cid in enumerate(city_ids):
        if "pirate_ship" in ALL_CITIES[cid].special:
            return i
    return -1


def free_pirate_due(state: State, seat: int) -> bool:
    """The ship sailed into Canarias and anchored there this turn, and no pirate move was made yet (§8.4, R-21)."""
    t = state.turn
    p = state.players[seat]
    if state.pirate < 0 or t.pirate_moved or not t.sailed or p.berth < 0 or p.ship == t.origin:
        return False
    return p.ship == canarias_index(state)


def pirate_targets(state: State, free: bool) -> list[int]:
    """Cities the pirate may go to: a free harbour space, not its current city; a free move not to Canarias (R-36)."""
    out = []
    can = canarias_index(state)
    for i, c in enumerate(state.cities):
        if i == state.pirate or (free and i == can):
            continue
        if FREE in c.harbours:
            out.append(i)
    return out


# ---------------------------------------------------------------------------------------------
# Generators by type


def gen_buy(state: State, seat: int) -> list[Action]:
    if state.stage != TURN:
        return []
    money = state.players[seat].money
    return [{"type": "buy-card", "card": cid} for cid in (*state.dest_display, *state.conn_display) if CARDS[cid].cost <= money]


def card_targets(state: State, card_id: str, at: int) -> tuple[int, ...]:
    """City indices a card can take a ship (or the pirate) standing at ``at`` (city index, BANK or OFF) to (§5.2)."""
    return _card_targets(state.city_ids, card_id, at)


@cache
def _card_targets(city_ids: tuple[str, ...], card_id: str, at: int) -> tuple[int, ...]:
    # Depends only on the cities in play, so it is computed once per (tile set, card, position).
    card = CARDS[card_id]
    out: list[int] = []
    if card.kind == "destination":
        if card.city in city_ids:
            dest = city_ids.index(card.city)
            if dest != at:
                out.append(dest)
        if at >= 0:
            here = ALL_CITIES[city_ids[at]]
            for i, cid in enumerate(city_ids):
                if i != at and i not in out and 1 <= distance(here, ALL_CITIES[cid]) <= card.seals:
                    out.append(i)
    elif at >= 0:
        here_id = city_ids[at]
        other = card.b if here_id == card.a else card.a if here_id == card.b else ""
        if other in city_ids:
            out.append(city_ids.index(other))
    return tuple(out)


def gen_sail(state: State, seat: int) -> list[Action]:
    t = state.turn
    if state.stage != TURN or t.acted or t.free_pirate:
        return []
    p = state.players[seat]
    out: list[Action] = []
    ids = state.city_ids
    for cid in sorted(set(p.hand)):
        for j in _card_targets(ids, cid, p.ship):
            out.append({"type": "sail", "card": cid, "to": ids[j]})
    return out


def supply_ratio_ok(warehouses: int, neutral: int) -> bool:
    """2-player supply ratio after a build (§7): empty, or strictly more main than neutral warehouses."""
    return warehouses + neutral == 0 or warehouses > neutral


def gen_build_warehouse(state: State, seat: int) -> list[Action]:
    if state.stage != TURN or not at_building_city(state, seat):
        return []
    p = state.players[seat]
    ci = p.ship
    cd = city_data(state, ci)
    if cd.harbours[p.berth] > p.money:
        return []
    city = state.cities[ci]
    sites = next_sites(city)
    two = state.n == 2
    colours: list[int] = []
    if two:
        if p.warehouses > 0 and supply_ratio_ok(p.warehouses - 1, p.neutral):
            colours.append(main_colour(2, seat))
        if p.neutral > 0 and supply_ratio_ok(p.warehouses, p.neutral - 1):
            colours.append(neutral_colour(seat))
    elif p.warehouses > 0:
        colours.append(seat)
    main = main_colour(2, seat) if two else None
    neutral = neutral_colour(seat) if two else None
    out: list[Action] = []
    for site in sites:
        for col in colours:
            if run_limit_ok(city.sites, site, col, main, neutral):
                a: Action = {"type": "build-warehouse"}
                if len(sites) > 1:
                    a["site"] = site
                if two:
                    a["colour"] = COLOURS[col]
                out.append(a)
    return out


def gen_reopen(state: State, seat: int) -> list[Action]:
    if state.stage != TURN or not at_building_city(state, seat):
        return []
    p = state.players[seat]
    city = state.cities[p.ship]
    two = state.n == 2
    main = main_colour(2, seat) if two else None
    neutral = neutral_colour(seat) if two else None
    own = (main_colour(2, seat), neutral_colour(seat)) if two else (seat,)
    sites = next_sites(city)
    out: list[Action] = []
    for col in own:
        if city.closed[col] <= 0:
            continue
        for site in sites:
            if run_limit_ok(city.sites, site, col, main, neutral):
                a: Action = {"type": "reopen"}
                if len(sites) > 1:
                    a["site"] = site
                if two:
                    a["colour"] = COLOURS[col]
                out.append(a)
    return out


def gen_build_fortress(state: State, seat: int) -> list[Action]:
    if state.stage != TURN or not at_building_city(state, seat):
        return []
    p = state.players[seat]
    if p.fortresses <= 0:
        return []
    col = main_colour(state.n, seat)
    city = state.cities[p.ship]
    if col in city.forts:
        return []
    cd = city_data(state, p.ship)
    return [
        {"type": "build-fortress", "space": i + 1}
        for i, c in enumerate(city.forts)
        if c == FREE and cd.fortresses[i] <= p.money
    ]


def gen_take_loan(state: State, seat: int) -> list[Action]:
    """The loans the printed rules offer now: a forced loan at settlement (R-15), else a loan turn before the
    turn's action from the second round on (§5.9, R-2, R-17). The progress ruling on voluntary loans (the
    printed loan cards, ``progress.voluntary_loans``) is applied where the legal actions are listed (``legal``)."""
    if state.stage == SETTLE:
        if needs_forced_loan(state):
            return [{"type": "take-loan", "amount": a} for a in LOAN_AMOUNTS]
        return []
    if state.stage != TURN or state.turn.acted or first_round(state):
        return []
    return [{"type": "take-loan", "amount": a} for a in LOAN_AMOUNTS]


def gen_pass(state: State, seat: int, take_loan: Callable[[State, int], list[Action]]) -> list[Action]:
    """R-4: in the first round of the game a player with nothing left to do passes. In a later round a player
    whose tentative steps (R-1) led to a dead end while no loan may be taken gets the same "pass", which only
    undoes those steps. ``take_loan`` lists the loans that may be taken (``legal`` passes the progress-ruled
    list, ``progress``); it is asked only when needed, as it may try a turn ahead."""
    if state.stage != TURN or state.turn.acted:
        return []
    if not first_round(state) and (state.turn.snapshot is None or take_loan(state, seat)):
        return []
    for gen in (gen_buy, gen_sail, gen_build_warehouse, gen_reopen, gen_build_fortress, gen_move_pirate):
        if gen(state, seat):
            return []
    return [{"type": "pass"}]


def gen_end_turn(state: State, seat: int) -> list[Action]:
    if state.stage != TURN or not state.turn.acted:
        return []
    if free_pirate_due(state, seat) and pirate_targets(state, True):
        return []
    return [{"type": "end-turn"}]


def gen_move_pirate(state: State, seat: int) -> list[Action]:
    """Pirate moves (§8.4): the compulsory free move after anchoring in Islas Canarias, a paid move by money
    (2 per step) or by cards, or, while a card voyage is under way, its next leg.

    A paid move by cards is sailed card by card: a leg with ``harbour`` ends the voyage there (a free space
    or an occupied one, as for one card), a leg without it is a stop. Only stops from which the remaining
    hand can still end the voyage are listed, so the pirate is never stranded; cards are consumed, so a
    voyage has at most as many legs as the hand has cards (uniform random play terminates)."""
    t = state.turn
    if state.stage != TURN or state.pirate < 0:
        return []
    if t.pirate_transit >= 0:
        return _card_legs(state, seat, t.pirate_transit)
    if t.pirate_moved:
        return []
    out: list[Action] = []
    if free_pirate_due(state, seat):
        # The free move is compulsory and is the turn's one pirate move.
        for j in pirate_targets(state, True):
            for h in range(len(state.cities[j].harbours)):
                out.append({"type": "move-pirate", "to": state.city_ids[j], "harbour": h + 1, "means": "free"})
        return out
    targets = pirate_targets(state, False)
    here = city_data(state, state.pirate)
    p = state.players[seat]
    for j in targets:
        if PIRATE_STEP_COST * distance(here, city_data(state, j)) <= p.money:
            for h in range(len(state.cities[j].harbours)):
                out.append({"type": "move-pirate", "to": state.city_ids[j], "harbour": h + 1, "means": "money"})
    out.extend(_card_legs(state, seat, state.pirate))
    return out


def _card_legs(state: State, seat: int, at: int) -> list[Action]:
    """Legs of a paid pirate voyage by cards from city ``at`` (§8.4): a stop (no ``harbour``) where the rest of
    the hand can still end the voyage, or the final leg to each harbour space of a city the pirate may end in."""
    fset = frozenset(pirate_targets(state, False))
    hand = tuple(sorted(state.players[seat].hand))
    ids = state.city_ids
    dest = _dest_index(ids)
    # Fast path for the stops: a destination card of the rest of the hand sails straight to its city from
    # anywhere but that city, so count the hand's destination cards naming a city where the voyage may end.
    counts: dict[int, int] = {}
    for c in hand:
        d = dest.get(c, -1)
        if d in fset:
            counts[d] = counts.get(d, 0) + 1
    all_ends = set(counts)
    out: list[Action] = []
    for k, cid in enumerate(hand):
        if k and hand[k - 1] == cid:
            continue
        rest = hand[:k] + hand[k + 1 :]
        d0 = dest.get(cid, -1)
        ends = all_ends - {d0} if counts.get(d0) == 1 else all_ends
        for j in _card_targets(ids, cid, at):
            if rest and (len(ends) > 1 or (ends and j not in ends) or _can_end(ids, fset, j, rest)):
                out.append({"type": "move-pirate", "to": ids[j], "means": "card", "card": cid})
            if j in fset:
                for h in range(len(state.cities[j].harbours)):
                    out.append({"type": "move-pirate", "to": ids[j], "harbour": h + 1, "means": "card", "card": cid})
    return out


@cache
def _dest_index(city_ids: tuple[str, ...]) -> dict[str, int]:
    """Destination card -> index of its named city in play (cards naming a city out of play are left out)."""
    return {cid: city_ids.index(c.city) for cid, c in CARDS.items() if c.kind == "destination" and c.city in city_ids}


@lru_cache(maxsize=1 << 16)
def _can_end(ids: tuple[str, ...], finals: frozenset[int], at: int, hand: tuple[str, ...]) -> bool:
    # A depth-first search over the (sorted) remaining hand: it depends only on the cities in play, the cities
    # where the voyage may end, the stop and the cards, hence the cache. Every leg consumes a card, so it ends.
    dest = _dest_index(ids)
    if any(dest.get(c, at) != at and dest[c] in finals for c in hand):
        return True
    legs = [(k, _card_targets(ids, cid, at)) for k, cid in enumerate(hand) if k == 0 or hand[k - 1] != cid]
    if any(j in finals for _k, js in legs for j in js):
        return True
    for k, js in legs:
        rest = hand[:k] + hand[k + 1 :]
        if rest and any(_can_end(ids, finals, j, rest) for j in js):
            return True
    return False


def needs_forced_loan(state: State) -> bool:
    """Loan settlement stopped on an extended loan the player cannot repay (R-15)."""
    p = state.players[state.seat]
    if state.settle_loan >= state.settle_count:
        return False
    amount, extended = p.loans[state.settle_loan]
    return extended and p.money < LOANS[amount][1]


def gen_settle_loan(state: State, seat: int) -> list[Action]:
    if state.stage != SETTLE or needs_forced_loan(state):
        return []
    p = state.players[seat]
    amount, extended = p.loans[state.settle_loan]
    out: list[Action] = []
    if not extended:
        if p.money >= LOANS[amount][0]:
            out.append({"type": "settle-loan", "loan": state.settle_loan, "choice": "repay"})
        out.append({"type": "settle-loan", "loan": state.settle_loan, "choice": "extend"})
    return out


def gen_choose_start(state: State, seat: int) -> list[Action]:
    if state.stage != CHOOSE_START:
        return []
    return [{"type": "choose-start-player", "seat": s} for s in range(state.n)]
