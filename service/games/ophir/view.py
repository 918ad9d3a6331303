"""What one seat (or a spectator) may see of a match (spec §10 "Randomness and hidden
information").

Hidden from everyone: the order of the market deck below the face-up future card, the five
removed A cards, the map tokens before the reveal, the market cards before the draft ends.
Hidden from other seats: each seat's VP total (its face-down VP cards), until the game ends;
during the draft, the passed specialists are seen by the seat picking and by the seats that
already picked (they saw those cards). Everything else is public.
"""

from __future__ import annotations

from typing import Any

from .data import CARDS, CUBES, DONATION_VP, FAVOR_PRICE, HEX_NAMES, METAL_SPACES, RIVAL_COLOUR, TIER_BY_ID
from .scoring import outcome
from .state import DRAFT, OVER, State, seat_name, to_json


def _card(cid: str | None) -> dict[str, Any] | None:
    if cid is None:
        return None
    c = CARDS[cid]
    return {"id": c.id, "goods": list(c.goods), "coins": c.coins, "favor_vp": c.favor_vp}


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The JSON view of ``state`` for ``seat`` (None: a spectator)."""
    over = state.phase == OVER
    players = []
    for i, p in enumerate(state.seats):
        row: dict[str, Any] = {
            "seat": i, "name": seat_name(i), "specialist": p.specialist, "favor": p.favor, "coins": p.coins,
            "die": p.die, "hex": p.hex if state.revealed else None,
            "hold": {c: p.hold[k] for k, c in enumerate(CUBES) if p.hold[k]},
            "holds": p.capacity, "free_holds": p.free_space(), "upgrades": p.upgrades,
        }
        if over or seat == i:
            row["vp"] = p.vp
        players.append(row)
    tier = state.current_tier()
    out: dict[str, Any] = {
        "phase": state.phase,
        "active": None if over else state.active,
        "start_player": state.start_player,
        "you": seat,
        "turns_played": state.turns_played,
        "options": to_json(state.options),
        "map": {
            "revealed": state.revealed,
            "hexes": [{"id": h, "name": HEX_NAMES[h], "token": state.tokens[k] if state.revealed else None}
                      for k, h in enumerate(HEX_NAMES)],
            "barriers": list(state.barriers),
        },
        "players": players,
        "rival": None if state.rival is None else {
            "name": RIVAL_COLOUR, "hex": state.rival.hex if state.revealed else None, "die": state.rival.die},
        "market": {
            "revealed": state.market_revealed,
            "demand": [_card(c) if state.market_revealed else None for c in state.demand],
            "modifiers": list(state.modifiers),
            "merchant": state.merchant,
            "future": _card(state.deck[0]) if state.market_revealed and state.deck else None,
            "face_down": max(0, len(state.deck) - (1 if state.market_revealed else 0)),
            "discard": [_card(c) for c in state.discard],
            "removed_unseen": len(state.removed),
        },
        "temple": {
            "tiers": list(state.tiers),
            "current": tier.id if tier else None,
            "completed": state.tier,
            "spaces": METAL_SPACES,
            "metals": list(state.temple),
            "prices": None if tier is None else {
                "gold": {"coins": tier.gold_coins, "favor": FAVOR_PRICE["gold"]},
                "silver": {"coins": tier.silver_coins, "favor": FAVOR_PRICE["silver"]}},
            "donation_vp": dict(DONATION_VP),
            "metals_to_finish": sum(METAL_SPACES for _ in state.tiers[state.tier:]) - len(state.temple),
            "all_tiers": {t: [TIER_BY_ID[t].gold_coins, TIER_BY_ID[t].silver_coins] for t in state.tiers},
        },
        "supply": dict(zip(CUBES, state.supply, strict=True)),
        "cargo_tiles": state.tiles,
        "turn": None if state.turn is None else to_json(state.turn),
        "end_reason": state.end_reason,
    }
    if state.phase == DRAFT:
        picked = {i for i, p in enumerate(state.seats) if p.specialist}
        sees = seat is not None and (seat == state.draft_order[0] or seat in picked)
        out["draft"] = {"picker": state.draft_order[0], "order": list(state.draft_order),
                        "offered": list(state.draft_pool) if sees else None, "offered_count": len(state.draft_pool)}
    elif state.returned_specialist is not None and seat is not None:
        out["returned_specialist"] = state.returned_specialist  # every seat saw it during the draft
    if over:
        result = outcome(state)
        assert result is not None
        out["outcome"] = result.to_json()
    return out
