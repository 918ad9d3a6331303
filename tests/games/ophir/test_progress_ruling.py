"""The stalled-market ruling (``flow.STALL_ROUNDS_PER_SHIFT``, issue 9 finding 7): a game where nobody
trades or donates used to run for ever; once the turns reach 25 rounds per market shift the market
shifts on its own at a turn end (as a rival trade, §7), and the 37th shift ends the game (§5.4, §8 B)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.games.ophir import GAME
from service.games.ophir.flow import STALL_ROUNDS_PER_SHIFT
from service.games.ophir.state import OVER, State
from tests.games.ophir.builders import act, player, position


def _idle_turn(turns_played: int, deck: tuple[str, ...] | None = None) -> tuple[State, list[dict[str, Any]]]:
    """Seat 0 sails to the empty market and ends its turn without trading, after ``turns_played`` turns."""
    seats = [player(hex="TR"), player(hex="BL"), player(hex="BL")]
    s = position(seats, deck=deck) if deck is not None else position(seats)
    s = replace(s, turns_played=turns_played)
    s, _ev = act(s, {"type": "move", "hex": "C"})
    return act(s, {"type": "end-turn"})


def test_a_stalled_market_shifts_on_its_own_at_the_turn_end() -> None:
    threshold = STALL_ROUNDS_PER_SHIFT * 3 * (0 + 1)  # 3 players, no shift yet
    before, ev = _idle_turn(threshold - 2)
    assert before.discard == () and not any(e["type"] == "market-stalled" for e in ev)
    after, ev = _idle_turn(threshold - 1)
    stalled = [e for e in ev if e["type"] == "market-stalled"]
    assert stalled and "§5.4" in str(stalled[0]["text"]) and "§7" in str(stalled[0]["text"])
    assert after.discard == ("A03",) and after.demand[1:] == ("A01", "A02")
    assert after.active == 1 and after.phase != OVER


def test_the_stalled_shift_that_finds_no_card_ends_the_game() -> None:
    # §5.4 step 5 / §8 B: the forced shift is a real market shift, so with the deck used up it ends the game.
    after, _ev = _idle_turn(STALL_ROUNDS_PER_SHIFT * 3 - 1, deck=())
    assert after.phase == OVER and after.end_reason == "market-exhausted"
    assert GAME.active_seats(after) == [] and GAME.outcome(after) is not None
