"""Nauticus (Kramer & Kiesling, Kosmos 2013): ships of hulls, masts and sails, goods to deliver.

Rules: ``/work/shared/rules/nauticus.md`` (cited as spec §n, rulings R as §10/§13). Modules:

* ``data`` - board and component numbers from ``data.json`` (UNVERIFIED ones via ``provisional``);
* ``state`` - the immutable state and its canonical JSON;
* ``ships`` - hull legality, crest rule, completion, warehouse room;
* ``flow`` - setup, rounds, phases, turns, pass penalties;
* ``rules`` - legal action generation; ``actions`` - applying an action;
* ``scoring`` - final scoring and tie-breaks; ``view`` / ``render`` - what players see;
* ``schemas`` - the action vocabulary and JSON Schemas.
"""

from __future__ import annotations

from .game import Nauticus

GAME = Nauticus()

__all__ = ["GAME", "Nauticus"]
