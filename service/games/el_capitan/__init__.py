"""El Capitán (Wolfgang Kramer & Horst-Rainer Rösner, 2007): the rules core.

Modules: ``data`` (board, cards, tables from data.json with provenance), ``state`` (frozen state
and canonical JSON), ``track`` (building track: sites, run limit, shut-down, payout value),
``rules`` (legal-action generators by the printed rules), ``validate`` (shape and rule checks of incoming
actions), ``moves`` (applying turn steps), ``payday`` (income, loans, next start player, game end),
``progress`` (the rulings that make every game end), ``legal`` (the legal actions: the generators with the
progress rulings applied; imports flow rules -> moves -> progress -> legal, never back),
``view`` (views and the text rendering in the reader's language), ``words`` (colours, seat names, cards and
the actions in words), ``labels`` (menu labels with prices), ``events`` (each event's sentence from its
fields: the stored English text and ``describe_event``), ``game`` (the ``Game`` class). Every word a player
reads is a ``service.i18n`` Phrase of the ``el_capitan`` catalog (issue 29; Hungarian: the rulebook's words,
``service/i18n/glossary/el_capitan.toml``; rules page ``docs/rules/el-capitan.hu.md``).

Spec rulings (shared/rules/el-capitan.md §10) and where they live:

* R-1 tentative steps: buys, legs and a paid pirate move before the action are undone by a loan turn
  or a first-round pass (``moves.tentative``, ``Turn.snapshot``); there is no separate undo action.
* Progress rulings (issue 9; ``progress``): a turn is undone from a dead end at most once, after which only
  the steps that keep a direct voyage and build possible are legal (R-1 with R-4); a voluntary loan turn
  needs one of the printed 18 x 10 / 12 x 16 loan cards, forced loans stay unlimited (R-17). Together they
  make every game end: without them a player could be undone, or take loan turns, for ever.
* R-2, R-3 loan turn holds exactly one loan and nothing else (``moves.do_take_loan``).
* R-4 first-round pass, R-5 empty supply still acts (``rules.gen_pass``, ``rules.gen_take_loan``, with the
  progress rulings applied in ``legal``). A "pass" from a dead end reached by tentative steps only undoes them
  while a direct voyage and build was possible from the turn start (``moves.direct_turn_possible``); otherwise
  it ends the turn.
* R-6 first leg from off the board is a destination use; R-7 no voyage back to its start city;
  R-10 Manhattan seal steps through open sea; R-11 first free harbour space (``rules``, ``moves.do_sail``).
* R-8 re-open on a shut-down space shuts down; R-9 backwards never shuts down (``track.place``).
* R-12, R-13 fortress income; R-22 majority tie by position; R-35 Lisboa at payday (``payday.income``).
* R-14 poorest tie, R-15 forced loans at settlement and debt at the end, R-27 no early repayment
  (``payday``); R-16 shared victory with a house order in ``Outcome.detail``; R-17 unlimited loans.
* R-18 2-player with expansions, R-19 no Lisboa payment on re-open (``moves.lisboa_payment``).
* R-20 protection money, R-21 one pirate move per turn, R-36 free-move targets (``moves``, ``rules``).
* R-23 shut-down pieces count as placed (the trigger reads the personal supply), R-24 round end.
* R-25 everything public but deck order (``view``); R-26 reshuffle recorded in an event visible to nobody.
* R-28 fortress space choice, R-29/R-34 bonus cards, R-30 forced loans at the bank, R-31 any tile subset,
  R-32 no triangle on expansion tiles (data), R-33 extended 10-Florin loan repays 16 (data).

Paid pirate move by cards (spec §8.4, "one or more" cards in the rulebook): sailed card by card with
``move-pirate`` ``means: "card"``. A leg without ``harbour`` is a stop: the pirate is under way
(``Turn.pirate_transit``), takes no harbour space and bumps nobody, and its piece stays on its space; the
leg with ``harbour`` ends the voyage under the destination rules (a free space or an occupied one, not the
city it set off from, R-36). While it is under way nothing else happens in the turn; only stops from which
the rest of the hand can still end the voyage are legal (``rules._can_end``), and every leg consumes a card.
"""

from __future__ import annotations

from .game import ElCapitan

GAME = ElCapitan()

__all__ = ["GAME", "ElCapitan"]
