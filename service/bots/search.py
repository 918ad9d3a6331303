"""The search bot (placeholder while the search is written: see the next commit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.bots.heuristic import heuristic_policy
from service.bots.knowledge import Knowledge
from service.bots.policy import Policy


@dataclass(frozen=True)
class Budget:
    """How much one decision may search."""

    iterations: int


LEVELS = {"easy": Budget(50), "medium": Budget(200), "hard": Budget(600)}


def search_policy(knowledge: Knowledge[Any], budget: Budget) -> Policy:
    return heuristic_policy(knowledge)
