"""Payday (§6.2), the after-payday steps (§6.4) and the game end (§6.6).

Income is computed from the board in one pass and credited to everyone at once. Loan settlement
then runs seat by seat from the phase's start player: loans with no choice (extended ones) are
settled automatically; a decision (repay or extend a front-side loan, or a forced loan when an
extended one cannot be covered, R-15) stops the loop and makes that seat active.
"""

from __future__ import annotations

from typing import Any

from service.games.base import Event

from .data import (
    CHART,
    LOANS,
    PHASES,
    SUPPLY_FORTRESSES,
    SUPPLY_NEUTRAL,
    SUPPLY_WAREHOUSES,
)
from .events import told
from .state import (
    CHOOSE_START,
    FREE,
    OVER,
    SETTLE,
    Player,
    State,
    Turn,
    city_data,
    colour_owner,
    is_main,
    main_colour,
    neutral_colour,
    replace,
)
from .track import operating, payout_value, ranking
from .words import player


def name(state: State, seat: int) -> str:
    """A seat's name in words: its (main) colour ("Red"), as a Phrase."""
    return player(state.n, seat)


def set_player(state: State, seat: int, player: Player) -> State:
    ps = list(state.players)
    ps[seat] = player
    return replace(state, players=tuple(ps))


def new_turn(state: State, seat: int) -> State:
    """Start ``seat``'s turn: the ship's position now is the voyage origin (R-7)."""
    p = state.players[seat]
    return replace(state, seat=seat, turn=Turn(p.ship, False, False, False, False, None))


# ---------------------------------------------------------------------------------------------
# Income


def income(state: State) -> list[dict[str, Any]]:
    """Each seat's payday income by source: proliferation, majority (per city), fortresses (per city).

    * Proliferation: ``chart[n]`` for the cities holding an operating warehouse of the seat's main colour.
    * Base-city majority: first ``V``, second ``floor(V/2)``, ties by position (R-22). With 2 players,
      colours are ranked and only a main colour in first place is paid (§7).
    * Off-board majority: everyone present gets ``floor(V/2)``, the first ``V`` (§8.1; R-18 with 2 players).
    * Fortresses: ``V`` in the city or cities with the most operating warehouses, else ``floor(V/2)``;
      0 where no warehouse operates (R-12, R-13).
    """
    n = state.n
    two = n == 2
    out: list[dict[str, Any]] = [
        {"proliferation": 0, "cities": 0, "majority": {}, "fortresses": {}, "total": 0} for _ in range(n)
    ]
    for s in range(n):
        col = main_colour(n, s)
        k = sum(1 for c in state.cities if col in c.sites)
        out[s]["cities"] = k
        out[s]["proliferation"] = CHART[min(k, len(CHART) - 1)]
    most = max((operating(c.sites) for c in state.cities), default=0)
    for i, city in enumerate(state.cities):
        ops = operating(city.sites)
        if ops == 0:
            continue
        cd = city_data(state, i)
        v = payout_value(cd, city.sites)
        rank = ranking(city.sites)
        paid: dict[int, int] = {}
        if cd.off_board:
            first = rank[0][0]
            for col, _cnt, _low in rank:
                if is_main(n, col):
                    paid[colour_owner(n, col)] = v if col == first else v // 2
        elif two:
            if is_main(n, rank[0][0]):
                paid[colour_owner(n, rank[0][0])] = v
        else:
            paid[colour_owner(n, rank[0][0])] = v
            if len(rank) > 1:
                paid[colour_owner(n, rank[1][0])] = v // 2
        for s, amt in paid.items():
            if amt:
                out[s]["majority"][cd.id] = amt
        for col in city.forts:
            if col != FREE:
                s = colour_owner(n, col)
                amt = v if ops == most else v // 2
                out[s]["fortresses"][cd.id] = out[s]["fortresses"].get(cd.id, 0) + amt
    for o in out:
        o["total"] = o["proliferation"] + sum(o["majority"].values()) + sum(o["fortresses"].values())
    return out


def begin_payday(state: State) -> tuple[State, list[Event]]:
    """Pay everyone (§6.2); then the game end after the third payday, else loan settlement."""
    events: list[Event] = []
    inc = income(state)
    ps = list(state.players)
    for s, o in enumerate(inc):
        ps[s] = replace(ps[s], money=ps[s].money + o["total"])
        events.append(told({"type": "payday-income", "seat": s, "phase": state.phase, "amount": o["total"], "detail": o,
                            "players": state.n}))
    state = replace(state, players=tuple(ps))
    if state.phase >= PHASES:
        return game_end(state, events)
    state = replace(state, stage=SETTLE, settle_pos=0, seat=state.start, settle_loan=0,
                    settle_count=len(state.players[state.start].loans))
    state, more = advance_settlement(state)
    return state, events + more


def game_end(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """§6.6: pay bonus cards, repay every loan at its current side (debt allowed, R-15); the game is over."""
    ps = list(state.players)
    for s, p in enumerate(ps):
        money = p.money + p.bonus
        if p.bonus:
            events.append(told({"type": "bonus-paid", "seat": s, "amount": p.bonus, "players": state.n}))
        due = sum(LOANS[a][1 if e else 0] for a, e in p.loans)
        if due:
            events.append(told({"type": "loans-repaid", "seat": s, "amount": due, "loans": len(p.loans), "players": state.n}))
        ps[s] = replace(p, money=money - due, loans=())
    state = replace(state, players=tuple(ps), stage=OVER)
    events.append(told({"type": "game-over", "money": [p.money for p in ps], "players": state.n}))
    return state, events


# ---------------------------------------------------------------------------------------------
# Loan settlement, money check, next start player, new supplies


def advance_settlement(state: State) -> tuple[State, list[Event]]:
    """Settle automatically what needs no decision; stop at a decision or go on to the start-player choice."""
    events: list[Event] = []
    while True:
        seat = state.seat
        p = state.players[seat]
        while state.settle_loan < state.settle_count:
            amount, extended = p.loans[state.settle_loan]
            if not extended:
                return state, events
            due = LOANS[amount][1]
            if p.money < due:
                return state, events
            loans = p.loans[: state.settle_loan] + p.loans[state.settle_loan + 1 :]
            p = replace(p, money=p.money - due, loans=loans)
            state = replace(set_player(state, seat, p), settle_count=state.settle_count - 1)
            events.append(told({"type": "loan-repaid", "seat": seat, "amount": amount, "paid": due, "extended": True,
                                "players": state.n}))
        pos = state.settle_pos + 1
        if pos >= state.n:
            return money_check(replace(state, settle_pos=pos), events)
        nxt = (state.start + pos) % state.n
        state = replace(state, settle_pos=pos, seat=nxt, settle_loan=0, settle_count=len(state.players[nxt].loans))


def settle_choice(state: State, seat: int, choice: str) -> tuple[State, list[Event]]:
    """Repay a front-side loan at its front value, or extend it by flipping the card (§6.4)."""
    p = state.players[seat]
    i = state.settle_loan
    amount, _ext = p.loans[i]
    if choice == "repay":
        due = LOANS[amount][0]
        p = replace(p, money=p.money - due, loans=p.loans[:i] + p.loans[i + 1 :])
        state = replace(set_player(state, seat, p), settle_count=state.settle_count - 1)
        ev: Event = told({"type": "loan-repaid", "seat": seat, "amount": amount, "paid": due, "extended": False,
                          "players": state.n})
    else:
        p = replace(p, loans=(*p.loans[:i], (amount, True), *p.loans[i + 1 :]))
        state = replace(set_player(state, seat, p), settle_loan=i + 1)
        ev = told({"type": "loan-extended", "seat": seat, "amount": amount, "players": state.n})
    state, more = advance_settlement(state)
    return state, [ev, *more]


def settle_forced_loan(state: State, seat: int, amount: int) -> tuple[State, list[Event]]:
    """R-15: a player who cannot repay an extended loan takes new loans on the spot (no bank trip)."""
    p = state.players[seat]
    state = set_player(state, seat, replace(p, money=p.money + amount, loans=(*p.loans, (amount, False))))
    ev: Event = told({"type": "loan-taken", "seat": seat, "amount": amount, "forced": True, "players": state.n})
    state, more = advance_settlement(state)
    return state, [ev, *more]


def net_worth(p: Player) -> int:
    """Cash minus the current repayment value of every loan held (§6.4 step 2)."""
    return p.money - sum(LOANS[a][1 if e else 0] for a, e in p.loans)


def money_check(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """Declare net worths; the poorest (R-14: first clockwise from the start player on a tie) chooses."""
    worth = [net_worth(p) for p in state.players]
    for s, w in enumerate(worth):
        events.append(told({"type": "money-check", "seat": s, "net_worth": w, "players": state.n}))
    low = min(worth)
    chooser = next(s for k in range(state.n) if worth[s := (state.start + k) % state.n] == low)
    events.append(told({"type": "start-choice", "seat": chooser, "phase": state.phase + 1, "players": state.n}))
    return replace(state, stage=CHOOSE_START, seat=chooser), events


def choose_start(state: State, seat: int, chosen: int) -> tuple[State, list[Event]]:
    """Give El Capitan to ``chosen``, hand out the new supplies (§6.4 step 4) and start the next phase."""
    n = state.n
    pw = list(state.pool_warehouses)
    pf = list(state.pool_fortresses)
    ps = list(state.players)
    for s, p in enumerate(ps):
        m = main_colour(n, s)
        w = min(SUPPLY_WAREHOUSES, pw[m])
        f = min(SUPPLY_FORTRESSES, pf[m])
        pw[m] -= w
        pf[m] -= f
        nw = 0
        if n == 2:
            nc = neutral_colour(s)
            nw = min(SUPPLY_NEUTRAL, pw[nc])
            pw[nc] -= nw
        ps[s] = replace(p, warehouses=p.warehouses + w, fortresses=p.fortresses + f, neutral=p.neutral + nw)
    state = replace(state, players=tuple(ps), pool_warehouses=tuple(pw), pool_fortresses=tuple(pf),
                    start=chosen, phase=state.phase + 1, round=1, ending=False, stage="turn",
                    settle_pos=0, settle_loan=0, settle_count=0)
    ev: Event = told({"type": "start-player", "seat": chosen, "by": seat, "phase": state.phase, "players": n})
    return new_turn(state, chosen), [ev]
