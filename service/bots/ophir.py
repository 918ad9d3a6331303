"""What the bots know of Ophir (Terra Nova Games).

**What a seat cannot see** (the view's own list, spec §10): the order of the market deck below the
face-up future card, the five A cards removed unseen, the map tokens before the reveal, the
market cards before the draft ends, the specialists passed in a draft it has not seen yet, and
every other seat's VP (face-down VP cards). :meth:`sample` rebuilds the rest from the view and
draws these:

* the market: the cards seen nowhere (not on a stand, the future card or the discard pile) are
  shuffled, A cards and B cards apart, and dealt as the setup deals them: the removed cards from
  the A cards, then the deck with the A cards stacked on the B cards;
* the map tokens (before the reveal): a random order;
* a draft hand the seat has not seen: drawn from the specialists nobody holds (before the draft,
  while the barriers are placed, the whole deal);
* the other seats' VP: the VP the table has visibly earned (the temple's metals at their
  donation VP, and half the discarded cards' favor VP for the goods donated to them) less the
  seat's own, shared among the others at random. This is the roughest part of a sample: the
  view keeps no record of who donated what, and a player who remembers does better.

**What a position is worth.** VP decide (metals left in a hold score too). The estimate adds to
a seat's VP what its holdings are likely to turn into while the game lasts: metals at their
donation VP (or left-over VP at the end), favor and coins at what they buy, and basic goods at
what a sale or a goods donation brings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.bots.knowledge import Greedy
from service.games.base import Action, Game, Rng
from service.games.ophir.data import (
    CARDS,
    CUBES,
    DECK_A,
    DECK_B,
    DONATION_VP,
    DRAFT_EXTRA,
    FAVOR_PRICE,
    HEXES,
    LEFTOVER_VP,
    MAP_TOKENS,
    METAL_SPACES,
    SPECIALISTS,
    open_neighbours,
)
from service.games.ophir.state import BARRIERS, OVER, State

_A = tuple(sorted(c.id for c in DECK_A))
_B = tuple(sorted(c.id for c in DECK_B))
_METAL_VP = (DONATION_VP["gold"] + DONATION_VP["silver"]) / 2


def _market(view: Mapping[str, Any], rng: Rng) -> dict[str, Any]:
    """The market's cards: the seen ones where the view shows them, the unseen ones dealt at random."""
    market = view["market"]
    seen = {c["id"] for c in market["discard"]}
    if market["revealed"]:
        seen |= {c["id"] for c in market["demand"] if c is not None}
        if market["future"] is not None:
            seen.add(market["future"]["id"])
    unseen_a = rng.shuffled([c for c in _A if c not in seen])
    unseen_b = rng.shuffled([c for c in _B if c not in seen])
    r = market["removed_unseen"]
    removed, pool = unseen_a[:r], unseen_a[r:] + unseen_b
    if market["revealed"]:
        demand = [c["id"] if c is not None else None for c in market["demand"]]
        future = [market["future"]["id"]] if market["future"] is not None else []
        deck = future + pool[:market["face_down"]]
    else:
        stands = len(market["demand"])
        demand, deck = pool[:stands], pool[stands:stands + market["face_down"]]
    return {"deck": deck, "removed": removed, "demand": demand,
            "discard": [c["id"] for c in market["discard"]], "modifiers": list(market["modifiers"]),
            "merchant": market["merchant"], "market_revealed": market["revealed"]}


def _others_vp(view: Mapping[str, Any], seat: int, rng: Rng) -> dict[int, int]:
    """The other seats' VP, drawn around what the table has visibly earned (see the module)."""
    temple = view["temple"]
    metals = sum(DONATION_VP[m] for m in temple["metals"]) + temple["completed"] * METAL_SPACES * _METAL_VP
    goods = sum(c["favor_vp"] for c in view["market"]["discard"]) / 2
    mine = next((p.get("vp", 0) for p in view["players"] if p["seat"] == seat), 0)
    others = [p["seat"] for p in view["players"] if p["seat"] != seat]
    left = max(0, round(metals + goods) - mine)
    weights = [1 + rng.randbelow(4) for _ in others]
    return {s: left * w // sum(weights) for s, w in zip(others, weights, strict=True)}


def state_of_view(game: Game[State], view: Mapping[str, Any], seat: int, rng: Rng) -> State:
    """A whole Ophir state consistent with ``view`` (see the module); hidden parts drawn with ``rng``."""
    revealed = view["map"]["revealed"]
    tokens = [h["token"] for h in view["map"]["hexes"]] if revealed else rng.shuffled(MAP_TOKENS)
    vp = _others_vp(view, seat, rng)
    seats = []
    for p in view["players"]:
        seats.append({"specialist": p["specialist"], "favor": p["favor"], "coins": p["coins"],
                      "vp": p["vp"] if "vp" in p else vp.get(p["seat"], 0), "die": p["die"], "hex": p["hex"],
                      "hold": [p["hold"].get(c, 0) for c in CUBES], "capacity": p["holds"], "upgrades": p["upgrades"]})
    draft = view.get("draft")
    pool: list[str] = []
    order: list[int] = []
    if view["phase"] == BARRIERS:
        # the draft is dealt at setup, face down; it runs counter-clockwise from the starting
        # player's right (setup.new_match)
        n = len(view["players"])
        order = [(view["start_player"] - 1 - k) % n for k in range(n)]
        pool = rng.shuffled([s.id for s in SPECIALISTS])[:n + DRAFT_EXTRA]
    elif draft is not None:
        order = list(draft["order"])
        if draft["offered"] is not None:
            pool = list(draft["offered"])
        else:
            held = {p["specialist"] for p in view["players"] if p["specialist"]}
            pool = rng.shuffled([s.id for s in SPECIALISTS if s.id not in held])[:draft["offered_count"]]
    rival = view["rival"]
    temple = view["temple"]
    data: dict[str, Any] = {
        "options": dict(view["options"]), "phase": view["phase"], "start_player": view["start_player"],
        "active": view["active"] if view["active"] is not None else view["start_player"],
        "tokens": tokens, "revealed": revealed, "barriers": list(view["map"]["barriers"]),
        "draft_pool": pool, "draft_order": order, "returned_specialist": view.get("returned_specialist"),
        **_market(view, rng),
        "tiers": list(temple["tiers"]), "tier": temple["completed"], "temple": list(temple["metals"]),
        "supply": [view["supply"][c] for c in CUBES], "seats": seats,
        "rival": None if rival is None else {"hex": rival["hex"], "die": rival["die"]},
        "turn": view["turn"], "tiles": view["cargo_tiles"], "turns_played": view["turns_played"],
        "end_reason": view["end_reason"],
    }
    return game.load(data)


def _prices(state: State) -> tuple[float, float]:
    """What a coin and a favor are worth in VP now: most of what they buy at the temple's current
    tier (a metal, donated), since that is where both end up."""
    tier = state.current_tier()
    favor = 0.6 * max(DONATION_VP[m] / FAVOR_PRICE[m] for m in ("gold", "silver"))
    if tier is None:
        return 0.3, favor
    coin = 0.7 * max(DONATION_VP["gold"] / max(1, tier.gold_coins), DONATION_VP["silver"] / max(1, tier.silver_coins))
    return coin, favor


def _harbour_value(state: State, p: Any, coin: float) -> float:
    """What the hex a ship lies on offers its owner next (in the estimate's points): a good to
    gather with room in the hold, a demand card its goods fill, a metal its coins buy, metals to
    donate at the temple. A ship bound for the right hex is worth more than one adrift."""
    if p.hex is None or not state.revealed:
        return 0.0
    token = state.tokens[HEXES.index(p.hex)]
    goods = {c: p.hold[k] for k, c in enumerate(CUBES)}
    if token in CUBES:  # a goods hex
        return 0.9 * coin if p.free_space() > 0 and state.supply[CUBES.index(token)] > 0 else 0.0
    if token == "market":
        best = 0.0
        for slot, cid in enumerate(state.demand):
            if cid is None:
                continue
            card = CARDS[cid]
            need: dict[str, int] = {}
            for good in card.goods:
                need[good] = need.get(good, 0) + 1
            if all(goods.get(g, 0) >= k for g, k in need.items()):
                best = max(best, coin * (card.coins + state.modifiers[slot]) - 0.9 * coin * len(card.goods))
        return best
    if token == "metals":
        tier = state.current_tier()
        if tier is None or p.free_space() == 0:
            return 0.0
        if p.coins >= tier.gold_coins:
            return 0.7 * (DONATION_VP["gold"] - LEFTOVER_VP["gold"]) + LEFTOVER_VP["gold"] - coin * tier.gold_coins
        if p.coins >= tier.silver_coins:
            return 0.7 * (DONATION_VP["silver"] - LEFTOVER_VP["silver"]) + LEFTOVER_VP["silver"] - coin * tier.silver_coins
        return 0.0
    if token == "temple":
        return 0.3 * float(goods["gold"] * (DONATION_VP["gold"] - LEFTOVER_VP["gold"])
                           + goods["silver"] * (DONATION_VP["silver"] - LEFTOVER_VP["silver"]))
    return 0.0


def _distance(barriers: tuple[int, ...], start: str, goal: str) -> int:
    """Hexes to sail from ``start`` to ``goal`` with the barriers down (breadth first)."""
    near = open_neighbours(barriers)
    seen, frontier, steps = {start}, [start], 0
    while frontier:
        if goal in frontier:
            return steps
        steps += 1
        frontier = sorted({n for h in frontier for n in near[h] if n not in seen})
        seen.update(frontier)
    return 99


def _needed(state: State) -> dict[str, int]:
    """How many of each basic good the current demand cards ask for (what is worth gathering)."""
    need: dict[str, int] = {}
    for cid in state.demand:
        if cid is not None:
            for good in CARDS[cid].goods:
                need[good] = need.get(good, 0) + 1
    return need


def destination(state: State, seat: int) -> str:
    """Where a sensible captain heads: the temple with metals aboard; the metals hex with room, the
    coins for a metal and a metal left to buy; the market with goods a demand card takes; else the
    goods hex whose good the demand asks for most (with a full hold too: gathering there throws
    back what no card wants)."""
    p = state.seats[seat]
    tier = state.current_tier()
    if p.hold[CUBES.index("gold")] or p.hold[CUBES.index("silver")]:
        return state.hex_of("temple")
    if tier is not None and p.free_space() and (
            (state.supply[CUBES.index("silver")] and p.coins >= tier.silver_coins)
            or (state.supply[CUBES.index("gold")] and p.coins >= tier.gold_coins)):
        return state.hex_of("metals")
    need = _needed(state)
    held = {c: p.hold[k] for k, c in enumerate(CUBES)}
    fills = any(all(held.get(g, 0) >= CARDS[cid].goods.count(g) for g in CARDS[cid].goods)
                for cid in state.demand if cid is not None)
    if fills:
        return state.hex_of("market")
    wanted = sorted((g for g in need if state.supply[CUBES.index(g)] > 0),
                    key=lambda g: (held.get(g, 0) >= need[g], -need[g], g))
    return state.hex_of(wanted[0]) if wanted else state.hex_of("market")


_ACTION_BONUS = {"donate-metal": 12.0, "buy-metal": 6.0, "trade": 5.0, "donate-goods": 4.0, "upgrade-cargo": 1.5,
                 "sell-specialty": 0.5}
"""What a step is worth beyond what the estimate sees at once: each moves a captain along the
chain goods, coins, metals, VP, whose value shows only at its end."""


class OphirKnowledge(Greedy[State]):
    """Ophir for the bots (see the module)."""

    game_id = "ophir"
    scale = 8.0
    # A turn is a voyage of several steps and a harbour's business: a playout of 8 plies stopped
    # mid-turn and search lost to the heuristic (2 of 10 at search:medium); at 2.5 times as deep it
    # won 5 of 8 (bench/bots.py has the figures of the committed setting).
    playout_scale = 2.5
    # ... and so each playout costs about twice as much: fewer of them keep search:hard within its
    # 2 s (at 1.0 its p99 was 5 s on a loaded machine, p50 1.1 s on a quiet one)
    search_scale = 0.7

    def sample(self, game: Game[State], view: Mapping[str, Any], seat: int, rng: Rng,
               legal: Sequence[Action] = ()) -> State:
        return state_of_view(game, view, seat, rng)

    def prior(self, game: Game[State], state: State, seat: int, action: Action) -> float:
        """The plan of :func:`destination`: act where the ship is, sail towards where it should be."""
        kind = action["type"]
        if kind in _ACTION_BONUS:
            return _ACTION_BONUS[kind]
        if kind == "gather":
            return 2.0 + _needed(state).get(action["good"], 0)
        here = state.seats[seat].hex
        if kind == "move" and state.revealed and here is not None:
            goal = destination(state, seat)
            closer = _distance(state.barriers, here, goal) - _distance(state.barriers, str(action["hex"]), goal)
            return 3.0 * closer
        if kind in ("anchor", "declare-influence"):
            return -1.0  # each costs a favor
        return 0.0

    def estimate(self, game: Game[State], state: State) -> list[float]:
        over = state.phase == OVER
        out = []
        for i, p in enumerate(state.seats):
            gold, silver = p.hold[CUBES.index("gold")], p.hold[CUBES.index("silver")]
            value = float(p.vp) + gold * LEFTOVER_VP["gold"] + silver * LEFTOVER_VP["silver"]
            if not over:
                # metals still to be donated, favor and coins towards them, goods towards sales
                coin, favor = _prices(state)
                value += gold * (DONATION_VP["gold"] - LEFTOVER_VP["gold"]) * 0.7
                value += silver * (DONATION_VP["silver"] - LEFTOVER_VP["silver"]) * 0.7
                value += p.favor * favor + p.coins * coin + p.basic_goods() * 0.9 * coin
                value += 0.5 * _harbour_value(state, p, coin)
                if state.revealed and p.hex is not None:  # on the way to where its plan leads
                    value -= 0.8 * min(3, _distance(state.barriers, p.hex, destination(state, i)))
            out.append(value)
        return out


KNOWLEDGE = OphirKnowledge()

# every hex and token named in the data is what the view lists: a sample's map is a permutation
assert sorted(MAP_TOKENS) == sorted(set(MAP_TOKENS)) and len(MAP_TOKENS) == len(HEXES)
assert all(c in CARDS for c in _A + _B)
