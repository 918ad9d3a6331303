"""What a bot knows of one game: how to fill in what its seat cannot see, how good a position
is, and what a sensible player would do.

The bot kinds in this package (:mod:`service.bots.heuristic`, :mod:`service.bots.search`) are
written once over the :class:`~service.games.base.Game` protocol; each game adds one
:class:`Knowledge` (``service/bots/<game>.py``) with three pieces of game sense:

* :meth:`Knowledge.sample` -- a *determinisation*: a whole state consistent with one seat's view,
  its hidden parts (deck order, face-down cards, other seats' secrets) drawn at random from what
  that seat cannot rule out. A bot only ever reasons over such samples, so it sees exactly what
  a player in its seat sees, never the true hidden state (information-set search, Cowling,
  Powley and Whitehouse 2012).
* :meth:`Knowledge.evaluate` -- how well each seat stands, in ``[0, 1]``, for a position that is
  not over yet (the search cuts its playouts short and asks this).
* :meth:`Knowledge.heuristic` -- the heuristic bot's choice in a (sampled) position, cheap and
  deterministic given its :class:`~service.games.base.Rng`; the search plays it in its playouts.

Everything here is pure: no I/O, no clock, no global randomness, and no ``hash()``-ordered
iteration over strings (``PYTHONHASHSEED`` differs between processes, and a bot must decide the
same in every process given the same view and seed).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

from service.games.base import Action, Game, GameError, Outcome, Rng

S = TypeVar("S")


class Knowledge(ABC, Generic[S]):
    """One game's sense for the bots (see the module)."""

    game_id: str
    """The :attr:`Game.id` this knowledge is for."""
    search_scale: float = 1.0
    """Multiplies the search's iteration budgets: below 1 for a game whose playouts cost more,
    so each level keeps its decision time (``bench/bots.py`` measures it)."""
    playout_scale: float = 1.0
    """Multiplies the plies a playout plays past the tree: above 1 for a game whose turns hold many
    steps, so a playout reaches the end of the turn before the evaluation judges it (a position
    scored in the middle of a turn, goods bought but not yet delivered, misleads the search)."""

    @abstractmethod
    def sample(self, game: Game[S], view: Mapping[str, Any], seat: int, rng: Rng,
               legal: Sequence[Action] = ()) -> S:
        """A whole state that ``seat`` cannot tell from the true one: ``game.view(state, seat)``
        equals ``view`` and ``game.legal_actions(state, seat)`` equals ``legal``, the seat's legal
        actions (which a seat is shown beside its view, and which may settle bookkeeping the view
        does not print), undo aside: the sample has no undo trail, and bots never undo. Hidden parts are drawn with ``rng`` from what the view leaves possible."""

    @abstractmethod
    def evaluate(self, game: Game[S], state: S) -> list[float]:
        """Per seat, how well it stands in a running game, from 0 (surely last) to 1 (surely
        first). Only relative values matter to the search; a finished game is scored by
        :func:`outcome_value` instead."""

    @abstractmethod
    def heuristic(self, game: Game[S], state: S, seat: int, legal: Sequence[Action], rng: Rng) -> Action:
        """What a sensible player does now: one of ``legal`` (never empty), chosen by game
        knowledge, cheap enough to play thousands of times a second in playouts."""

    def rollout(self, game: Game[S], state: S, seat: int, legal: Sequence[Action], rng: Rng) -> Action:
        """The search's playout policy; the heuristic unless a game has a cheaper one."""
        return self.heuristic(game, state, seat, legal, rng)


def outcome_value(outcome: Outcome) -> list[float]:
    """A finished game's value per seat in ``[0, 1]``: 1 for a sole winner, 0 for the last, shared
    ranks share the value (a tie for first is worth less than a win, more than second place)."""
    n = len(outcome.ranks)
    if n < 2:
        return [1.0] * n
    out = []
    for rank in outcome.ranks:
        tied = sum(1 for r in outcome.ranks if r == rank)
        # the mean of the places the tied seats occupy (rank .. rank + tied - 1), 1 = first, n = last
        place = rank + (tied - 1) / 2
        out.append((n - place) / (n - 1))
    return out


def margin_value(scores: Sequence[float], scale: float) -> list[float]:
    """Per seat, a value in ``(0, 1)`` from running scores: a logistic of the seat's lead over
    the best other seat, ``scale`` being the lead that makes a win about three times as likely as
    not. The evaluations of the games build on this."""
    out = []
    for i, mine in enumerate(scores):
        best_other = max((s for j, s in enumerate(scores) if j != i), default=mine)
        out.append(1.0 / (1.0 + math.exp(-(mine - best_other) / scale)))
    return out


class Greedy(Knowledge[S]):
    """Knowledge whose heuristic looks one step ahead: each legal action is applied to the sampled
    state and the one whose result :meth:`estimate` values most for the acting seat is played.

    A game then gives its :meth:`estimate` (what each seat's final score is likely to be, in
    points, counting what is built, held and still to come, not only what is banked) and the
    :attr:`scale` of a lead that matters; :meth:`evaluate` is the logistic of the lead over the best
    rival (:func:`margin_value`). :meth:`prior` lets a game nudge the choice with what a look at
    one step cannot see (a bonus for an action that opens a better next step, say). A step that
    draws at random is judged on one draw of the heuristic's own stream: the search averages over
    many."""

    scale: float = 5.0
    """The lead (in the estimate's points) that makes a win about three times as likely as not."""

    @abstractmethod
    def estimate(self, game: Game[S], state: S) -> list[float]:
        """Each seat's likely final score in a running game (the game's own points)."""

    def prior(self, game: Game[S], state: S, seat: int, action: Action) -> float:
        """Points added to the estimate after ``action`` when the heuristic compares steps."""
        return 0.0

    def evaluate(self, game: Game[S], state: S) -> list[float]:
        return margin_value(self.estimate(game, state), self.scale)

    def heuristic(self, game: Game[S], state: S, seat: int, legal: Sequence[Action], rng: Rng) -> Action:
        best: Action = legal[0]
        best_value = -math.inf
        for action in legal:
            try:
                after = game.apply(state, seat, action, rng).state
            except GameError:  # a legal step that a sampled state cannot take: never chosen
                continue
            outcome = game.outcome(after)
            if outcome is not None:
                value = 1e6 * outcome_value(outcome)[seat]
            else:
                scores = self.estimate(game, after)
                rival = max((s for i, s in enumerate(scores) if i != seat), default=0.0)
                value = scores[seat] - rival + self.prior(game, state, seat, action)
            value += rng.randbelow(1000) * 1e-6  # ties broken by the stream, never by list order alone
            if value > best_value:
                best, best_value = action, value
        return dict(best)
