"""The parts of Ophir's flow that several actions share: the market shift (spec §5.4), the
end of a turn (with the Priest's favor) and the immediate end of the game (spec §8)."""

from __future__ import annotations

from service.games.base import Event

from .data import FAVOR_MAX, PRIEST_FAVOR
from .events import said
from .state import OVER, PLAY, State, Turn, replace, with_seat

END_TEMPLE = "temple-complete"
"""End condition A: the last space of the final temple tier was filled."""
END_MARKET = "market-exhausted"
"""End condition B: a market shift could not refill the current demand."""


def end_game(state: State, reason: str, events: list[Event]) -> State:
    """Stop at once (spec §8): nothing else happens, not even end-of-turn effects."""
    events.append(said({"type": "game-ended", "reason": reason}))
    return replace(state, phase=OVER, turn=None, end_reason=reason)


def shift_market(state: State, events: list[Event]) -> State:
    """Spec §5.4: discard the rightmost demand card, slide the others right, move the future
    card onto the leftmost stand and turn up a new future card.

    End condition B (rule §10 item 4): with the default ``end_on_empty_deck="refill"`` the game
    ends on the shift that finds no future card to slide in (the 37th shift of 39 cards); with
    ``"reveal"`` (ophir-2d) it ends one shift earlier, when no new future card can be turned up.
    """
    dropped = state.demand[-1]
    if not state.deck:
        demand = (None, *state.demand[:-1])
        events.append(said({"type": "market-shifted", "dropped": dropped, "demand": list(demand), "future": None}))
        state = replace(state, demand=demand, discard=(*state.discard, *([dropped] if dropped else [])))
        return end_game(state, END_MARKET, events)
    demand = (state.deck[0], *state.demand[:-1])
    deck = state.deck[1:]
    future = deck[0] if deck else None
    events.append(said({"type": "market-shifted", "dropped": dropped, "demand": list(demand), "future": future}))
    state = replace(state, demand=demand, deck=deck, discard=(*state.discard, *([dropped] if dropped else [])))
    if not deck and state.options.end_on_empty_deck == "reveal":
        return end_game(state, END_MARKET, events)
    return state


STALL_ROUNDS_PER_SHIFT = 25
"""Stalled-market ruling (server ruling; the rulebook is silent): the game must have shifted the
market at least once per this many rounds on average, or the market shifts on its own at a turn end.

Why: Ophir ends only by the temple (§8 A) or the market (§8 B), and both need players to trade or
donate. Nothing in the rules stops players from sailing between a goods hex and the market for ever,
gathering and selling their specialty (coins grow, nothing else changes), so without a ruling a game
need not end. A real game shifts the market about once per turn (every trade and goods donation does,
§5.4), so a pace of one shift per 25 rounds is never reached in play (even uniformly random play, the golden
replays, stays under 22); only deliberate stalling meets it. The forced shift is the one the rulebook already has without goods or coins, the rival trade (§7).
Bound: the 37th shift ends the game (§5.4), so a game lasts at most 37 x 25 rounds of turns."""


def stalled(state: State) -> bool:
    """Whether the turns played have outrun the market (:data:`STALL_ROUNDS_PER_SHIFT`): every shift
    discards exactly one demand card, so the discard pile counts the shifts so far."""
    return state.turns_played >= STALL_ROUNDS_PER_SHIFT * state.n * (len(state.discard) + 1)


def end_turn(state: State, seat: int, events: list[Event], voluntary: bool) -> State:
    """Finish the active turn: the Priest's favor (spec §6.2, §10 item 8), the stalled-market shift
    (:data:`STALL_ROUNDS_PER_SHIFT`), then the next player clockwise (seat + 1) starts navigating
    from where their ship lies."""
    player = state.seats[seat]
    seats = state.seats
    if (player.specialist == "priest" and player.hex == state.hex_of("temple")
            and (voluntary or not state.options.priest_voluntary_only)):
        gained = min(FAVOR_MAX, player.favor + PRIEST_FAVOR) - player.favor
        seats = with_seat(seats, seat, replace(player, favor=player.favor + gained))
        events.append(said({"type": "priest-favor", "seat": seat, "favor": gained}))
    state = replace(state, seats=seats, turns_played=state.turns_played + 1)
    if stalled(state):
        # the ruling's number goes with the event, so the sentence says what it was when it was applied
        events.append(said({"type": "market-stalled", "rounds": STALL_ROUNDS_PER_SHIFT}))
        state = shift_market(state, events)
        if state.phase == OVER:
            return state
    nxt = (seat + 1) % state.n
    start_hex = state.seats[nxt].hex
    assert start_hex is not None
    events.append(said({"type": "turn-started", "seat": nxt, "first": False}))
    return replace(state, active=nxt, turn=Turn(start_hex), phase=PLAY)
