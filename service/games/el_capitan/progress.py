"""Progress rulings: why every El Capitán game ends, whatever the players (or bots) choose.

The rulebook ends a phase only when a player's supply is empty (§6.1), and two of its freedoms let a
player stall for ever without a single piece placed. Both rulings below keep the printed rules for
every real player and take away only the endless repetition (issue 9, finding 7):

* **One undo per turn (R-1 with R-4).** A dead end reached by tentative steps is undone back to the
  turn start (``moves.do_pass``). The undo restores that position exactly, so a player who walks into
  the same dead end again would be undone for ever. After one undo the turn is a *direct* turn: only
  the steps from which a voyage and build surely remain possible are legal (:func:`keep_direct`), so
  the turn ends with its action. R-1 promises an undo "back to the turn start", not an endless retry.
* **Voluntary loans use the printed loan cards (R-17 with §1: 18 × 10 and 12 × 16).** A loan turn a
  player chooses takes a card from the printed supply; once every card of an amount is held, a player
  who can build takes no more loans of it (:func:`must_go_to_bank`). A forced bank trip (§5.9 "cannot
  build", R-30) and the forced loans of settlement (R-15) stay unlimited, as R-17 requires. Without it
  every player could take loan turns for ever and no phase would end.

The bound these give (``tests/games/el_capitan/test_progress.py``): every turn either places a piece
(bounded over the game by the building sites and shut-down spaces of the cities in play), or takes a
voluntary loan (at most 30 per phase, since cards come back only at payday), or is a forced loan turn.

The rulings try steps ahead with :mod:`.moves`, so they sit above it; :mod:`.legal` applies them to the
printed rules' generators (:mod:`.rules`) where the game lists its legal actions.
"""

from __future__ import annotations

from service.games.base import Rng

from .data import LOAN_AMOUNTS, LOAN_COPIES
from .moves import apply_checked, direct_turn_possible
from .state import TURN, State

Action = dict[str, object]

_TENTATIVE = frozenset({"buy-card", "sail", "move-pirate"})


def loan_cards_left(state: State, amount: int) -> int:
    """Loan cards of ``amount`` still in the printed supply: the copies minus those players hold."""
    held = sum(1 for p in state.players for a, _extended in p.loans if a == amount)
    return LOAN_COPIES[amount] - held


def must_go_to_bank(state: State, seat: int) -> bool:
    """Whether a loan turn is forced (§5.9 "cannot build", R-30): no direct turn from the turn start.

    Then a loan may be taken even when the printed loan cards are all held (R-17); otherwise a
    voluntary loan needs a card left (:func:`loan_cards_left`). Players hold a handful of loans in a
    real game, so nobody meets the limit but a player who stalls on purpose."""
    start = state.turn.snapshot if state.turn.snapshot is not None else state
    return not direct_turn_possible(start, seat)


def voluntary_loans(state: State, seat: int, printed: list[Action]) -> list[Action]:
    """The loans of ``printed`` (``rules.gen_take_loan``) that may be taken under the loan-card ruling (R-17
    with the 18 + 12 printed loan cards, see the module docstring): in a turn, a loan of an amount whose cards
    are all held only when the bank trip is forced (:func:`must_go_to_bank`); settlement's forced loans stay."""
    if state.stage != TURN or not printed:
        return printed
    free = [a for a in LOAN_AMOUNTS if loan_cards_left(state, a) > 0]
    if len(free) < len(LOAN_AMOUNTS) and not must_go_to_bank(state, seat):
        return [{"type": "take-loan", "amount": a} for a in free]
    return printed


def keep_direct(state: State, seat: int, legal: list[Action]) -> list[Action]:
    """In a turn already undone once (``Turn.undone``): the legal actions without the tentative steps
    after which no direct voyage and build would remain (R-1 with R-4, see the module docstring).

    Every kept step keeps ``moves.direct_turn_possible`` true, and each consumes a card, Florins or a
    leg, so the turn reaches its action. Should that sufficient test ever find no step (it does not
    search long voyages), the full list stands rather than leave the seat without an action."""
    kept: list[Action] = []
    for a in legal:
        if a["type"] not in _TENTATIVE:
            kept.append(a)
            continue
        after, _events = apply_checked(state, seat, dict(a), Rng(bytes(32)))
        if direct_turn_possible(after, seat):
            kept.append(a)
    return kept or legal
