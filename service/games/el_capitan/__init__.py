"""El Capitán (Wolfgang Kramer & Horst-Rainer Rösner, 2007): the rules core.

Modules: ``data`` (board, cards, tables from data.json with provenance), ``state`` (frozen state
and canonical JSON), ``track`` (building track: sites, run limit, shut-down, payout value),
``rules`` (legal-action generators), ``validate`` (shape and rule checks of incoming actions),
``moves`` (applying turn steps), ``payday`` (income, loans, next start player, game end),
``view`` (views and the text rendering), ``game`` (the ``Game`` class).
"""

from __future__ import annotations

from .game import ElCapitan

GAME = ElCapitan()

__all__ = ["GAME", "ElCapitan"]
