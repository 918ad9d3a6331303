"""The parts of Ophir's flow that several actions share: the market shift (spec §5.4), the
end of a turn (with the Priest's favor) and the immediate end of the game (spec §8)."""

from __future__ import annotations

from service.games.base import Event

from .data import FAVOR_MAX, PRIEST_FAVOR
from .state import OVER, PLAY, State, Turn, replace, seat_name, with_seat

END_TEMPLE = "temple-complete"
"""End condition A: the last space of the final temple tier was filled."""
END_MARKET = "market-exhausted"
"""End condition B: a market shift could not refill the current demand."""


def end_game(state: State, reason: str, events: list[Event]) -> State:
    """Stop at once (spec §8): nothing else happens, not even end-of-turn effects."""
    text = ("The last temple tier is complete: the game ends at once." if reason == END_TEMPLE
            else "The market cannot refill the current demand: the game ends at once.")
    events.append({"type": "game-ended", "reason": reason, "text": text})
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
        events.append({"type": "market-shifted", "dropped": dropped, "demand": list(demand), "future": None,
                       "text": f"The market shifted: {dropped} was discarded and no card is left to refill it."})
        state = replace(state, demand=demand, discard=(*state.discard, *([dropped] if dropped else [])))
        return end_game(state, END_MARKET, events)
    demand = (state.deck[0], *state.demand[:-1])
    deck = state.deck[1:]
    future = deck[0] if deck else None
    events.append({"type": "market-shifted", "dropped": dropped, "demand": list(demand), "future": future,
                   "text": f"The market shifted: {dropped} was discarded, {demand[0]} joined the demand"
                           + (f" and {future} is the new future demand." if future else "; the deck is empty.")})
    state = replace(state, demand=demand, deck=deck, discard=(*state.discard, *([dropped] if dropped else [])))
    if not deck and state.options.end_on_empty_deck == "reveal":
        return end_game(state, END_MARKET, events)
    return state


def end_turn(state: State, seat: int, events: list[Event], voluntary: bool) -> State:
    """Finish the active turn: the Priest's favor (spec §6.2, §10 item 8), then the next
    player clockwise (seat + 1) starts navigating from where their ship lies."""
    player = state.seats[seat]
    seats = state.seats
    if (player.specialist == "priest" and player.hex == state.hex_of("temple")
            and (voluntary or not state.options.priest_voluntary_only)):
        gained = min(FAVOR_MAX, player.favor + PRIEST_FAVOR) - player.favor
        seats = with_seat(seats, seat, replace(player, favor=player.favor + gained))
        events.append({"type": "priest-favor", "seat": seat, "favor": gained,
                       "text": f"{seat_name(seat)}'s Priest ends the turn at the temple and gains {gained} favor."})
    nxt = (seat + 1) % state.n
    start_hex = seats[nxt].hex
    assert start_hex is not None
    events.append({"type": "turn-started", "seat": nxt, "text": f"{seat_name(nxt)}'s turn."})
    return replace(state, seats=seats, active=nxt, turn=Turn(start_hex), turns_played=state.turns_played + 1,
                   phase=PLAY)
