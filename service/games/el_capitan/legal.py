"""The legal actions of a seat: the printed rules' generators (:mod:`.rules`) with the progress
rulings (:mod:`.progress`) applied, as the game lists them and as :mod:`.validate` checks them.

The rulings try steps ahead (:mod:`.moves`), and the moves apply what the generators list, so
they meet here, one floor above both, instead of the generators calling the rulings back.
"""

from __future__ import annotations

from collections.abc import Callable

from .progress import keep_direct, voluntary_loans
from .rules import (
    gen_build_fortress,
    gen_build_warehouse,
    gen_buy,
    gen_choose_start,
    gen_end_turn,
    gen_move_pirate,
    gen_reopen,
    gen_sail,
    gen_settle_loan,
)
from .rules import gen_pass as printed_pass
from .rules import gen_take_loan as printed_loans
from .state import CHOOSE_START, SETTLE, TURN, State

Action = dict[str, object]


def gen_take_loan(state: State, seat: int) -> list[Action]:
    """The loans that may be taken now: the printed rules' (R-15, R-17) within the loan-card ruling."""
    return voluntary_loans(state, seat, printed_loans(state, seat))


def gen_pass(state: State, seat: int) -> list[Action]:
    """The "pass" of R-4 (``rules.gen_pass``), judged with the loans that may really be taken."""
    return printed_pass(state, seat, gen_take_loan)


GENERATORS: dict[str, Callable[[State, int], list[Action]]] = {
    "buy-card": gen_buy,
    "sail": gen_sail,
    "build-warehouse": gen_build_warehouse,
    "reopen": gen_reopen,
    "build-fortress": gen_build_fortress,
    "move-pirate": gen_move_pirate,
    "take-loan": gen_take_loan,
    "pass": gen_pass,
    "end-turn": gen_end_turn,
    "settle-loan": gen_settle_loan,
    "choose-start-player": gen_choose_start,
}


_AFTER_ACTION = (gen_buy, gen_move_pirate, gen_end_turn)
_BEFORE_ACTION = (gen_buy, gen_sail, gen_build_warehouse, gen_reopen, gen_build_fortress, gen_move_pirate,
                  gen_take_loan, gen_pass)
_SETTLING = (gen_take_loan, gen_settle_loan)


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every legal atomic action of ``seat`` now ([] unless it is that seat's move)."""
    if seat != state.seat:
        return []
    stage = state.stage
    gens: tuple[Callable[[State, int], list[Action]], ...]
    if stage == TURN:
        if state.turn.pirate_transit >= 0:
            # The pirate is under way: its voyage goes on or ends before any other step (§8.4).
            return gen_move_pirate(state, seat)
        gens = _AFTER_ACTION if state.turn.acted else _BEFORE_ACTION
    elif stage == SETTLE:
        gens = _SETTLING
    elif stage == CHOOSE_START:
        return gen_choose_start(state, seat)
    else:
        return []
    out: list[Action] = []
    for gen in gens:
        out.extend(gen(state, seat))
    if stage == TURN and state.turn.undone and not state.turn.acted:
        # Progress ruling (R-1 with R-4): after one undo only the steps that keep a direct turn possible.
        out = keep_direct(state, seat, out)
    return out
