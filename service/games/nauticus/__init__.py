"""Nauticus (Kramer & Kiesling, Kosmos 2013): ships of hulls, masts and sails, goods to deliver.

Rules: ``/work/shared/rules/nauticus.md`` (cited as spec §n). Modules:

* ``data`` - board and component numbers from ``data.json`` (UNVERIFIED ones via ``provisional``);
* ``state`` - the immutable state (named tuples) and its canonical JSON;
* ``ships`` - hull legality, crest rule, completion, warehouse room, crowns;
* ``flow`` - setup with seat compensation, rounds, phases, turns, pass penalties;
* ``rules`` - legal action generation;
* ``actions`` (dispatch, choosing, bonuses, pass, done, extra action), ``units`` (buy, transfer,
  deliver, take money, score crowns, ship rewards) and ``common`` (shared checks) - applying an action;
* ``scoring`` - final scoring and tie-breaks; ``view`` / ``render`` - what players see (``render`` in the
  reader's language);
* ``words`` - the game's words as ``service.i18n`` phrases (tiles, crests, action tiles, seat colours, places,
  counts); ``events`` - each event's sentence from its fields (``describe_event``; the stored ``text`` is its
  English); the Hungarian words are the catalog ``nauticus.po`` and the glossary ``glossary/nauticus.toml``;
* ``schemas`` - the action vocabulary and JSON Schemas; ``game`` - the :class:`Nauticus` object.

Spec rulings implemented (spec §10 and §13.3), and where:

* §10.1 everything public (``view``); §10.2 turns as unit steps ended by ``done``/``pass``, a ``done``
  with no unit is a pass (``actions._done``); §10.3 no legal unit leaves only ``pass``;
* §10.4 every executing player gets the whole blue pool, never for the extra action (``flow.fresh_turn``);
* §10.5 full warehouse: bonus tiles forfeited, 0-price buys and tile rewards unavailable, nothing
  discarded, a paid tile with no legal place cannot be bought (``rules``, ``actions._settle``);
* §10.6 empty stacks: not bought, bonus not gained, reward unavailable (2 different goods need 2 types);
* §10.7 / §13.3.4 the all-four bonus item, once per execution, granted at the 4th kind (``units.buy``);
* §10.8 golden rule; §10.9 hull model; §10.10 crest rule (``ships``);
* §10.11 a completed ship blocks the turn until its rewards are taken (``units._placed``);
* §10.12 / §13.3.2-3 the extra action: at the start or end of the own turn, also after passing
  (``pass_first``), no bonus, no blue workers, its own price tracking and crown cap (``actions._extra_action``);
* §10.13 crown cap: at most ceil(remaining cap / crowns) workers; 0 crowns leaves only a pass;
* §10.14 / §13.3.5 a pass flips the most negative pass tile (``common.flip``);
* §10.15 / §13.3.1 the start-player figure passes after every phase, the 7th included (``flow.chooser_of``;
  the switch is ``rulings.start_player_passes_after_last_phase`` in ``data.json``);
* §10.16 negative scores allowed; §10.17 goods on ships are leftovers at 1 thaler (``scoring``);
* §10.18 the anchor tile marks each round's first action; the wheel turns to it (``flow.end_round``);
* §10.20 every UNVERIFIED number lives in ``data.json``.
"""

from __future__ import annotations

from .game import Nauticus

GAME = Nauticus()

__all__ = ["GAME", "Nauticus"]
