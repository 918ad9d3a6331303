"""Navigation (spec §5.1, §5.2) and the 2-player rival ship (spec §7).

A turn starts with up to two moves. A move into an occupied hex needs an influence test rolled
here on the server; an influence move (1 favor) skips the tests; anchoring (1 favor) stays on
the start hex. Entering the rival's hex pauses the turn while the active player moves the rival
one hex at a time, after which the server rolls the rival's die and the player may take the
rival trade.
"""

from __future__ import annotations

from service.games.base import Action, Event, IllegalAction, Rng
from service.i18n import phrase

from .data import (
    ANCHOR_COST,
    DIE_LOWEST,
    DIE_SIDES,
    FULL_NEIGHBOURS,
    INFLUENCE_COST,
    MOVES,
    TEMPLE_GUARD_BONUS,
    TEST_PENALTY,
    open_neighbours,
)
from .events import said
from .flow import end_turn, shift_market
from .state import Player, State, Turn, replace, with_seat


def move_targets(state: State, seat: int, turn: Turn) -> tuple[str, ...]:
    """Hexes the active ship may try to sail to now (empty if no move is open).

    Rule §5.1: adjacent across no barrier (the Navigator ignores barriers, §6.2), never back to
    the start hex, and the rival's hex only once per turn (§7).
    """
    if turn.nav_over or turn.anchored or turn.moves >= MOVES or turn.rival_step >= 0 or turn.rival_trade:
        return ()
    player = state.seats[seat]
    assert player.hex is not None
    near = FULL_NEIGHBOURS if player.specialist == "navigator" else open_neighbours(state.barriers)
    rival_hex = state.rival.hex if (state.rival is not None and turn.rival_entered) else None
    return tuple(h for h in near[player.hex] if h != turn.start_hex and h != rival_hex)


def can_anchor(state: State, seat: int, turn: Turn) -> bool:
    """Anchoring (§5.1, R-18): at the start or after one failed test, before any success, with
    favor to pay. A declared influence move commits the ship to sailing, so no anchor then."""
    return (not turn.moved and not turn.anchored and not turn.influence and turn.fails == turn.moves
            and turn.moves < MOVES and state.seats[seat].favor >= ANCHOR_COST)


def can_declare_influence(state: State, seat: int, turn: Turn) -> bool:
    """Influence move (§5.1): once per turn, before the first or the second move, for 1 favor."""
    return (not turn.influence and bool(move_targets(state, seat, turn))
            and state.seats[seat].favor >= INFLUENCE_COST)


def navigation_actions(state: State, seat: int, turn: Turn) -> list[Action]:
    """The navigation steps open now (rival steps first when the rival is being moved)."""
    if turn.rival_step >= 0:
        out: list[Action] = [{"type": "move-rival", "hex": h} for h in rival_targets(state, turn)]
        if turn.rival_step >= 1:
            out.append({"type": "stop-rival"})
        return out
    if turn.rival_trade:
        return [{"type": "rival-trade"}, {"type": "decline-rival-trade"}]
    out = [{"type": "move", "hex": h} for h in move_targets(state, seat, turn)]
    if can_declare_influence(state, seat, turn):
        out.append({"type": "declare-influence"})
    if can_anchor(state, seat, turn):
        out.append({"type": "anchor"})
    return out


def _pay_favor(state: State, seat: int, cost: int) -> tuple[Player, ...]:
    p = state.seats[seat]
    return with_seat(state.seats, seat, replace(p, favor=p.favor - cost))


def anchor(state: State, seat: int, turn: Turn, events: list[Event]) -> State:
    """Spend 1 favor to stay on the start hex and end navigation (§5.1)."""
    if not can_anchor(state, seat, turn):
        if state.seats[seat].favor < ANCHOR_COST:
            raise IllegalAction("no-favor", phrase("anchoring costs 1 favor and you have none (rule §6.1)."), "§6.1")
        raise IllegalAction("cannot-anchor", phrase(
            "you may anchor only at the start of navigation or after one failed influence test, and not after a "
            "declared influence move (rule §5.1)."), "§5.1")
    events.append(said({"type": "anchored", "seat": seat, "hex": turn.start_hex}))
    return replace(state, seats=_pay_favor(state, seat, ANCHOR_COST),
                   turn=replace(turn, anchored=True, nav_over=True))


def declare_influence(state: State, seat: int, turn: Turn, events: list[Event]) -> State:
    """Spend 1 favor: no influence tests for the rest of this turn (§5.1, R-17)."""
    if not can_declare_influence(state, seat, turn):
        if state.seats[seat].favor < INFLUENCE_COST:
            raise IllegalAction("no-favor", phrase("an influence move costs 1 favor and you have none (rule §6.1)."),
                                "§6.1")
        raise IllegalAction("cannot-declare-influence", phrase(
            "an influence move is declared once, before a move you still have (rule §5.1)."), "§5.1")
    first = turn.moves == 0
    events.append(said({"type": "influence-declared", "seat": seat, "first": first}))
    return replace(state, seats=_pay_favor(state, seat, INFLUENCE_COST),
                   turn=replace(turn, influence=True, influence_first=first))


def move(state: State, seat: int, turn: Turn, target: str, rng: Rng, events: list[Event]) -> State:
    """One move (§5.1) with its influence test if the target is occupied (§5.2, R-19)."""
    if target not in move_targets(state, seat, turn):
        raise IllegalAction("cannot-move-there", _why_not_move(state, seat, turn, target), "§5.1")
    player = state.seats[seat]
    assert player.hex is not None
    crossing = target not in open_neighbours(state.barriers)[player.hex]  # only the Navigator gets here
    defenders = state.dice_at(target, seat)
    moves = turn.moves + 1
    seats = state.seats
    rival = state.rival
    if defenders and not turn.influence and not crossing:
        highest = max(d for _, d in defenders)
        roll = rng.die(DIE_SIDES)
        value = min(DIE_SIDES, roll + TEMPLE_GUARD_BONUS) if player.specialist == "temple_guard" else roll
        player = replace(player, die=value)
        success = value >= highest
        if not success:
            for owner, d in defenders:
                if d != highest:
                    continue
                if owner is None:
                    assert rival is not None
                    rival = replace(rival, die=max(DIE_LOWEST, d - TEST_PENALTY))
                else:
                    seats = with_seat(seats, owner, replace(seats[owner], die=max(DIE_LOWEST, d - TEST_PENALTY)))
        events.append(said({"type": "influence-test", "seat": seat, "hex": target, "roll": roll, "value": value,
                            "against": highest, "success": success,
                            "lowered": [owner for owner, d in defenders if d == highest and not success]}))
        if not success:
            seats = with_seat(seats, seat, player)
            turn = replace(turn, moves=moves, fails=turn.fails + 1, nav_over=moves >= MOVES)
            state = replace(state, seats=seats, rival=rival, turn=turn)
            if turn.fails >= MOVES:
                events.append(said({"type": "navigation-failed", "seat": seat, "start": turn.start_hex}))
                return end_turn(state, seat, events, voluntary=False)
            return state
    elif defenders:
        events.append(said({"type": "sailed", "seat": seat, "hex": target,
                            "by": "navigator" if crossing else "influence"}))
    else:
        events.append(said({"type": "sailed", "seat": seat, "hex": target, "by": None}))
    seats = with_seat(seats, seat, replace(player, hex=target))
    turn = replace(turn, moves=moves, moved=True, nav_over=moves >= MOVES)
    if rival is not None and rival.hex == target:
        # §7: the turn pauses at once and the active player moves the rival.
        turn = replace(turn, rival_entered=True, rival_step=0, rival_origin=target)
        events.append(said({"type": "rival-entered", "seat": seat, "hex": target}))
        state = replace(state, seats=seats, rival=rival, turn=turn)
        if not rival_targets(state, turn):  # cannot happen on a legal map (§7); never leave the seat stuck
            return _rival_done(state, seat, turn, rng, events)
        return state
    return replace(state, seats=seats, rival=rival, turn=turn)


def _why_not_move(state: State, seat: int, turn: Turn, target: str) -> str:
    if turn.rival_step >= 0 or turn.rival_trade:
        return phrase("finish moving the rival first (rule §7).")
    if turn.anchored or turn.nav_over or turn.moves >= MOVES:
        return phrase("your navigation is over this turn (rule §5.1: two moves, none after anchoring or an action).")
    if target == turn.start_hex:
        return phrase("{hex} is your start hex; the second move may not return to it (rule §5.1).", hex=target)
    if state.rival is not None and turn.rival_entered and state.rival.hex == target:
        return phrase("you may enter the rival's hex only once per turn (rule §7).")
    return phrase("{hex} is not adjacent to your ship across an open edge (rule §3: barriers block).", hex=target)


# -- the rival (spec §7) ----------------------------------------------------------------------


def rival_targets(state: State, turn: Turn) -> tuple[str, ...]:
    """Where the rival may sail next: across no barrier, into no hex with a ship, never back to
    its origin (the active ship is there), at most two hexes."""
    rival = state.rival
    if rival is None or rival.hex is None or turn.rival_step < 0 or turn.rival_step >= MOVES:
        return ()
    return tuple(h for h in open_neighbours(state.barriers)[rival.hex]
                 if h != turn.rival_origin and not state.ship_at(h))


def move_rival(state: State, seat: int, turn: Turn, target: str, rng: Rng, events: list[Event]) -> State:
    if target not in rival_targets(state, turn):
        raise IllegalAction("rival-cannot-move-there", phrase(
            "the rival may not sail to {hex}: it moves to an adjacent hex across no barrier and never into a hex "
            "with a ship (rule §7).", hex=target), "§7")
    assert state.rival is not None
    rival = replace(state.rival, hex=target)
    turn = replace(turn, rival_step=turn.rival_step + 1)
    events.append(said({"type": "rival-moved", "seat": seat, "hex": target}))
    state = replace(state, rival=rival, turn=turn)
    if turn.rival_step >= MOVES or not rival_targets(state, turn):
        return _rival_done(state, seat, turn, rng, events)
    return state


def stop_rival(state: State, seat: int, turn: Turn, rng: Rng, events: list[Event]) -> State:
    if turn.rival_step < 1:
        raise IllegalAction("rival-must-move", phrase("the rival moves at least one hex (rule §7)."), "§7")
    return _rival_done(state, seat, turn, rng, events)


def _rival_done(state: State, seat: int, turn: Turn, rng: Rng, events: list[Event]) -> State:
    """§7: the active player rolls the rival's die; on the market the rival trade is offered."""
    assert state.rival is not None
    roll = rng.die(DIE_SIDES)
    rival = replace(state.rival, die=roll)
    events.append(said({"type": "rival-die-rolled", "seat": seat, "value": roll}))
    on_market = rival.hex == state.hex_of("market")
    turn = replace(turn, rival_step=-1, rival_origin=None, rival_trade=on_market)
    return replace(state, rival=rival, turn=turn)


def rival_trade(state: State, seat: int, turn: Turn, accept: bool, events: list[Event]) -> State:
    """The optional rival trade: one market shift, no goods, no coins (§7)."""
    if not turn.rival_trade:
        raise IllegalAction("no-rival-trade", phrase(
            "the rival trade is offered only when the rival has just ended its move on the market (rule §7)."), "§7")
    state = replace(state, turn=replace(turn, rival_trade=False))
    if not accept:
        events.append(said({"type": "rival-trade-declined", "seat": seat}))
        return state
    events.append(said({"type": "rival-traded", "seat": seat}))
    return shift_market(state, events)
