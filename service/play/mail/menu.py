"""The numbered menu of a seat's legal actions, as mail shows it and a reply picks from it.

Item ``n`` (from 1) is ``legal_actions[n - 1]`` of the seat's view at the ply the mail was sent
for, in the order the rules core lists them, so the numbers in a notice and in its answer mean
the same action. A mail shows at most :data:`SHOWN` items; the numbers past it still pick (a
``show`` reply lists them all).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SHOWN = 40


@dataclass(frozen=True)
class Item:
    """One line of the menu: its number, the plain words, and the action it stands for."""

    number: int
    text: str
    action: dict[str, Any]


def menu(legal_actions: Sequence[dict[str, Any]]) -> list[Item]:
    """Every legal action of a view (``{"action", "text"}`` rows) as a numbered item."""
    return [Item(i + 1, row["text"], row["action"]) for i, row in enumerate(legal_actions)]
