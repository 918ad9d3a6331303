"""An external bot's policy, as a player would write one for ``portolan bot-run --policy``:
bank in the dice race as soon as the haul is 6 or more, else roll (docs/bots.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.games.base import Action, Game, Rng


def decide(game: Game[Any], view: Mapping[str, Any], seat: int, legal: Sequence[Action], rng: Rng) -> Action:
    if view.get("haul", 0) >= 6 and {"type": "bank"} in legal:
        return {"type": "bank"}
    return dict(legal[0])
