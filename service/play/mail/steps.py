"""A whole turn in one reply: the steps of a move reply matched and played, pure and exact.

A move reply is a list of steps (service.play.mail.grammar reads them: menu numbers and
phrases). This module plays them **on the real current state with the ply's real Rng**, one
after the other, each against the position the steps before it made, exactly as the commit
will (service.play.moves.commit applies a move's actions in order with one Rng), and answers a
:class:`Plan`: every step's action and label, or the first step that did not fit and why.
Nothing here touches storage; the desk submits the plan's actions as one move, and the commit
checks them all again (docs/mail-replies.md, "A whole turn in one reply").

- **A number** names an item of the menu the mail showed (the player saw that menu and no
  other): item N's action. At step k it must also be open in the position after steps
  1..k-1 (the same action, compared by value), or the reply is refused.
- **A phrase** is matched against the actions open at its step, by their menu labels and
  types (:func:`match_phrase`): case, accents, dashes, punctuation and filler words do not
  matter, a word may be the start of the label's word, and a small typo is forgiven when one
  action is clearly closer than any other. The words after a label's first "(" or comma only
  qualify it, and count only once the phrase named the words before them. Digits must be exact: ``C2`` never names ``C27``,
  ``for 2`` never names a card that costs 1. A phrase that fits several actions is refused
  with them listed.
- **Nothing the player has not seen decides a later step.** A step that draws on chance (the
  Rng counted draws while it applied), or that cannot be taken back because it revealed
  something hidden or ended a turn (service.games.undo, ``commits``), must be the last step of
  a reply: otherwise the refusal of a later step could tell a die or a card before the player
  committed to anything. The check comes before anything later is matched and its words never
  depend on the outcome. A reply whose turn ends before its last step is refused too.
- **All or nothing**: the first problem stops everything; the plan says which step it was
  (its number and its words as written) and what the steps before it would have played.
- **Either language** (issue 29): a phrase is matched against every action's label rendered in
  every language Portolan speaks, English and Hungarian alike, whatever the address's language;
  a few whole-step words stand for the English ones (:data:`STEP_WORDS`: ``vége`` is ``end``). The
  plan's sentences are phrases, said in the answer's language.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from rapidfuzz.distance import OSA

from service.games.base import Action, Game, GameError, Rng
from service.games.undo import TurnUndo, UndoBlocked, is_undo
from service.games.words import cited_rules
from service.i18n import codes, phrase, render
from service.play.mail.grammar import Piece
from service.play.mail.menu import Item

FILLER = frozenset({"a", "an", "the", "to", "in", "at", "for", "on", "with", "of", "and", "my", "your", "from",
                    "into", "onto", "by", "please", "az", "egy", "kerlek"})
"""Words a phrase may add or leave out: "sail to Tunis" and "sail Tunis" name the same step (the
Hungarian articles "a", "az", "egy" too)."""
STEP_WORDS = {"vege": "end", "kesz": "end", "passz": "pass"}
"""Hungarian whole-step words (accents folded) read as the English word when they name no action
by the labels themselves: ``3, 1, vége`` is ``3, 1, end``."""
MAX_JOIN = 4
"""A menu label split by at most this many pieces (its commas, a "then") is found again whole."""
SHOWN = 5
"""How many candidates an ambiguous phrase's refusal lists."""
MAX_WORDS = 40
"""More words than any label has: a longer phrase is not one step (and is not matched at all, so
a long paragraph costs the desk nothing)."""


def normal_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` for matching: accents off (NFKD), case folded, every dash and
    punctuation mark a space (``Tunis–Alexandria`` = ``tunis-alexandria`` = ``Tunis Alexandria``)."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()
    return tuple("".join(c if c.isalnum() else " " for c in bare).split())


def core_words(text: str) -> tuple[str, ...]:
    """:func:`normal_words` without the :data:`FILLER` words (all of them when only fillers are left)."""
    words = normal_words(text)
    return tuple(w for w in words if w not in FILLER) or words


def bound_numbers(text: str) -> frozenset[int]:
    """The positions, among :func:`core_words`, of the bare numbers written right after a word
    that is not a filler: ``site 2`` says *which* site, while ``for 2`` is a free number (a price
    anywhere in the label)."""
    words = normal_words(text)
    core = core_words(text)
    if len(core) != len([w for w in words if w not in FILLER]):
        return frozenset()  # only fillers: nothing is bound
    out: set[int] = set()
    k = -1
    for n, word in enumerate(words):
        if word in FILLER:
            continue
        k += 1
        if word.isdigit() and n > 0 and words[n - 1] not in FILLER:
            out.add(k)
    return frozenset(out)


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def _typos(word: str) -> int:
    """How many typos (an insertion, a deletion, a change or two letters swapped) a word of
    the phrase may have: none in a short word or one with a digit (a card, a number, a price)."""
    if _has_digit(word) or len(word) < 5:
        return 0  # a short word is too near other words: "wood" is one letter from "good"
    return 1 if len(word) < 9 else 2


@dataclass(frozen=True)
class Option:
    """An action open at a step, with its menu label (the words a player copies)."""

    action: Action
    label: str

    @property
    def type_words(self) -> tuple[str, ...]:
        """The action type's words (``end-turn``: end, turn)."""
        return normal_words(str(self.action.get("type", "")))

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The label in every language (English first, each once): a step may use any of them."""
        out: list[str] = []
        for code in codes():
            said = render(self.label, code)
            if said not in out:
                out.append(said)
        return tuple(out)


def _prefix_fits(phrase: Sequence[str], words: Sequence[str]) -> bool:
    """``words`` start with ``phrase``, its last word possibly cut short (never a number)."""
    if not phrase or len(phrase) > len(words):
        return False
    *head, last = phrase
    other = words[len(head)]
    return list(head) == list(words[: len(head)]) and (last == other or (not _has_digit(last) and other.startswith(last)))


def _in_order(phrase: Sequence[str], words: Sequence[str], bound: frozenset[int] = frozenset(),
              head: int | None = None) -> bool:
    """Every word of ``phrase`` is a word of ``words`` or the start of one (a number: whole),
    in the same order, under :func:`_typo_cost`'s rules for bound numbers and the label's head."""
    return _typo_cost(phrase, words, typos=False, bound=bound, head=head) == 0


def _word_cost(word: str, other: str, typos: bool) -> int | None:
    """0 when ``word`` is ``other`` or its start (a word with a digit: only itself), else the
    typos between them within the word's allowance (:func:`_typos`), else None."""
    if word == other or (not _has_digit(word) and other.startswith(word)):
        return 0
    allowed = _typos(word) if typos else 0
    if not allowed:
        return None
    cost = OSA.distance(word, other, score_cutoff=allowed)
    if len(word) >= 6:  # a typo in the start of a longer word ("warehos" for warehouse)
        cost = min(cost, OSA.distance(word, other[: len(word)], score_cutoff=allowed))
    return cost if cost <= allowed else None


def _typo_cost(phrase: Sequence[str], words: Sequence[str], typos: bool = True,
               bound: frozenset[int] = frozenset(), head: int | None = None) -> int | None:
    """The fewest typos that make every word of ``phrase`` a word (or a word's start) of
    ``words`` in order, within each word's allowance; None if none do.

    Two rules keep a phrase from naming what it does not mean. A *bound* number (its position
    in ``bound``, :func:`bound_numbers`) must come right after the label word the phrase word
    before it matched: ``site 2`` names "on site 2", never "on site 1 for 2". And the words
    after the label's *head* (``words[:head]``, the label before its first "(" or comma: the
    qualifiers) count only once the phrase has named the head's last word: ``gather cloth``
    never names "gather one gem, throwing back cloth", nor ``buy mast`` "choose the action Buy
    goods (bonus 1 normal mast ...)". A free number (a price after "for") may match anywhere."""
    inf = 10**6
    end = len(words) if head is None or head <= 0 else min(head, len(words))
    # at[j]: the least cost with the current phrase word matched at words[j]
    # upto[j]: the least cost with the current phrase word matched somewhere in words[:j]
    upto = [0] * (len(words) + 1)
    at = [inf] * len(words)
    for i, word in enumerate(phrase):
        bare_number = i > 0 and i in bound
        free_number = word.isdigit() and not bare_number
        # past[j]: the least cost with the word before matched in words[end - 1:j] (the head's
        # last word or a qualifier): what a qualifier may follow
        past = [inf] * (len(words) + 1)
        for j in range(max(end - 1, 0), len(words)):
            past[j + 1] = min(past[j], at[j])
        new_at = [inf] * len(words)
        for j, other in enumerate(words):
            cost = _word_cost(word, other, typos)
            if cost is None:
                continue
            if bare_number:
                before = at[j - 1] if j else inf
            elif j < end or free_number:
                before = upto[j]
            else:
                before = past[j]
            new_at[j] = min(inf, before + cost)
        at = new_at
        upto = [inf] * (len(words) + 1)
        for j in range(len(words)):
            upto[j + 1] = min(upto[j], at[j])
    found = upto[len(words)]
    return found if found < inf else None


def head_size(label: str) -> int:
    """How many of the label's :func:`core_words` come before its first "(" or comma: the head
    that names the action; what follows qualifies it."""
    cut = min((i for i in (label.find("("), label.find(",")) if i >= 0), default=len(label))
    return sum(1 for w in normal_words(label[:cut]) if w not in FILLER)


@dataclass(frozen=True)
class Matched:
    """What a phrase names among the options: one option, or the candidates (ambiguous), or none."""

    option: Option | None = None
    candidates: tuple[Option, ...] = ()
    closest: tuple[Option, ...] = ()
    """For a phrase that names nothing: the options it came closest to, as suggestions."""


def match_phrase(phrase: str, options: Sequence[Option]) -> Matched:
    """The one option ``phrase`` names, by tiers; the first tier that fits any option decides
    (one fit: that option; several: ambiguous, never a guess at a looser tier):

    1. the label, its filler words aside, is the phrase (a copied menu line);
    2. the action type is the phrase (``end-turn``, ``pass``);
    3. the label or the type starts with the phrase (``end`` for "end the turn");
    4. every word of the phrase is a word of the label or its start, in order
       (``build warehouse`` for "build a warehouse in Tunis for 3");
    5. the same with small typos (:func:`_typos` per word), the option needing the fewest
       typos, only if no other option needs as few."""
    found = _match(phrase, options)
    instead = STEP_WORDS.get(" ".join(normal_words(phrase)))
    if instead is not None and found.option is None and not found.candidates:
        return _match(instead, options)
    return found


def _match(phrase: str, options: Sequence[Option]) -> Matched:
    """:func:`match_phrase` without the step words: the tiers over every option's names."""
    words = core_words(phrase)
    bound = bound_numbers(phrase)
    if not words or not options:
        return Matched()
    # per option, its label in each language: (core words, normal words, head size)
    names = [[(core_words(n), normal_words(n), head_size(n)) for n in o.names] for o in options]
    types = [o.type_words for o in options]
    bare = normal_words(phrase)
    tiers = (
        [o for o, ns in zip(options, names, strict=True) if any(lab == words or full == bare for lab, full, _ in ns)],
        [o for o, t in zip(options, types, strict=True) if t == bare],
        [o for o, ns, t in zip(options, names, types, strict=True)
         if any(_prefix_fits(words, lab) for lab, _, _ in ns) or _prefix_fits(bare, t)],
        [o for o, ns in zip(options, names, strict=True) if any(_in_order(words, lab, bound, h) for lab, _, h in ns)],
    )
    for fits in tiers:
        if len(fits) == 1:
            return Matched(option=fits[0])
        if fits:
            return Matched(candidates=tuple(fits))
    costs: list[tuple[int, Option]] = []
    for o, ns in zip(options, names, strict=True):
        found = [c for lab, _, h in ns if (c := _typo_cost(words, lab, bound=bound, head=h)) is not None]
        if found:
            costs.append((min(found), o))
    if costs:
        least = min(c for c, _ in costs)
        fits = [o for c, o in costs if c == least]
        # the margin: a typo forgiven only when no other action is as close to what was written
        return Matched(option=fits[0]) if len(fits) == 1 else Matched(candidates=tuple(fits))
    return Matched(closest=_closest(words, options, [tuple(w for lab, _, _ in ns for w in lab) for ns in names]))


def _closest(words: Sequence[str], options: Sequence[Option], labels: Sequence[tuple[str, ...]]) -> tuple[Option, ...]:
    """Up to three options whose labels share the most words with the phrase (suggestions only)."""
    wanted = set(words)
    scored = sorted(((len(wanted & set(lab)), i) for i, lab in enumerate(labels)), key=lambda x: (-x[0], x[1]))
    return tuple(options[i] for score, i in scored[:3] if score)


# -- playing the steps -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Played:
    """One step of the reply as it would be (or was) played."""

    number: int
    written: str
    action: Action
    label: str
    by_number: bool


Trouble = Literal["words", "rules", "chance", "turn"]


@dataclass(frozen=True)
class Failure:
    """The first step that could not be played and why (nothing of the reply is played)."""

    number: int
    written: str
    sentence: str
    """The whole reason, as a sentence without its final stop ("step 2 (`bild`) names no ...")."""
    trouble: Trouble
    """``words``: the reply's words fit no action (or several); ``rules``: the rules forbid it
    then; ``chance``: a step decided by chance, or one that cannot be taken back, was not last;
    ``turn``: the turn ended before the reply did."""
    rule: str = ""
    """The rules' section that forbids it (``rules``), when the rules core names one."""


@dataclass(frozen=True)
class Plan:
    """The steps of a reply in order, and the failure that stopped them, if any."""

    steps: tuple[Played, ...]
    failure: Failure | None = None

    @property
    def actions(self) -> list[Action]:
        """The move: every step's action, in order."""
        return [dict(p.action) for p in self.steps]


def _quote(text: str) -> str:
    return f"`{text}`"


def plan(game: Game[Any], state: Any, seat: int, rng: Rng, pieces: Sequence[Piece], items: Sequence[Item]) -> Plan:
    """Match and play ``pieces`` for ``seat`` from ``state`` with ``rng`` (the ply's own, so the
    simulation is the commit's); ``items`` is the menu the mail showed. See the module's docstring."""
    played: list[Played] = []
    i = 0
    n = 0  # steps matched so far

    def fail(written: str, sentence: str, trouble: Trouble, rule: str = "") -> Plan:
        return Plan(tuple(played), Failure(n + 1, written, sentence, trouble, rule))

    while i < len(pieces):
        if seat not in game.active_seats(state):
            return fail(pieces[i].written, phrase("step {n} ({written}) cannot be played: it is not your turn",
                                                  n=n + 1, written=_quote(pieces[i].written)), "turn")
        piece = pieces[i]
        options = [Option(a, game.label_action(state, seat, a)) for a in game.legal_actions(state, seat)]
        todo: list[tuple[str, Action, str, bool]] = []  # (written, action, label, by number) of this piece
        if piece.is_phrase and len(piece.written.split()) > MAX_WORDS:
            return fail(piece.written[:60] + " ...", phrase("step {n} is too long to be one step (more than {most} "
                                                            "words): put commas between the steps", n=n + 1,
                                                            most=MAX_WORDS), "words")
        if piece.is_phrase:
            joined = _joined(pieces, i, options)
            if joined is not None:
                width, option = joined
                todo.append((_rejoined(pieces[i:i + width]), option.action, option.label, False))
                i += width
            else:
                found = match_phrase(piece.written, options)
                if found.option is None:
                    return fail(piece.written, _unmatched(n + 1, piece.written, found, bool(played)), "words")
                todo.append((piece.written, found.option.action, found.option.label, False))
                i += 1
        else:
            for number in piece.numbers:
                todo.append((str(number), {"number": number}, "", True))
            i += 1
        for k, (written, action, label, by_number) in enumerate(todo):
            if k:  # a piece of several numbers: each plays on the position the one before made
                if seat not in game.active_seats(state):  # the check after each step says it first
                    return fail(written, phrase("step {n} ({written}) cannot be played: it is not your turn",
                                                n=n + 1, written=_quote(written)), "turn")
                options = [Option(a, game.label_action(state, seat, a)) for a in game.legal_actions(state, seat)]
            if by_number:
                number = int(action["number"])
                if not 1 <= number <= len(items):
                    why = (phrase("there is no item {number} in the menu (it has {n} items, numbered 1 to {n})",
                                  number=number, n=len(items)) if items else
                           phrase("there is no menu: no action is open"))
                    return fail(written, phrase("step {n} ({written}): {why}", n=n + 1, written=_quote(written),
                                                why=why), "words")
                action = items[number - 1].action
                label = next((o.label for o in options if o.action == action), "")
                if not label:
                    reason, rule = _rules_words(game, state, seat, action)
                    item = items[number - 1]
                    return fail(written, phrase("step {n} ({written}: {label}) is not open after the steps before it: "
                                                "{reason}", n=n + 1, written=_quote(written), label=item.text,
                                                reason=reason) if reason else
                                phrase("step {n} ({written}: {label}) is not open after the steps before it", n=n + 1,
                                       written=_quote(written), label=item.text), "rules", rule)
            draws = rng.draws
            try:
                state, _events = game.apply(state, seat, action, rng)
            except GameError as exc:  # an open action the rules refuse all the same: say their words
                return fail(written, phrase("step {n} ({written}: {label}) was refused: {why}", n=n + 1,
                                            written=_quote(written), label=label, why=exc.message), "rules", _rule(exc))
            played.append(Played(n + 1, written, dict(action), label, by_number))
            n += 1
            if k == len(todo) - 1 and i >= len(pieces):
                break  # the last step: whatever it drew or revealed, the player sees it in the answer
            if rng.draws != draws:
                return Plan(tuple(played), Failure(
                    n, written, phrase("step {n} ({written}: {label}) is decided by chance, so it must be the last "
                                       "step of a reply; send the rest after seeing it", n=n, written=_quote(written),
                                       label=label), "chance"))
            if seat not in game.active_seats(state):
                return Plan(tuple(played), Failure(
                    n + 1, _next_written(pieces, i, todo, k),
                    phrase("after step {n} ({written}: {label}) your turn is over, and the reply goes on with step "
                           "{next}; send it when it is your turn again", n=n, written=_quote(written), label=label,
                           next=n + 1), "turn"))
            # an undo goes back to the turn's start, whose own "cannot be taken back" was said then
            final = "" if is_undo(action) else _final(game, state, seat)
            if final:
                return Plan(tuple(played), Failure(
                    n, written, phrase("step {n} ({written}: {label}) cannot be taken back ({why}), so it must be the "
                                       "last step of a reply; send the rest after seeing it", n=n,
                                       written=_quote(written), label=label, why=final), "chance"))
    return Plan(tuple(played))


def _joined(pieces: Sequence[Piece], i: int, options: Sequence[Option]) -> tuple[int, Option] | None:
    """A menu label written whole across pieces ``i``, ``i+1``, ... (its own commas or "then"
    split it): the widest run of phrase pieces whose joined words are exactly one label."""
    for width in range(min(MAX_JOIN, len(pieces) - i), 1, -1):
        run = pieces[i:i + width]
        if not all(p.is_phrase for p in run):
            continue
        words = core_words(_rejoined(run))
        fits = [o for o in options if any(core_words(n) == words for n in o.names)]
        if len(fits) == 1:
            return width, fits[0]
    return None


def _rejoined(run: Sequence[Piece]) -> str:
    """Pieces written back as one text, with what separated them (``pass, then play ...``)."""
    text = run[0].written
    for piece in run[1:]:
        sep = " ".join(piece.joiner.split())
        text += (sep if sep[:1] in (",", ";") else f" {sep}" if sep else "") + " " + piece.written
    return text


def _next_written(pieces: Sequence[Piece], i: int, todo: Sequence[tuple[str, Action, str, bool]], k: int) -> str:
    """The words of the step after the one just played (the next number of the same piece, or
    the next piece)."""
    if k + 1 < len(todo):
        return todo[k + 1][0]
    return pieces[i].written if i < len(pieces) else ""


def _final(game: Game[Any], state: Any, seat: int) -> str:
    """Why the step just played cannot be taken back although the seat acts on (it revealed
    something hidden, or began another turn), in the game's words; "" when it can be."""
    if not isinstance(game, TurnUndo):
        return ""
    undo = game.undo_of(state)
    return undo.why if isinstance(undo, UndoBlocked) and undo.seat == seat else ""


def _unmatched(number: int, written: str, found: Matched, after: bool) -> str:
    """The sentence for a phrase that names no open action, or several."""
    if found.candidates:
        shown = _listed([o.label for o in found.candidates[:SHOWN]])
        if len(found.candidates) > SHOWN:
            shown = phrase("{listed} ...", listed=shown)
        how = (phrase("name it more exactly, e.g. {label}", label=_quoted(found.candidates[0].label)) if after
               else phrase("pick one by its number, or name it more exactly"))
        return (phrase("step {number} ({written}) fits {n} actions open after the steps before it ({shown}): {how}",
                       number=number, written=_quote(written), n=len(found.candidates), shown=shown, how=how) if after
                else phrase("step {number} ({written}) fits {n} actions in the menu ({shown}): {how}", number=number,
                            written=_quote(written), n=len(found.candidates), shown=shown, how=how))
    said = (phrase("step {number} ({written}) names no action open after the steps before it", number=number,
                   written=_quote(written)) if after else
            phrase("step {number} ({written}) names no action in the menu", number=number, written=_quote(written)))
    if found.closest:
        said = phrase("{said}; the closest: {closest}", said=said, closest=_listed([_quoted(o.label) for o in found.closest]))
    first = written.split()[0].strip("#.()") if written.split() else ""
    if first.isdigit() and any(c.isalpha() for c in written):  # "3 end": a number run into words
        said = phrase("{said}; to give menu numbers and words as separate steps, put commas between them (`3, end`)",
                      said=said)
    return said


def _quoted(label: str) -> str:
    """A label between backquotes, still a phrase (read in the answer's language)."""
    return phrase("`{label}`", label=label)


def _listed(items: Sequence[str]) -> str:
    """``a; b; c``, each item rendered in the reader's language."""
    if not items:
        return ""
    said = items[-1]
    for item in reversed(items[:-1]):
        said = phrase("{first}; {rest}", first=item, rest=said)
    return said


def _rules_words(game: Game[Any], state: Any, seat: int, action: Mapping[str, Any]) -> tuple[str, str]:
    """What the rules say against ``action`` now and the section they cite, by applying it with
    a stream no move uses (it is refused before it could draw, and nothing is kept); ("", "")
    when they say nothing."""
    try:
        game.apply(state, seat, action, Rng(bytes(32)))
    except GameError as exc:
        return exc.message, _rule(exc)
    return "", ""


def _rule(exc: GameError) -> str:
    """The section a rules refusal cites: its own, else the first its sentence names (as the
    commit does), else its code."""
    return exc.rule or next(iter(cited_rules(exc.message)), None) or exc.code
