"""What a reply to a Portolan mail may say: the reply grammar, pure and separately tested.

A reply is read from its *first paragraph*: the first non-empty line and the lines right under
it, up to the first empty line (so "Thanks!" below a blank line is never taken for a move).
Quoted lines (``>``) and everything from a ``-- `` signature line on are never read, although
the transport has already removed quotes and signatures with a reply-parsing library: this is
only the last guard. Case does not matter, except in the name of ``join``.

- a **move**: a whole turn as a list of *steps*, separated by commas, semicolons, new lines or the
  word ``then`` (``3, 1, end``; ``sail to Tunis, build a warehouse, end``), played in order as
  one move, all or nothing. A piece that is only menu numbers (``3``, ``#3``, ``3.``, ``3)``,
  ``(3)``, ``no. 3``; ``3 1`` is two) names items of the menu the mail showed; any piece with a
  letter in it is one *phrase*, digits and all, matched as text against the actions open at
  that step (:mod:`service.play.mail.steps`), so a copied menu line means its own action and
  never also the item its price happens to number;
- a **command**: ``show``, ``log``, ``help``, ``key``, ``stop notices`` (also ``stop``,
  ``unsubscribe``), ``notices every|digest|off``, ``join <your name>``, and the match clock's
  (docs/clock.md): ``resign yes`` (``resign`` alone only explains), ``abort`` (a vote to abort
  the match), ``back`` (take the seat back from a stand-in), ``vacation YYYY-MM-DD DAYS`` and
  ``vacation off``; ``language english`` / ``nyelv magyar`` (any name of a language
  :func:`service.i18n.parse_language` knows): the address's mail language.

Every command may be said in Hungarian too, whatever the address's language (:data:`HUNGARIAN`:
``mutasd``, ``napló``, ``súgó``, ``feladom igen``, ``leiratkozom``...; docs/mail-replies.md has the
list); accents and case do not matter.

:func:`read` says which one a reply is (:func:`read_reply` also reads a command in the subject
of a reply without words, as a ``List-Unsubscribe`` mail is); :mod:`service.play.mail.steps` turns a
move's pieces into actions, or says exactly which step did not fit and why.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from service.i18n import parse_language, phrase

Command = Literal["show", "log", "help", "key", "resign", "abort", "back", "vacation", "notices", "join", "language"]
MAX_STEPS = 50
"""More steps than any turn of the three games needs: a longer list is garbage, not a move."""

_SIMPLE: dict[str, Command] = {"show": "show", "board": "show", "menu": "show", "log": "log", "history": "log",
                               "help": "help", "?": "help", "key": "key", "abort": "abort", "back": "back",
                               "i am back": "back", "i'm back": "back"}
_STOP = ("stop", "stop notices", "stop notice", "unsubscribe", "notices stop")
_NOTICE_PREFS = ("every", "digest", "off")

HUNGARIAN: dict[str, str] = {
    # the whole reply (accents folded, lower case) -> the English command it says
    "mutasd": "show", "mutat": "show", "tabla": "show", "menu": "show",
    "naplo": "log", "elozmenyek": "log",
    "sugo": "help", "segitseg": "help",
    "kulcs": "key",
    "megszakitas": "abort", "megszakitom": "abort",
    "visszajottem": "back", "itt vagyok": "back",
    "leiratkozom": "stop notices", "leiratkozas": "stop notices", "ertesitesek ki": "notices off",
    "ertesites ki": "notices off", "ertesitesek minden": "notices every", "ertesites minden": "notices every",
    "ertesitesek napi": "notices digest", "ertesites napi": "notices digest",
    "feladom": "resign", "feladom igen": "resign yes",
    "szabadsag ki": "vacation off",
}
"""Hungarian command words, read beside the English ones (docs/mail-replies.md): a reply that is one
of these (accents and case aside) is read as the English command it names."""
_HU_HEADS: dict[str, str] = {"szabadsag": "vacation", "csatlakozom": "join", "beszallok": "join",
                             "nyelv": "language"}
"""Hungarian first words of commands that take an argument (``szabadság 2027-01-04 7``,
``csatlakozom Kiss Anna``, ``nyelv angol``)."""


def fold(text: str) -> str:
    """``text`` lower case without accents, its spaces collapsed: how command words are compared."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(bare.lower().split())


def _english(first: str) -> str:
    """A Hungarian command said in English words (the name after ``csatlakozom`` kept as written);
    anything else as it is."""
    folded = fold(first).rstrip(".!")
    if folded in HUNGARIAN:
        return HUNGARIAN[folded]
    head, _, rest = first.partition(" ")
    english = _HU_HEADS.get(fold(head))
    if english is None:
        return first
    return f"{english} {rest.strip()}" if rest.strip() else english


@dataclass(frozen=True)
class Reading:
    """What one reply says: a command (with its argument), a move (its pieces), or garbage (why)."""

    command: Command | None = None
    argument: str = ""
    """``join``: the name as written; ``notices``: every, digest or off; ``resign``: ``yes`` when
    confirmed, else ""; ``vacation``: ``off``, or the start date and the number of days
    (``2027-01-04 7``); ``language``: the language's code (``hu``)."""
    pieces: tuple[Piece, ...] = ()
    """A move: its pieces (menu numbers or phrases), in order, as written."""
    problem: str = ""
    """Garbage: what could not be read."""

    @property
    def picks(self) -> tuple[int | str, ...]:
        """A move's steps as written, flat: each menu number, and each phrase in lower case with
        its spaces collapsed (a phrase may still be joined with the next one when matched)."""
        return tuple(x for p in self.pieces for x in (p.numbers or (" ".join(p.written.lower().split()),)))

    @property
    def is_move(self) -> bool:
        """A reply that plays steps (and is not a command)."""
        return bool(self.pieces)


def first_paragraph(text: str) -> list[str]:
    """The lines that are read: the first non-empty one and those right below it, stopping at
    an empty line, a quoted line (``>``) or a signature delimiter (``-- ``)."""
    lines: list[str] = []
    for raw in text.splitlines():
        if raw.rstrip() == "--" or raw.startswith("-- "):
            break  # RFC 3676 section 4.3: the signature starts here
        line = raw.strip()
        if line.startswith(">"):
            if lines:
                break
            continue
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    return lines


def read(text: str) -> Reading:
    """What the reply ``text`` (its own words, quotes already removed) says."""
    lines = first_paragraph(text)
    if not lines:
        return Reading(problem=phrase("the reply has no words of its own (an empty reply, or only quoted text)"))
    first = _english(" ".join(lines[0].split()))
    lowered = first.lower().rstrip(".!")
    if lowered in _SIMPLE:
        return Reading(command=_SIMPLE[lowered])
    if lowered in _STOP:
        return Reading(command="notices", argument="off")
    words = lowered.split()
    if words[0] in ("notices", "notice") and len(words) == 2 and words[1] in _NOTICE_PREFS:
        return Reading(command="notices", argument=words[1])
    if words[0] in ("notices", "notice"):
        return Reading(problem=phrase("{written}: say `notices every`, `notices digest` or `notices off`",
                                      written=repr(first)))
    if words[0] == "language" and len(words) >= 2:
        code = parse_language(fold(" ".join(words[1:])))
        if code is None:
            return Reading(problem=phrase("{written}: say `language english` or `nyelv magyar`", written=repr(first)))
        return Reading(command="language", argument=code)
    if words[0] == "resign":
        if len(words) == 1:
            return Reading(command="resign")
        if words[1:] in (["yes"], ["igen"]):
            return Reading(command="resign", argument="yes")
        return Reading(problem=phrase("{written}: to resign, say `resign yes`", written=repr(first)))
    if words[0] in ("vacation", "holiday"):
        return _vacation(first, words[1:])
    if words[0] == "join":
        name = first.split(None, 1)[1].strip() if len(words) > 1 else ""
        if not name:
            return Reading(problem=phrase("`join` needs your name after it, as in `join Ana Lima`"))
        return Reading(command="join", argument=name)
    return _picks(lines)


def _vacation(first: str, args: list[str]) -> Reading:
    """``vacation off`` or ``vacation YYYY-MM-DD DAYS`` (the use case checks the date and days)."""
    if args == ["off"]:
        return Reading(command="vacation", argument="off")
    if len(args) == 2 and args[1].isdigit() and args[1].isascii():
        return Reading(command="vacation", argument=f"{args[0]} {int(args[1])}")
    return Reading(problem=phrase("{written}: say `vacation YYYY-MM-DD DAYS` (e.g. `vacation 2027-01-04 7`) or "
                                  "`vacation off`", written=repr(first)))


def read_reply(text: str, subject: str) -> Reading:
    """What a reply says: its body (:func:`read`), or, when the body has no words of its own,
    a command in its subject. That is how a ``List-Unsubscribe`` mailto (RFC 2369) arrives: the
    subject ``stop notices`` and an empty body. A subject never makes a move."""
    reading = read(text)
    if not reading.problem or first_paragraph(text):
        return reading
    words = subject.split()
    while words and words[0].lower() in ("re:", "fwd:", "fw:", "aw:", "sv:", "vá:", "továbbítás:"):
        words = words[1:]
    by_subject = read(" ".join(words))
    return by_subject if by_subject.command else reading


# -- the steps of a move ------------------------------------------------------------------------

_NUMBER = r"(?:(?:no|nr|n°|number|item)\.?\s*)?#?\s*\(?\s*([0-9]{1,4})\s*[.):]?\s*\)?"
"""One menu number as mail clients and people write it: ``3``, ``#3``, ``3.``, ``3)``, ``(3)``, ``no. 3``."""
_NUMBERS = re.compile(rf"\s*{_NUMBER}(?:\s+{_NUMBER})*\s*[.!]?\s*", re.IGNORECASE)
_ONE_NUMBER = re.compile(_NUMBER, re.IGNORECASE)
_SEPARATOR = re.compile(r"(\s*[,;]\s*(?:(?:and\s+)?then\s+)?|\s+(?:and\s+)?then\s+)", re.IGNORECASE)
"""Between two steps: a comma or a semicolon, or the word ``then`` (``and then``), or both."""
_LEADING_THEN = re.compile(r"^(?:and\s+)?then\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Piece:
    """One piece of a move reply between two separators, as written.

    A piece that is only menu numbers (``3``, ``#3 1``) is that many steps; any other piece with
    a letter in it is one *phrase* step, matched as text by :mod:`service.play.mail.steps`: its
    digits are part of the words (``buy card C27 (Napoli-Athina) for 1`` is one step, never item 1)."""

    written: str
    """The piece as written, its spaces collapsed."""
    numbers: tuple[int, ...] = ()
    """The menu numbers of a numbers-only piece; empty for a phrase."""
    joiner: str = ""
    """What separated it from the piece before, as written (``,``, ``; then``, a new line as
    ``\\n``), "" for the first: a menu label that holds a comma or a "then" (``pass, then play
    the extra action: Buy goods``) is found again by joining the pieces with it."""

    @property
    def is_phrase(self) -> bool:
        """A step written in words (not menu numbers)."""
        return not self.numbers

    @property
    def size(self) -> int:
        """How many steps the piece is on its own: its numbers, or one phrase."""
        return len(self.numbers) or 1


def pieces_of(lines: Sequence[str]) -> list[Piece]:
    """The pieces of a move over the paragraph's lines (docs/mail-replies.md, "A whole turn in
    one reply"). Pieces without a letter or a digit (``-``, ``!!``) are dropped."""
    out: list[Piece] = []
    for n, line in enumerate(lines):
        parts = _SEPARATOR.split(line)
        joiner = "\n" if n else ""
        for i, part in enumerate(parts):
            if i % 2:  # a separator (re.split keeps the captured ones at odd positions)
                joiner = (joiner if joiner.strip() else "") + part.strip()
                continue
            text = " ".join(part.split())
            lead = _LEADING_THEN.match(text)
            if lead:  # "then" at the start of a line or after a separator the split kept
                joiner, text = (joiner + " " + lead.group(0).strip()).strip() or "then", text[lead.end():]
            if any(c.isalnum() for c in text):
                numbers = (tuple(int(m.group(1)) for m in _ONE_NUMBER.finditer(text))
                           if _NUMBERS.fullmatch(text) else ())
                out.append(Piece(text, numbers, joiner))
                joiner = ""
    return out


def _picks(lines: Sequence[str]) -> Reading:
    """A move: its pieces, in order, at most :data:`MAX_STEPS` steps."""
    pieces = pieces_of(lines)
    if not pieces:
        return Reading(problem=phrase("the reply has no menu number, action or command in it"))
    steps = sum(p.size for p in pieces)
    if steps > MAX_STEPS:
        return Reading(problem=phrase("the reply has {n} steps; a move has at most {most}", n=steps, most=MAX_STEPS))
    return Reading(pieces=tuple(pieces))
