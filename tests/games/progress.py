"""A progress harness: deterministic and "sticky" policies that try to keep a game from ending.

Random playouts end almost surely even when a game has a cycle, because a random policy leaves
it sooner or later. A deterministic policy does not: if the position repeats, it repeats for
ever. The harness plays such policies and reports the first repeated state digest (a cycle the
policy can follow without end) or the action budget running out (no end within the bound the
game's rules give).

Policies (each a function of the legal list, the seat's history and a seeded stream):

* ``first`` / ``last``: always the first / last legal action;
* ``sticky-N``: a seeded preference for actions that do not end anything (no ``end-turn``,
  ``pass`` or settling action while something else is legal), that repeat the type of the
  previous action, and, among those, a fixed seeded order;
* ``least-change-N``: the action whose resulting state differs least from the current one
  (fewest changed top-level keys of ``dump``), ties by a seeded order; this finds undo cycles
  and back-and-forth moves;
* ``revisit-N``: prefers an action that leads back to a state seen before (the policy a
  tester writes to hunt cycles), else the seeded sticky choice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.games.base import Action, Game, Rng
from service.games.undo import without_undo

ENDING_TYPES = frozenset({"end-turn", "pass", "settle-loan", "choose-start-player", "done", "finish"})


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def digest(game: Game[Any], state: Any) -> str:
    """A short digest of the whole state (hidden parts included)."""
    return hashlib.sha256(canon(game.dump(state)).encode()).hexdigest()[:20]


@dataclass
class Result:
    """How one deterministic playout went."""

    ended: bool
    steps: int
    repeated_at: int | None = None
    """Step at which a state digest repeated (a cycle), if it did."""
    first_seen: int | None = None
    cycle: list[tuple[int, Action]] | None = None
    """The (seat, action) steps between the two visits of the repeated state."""


Policy = Callable[[Game[Any], Any, int, list[Action], Rng, set[str]], Action]


def _key(action: Mapping[str, Any], salt: str) -> str:
    return hashlib.sha256((salt + canon(action)).encode()).hexdigest()


def first(game: Game[Any], state: Any, seat: int, legal: list[Action], rng: Rng, seen: set[str]) -> Action:
    return legal[0]


def last(game: Game[Any], state: Any, seat: int, legal: list[Action], rng: Rng, seen: set[str]) -> Action:
    return legal[-1]


def sticky(salt: str) -> Policy:
    """Prefer actions that end nothing; among them a fixed seeded order."""

    def policy(game: Game[Any], state: Any, seat: int, legal: list[Action], rng: Rng, seen: set[str]) -> Action:
        keep = [a for a in legal if a.get("type") not in ENDING_TYPES] or legal
        return min(keep, key=lambda a: _key(a, salt))

    return policy


def least_change(salt: str) -> Policy:
    """The action whose result changes the fewest top-level parts of the state."""

    def policy(game: Game[Any], state: Any, seat: int, legal: list[Action], rng: Rng, seen: set[str]) -> Action:
        before = game.dump(state)

        def cost(a: Action) -> tuple[int, str]:
            try:
                after = game.dump(game.apply(state, seat, a, Rng.from_seed(salt)).state)
            except Exception:  # a stochastic or refused probe: rank it last
                return (10**6, _key(a, salt))
            return (_diff(before, after), _key(a, salt))

        return min(legal, key=cost)

    return policy


def revisit(salt: str) -> Policy:
    """Prefer an action that leads back to a state seen before; else the sticky choice."""
    fallback = sticky(salt)

    def policy(game: Game[Any], state: Any, seat: int, legal: list[Action], rng: Rng, seen: set[str]) -> Action:
        for a in sorted(legal, key=lambda a: _key(a, salt)):
            try:
                nxt = game.apply(state, seat, a, Rng.from_seed(salt)).state
            except Exception:
                continue
            if digest(game, nxt) in seen:
                return a
        return fallback(game, state, seat, legal, rng, seen)

    return policy


def _diff(a: Any, b: Any) -> int:
    if isinstance(a, dict) and isinstance(b, dict):
        return sum(_diff(a.get(k), b.get(k)) for k in set(a) | set(b))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return sum(_diff(x, y) for x, y in zip(a, b, strict=True))
    return 0 if a == b else 1


def policies(seeds: range) -> dict[str, Policy]:
    """The named policies: first, last, and the seeded sticky, least-change and revisit ones."""
    out: dict[str, Policy] = {"first": first, "last": last}
    for s in seeds:
        out[f"sticky-{s}"] = sticky(f"sticky-{s}")
        out[f"least-change-{s}"] = least_change(f"least-change-{s}")
        out[f"revisit-{s}"] = revisit(f"revisit-{s}")
    return out


def play(game: Game[Any], players: int, options: Mapping[str, Any], policy: Policy, *,
         seed: str = "progress", budget: int = 20_000, stop_on_repeat: bool = True,
         on_step: Callable[[Any, int, Action], None] | None = None) -> Result:
    """Play ``policy`` for every seat until the game ends, a state repeats or ``budget`` runs out.

    Dice come from the stream of the ply (as in the service), so a repeated digest with a
    deterministic policy is a cycle the policy would follow again whenever the dice allow.
    """
    state = game.setup(players, game.validate_options(dict(options)), Rng.from_seed(f"setup/{seed}")).state
    seen: dict[str, int] = {digest(game, state): 0} if stop_on_repeat else {}
    trail: list[tuple[int, Action]] = []
    steps = 0
    while True:
        active = game.active_seats(state)
        if not active:
            return Result(True, steps)
        if steps >= budget:
            return Result(False, steps)
        seat = active[0]
        legal = without_undo(game.legal_actions(state, seat))
        action = policy(game, state, seat, legal, Rng.from_seed(f"{seed}/policy/{steps}"), set(seen))
        if on_step is not None:
            on_step(state, seat, action)
        state = game.apply(state, seat, action, Rng.from_seed(f"{seed}/{steps}")).state
        steps += 1
        if not stop_on_repeat:
            continue
        trail.append((seat, action))
        d = digest(game, state)
        if d in seen:
            return Result(False, steps, steps, seen[d], trail[seen[d]:])
        seen[d] = steps
