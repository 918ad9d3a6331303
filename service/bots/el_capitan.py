"""What the bots know of El Capitán (Kramer & Rösner).

**What a seat cannot see.** Hands, loans, money and supplies are public (R-25); only the order of
the two draw decks is hidden, and the view shows their sizes. :meth:`sample` rebuilds the state
from the view and deals the cards seen nowhere (not in a hand, a display or a discard pile) into
the decks in a random order.

A few counters of the state are bookkeeping the view does not print; they are derived, and where
the view cannot settle them the sample takes the nearest consistent value:

* the turn-start snapshot that tentative steps keep (R-1), and whether the turn was already
  undone once from a dead end: a turn that has sailed or moved the pirate before its action holds
  a snapshot; a bought card leaves no mark in the view, and neither does an undo, so the seat's
  legal actions pick the reading that offers exactly them. The sample keeps the position itself
  as the snapshot, so a simulated loan turn or dead-end pass keeps the tentative steps instead of
  undoing them;
* a city's shut-down count (only whether it is zero matters to the rules): the shut-down spaces
  its track has passed, or its closed warehouses (in Porto, those removed from the game);
* the loan settlement's progress: the seat's position from the start player, and the loan to
  settle from the ``settle-loan`` action the seat is offered.

**What a position is worth.** Money is the score (R-16). The estimate is the seat's net worth
(cash less what its loans cost to repay) plus what the board pays it: this phase's payday income
as the board stands now (proliferation, majorities, fortresses: ``payday.income``), counted once
for each payday still to come, the later ones discounted because the board will change.

**Whose numbers.** A match may play an edition's data (docs/editions.md), whose game is a copy of
the rules package with the edition's constants. The card ids, colours, phases and payday sums
the bot uses are taken from the package the game itself came from (:class:`Numbers`), never
from the shipped modules imported here for their types and stage constants.
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
from service.games.el_capitan.state import BANK, FREE, OFF, PIRATE, Player, State
from service.games.undo import without_undo


@dataclass(frozen=True)
class Numbers:
    """What the bot reads of one edition of El Capitán: the shipped data or an edition's."""

    destinations: tuple[str, ...]
    """The destination cards' ids, sorted (the deck a sample deals the unseen ones into)."""
    connections: tuple[str, ...]
    """The connection cards' ids, sorted."""
    colours: tuple[str, ...]
    """The colours in the order the state numbers them."""
    phases: int
    """Phases in a game, each ending in a payday."""
    income: Callable[[State], list[dict[str, Any]]]
    """The payday income of the board as it stands (``payday.income``: tracks, chart, fortresses)."""
    net_worth: Callable[[Player], int]
    """Cash less what the loans cost to repay (``payday.net_worth``: the loan cards' values)."""


def numbers(game: Game[State]) -> Numbers:
    """The :class:`Numbers` ``game`` plays with (built once per package: the shipped one, or an
    edition's bound copy)."""
    return _numbers(rules_module(game, "data"), rules_module(game, "payday"))


@cache
def _numbers(data: ModuleType, payday: ModuleType) -> Numbers:
    cards = data.CARDS
    return Numbers(destinations=tuple(sorted(c for c, d in cards.items() if d.kind == "destination")),
                   connections=tuple(sorted(c for c, d in cards.items() if d.kind == "connection")),
                   colours=tuple(data.COLOURS), phases=data.PHASES,
                   income=payday.income, net_worth=payday.net_worth)


def _place(where: str, city_ids: Sequence[str]) -> int:
    if where == "bank":
        return BANK
    if where == "off-board":
        return OFF
    return city_ids.index(where)


def _unseen(kind: tuple[str, ...], view: Mapping[str, Any], key: str) -> list[str]:
    """The cards of one deck the view shows nowhere: they are in the deck, in an unknown order."""
    seen = {*view["displays"][key], *view["discards"][key], *(c for p in view["players"] for c in p["hand"])}
    return [c for c in kind if c not in seen]


def state_of_view(game: Game[State], view: Mapping[str, Any], rng: Rng, legal: Sequence[Action] = ()) -> State:
    """A whole El Capitán state consistent with ``view`` (see the module); the decks drawn with ``rng``."""
    known = numbers(game)
    city_ids = [c["id"] for c in view["cities"]]
    colours = known.colours
    colour = {c: i for i, c in enumerate(colours)}
    players = []
    for p in view["players"]:
        players.append({
            "money": p["money"], "ship": _place(p["ship"], city_ids),
            "berth": p["harbour"] - 1 if p["harbour"] else -1, "hand": list(p["hand"]),
            "loans": [[ln["amount"], ln["extended"]] for ln in p["loans"]],
            "warehouses": p["supply"]["warehouses"], "neutral": p["supply"].get("neutral_warehouses", 0),
            "fortresses": p["supply"]["fortresses"], "bonus": p["bonus_card"] or 0,
        })
    removed = view["removed_in_porto"]
    cities = []
    for c in view["cities"]:
        closed = [c["closed"].get(col, 0) for col in colours]
        gone = sum(removed.values()) if c["id"] == "porto" else 0
        # each forward placement on a shut-down space shut one warehouse (track.place); the track
        # only ever reaches its highest site forwards
        hi = max((i + 1 for i, x in enumerate(c["sites"]) if x is not None), default=0)
        passed = sum(1 for k in c["shutdown_sites"] if k <= hi)
        cities.append({
            "sites": [colour[x] if x is not None else FREE for x in c["sites"]],
            "closed": closed,
            "harbours": [FREE if h["ship"] is None else PIRATE if h["ship"] == "pirate" else h["ship"]
                         for h in c["harbours"]],
            "forts": [colour[f["colour"]] if f["colour"] is not None else FREE for f in c["fortresses"]],
            "shutdowns": max(sum(closed) + gone, passed),
        })
    dest = rng.shuffled(_unseen(known.destinations, view, "destination"))
    conn = rng.shuffled(_unseen(known.connections, view, "connection"))
    t = view["turn"]
    seat = view["active_seat"] if view["active_seat"] is not None else view["start_player"]
    me = players[seat]
    pirate_transit = city_ids.index(t["pirate_in_transit"]) if t["pirate_in_transit"] else -1
    canarias = city_ids.index("canarias") if "canarias" in city_ids else -1
    turn: dict[str, Any] = {
        "origin": _place(t["origin"], city_ids), "sailed": t["sailed"], "acted": t["action_done"],
        "pirate_moved": t["pirate_moved"],
        # the free pirate move follows a voyage into Canarias
        "free_pirate": t["pirate_moved"] and t["sailed"] and me["ship"] == canarias >= 0,
        "snapshot": None, "pirate_transit": pirate_transit, "undone": False,
    }
    settle = next((a for a in legal if a.get("type") == "settle-loan"), None)
    n = len(players)
    data: dict[str, Any] = {
        "players": players, "city_ids": city_ids, "cities": cities,
        "dest_deck": dest, "dest_display": list(view["displays"]["destination"]),
        "dest_discard": list(view["discards"]["destination"]),
        "conn_deck": conn, "conn_display": list(view["displays"]["connection"]),
        "conn_discard": list(view["discards"]["connection"]),
        "pool_warehouses": [view["pool"]["warehouses"][col] for col in colours],
        "pool_fortresses": [view["pool"]["fortresses"][col] for col in colours],
        "removed": [removed.get(col, 0) for col in colours],
        "bonus_left": list(view["bonus_cards_left"]),
        "phase": view["phase"], "round": view["round"], "seat": seat, "start": view["start_player"],
        "ending": view["phase_ending"], "stage": view["stage"], "turn": turn,
        "settle_pos": (seat - view["start_player"]) % n if view["stage"] == "settle" else 0,
        "settle_loan": settle["loan"] if settle is not None else 0,
        "settle_count": len(me["loans"]) if view["stage"] == "settle" else 0,
        "pirate": city_ids.index(view["pirate"]) if view["pirate"] else -1,
    }
    state = game.load(data)
    if view["stage"] != "turn" or t["action_done"]:
        return state
    # tentative steps keep a snapshot and a turn undone once is marked, neither of which the
    # view shows: the position itself stands in for the turn start, and the seat's own legal
    # actions tell which of the readings is the position (a bought card leaves no other mark)
    held = state._replace(turn=state.turn._replace(snapshot=state))
    readings = [held, state] if t["sailed"] or t["pirate_moved"] else [state, held]
    readings += [r._replace(turn=r.turn._replace(undone=True)) for r in readings]
    if legal:
        want = without_undo(legal)  # a reading has no undo trail: the view does not show one
        for reading in readings:
            if without_undo(game.legal_actions(reading, seat)) == want:
                return reading
    return readings[0]


class ElCapitanKnowledge(Greedy[State]):
    """El Capitán for the bots (see the module)."""

    game_id = "el-capitan"
    scale = 25.0
    search_scale = 0.3  # a step costs about four times one of Nauticus: fewer playouts, the same time

    def sample(self, game: Game[State], view: Mapping[str, Any], seat: int, rng: Rng,
               legal: Sequence[Action] = ()) -> State:
        return state_of_view(game, view, rng, legal)

    def estimate(self, game: Game[State], state: State) -> list[float]:
        known = numbers(game)
        paydays = max(0, known.phases - state.phase + (0 if state.stage in ("settle", "over") else 1))
        # this phase's payday pays the board nearly as it stands; later ones less surely
        weight = 0.0 if paydays == 0 else 1.0 + 0.6 * (paydays - 1)
        pay = known.income(state)
        return [known.net_worth(p) + weight * pay[s]["total"] for s, p in enumerate(state.players)]


KNOWLEDGE = ElCapitanKnowledge()
