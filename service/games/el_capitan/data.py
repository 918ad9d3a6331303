"""Board, card and table data of El Capitán, loaded once from ``data.json``.

Every number the rules use lives in ``data.json`` with its provenance (``provenance``: verified,
inferred or unverified, spec §3-§4); nothing here or elsewhere in the package hard-codes a board
value. The loaded values are exposed as small frozen records and module constants derived from
the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.games.base import Provisional
from service.games.editions import edition_data

_RAW: dict[str, Any] = edition_data(__name__, Path(__file__).with_name("data.json"))
TRIANGLE_MAX_PLAYERS: int = _RAW["rules"]["triangle_max_players"]
"""The dark-triangle space shuts down warehouses with 2 or 3 players (§2, §5.6)."""
GRID_ROWS: int = _RAW["grid"]["rows"]


@dataclass(frozen=True, slots=True)
class CityData:
    """One city tile: position on the grid, harbour and fortress prices, track values."""

    id: str
    name: str
    row: int
    col: int
    off_board: bool
    harbours: tuple[int, ...]
    """Warehouse price per harbour space, in fill order (spec §3.3)."""
    fortresses: tuple[int, ...]
    track: tuple[int, ...]
    """Printed value of sites 1..12 (index 0 = site 1)."""
    hatched: int
    dark: frozenset[int]
    """1-based shut-down sites."""
    triangle: int | None
    """1-based extra shut-down site used with 2-3 players (None: no triangle)."""
    special: frozenset[str]

    def shutdown_sites(self, players: int) -> frozenset[int]:
        """The shut-down spaces for this player count (§5.6: the triangle counts with 2 or 3)."""
        if players <= TRIANGLE_MAX_PLAYERS and self.triangle is not None:
            return self.dark | {self.triangle}
        return self.dark


@dataclass(frozen=True, slots=True)
class CardData:
    """A sailing card: a destination/sea-route card (``city``, ``seals``) or a connection card (``a``, ``b``)."""

    id: str
    kind: str  # "destination" | "connection"
    cost: int
    city: str = ""
    seals: int = 0
    a: str = ""
    b: str = ""


def _city(raw: dict[str, Any]) -> CityData:
    return CityData(
        id=raw["id"],
        name=raw["name"],
        row=raw["pos"][0],
        col=raw["pos"][1],
        off_board=bool(raw.get("off_board", False)),
        harbours=tuple(raw["harbours"]),
        fortresses=tuple(raw["fortresses"]),
        track=tuple(raw["track"]),
        hatched=raw["hatched"],
        dark=frozenset(raw["dark"]),
        triangle=raw["triangle"],
        special=frozenset(raw.get("special", ())),
    )


BASE_CITIES: tuple[CityData, ...] = tuple(_city(c) for c in _RAW["cities"])
EXPANSION_CITIES: tuple[CityData, ...] = tuple(_city(c) for c in _RAW["expansion_cities"])
ALL_CITIES: dict[str, CityData] = {c.id: c for c in (*BASE_CITIES, *EXPANSION_CITIES)}
EXPANSION_IDS: tuple[str, ...] = tuple(c.id for c in EXPANSION_CITIES)

CARDS: dict[str, CardData] = {}
for _d in _RAW["destination_cards"]:
    CARDS[_d["id"]] = CardData(_d["id"], "destination", _d["cost"], city=_d["city"], seals=_d["seals"])
for _c in _RAW["connection_cards"]:
    CARDS[_c["id"]] = CardData(_c["id"], "connection", _c["cost"], a=_c["a"], b=_c["b"])
DESTINATION_IDS: tuple[str, ...] = tuple(d["id"] for d in _RAW["destination_cards"])
CONNECTION_IDS: tuple[str, ...] = tuple(c["id"] for c in _RAW["connection_cards"])

COLOURS: tuple[str, ...] = tuple(_RAW["colours"])
TWO_PLAYER_MAIN: tuple[int, ...] = tuple(_RAW["two_player_colours"]["main"])
TWO_PLAYER_NEUTRAL: tuple[int, ...] = tuple(_RAW["two_player_colours"]["neutral"])
WAREHOUSES_PER_COLOUR: int = _RAW["pieces_per_colour"]["warehouses"]
FORTRESSES_PER_COLOUR: int = _RAW["pieces_per_colour"]["fortresses"]

CHART: tuple[int, ...] = tuple(_RAW["proliferation_chart"][str(i)] for i in range(13))
"""Proliferation income by number of cities with an operating warehouse (0..12)."""
BONUS_CARDS: tuple[int, ...] = tuple(_RAW["proliferation_bonus_cards"])
BONUS_CITIES: int = _RAW["rules"]["bonus_cities"]
"""Cities needed for a proliferation bonus card (rule §6.3, R-34)."""
RUN_LIMIT: int = _RAW["rules"]["run_limit"]
"""At most this many warehouses of one colour in a row (rule §5.5)."""
RUN_LIMIT_MAIN_2P: int = _RAW["rules"]["two_player_run_limit_main"]
RUN_LIMIT_OWN_2P: int = _RAW["rules"]["two_player_run_limit_own"]
"""2-player limits: main colour, and main plus neutral together (rule §7)."""

LOANS: dict[int, tuple[int, int]] = {ln["amount"]: (ln["repay"], ln["repay_extended"]) for ln in _RAW["loans"]}
"""Loan amount -> (repayment on the front side, repayment once extended)."""
LOAN_AMOUNTS: tuple[int, ...] = tuple(sorted(LOANS))
LOAN_COPIES: dict[int, int] = {ln["amount"]: ln["copies"] for ln in _RAW["loans"]}
"""Loan amount -> printed number of loan cards (18 x 10, 12 x 16): the limit of voluntary loan turns (R-17)."""

START_MONEY: int = _RAW["start_money"]
SUPPLY_WAREHOUSES: int = _RAW["per_phase_supply"]["warehouses"]
SUPPLY_FORTRESSES: int = _RAW["per_phase_supply"]["fortresses"]
SUPPLY_NEUTRAL: int = _RAW["per_phase_supply"]["two_player_neutral_warehouses"]
DISPLAY_DESTINATION: int = _RAW["display"]["destination"]
DISPLAY_CONNECTION: int = _RAW["display"]["connection"]
PIRATE_FEE: tuple[int, ...] = tuple(_RAW["pirate_protection_fee_per_building_by_phase"])
PIRATE_STEP_COST: int = _RAW["pirate_move_cost_per_step"]
PIRATE_START_HARBOUR: int = next(
    c.get("pirate_start", {}).get("harbour_index", 2) for c in _RAW["expansion_cities"] if "pirate_ship" in c.get("special", ())
)
"""1-based harbour space of Islas Canarias where the pirate starts (spec §8.4)."""
PHASES: int = _RAW["rules"]["phases"]
"""Three phases, the game ends after the third payday (§6.5)."""


def provisional() -> list[Provisional]:
    """Every data value that is not VERIFIED (unverified or inferred-and-disputed), with its note."""
    out: list[Provisional] = []
    for p in _RAW["provenance"]:
        if p["status"] == "verified":
            continue
        out.append(Provisional(p["path"], _lookup(p["path"]), f"{p['status']}: {p['note']}"))
    return out


def _lookup(path: str) -> Any:
    """The value at a dotted provenance path ("cities.marseille.track", "destination_cards.D03")."""
    parts = path.split(".")
    node: Any = _RAW
    for part in parts:
        if isinstance(node, list):
            node = node[int(part)] if part.isdigit() else next(x for x in node if x.get("id") == part)
        else:
            node = node[part]
    if isinstance(node, dict):
        node = {k: v for k, v in node.items() if k not in ("verified", "note")}
    return node
