"""Ophir's board and card data, loaded once from ``data.json``.

Every number the rules use (temple tier prices, market cards, specialists, dice, hold sizes)
lives in ``data.json`` with its provenance; this module turns it into typed, immutable tables
and derives the map graph (adjacency, legal barrier pairs). Nothing here holds game state.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.games.base import Provisional
from service.games.editions import edition_data

_RAW: dict[str, Any] = edition_data(__name__, Path(__file__).with_name("data.json"))

BASIC: tuple[str, ...] = tuple(_RAW["goods"]["basic"])
"""The four basic goods, in the order used for hold counts."""
METALS: tuple[str, ...] = tuple(_RAW["goods"]["metals"])
"""Gold and silver."""
CUBES: tuple[str, ...] = BASIC + METALS
"""Every cube type; a hold is a tuple of counts in this order."""
CUBE_INDEX: dict[str, int] = {c: i for i, c in enumerate(CUBES)}
GOLD = CUBE_INDEX["gold"]
SILVER = CUBE_INDEX["silver"]
SUPPLY_PER_TYPE: int = _RAW["goods"]["supply_per_type"]


@dataclass(frozen=True, slots=True)
class Card:
    """A market card: the goods it asks for, its coin reward and its favor/VP number (spec §4.2)."""

    id: str
    goods: tuple[str, ...]
    coins: int
    favor_vp: int

    @property
    def need(self) -> tuple[int, int, int, int]:
        """How many of each basic good the card asks for, in :data:`BASIC` order."""
        return (
            self.goods.count(BASIC[0]),
            self.goods.count(BASIC[1]),
            self.goods.count(BASIC[2]),
            self.goods.count(BASIC[3]),
        )


@dataclass(frozen=True, slots=True)
class Tier:
    """A temple tier, named by its coin prices gold/silver (spec §4.1)."""

    id: str
    gold_coins: int
    silver_coins: int
    players: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Specialist:
    """A specialist card: starting favor and specialty good (None for the Ambassador)."""

    id: str
    name: str
    starting_favor: int
    specialty: str | None


def _card(c: dict[str, Any]) -> Card:
    return Card(c["id"], tuple(c["goods"]), c["coins"], c["favor_vp"])


DECK_A: tuple[Card, ...] = tuple(_card(c) for c in _RAW["market"]["deck_A"])
DECK_B: tuple[Card, ...] = tuple(_card(c) for c in _RAW["market"]["deck_B"])
CARDS: dict[str, Card] = {c.id: c for c in DECK_A + DECK_B}
REMOVE_FROM_A: int = _RAW["market"]["remove_from_A"]
DEMAND_STANDS: int = _RAW["market"]["demand_stands"]
PRICE_MODIFIERS: tuple[int, ...] = tuple(_RAW["market"]["price_modifiers"])

TIERS: tuple[Tier, ...] = tuple(
    Tier(t["id"], t["gold_coins"], t["silver_coins"], tuple(t["players"])) for t in _RAW["temple_tiers"]
)
TIER_BY_ID: dict[str, Tier] = {t.id: t for t in TIERS}
METAL_SPACES: int = _RAW["metal_spaces_per_tier"]
FAVOR_PRICE: dict[str, int] = dict(_RAW["favor_price"])
DONATION_VP: dict[str, int] = dict(_RAW["donation_vp"])
LEFTOVER_VP: dict[str, int] = dict(_RAW["leftover_vp"])

BASE_HOLDS: int = _RAW["cargo"]["base_holds"]
METAL_SIZE: int = _RAW["cargo"]["metal_size"]
UPGRADE_COST: int = _RAW["cargo"]["upgrade_cost_coins"]
MAX_UPGRADES: int = _RAW["cargo"]["max_upgrades"]
HOLDS_AFTER_UPGRADE: tuple[int, ...] = tuple(_RAW["cargo"]["holds_after_upgrade"])

FAVOR_MIN: int = _RAW["favor"]["min"]
FAVOR_MAX: int = _RAW["favor"]["max"]
ANCHOR_COST: int = _RAW["favor"]["anchor_cost"]
INFLUENCE_COST: int = _RAW["favor"]["influence_cost"]
PLAYER_DIE_START: int = _RAW["dice"]["player_start"]
RIVAL_DIE_START: int = _RAW["dice"]["rival_start"]
DIE_SIDES: int = _RAW["dice"]["sides"]
DIE_LOWEST: int = _RAW["dice"]["lowest"]
TEST_PENALTY: int = _RAW["dice"]["failed_test_penalty"]
DRAFT_EXTRA: int = _RAW["draft"]["extra_cards"]
MOVES: int = _RAW["navigation"]["moves"]
SPECIALTY_PRICE: int = _RAW["specialty_sale_coins"]
START_COINS: int = _RAW["start_coins"]
PRIEST_FAVOR: int = _RAW["priest_favor"]
TEMPLE_GUARD_BONUS: int = _RAW["temple_guard_bonus"]

SPECIALISTS: tuple[Specialist, ...] = tuple(
    Specialist(s["id"], s["name"], s["starting_favor"], s["specialty"]) for s in _RAW["specialists"]
)
SPECIALIST_BY_ID: dict[str, Specialist] = {s.id: s for s in SPECIALISTS}
SEAT_COLOURS: tuple[str, ...] = tuple(_RAW["seat_colours"])
RIVAL_COLOUR: str = _RAW["rival_colour"]

# -- the map -------------------------------------------------------------------------------

HEXES: tuple[str, ...] = tuple(h["id"] for h in _RAW["hexes"])
HEX_NAMES: dict[str, str] = {h["id"]: h["name"] for h in _RAW["hexes"]}
HEX_AXIAL: dict[str, tuple[int, int]] = {h["id"]: (h["q"], h["r"]) for h in _RAW["hexes"]}
CENTER = HEXES[0]
EDGES: dict[int, tuple[str, str]] = {e["id"]: (e["hexes"][0], e["hexes"][1]) for e in _RAW["edges"]}
MAP_TOKENS: tuple[str, ...] = tuple(_RAW["map_tokens"])
BARRIER_COUNT: int = _RAW["barriers"]["count"]

EDGE_BETWEEN: dict[frozenset[str], int] = {frozenset(h): e for e, h in EDGES.items()}
FULL_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    h: tuple(sorted((b if a == h else a) for a, b in EDGES.values() if h in (a, b))) for h in HEXES
}


def barriers_compatible(e1: int, e2: int) -> bool:
    """Rule §2.3: two barriers may not both touch the same outer hex, so every hex keeps at
    least two open neighbours (the centre has six, so it never matters)."""
    if e1 == e2:
        return False
    shared = set(EDGES[e1]) & set(EDGES[e2])
    return not (shared - {CENTER})


LEGAL_BARRIER_PAIRS: tuple[tuple[int, int], ...] = tuple(
    (a, b) for a, b in itertools.combinations(sorted(EDGES), 2) if barriers_compatible(a, b)
)

_OPEN_CACHE: dict[tuple[int, ...], dict[str, tuple[str, ...]]] = {}


def open_neighbours(barriers: tuple[int, ...]) -> dict[str, tuple[str, ...]]:
    """Adjacency once the barriers are down: two hexes are adjacent if they share an edge with
    no barrier on it (rule §3). Memoised per barrier set: there are only 48 + 12 + 1 of them."""
    cached = _OPEN_CACHE.get(barriers)
    if cached is None:
        blocked = {frozenset(EDGES[e]) for e in barriers}
        cached = {
            h: tuple(n for n in FULL_NEIGHBOURS[h] if frozenset((h, n)) not in blocked) for h in HEXES
        }
        _OPEN_CACHE[barriers] = cached
    return cached


def tiers_for(players: int) -> tuple[str, ...]:
    """The temple tiers used with this many players, bottom to top (spec §2.2)."""
    return tuple(t.id for t in TIERS if players in t.players)


# -- provisional values ----------------------------------------------------------------------


def _lookup(path: str) -> Any:
    """The value a provisional path names, for the catalog."""
    special: dict[str, Any] = {
        "temple_tiers[4/2,5/2]": [t for t in _RAW["temple_tiers"] if t["id"] in ("4/2", "5/2")],
        "market": {"A12": _RAW["market"]["deck_A"][11], "cards": len(CARDS)},
        "specialists[advisor,chancellor,harbormaster].starting_favor": {
            s: SPECIALIST_BY_ID[s].starting_favor for s in ("advisor", "chancellor", "harbormaster")
        },
        "specialists[moneychanger,navigator,priest,temple_guard]": [
            s for s in _RAW["specialists"] if s["id"] in ("moneychanger", "navigator", "priest", "temple_guard")
        ],
        "rules.end_condition_b": "refill",
        "rules.harbormaster_limits": "per turn",
    }
    if path in special:
        return special[path]
    node: Any = _RAW
    for part in path.split("."):
        node = node[part]
    return node


PROVISIONAL: tuple[Provisional, ...] = tuple(
    Provisional(p["path"], _lookup(p["path"]), p["note"]) for p in _RAW["provisional"]
)

