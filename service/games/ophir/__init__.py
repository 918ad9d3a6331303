"""Ophir (Terra Nova Games, 2015) for 2-4 players: the rules core.

Modules: :mod:`.data` (data.json tables and the map graph), :mod:`.state` (frozen state and its
canonical JSON), :mod:`.setup` (shuffles, barriers, draft), :mod:`.navigation` (moves, influence
tests, anchoring, the 2-player rival), :mod:`.actions` (actions by hex and the specialists),
:mod:`.flow` (market shift, end of turn, end of game), :mod:`.rules` (legal actions and the apply
dispatcher), :mod:`.scoring`, :mod:`.view`, :mod:`.render` and :mod:`.game` (the Game object).
"""

from __future__ import annotations

from .game import Ophir

GAME = Ophir()

__all__ = ["GAME", "Ophir"]
