"""Board and component data of Nauticus, loaded once from ``data.json``.

Every number the rules use lives in ``data.json`` with its provenance (spec §3); this module only
gives it names and types. Values the rules research could not verify are listed by
:func:`provisional` so the catalog can flag them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from service.games.base import Provisional
from service.games.editions import edition_data

_RAW: Final[dict[str, Any]] = edition_data(__name__, Path(__file__).with_name("data.json"))

VP_START: Final[int] = _RAW["vp_track_start"]
ROUNDS: Final[dict[int, int]] = {int(k): v for k, v in _RAW["rounds_by_player_count"].items()}
PHASES_PER_ROUND: Final[int] = _RAW["action_phases_per_round"]
START_THALER: Final[int] = _RAW["start"]["thaler"]
START_WORKERS: Final[int] = _RAW["start"]["workers"]
PASS_TILES: Final[tuple[int, ...]] = tuple(_RAW["pass_tiles"])
"""Pass-tile values in the order the rulebook advises flipping them (most negative first)."""
COMPENSATION: Final[dict[int, list[dict[str, int]]]] = {
    int(k): v for k, v in _RAW["seat_compensation"].items() if not k.startswith("_")
}

CRESTS: Final[dict[str, str]] = dict(_RAW["crests"])
GOODS: Final[tuple[str, ...]] = tuple(_RAW["goods"])
HULL_PIECES: Final[tuple[str, ...]] = tuple(_RAW["hull_pieces"])
NORMAL_MASTS: Final[tuple[str, ...]] = tuple(f"mast-{c}" for c in CRESTS)
NORMAL_SAILS: Final[tuple[str, ...]] = tuple(f"sail-{c}" for c in CRESTS)
CROWN_MAST: Final[str] = "mast-crown"
CROWN_SAIL: Final[str] = "sail-crown"

_HULL_NAMES: Final[dict[str, str]] = {"single": "single hull", "middle": "middle piece"}


def item_name(item: str) -> str:
    """A tile as players call it: "mast-b" is a "red whale mast", "sail-crown" a "crowned sail",
    "single" a "single hull"; goods and the other hull pieces keep their names."""
    kind, _, crest = item.partition("-")
    if kind in ("mast", "sail") and crest:
        return f"crowned {kind}" if crest == "crown" else f"{CRESTS.get(crest, crest)} {kind}"
    return _HULL_NAMES.get(item, item)


SUPPLY: Final[dict[str, int]] = {k: v for k, v in _RAW["supply"].items() if not k.startswith("_")}
STACKS: Final[tuple[str, ...]] = tuple(SUPPLY)
"""The 18 open stacks (14 ship-tile stacks and 4 goods), in a fixed order."""
STACK_INDEX: Final[dict[str, int]] = {s: i for i, s in enumerate(STACKS)}

_TILES: Final[dict[str, Any]] = {k: v for k, v in _RAW["action_tiles"].items() if not k.startswith("_")}
ACTIONS: Final[tuple[str, ...]] = tuple(_TILES)
"""The eight action tiles by id: hull, mast, sail, goods (paid) and transfer, deliver, money, crowns (free)."""
PAID_ACTIONS: Final[frozenset[str]] = frozenset(a for a, t in _TILES.items() if t["kind"] == "paid")
ACTION_NAMES: Final[dict[str, str]] = {a: t["name"] for a, t in _TILES.items()}
ACTION_ITEMS: Final[dict[str, tuple[str, ...]]] = {a: tuple(t["items"]) for a, t in _TILES.items()}
ITEM_ACTION: Final[dict[str, str]] = {i: a for a, items in ACTION_ITEMS.items() for i in items}
"""Which paid tile sells each normal item."""

BONUSES: Final[tuple[dict[str, Any], ...]] = tuple(_RAW["action_spaces"]["bonuses"])
PRICE_ROWS: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(r) for r in _RAW["action_spaces"]["price_rows"])
SPACES: Final[int] = len(BONUSES)
WHEEL: Final[tuple[int, ...]] = tuple(_RAW["wheel"]["segments_clockwise_from_anchor"])
INITIAL_ANCHOR_SPACE: Final[int] = _RAW["wheel"]["initial_anchor_space"]

REPEAT_PRICE: Final[int] = _RAW["repeat_item_price"]
WAREHOUSE_CAPACITY: Final[int] = _RAW["warehouse"]["capacity"]
MAST_SIZE: Final[int] = _RAW["warehouse"]["mast_size"]
OTHER_SIZE: Final[int] = _RAW["warehouse"]["other_size"]
THALER_PER_WORKER: Final[int] = _RAW["take_money_thaler_per_worker"]
CROWN_CAP: Final[int] = _RAW["crown_scoring_cap_per_use"]

_REWARDS: Final[dict[str, Any]] = _RAW["ship_rewards"]
REWARD_MAX_SAME: Final[int] = _REWARDS["max_same_per_ship"]
REWARDS: Final[tuple[str, ...]] = ("crown-mast", "crown-sail", "thaler", "workers", "vp", "goods")
"""The six completed-ship reward options (spec §6), in a fixed order."""
REWARD_AMOUNT: Final[dict[str, int]] = {r: _REWARDS[r] for r in REWARDS}

EXTRA_WORKERS: Final[int] = _RAW["extra_action"]["workers_gained"]
EXTRA_BASE_PRICE: Final[int] = _RAW["extra_action"]["base_price"]

_END: Final[dict[str, Any]] = _RAW["end_scoring"]
SHIP_VP: Final[dict[int, int]] = {int(k): v for k, v in _END["ship_vp_by_size"].items()}
GOODS_GROUP_VP: Final[tuple[int, ...]] = tuple(_END["goods_group_vp"])
GOODS_EACH_FURTHER: Final[int] = _END["goods_each_further"]
LEFTOVER_THALER: Final[int] = _END["leftover_thaler_each"]
THALER_PER_VP: Final[int] = _END["thaler_per_vp"]

START_PLAYER_PASSES_AFTER_LAST_PHASE: Final[bool] = _RAW["rulings"]["start_player_passes_after_last_phase"]


def tile_size(tile: str) -> int:
    """Warehouse spaces a tile takes: a mast needs two adjacent spaces, everything else one (spec §5.6)."""
    return MAST_SIZE if tile.startswith("mast-") else OTHER_SIZE


def is_crowned(tile: str) -> bool:
    return tile.endswith("-crown")


def goods_group_vp(count: int) -> int:
    """VP for ``count`` delivered goods of one type (spec §8.2): 2, 5, 9, 14, 20, then +5 each."""
    top = len(GOODS_GROUP_VP) - 1
    if count <= top:
        return GOODS_GROUP_VP[count]
    return GOODS_GROUP_VP[top] + GOODS_EACH_FURTHER * (count - top)


def provisional() -> list[Provisional]:
    """The UNVERIFIED values of spec §12, with the alternative each could be."""
    return [
        Provisional("wheel.segments_clockwise_from_anchor", list(WHEEL), _RAW["wheel"]["note"]),
        Provisional(
            "action_spaces.price_rows", [list(r) for r in PRICE_ROWS], _RAW["action_spaces"]["price_rows_note"]
        ),
        Provisional(
            "action_tiles.*.items",
            {a: list(ACTION_ITEMS[a]) for a in sorted(PAID_ACTIONS)},
            "order of the four item pictures on each paid tile is UNVERIFIED",
        ),
        Provisional(
            "action_spaces.bonuses[0].workers",
            BONUSES[0].get("workers"),
            "UNVERIFIED which worker bonus (3 or 2) is printed first; the anchor starts at the 3",
        ),
        Provisional("warehouse.capacity", WAREHOUSE_CAPACITY, _RAW["warehouse"]["capacity_note"]),
        Provisional("ship_rewards.workers", REWARD_AMOUNT["workers"], _REWARDS["workers_note"]),
        Provisional("ship_rewards.vp", REWARD_AMOUNT["vp"], _REWARDS["vp_note"]),
        Provisional("ship_rewards.goods", REWARD_AMOUNT["goods"], _REWARDS["goods_note"]),
        Provisional("extra_action.workers_gained", EXTRA_WORKERS, _RAW["extra_action"]["workers_note"]),
        Provisional("extra_action.base_price", EXTRA_BASE_PRICE, _RAW["extra_action"]["base_price_note"]),
        Provisional("end_scoring.ship_vp_by_size.1", SHIP_VP[1], "UNVERIFIED (alternative 2)"),
        Provisional("end_scoring.ship_vp_by_size.4", SHIP_VP[4], "UNVERIFIED (alternative 25)"),
        Provisional("end_scoring.goods_group_vp.1", GOODS_GROUP_VP[1], "UNVERIFIED (alternative 3)"),
    ]
