"""The search bot: information-set Monte Carlo tree search over the Game protocol.

Each decision runs a fixed number of *iterations* (so the same view and stream always give the
same choice, on any machine and under any load). One iteration:

1. **Determinise**: draw a whole state the seat cannot tell from the true one
   (:meth:`Knowledge.sample`); the search never sees the true hidden state, only samples of
   what the seat's view leaves possible. This is single-observer information-set MCTS (Cowling,
   Powley and Whitehouse, "Information Set Monte Carlo Tree Search", 2012): one tree over
   actions, shared by every sample.
2. **Select** down the tree by UCB1 among the children whose actions are legal in this sample,
   counting a child's *availability* (how often it could have been chosen) instead of its
   parent's visits, as ISMCTS does for actions that exist in some samples only.
3. **Expand** one new action. The first action tried at a node is the heuristic's, so the
   search starts from the heuristic's plan and spends its budget testing the alternatives;
   progressive widening (at most ``1 + widen * visits ** 0.5`` children) keeps it from
   spreading thin where a position has dozens of legal steps.
4. **Play out** a bounded number of plies with :meth:`Knowledge.rollout`, then score the
   position: the outcome when the game is over, else :meth:`Knowledge.evaluate` (games here
   last hundreds of plies, far more than a playout can afford).
5. **Back up** each seat's value into the nodes of the actions that seat chose (the tree is
   multi-player: every node is judged by the seat that acted).

The move chosen is the root action visited most often. Chance (dice, shuffles) is sampled
afresh in every iteration from a stream derived from the bot's own, so the tree is "open
loop": it learns which actions are good on average over what the dice may do.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.bots.knowledge import Knowledge, outcome_value
from service.bots.policy import Policy
from service.games.base import Action, Game, GameError, Rng
from service.games.undo import without_undo


@dataclass(frozen=True)
class Budget:
    """How hard one decision searches.

    ``iterations`` is the number of playouts (the game's :attr:`Knowledge.search_scale`
    multiplies it, since a playout of one game costs more than another's); ``depth`` the plies
    a playout plays past the tree before it asks the evaluation (times the game's
    :attr:`Knowledge.playout_scale`: a game of long turns plays further); ``exploration`` UCB1's
    constant (values are in [0, 1]); ``widen`` the progressive-widening factor; ``bias`` the
    head start of the heuristic's own step (progressive bias, Chaslot et al. 2008: worth
    ``10 * bias / (1 + visits)`` in the selection, so an alternative must prove itself)."""

    iterations: int
    depth: int
    exploration: float = 0.3
    widen: float = 1.0
    bias: float = 0.1


LEVELS: Mapping[str, Budget] = {
    "easy": Budget(iterations=30, depth=6),
    "medium": Budget(iterations=100, depth=8),
    "hard": Budget(iterations=240, depth=10),
}
"""The strength levels; a level's decision time is reported by ``bench/bots.py``."""


class _Node:
    """One action in the tree: who took it, how often it was tried and available, and the
    value its seat got from it (summed)."""

    __slots__ = ("action", "avail", "children", "prior", "seat", "value", "visits")

    def __init__(self, action: Action | None, seat: int, prior: float = 0.0) -> None:
        self.action = action
        self.seat = seat
        self.prior = prior
        self.children: dict[str, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.value = 0.0


def _key(action: Mapping[str, Any]) -> str:
    """An action's canonical text: the tree's key for it."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def search(knowledge: Knowledge[Any], game: Game[Any], view: Mapping[str, Any], seat: int,
           legal: Sequence[Action], rng: Rng, budget: Budget) -> Action:
    """The search bot's choice for ``seat`` from its ``view`` (see the module). Deterministic
    given ``rng``; one of ``legal``."""
    if not legal:
        raise ValueError(f"seat {seat} has no legal action")
    if len(legal) == 1:
        return dict(legal[0])
    root_keys = {_key(a): a for a in legal}
    # every iteration's chance and samples come from one key drawn from the bot's stream
    secret = hashlib.sha256(b"".join(rng.randbelow(1 << 62).to_bytes(8, "big") for _ in range(4))).digest()
    root = _Node(None, seat)
    iterations = max(1, round(budget.iterations * knowledge.search_scale))
    depth = max(1, round(budget.depth * knowledge.playout_scale))
    for i in range(iterations):
        it_rng = Rng.derive(secret, f"iteration:{i}")
        state = knowledge.sample(game, view, seat, it_rng, legal)
        path = [root]
        node = root
        # selection and expansion
        while game.outcome(state) is None:
            actor = game.active_seats(state)[0]
            moves = legal if node is root else without_undo(game.legal_actions(state, actor))
            keyed = list(root_keys.items()) if node is root else [(_key(a), a) for a in moves]
            present = [(k, a) for k, a in keyed if k in node.children]
            for k, _ in present:
                node.children[k].avail += 1
            allowed = 1 + budget.widen * math.sqrt(node.visits)
            # widen while allowed, and always when no child of this node is legal in this sample
            if len(present) < len(keyed) and (not present or len(node.children) < allowed):
                untried = [(k, a) for k, a in keyed if k not in node.children]
                if not node.children:
                    # the heuristic's step first: the search refines its plan
                    pick = knowledge.rollout(game, state, actor, moves, it_rng)
                    k_pick = _key(pick)
                    choice = next(((k, a) for k, a in untried if k == k_pick), untried[0])
                else:
                    choice = untried[it_rng.randbelow(len(untried))]
                # progressive bias: the heuristic's step keeps a head start that fades with visits
                child = _Node(choice[1], actor, budget.bias if not node.children else 0.0)
                child.avail = 1
                node.children[choice[0]] = child
                path.append(child)
                state = _step(game, state, actor, choice[1], it_rng)
                break
            best = max(present, key=lambda ka: _ucb(node.children[ka[0]], budget.exploration))
            node = node.children[best[0]]
            path.append(node)
            after = _step(game, state, actor, best[1], it_rng)
            if after is state:
                break
            state = after
        # playout
        for _ in range(depth):
            if game.outcome(state) is not None:
                break
            actor = game.active_seats(state)[0]
            moves = without_undo(game.legal_actions(state, actor))
            step = moves[0] if len(moves) == 1 else knowledge.rollout(game, state, actor, moves, it_rng)
            after = _step(game, state, actor, step, it_rng)
            if after is state:
                break
            state = after
        outcome = game.outcome(state)
        values = outcome_value(outcome) if outcome is not None else knowledge.evaluate(game, state)
        for n in path:
            n.visits += 1
            n.value += values[n.seat]
    best_key = max(root.children, key=lambda k: (root.children[k].visits, root.children[k].value))
    return dict(root_keys[best_key])


def _step(game: Game[Any], state: Any, seat: int, action: Action, rng: Rng) -> Any:
    """``action`` applied, or the state unchanged where a sample cannot take a step the true
    position allows (a sample can only be as exact as the view: the playout then scores the
    position before the step)."""
    try:
        return game.apply(state, seat, action, rng).state
    except GameError:
        return state


def _ucb(node: _Node, c: float) -> float:
    """UCB1 with availability counts (ISMCTS): a child seldom legal is not over-explored."""
    if node.visits == 0:
        return math.inf
    return (node.value / node.visits + c * math.sqrt(math.log(max(node.avail, 1)) / node.visits)
            + node.prior / (1 + node.visits) * 10)


def search_policy(knowledge: Knowledge[Any], budget: Budget) -> Policy:
    """The search bot of one game at one budget, as a :class:`~service.bots.policy.Policy`."""

    def decide(game: Game[Any], view: Mapping[str, Any], seat: int, legal: Sequence[Action], rng: Rng) -> Action:
        return search(knowledge, game, view, seat, legal, rng, budget)

    return decide
