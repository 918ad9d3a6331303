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

**Whose numbers.** The cards, the temple's and the market's values and the map come from the
package the game itself came from (:class:`Numbers`): an edition's bound copy plays its own
(docs/editions.md).
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
from service.games.ophir.data import Card
from service.games.ophir.state import BARRIERS, OVER, State


@dataclass(frozen=True)
class Numbers:
    """What the bot reads of one edition of Ophir: the shipped data or an edition's."""

    cards: Mapping[str, Card]
    """Every market card by id (its goods, coins and favor VP)."""
    deck_a: tuple[str, ...]
    """The A cards' ids, sorted (a sample deals the unseen ones)."""
    deck_b: tuple[str, ...]
    cubes: tuple[str, ...]
    """The goods and metals, in the order a hold and the supply count them."""
    hexes: tuple[str, ...]
    map_tokens: tuple[str, ...]
    specialists: tuple[str, ...]
    """The specialists' ids, in the data's order."""
    draft_extra: int
    """Specialists dealt to the draft beyond one a player."""
    donation_vp: Mapping[str, int]
    leftover_vp: Mapping[str, int]
    favor_price: Mapping[str, int]
    metal_spaces: int
    """Metals a temple tier takes."""
    metal_vp: float
    """The mean donation VP of a metal (what a completed tier's unseen metals were worth)."""
    open_neighbours: Callable[[tuple[int, ...]], dict[str, tuple[str, ...]]]
    """The hexes next to each hex with the barriers down."""


def numbers(game: Game[State]) -> Numbers:
    """The :class:`Numbers` ``game`` plays with (built once per package: the shipped one, or an
    edition's bound copy)."""
    return _numbers(rules_module(game, "data"))


@cache
def _numbers(data: ModuleType) -> Numbers:
    known = Numbers(
        cards=data.CARDS, deck_a=tuple(sorted(c.id for c in data.DECK_A)),
        deck_b=tuple(sorted(c.id for c in data.DECK_B)), cubes=tuple(data.CUBES), hexes=tuple(data.HEXES),
        map_tokens=tuple(data.MAP_TOKENS), specialists=tuple(s.id for s in data.SPECIALISTS),
        draft_extra=data.DRAFT_EXTRA, donation_vp=data.DONATION_VP, leftover_vp=data.LEFTOVER_VP,
        favor_price=data.FAVOR_PRICE, metal_spaces=data.METAL_SPACES,
        metal_vp=(data.DONATION_VP["gold"] + data.DONATION_VP["silver"]) / 2, open_neighbours=data.open_neighbours)
    # every hex and token named in the data is what the view lists: a sample's map is a permutation
    assert sorted(known.map_tokens) == sorted(set(known.map_tokens)) and len(known.map_tokens) == len(known.hexes)
    assert all(c in known.cards for c in known.deck_a + known.deck_b)
    return known


def _market(known: Numbers, view: Mapping[str, Any], rng: Rng) -> dict[str, Any]:
    """The market's cards: the seen ones where the view shows them, the unseen ones dealt at random."""
    market = view["market"]
    seen = {c["id"] for c in market["discard"]}
    if market["revealed"]:
        seen |= {c["id"] for c in market["demand"] if c is not None}
        if market["future"] is not None:
            seen.add(market["future"]["id"])
    unseen_a = rng.shuffled([c for c in known.deck_a if c not in seen])
    unseen_b = rng.shuffled([c for c in known.deck_b if c not in seen])
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


def _others_vp(known: Numbers, view: Mapping[str, Any], seat: int, rng: Rng) -> dict[int, int]:
    """The other seats' VP, drawn around what the table has visibly earned (see the module)."""
    temple = view["temple"]
    metals = (sum(known.donation_vp[m] for m in temple["metals"])
              + temple["completed"] * known.metal_spaces * known.metal_vp)
    goods = sum(c["favor_vp"] for c in view["market"]["discard"]) / 2
    mine = next((p.get("vp", 0) for p in view["players"] if p["seat"] == seat), 0)
    others = [p["seat"] for p in view["players"] if p["seat"] != seat]
    left = max(0, round(metals + goods) - mine)
    weights = [1 + rng.randbelow(4) for _ in others]
    return {s: left * w // sum(weights) for s, w in zip(others, weights, strict=True)}


def state_of_view(game: Game[State], view: Mapping[str, Any], seat: int, rng: Rng) -> State:
    """A whole Ophir state consistent with ``view`` (see the module); hidden parts drawn with ``rng``."""
    known = numbers(game)
    revealed = view["map"]["revealed"]
    tokens = [h["token"] for h in view["map"]["hexes"]] if revealed else rng.shuffled(known.map_tokens)
    vp = _others_vp(known, view, seat, rng)
    seats = []
    for p in view["players"]:
        seats.append({"specialist": p["specialist"], "favor": p["favor"], "coins": p["coins"],
                      "vp": p["vp"] if "vp" in p else vp.get(p["seat"], 0), "die": p["die"], "hex": p["hex"],
                      "hold": [p["hold"].get(c, 0) for c in known.cubes], "capacity": p["holds"], "upgrades": p["upgrades"]})
    draft = view.get("draft")
    pool: list[str] = []
    order: list[int] = []
    if view["phase"] == BARRIERS:
        # the draft is dealt at setup, face down; it runs counter-clockwise from the starting
        # player's right (setup.new_match)
        n = len(view["players"])
        order = [(view["start_player"] - 1 - k) % n for k in range(n)]
        pool = rng.shuffled(list(known.specialists))[:n + known.draft_extra]
    elif draft is not None:
        order = list(draft["order"])
        if draft["offered"] is not None:
            pool = list(draft["offered"])
        else:
            held = {p["specialist"] for p in view["players"] if p["specialist"]}
            pool = rng.shuffled([s for s in known.specialists if s not in held])[:draft["offered_count"]]
    rival = view["rival"]
    temple = view["temple"]
    data: dict[str, Any] = {
        "options": dict(view["options"]), "phase": view["phase"], "start_player": view["start_player"],
        "active": view["active"] if view["active"] is not None else view["start_player"],
        "tokens": tokens, "revealed": revealed, "barriers": list(view["map"]["barriers"]),
        "draft_pool": pool, "draft_order": order, "returned_specialist": view.get("returned_specialist"),
        **_market(known, view, rng),
        "tiers": list(temple["tiers"]), "tier": temple["completed"], "temple": list(temple["metals"]),
        "supply": [view["supply"][c] for c in known.cubes], "seats": seats,
        "rival": None if rival is None else {"hex": rival["hex"], "die": rival["die"]},
        "turn": view["turn"], "tiles": view["cargo_tiles"], "turns_played": view["turns_played"],
        "end_reason": view["end_reason"],
    }
    return game.load(data)


def _prices(known: Numbers, state: State) -> tuple[float, float]:
    """What a coin and a favor are worth in VP now: most of what they buy at the temple's current
    tier (a metal, donated), since that is where both end up."""
    tier = state.current_tier()
    vp = known.donation_vp
    favor = 0.6 * max(vp[m] / known.favor_price[m] for m in ("gold", "silver"))
    if tier is None:
        return 0.3, favor
    coin = 0.7 * max(vp["gold"] / max(1, tier.gold_coins), vp["silver"] / max(1, tier.silver_coins))
    return coin, favor


def _harbour_value(known: Numbers, state: State, p: Any, coin: float) -> float:
    """What the hex a ship lies on offers its owner next (in the estimate's points): a good to
    gather with room in the hold, a demand card its goods fill, a metal its coins buy, metals to
    donate at the temple. A ship bound for the right hex is worth more than one adrift."""
    if p.hex is None or not state.revealed:
        return 0.0
    cubes, donation, leftover = known.cubes, known.donation_vp, known.leftover_vp
    token = state.tokens[known.hexes.index(p.hex)]
    goods = {c: p.hold[k] for k, c in enumerate(cubes)}
    if token in cubes:  # a goods hex
        return 0.9 * coin if p.free_space() > 0 and state.supply[cubes.index(token)] > 0 else 0.0
    if token == "market":
        best = 0.0
        for slot, cid in enumerate(state.demand):
            if cid is None:
                continue
            card = known.cards[cid]
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
            return 0.7 * (donation["gold"] - leftover["gold"]) + leftover["gold"] - coin * tier.gold_coins
        if p.coins >= tier.silver_coins:
            return 0.7 * (donation["silver"] - leftover["silver"]) + leftover["silver"] - coin * tier.silver_coins
        return 0.0
    if token == "temple":
        return 0.3 * float(goods["gold"] * (donation["gold"] - leftover["gold"])
                           + goods["silver"] * (donation["silver"] - leftover["silver"]))
    return 0.0


def _distance(known: Numbers, barriers: tuple[int, ...], start: str, goal: str) -> int:
    """Hexes to sail from ``start`` to ``goal`` with the barriers down (breadth first)."""
    near = known.open_neighbours(barriers)
    seen, frontier, steps = {start}, [start], 0
    while frontier:
        if goal in frontier:
            return steps
        steps += 1
        frontier = sorted({n for h in frontier for n in near[h] if n not in seen})
        seen.update(frontier)
    return 99


def _needed(known: Numbers, state: State) -> dict[str, int]:
    """How many of each basic good the current demand cards ask for (what is worth gathering)."""
    need: dict[str, int] = {}
    for cid in state.demand:
        if cid is not None:
            for good in known.cards[cid].goods:
                need[good] = need.get(good, 0) + 1
    return need


def destination(known: Numbers, state: State, seat: int) -> str:
    """Where a sensible captain heads: the temple with metals aboard; the metals hex with room, the
    coins for a metal and a metal left to buy; the market with goods a demand card takes; else the
    goods hex whose good the demand asks for most (with a full hold too: gathering there throws
    back what no card wants)."""
    cubes, cards = known.cubes, known.cards
    p = state.seats[seat]
    tier = state.current_tier()
    if p.hold[cubes.index("gold")] or p.hold[cubes.index("silver")]:
        return state.hex_of("temple")
    if tier is not None and p.free_space() and (
            (state.supply[cubes.index("silver")] and p.coins >= tier.silver_coins)
            or (state.supply[cubes.index("gold")] and p.coins >= tier.gold_coins)):
        return state.hex_of("metals")
    need = _needed(known, state)
    held = {c: p.hold[k] for k, c in enumerate(cubes)}
    fills = any(all(held.get(g, 0) >= cards[cid].goods.count(g) for g in cards[cid].goods)
                for cid in state.demand if cid is not None)
    if fills:
        return state.hex_of("market")
    wanted = sorted((g for g in need if state.supply[cubes.index(g)] > 0),
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
            return 2.0 + _needed(numbers(game), state).get(action["good"], 0)
        here = state.seats[seat].hex
        if kind == "move" and state.revealed and here is not None:
            known = numbers(game)
            goal = destination(known, state, seat)
            closer = (_distance(known, state.barriers, here, goal)
                      - _distance(known, state.barriers, str(action["hex"]), goal))
            return 3.0 * closer
        if kind in ("anchor", "declare-influence"):
            return -1.0  # each costs a favor
        return 0.0

    def estimate(self, game: Game[State], state: State) -> list[float]:
        known = numbers(game)
        cubes, donation, leftover = known.cubes, known.donation_vp, known.leftover_vp
        over = state.phase == OVER
        out = []
        for i, p in enumerate(state.seats):
            gold, silver = p.hold[cubes.index("gold")], p.hold[cubes.index("silver")]
            value = float(p.vp) + gold * leftover["gold"] + silver * leftover["silver"]
            if not over:
                # metals still to be donated, favor and coins towards them, goods towards sales
                coin, favor = _prices(known, state)
                value += gold * (donation["gold"] - leftover["gold"]) * 0.7
                value += silver * (donation["silver"] - leftover["silver"]) * 0.7
                value += p.favor * favor + p.coins * coin + p.basic_goods() * 0.9 * coin
                value += 0.5 * _harbour_value(known, state, p, coin)
                if state.revealed and p.hex is not None:  # on the way to where its plan leads
                    value -= 0.8 * min(3, _distance(known, state.barriers, p.hex, destination(known, state, i)))
            out.append(value)
        return out


KNOWLEDGE = OphirKnowledge()
