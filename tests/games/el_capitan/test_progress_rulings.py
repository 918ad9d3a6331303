"""The progress rulings of El Capitán (``el_capitan.progress``, issue 9 finding 7): the positions that used to
loop for ever now offer no looping action."""

from __future__ import annotations

from typing import Any

from service.games.base import Rng
from service.games.el_capitan import GAME
from service.games.el_capitan import data as D
from service.games.el_capitan.state import State
from service.games.undo import without_undo
from tests.games.el_capitan.helpers import act, anchor, fresh, legal, player, refused, set_player


def _first_policy_until_undo(players: int) -> tuple[State, list[dict[str, Any]]]:
    """Play the first legal action from setup until a dead end is undone; return the undone position and the
    tentative steps that led into the dead end."""
    state = GAME.setup(players, GAME.validate_options({}), Rng.from_seed("setup/progress")).state
    steps: list[dict[str, Any]] = []
    for ply in range(200):
        seat = state.seat
        action = without_undo(GAME.legal_actions(state, seat))[0]
        state, events = GAME.apply(state, seat, action, Rng.from_seed(f"progress/{ply}"))
        if any(e["type"] == "turn-undone" for e in events):
            return state, steps
        steps = [*steps, action] if action["type"] in ("buy-card", "sail", "move-pirate") else []
    raise AssertionError("the first-action policy never reached a dead end")


def test_an_undone_turn_cannot_walk_into_its_dead_end_again() -> None:
    # The reported loop: always taking the first legal action, Red buys cards, sails into a dead end, "passes",
    # is undone back to the turn start and repeats the same steps for ever. One undo per turn: after
    # it only steps that keep a voyage and build possible are legal, so the dead end is out of reach.
    undone, path = _first_policy_until_undo(2)
    seat = undone.seat
    assert undone.turn.undone and undone.turn.snapshot is None
    s = undone
    replayed = 0
    for step in path:
        if step not in legal(s, seat):
            break
        s, _ev = act(s, seat, step)
        replayed += 1
    assert replayed < len(path) or legal(s, seat) != [{"type": "pass"}], "the undone dead end is reachable again"
    # And the turn now ends with its action, whatever first step is taken.
    s = undone
    for _ in range(100):
        if s.seat != seat or s.turn.acted:
            break
        options = legal(s, seat)
        assert options != [{"type": "pass"}], "a direct turn met a second dead end"
        s, _ev = act(s, seat, options[0])
    assert s.turn.acted or s.seat != seat
    assert player(s, seat).warehouses + player(s, seat).fortresses < player(undone, seat).warehouses + player(undone, seat).fortresses


def test_voluntary_loans_stop_at_the_printed_loan_cards() -> None:
    # R-17 with the 18 x 10 and 12 x 16 printed loan cards: a loan turn chosen by a player who can build takes a
    # card from that supply; loan turns for ever would never end the phase (§6.1).
    s = anchor(fresh(3, round_=2, seat=0), 0, "marseille")
    assert legal(s, 0, "take-loan") == [{"type": "take-loan", "amount": 10}, {"type": "take-loan", "amount": 16}]
    s = set_player(s, 1, loans=((10, False),) * D.LOAN_COPIES[10])
    assert legal(s, 0, "take-loan") == [{"type": "take-loan", "amount": 16}]
    err = refused(s, 0, {"type": "take-loan", "amount": 10})
    assert err.code == "no-loan-cards" and "R-17" in err.message
    s = set_player(s, 2, loans=((16, True),) * D.LOAN_COPIES[16])
    assert legal(s, 0, "take-loan") == []
    assert legal(s, 0, "build-warehouse"), "the player who may not borrow can still build"


def test_a_forced_bank_trip_still_borrows_beyond_the_printed_cards() -> None:
    # §5.9 "cannot build" and R-30: a player at the bank with no money and no card cannot make a turn, so the loan
    # is forced and R-17 keeps it unlimited.
    s = fresh(3, round_=2, seat=0)
    s = set_player(s, 0, money=0, hand=(), ship=-1, berth=-1)
    s = set_player(s, 1, loans=((10, False),) * D.LOAN_COPIES[10])
    s = set_player(s, 2, loans=((16, False),) * D.LOAN_COPIES[16])
    assert legal(s, 0, "take-loan") == [{"type": "take-loan", "amount": 10}, {"type": "take-loan", "amount": 16}]
    after, _ev = act(s, 0, {"type": "take-loan", "amount": 16})
    assert player(after, 0).money == 16
