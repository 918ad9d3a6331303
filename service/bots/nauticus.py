"""What the bots know of Nauticus (Kramer & Kiesling).

Nauticus hides nothing (its spec §10.1: every stack, tile and good is open; the round's action
tiles are shuffled and laid in one step), so a seat's view is the whole position: :meth:`sample`
rebuilds the state from it and draws nothing. The few counters the view does not print are
derived from what it does: the game phase from the round and phase, and how many turns of the
current phase are over from the chooser and whose turn it is.

The estimate counts what a seat will score at the end (spec §8): its VP track, completed ships
by size, delivered goods by group, and every thaler (left-overs included) at three to the VP;
and, since a ship is worth nothing until it is complete, the part of a finished ship's VP that an
unfinished one has already earned, weighed by the phases left to finish it.

**Whose numbers.** The VP tables, the thaler rate and the game length come from the package the
game itself came from (:class:`Numbers`): an edition's bound copy plays its own (docs/editions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from service.bots.knowledge import Greedy
from service.games.base import Action, Game, Rng
from service.games.editions import rules_module

# the shape of a hull (which pieces close it, where the sails sit), no number an edition changes
from service.games.nauticus.ships import is_closed, is_complete
from service.games.nauticus.state import Player, State

_VIEW_ONLY_PLAYER_FIELDS = ("seat", "name", "crowns", "warehouse_used", "complete_ships")


@dataclass(frozen=True)
class Numbers:
    """What the bot reads of one edition of Nauticus: the shipped data or an edition's."""

    ship_vp: Mapping[int, int]
    """A complete ship's VP by its size."""
    biggest: int
    """The largest ship size the VP table knows."""
    goods_group_vp: Callable[[int], int]
    """VP for a number of delivered goods of one type."""
    leftover_thaler: int
    """Thaler each left-over worker, tile and unused piece is worth at the end."""
    thaler_per_vp: int
    rounds: Mapping[int, int]
    """Rounds by player count."""
    phases_per_round: int
    rewards: tuple[str, ...]
    """The completed-ship reward options, in the order the state keeps them."""
    stacks: tuple[str, ...]
    """The open supply stacks, in the order the state keeps them."""


def numbers(game: Game[State]) -> Numbers:
    """The :class:`Numbers` ``game`` plays with (built once per package: the shipped one, or an
    edition's bound copy)."""
    return _numbers(rules_module(game, "data"))


@cache
def _numbers(data: ModuleType) -> Numbers:
    return Numbers(ship_vp=data.SHIP_VP, biggest=max(data.SHIP_VP), goods_group_vp=data.goods_group_vp,
                   leftover_thaler=data.LEFTOVER_THALER, thaler_per_vp=data.THALER_PER_VP,
                   rounds=data.ROUNDS, phases_per_round=data.PHASES_PER_ROUND,
                   rewards=tuple(data.REWARDS), stacks=tuple(data.STACKS))


def _exec(view_exec: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An action in progress, as the state keeps it (the view says ``blue_left`` and adds prices)."""
    if view_exec is None:
        return None
    return {"action": view_exec["action"], "space": view_exec["space"], "blue": view_exec["blue_left"],
            "units": view_exec["units"], "bought": list(view_exec["bought"]), "crown_vp": view_exec["crown_vp"]}


def state_of_view(game: Game[State], view: Mapping[str, Any]) -> State:
    """The whole state a Nauticus view shows (everything is public)."""
    known = numbers(game)
    n = len(view["players"])
    turn = view["turn"]
    state_turn: dict[str, Any] | None = None
    if turn is not None:
        rewards = turn["rewards"]
        state_turn = {
            "seat": turn["seat"], "normal": _exec(turn["normal"]), "extra": _exec(turn["extra"]),
            "extra_used": turn["extra_used"], "closing": turn["closing"],
            "rewards": None if rewards is None else {
                "ship": rewards["ship"], "left": rewards["left"], "taken": [rewards["taken"][r] for r in known.rewards]},
            "free_item": turn["free_item"],
        }
    # the turns of this phase run clockwise from the chooser (flow.fresh_turn / end_turn)
    taken = (turn["seat"] - view["chooser"]) % n if view["step"] == "turn" and turn is not None else 0
    return game.load({
        "players": [{k: v for k, v in p.items() if k not in _VIEW_ONLY_PLAYER_FIELDS} for p in view["players"]],
        "supply": [view["supply"][s] for s in known.stacks],
        "round": view["round"],
        "phase": view["phase"],
        "game_phase": (view["round"] - 1) * view["phases_per_round"] + view["phase"],
        "anchor": view["anchor"],
        "layout": [s["action"] for s in view["spaces"]],
        "face_down": [s["face_down"] for s in view["spaces"]],
        "anchor_tile": view["anchor_tile"],
        "step": view["step"],
        "chooser": view["chooser"],
        "space": view["current_space"],
        "turns_taken": taken,
        "bonus": view["pending_bonus"],
        "turn": state_turn,
    })


def _ship_promise(known: Numbers, ship: Any, phases_left: int) -> float:
    """VP an unfinished ship has earned towards its completion: the finished ship's VP times the
    share of its tiles in place (hull pieces, masts, sails), less as the phases to finish it run
    out. A closed hull knows its size; an open one is counted one piece longer."""
    size = len(ship) if is_closed(ship) else min(len(ship) + 1, known.biggest)
    placed = sum(1 + (h.mast is not None) + (h.sail is not None) for h in ship)
    share = placed / (3 * size)
    hurry = min(1.0, phases_left / 6)
    return known.ship_vp.get(size, known.ship_vp[known.biggest]) * share * share * hurry


def player_estimate(known: Numbers, p: Player, phases_left: int) -> float:
    """One player's likely final VP (see the module), by the game's ``known`` numbers."""
    vp = float(p.vp)
    thaler = p.thaler + p.workers * known.leftover_thaler + len(p.warehouse) * known.leftover_thaler
    for ship in p.ships:
        if is_complete(ship):
            vp += known.ship_vp[len(ship)]
            thaler += sum(1 for h in ship if h.good is not None) * known.leftover_thaler
        else:
            thaler += sum(1 + (h.mast is not None) + (h.sail is not None) + (h.good is not None)
                          for h in ship) * known.leftover_thaler
            vp += _ship_promise(known, ship, phases_left)
    vp += sum(known.goods_group_vp(n) for n in p.delivered)
    # workers and tiles are worth more than a thaler while there is time to use them
    vp += (p.workers * 0.5 + len(p.warehouse) * 0.3) * min(1.0, phases_left / 6)
    return vp + thaler / known.thaler_per_vp


class NauticusKnowledge(Greedy[State]):
    """Nauticus for the bots (see the module)."""

    game_id = "nauticus"
    scale = 4.0

    def sample(self, game: Game[State], view: Mapping[str, Any], seat: int, rng: Rng,
               legal: Sequence[Action] = ()) -> State:
        return state_of_view(game, view)

    def estimate(self, game: Game[State], state: State) -> list[float]:
        known = numbers(game)
        total = known.rounds[len(state.players)] * known.phases_per_round
        left = max(0, total - state.game_phase)
        return [player_estimate(known, p, left) for p in state.players]

    def prior(self, game: Game[State], state: State, seat: int, action: Action) -> float:
        return 0.0


KNOWLEDGE = NauticusKnowledge()
