"""Ophir (Terra Nova Games, 2015) for 2-4 players: the rules core.

Modules: :mod:`.data` (data.json tables and the map graph), :mod:`.state` (frozen state and its
canonical JSON), :mod:`.setup` (shuffles, barriers, draft), :mod:`.navigation` (moves, influence
tests, anchoring, the 2-player rival), :mod:`.actions` (actions by hex and the specialists),
:mod:`.flow` (market shift, end of turn, end of game), :mod:`.rules` (legal actions and the apply
dispatcher), :mod:`.scoring`, :mod:`.view`, :mod:`.render` and :mod:`.game` (the Game object).

Progress ruling (server ruling; the rulebook is silent, issue 9): the game ends only through the temple
or the market (§8), and players could gather and sell their specialty for ever without either. So the
market shifts on its own at a turn end once the turns played reach 25 rounds per shift so far
(``flow.STALL_ROUNDS_PER_SHIFT``, the shift of a rival trade, §7); the 37th shift ends the game (§5.4), so
every game lasts at most 37 x 25 rounds. Real play shifts about once per turn and never meets it.
"""

from __future__ import annotations

from .game import Ophir

GAME = Ophir()

__all__ = ["GAME", "Ophir"]
