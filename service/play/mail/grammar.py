"""What a reply to a Portolan mail may say: the reply grammar, pure and separately tested.

A reply is read from its *first paragraph*: the first non-empty line and the lines right under
it, up to the first empty line (so "Thanks!" below a blank line is never taken for a move).
Quoted lines (``>``) and everything from a ``-- `` signature line on are never read, although
the transport has already removed quotes and signatures with a reply-parsing library: this is
only the last guard. Case does not matter, except in the name of ``join``.

- a **move**: menu numbers and action words, separated by commas, spaces or new lines, all
  applied in order as one move (``3``; ``3, 1, end``). A word (or a run of words, ``sail to
  tyre``) stands for the one action of the menu whose type is it, else whose type or text
  starts with it;
- a **command**: ``show``, ``log``, ``help``, ``key``, ``stop notices`` (also ``stop``,
  ``unsubscribe``), ``notices every|digest|off``, ``join <your name>``, and the match clock's
  (docs/clock.md): ``resign yes`` (``resign`` alone only explains), ``abort`` (a vote to abort
  the match), ``back`` (take the seat back from a stand-in), ``vacation YYYY-MM-DD DAYS`` and
  ``vacation off``.

:func:`read` says which one a reply is (:func:`read_reply` also reads a command in the subject
of a reply without words, as a ``List-Unsubscribe`` mail is); :func:`resolve` turns a move's picks into actions of a
menu (:mod:`service.play.mail.menu`), or says exactly which pick did not fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from service.play.mail.menu import Item

Command = Literal["show", "log", "help", "key", "resign", "abort", "back", "vacation", "notices", "join"]
MAX_PICKS = 50
"""More picks than any turn of the three games needs: a longer list is garbage, not a move."""

_SIMPLE: dict[str, Command] = {"show": "show", "board": "show", "menu": "show", "log": "log", "history": "log",
                               "help": "help", "?": "help", "key": "key", "abort": "abort", "back": "back",
                               "i am back": "back", "i'm back": "back"}
_STOP = ("stop", "stop notices", "stop notice", "unsubscribe", "notices stop")
_NOTICE_PREFS = ("every", "digest", "off")


@dataclass(frozen=True)
class Reading:
    """What one reply says: a command (with its argument), a move (its picks), or garbage (why)."""

    command: Command | None = None
    argument: str = ""
    """``join``: the name as written; ``notices``: every, digest or off; ``resign``: ``yes`` when
    confirmed, else ""; ``vacation``: ``off``, or the start date and the number of days
    (``2027-01-04 7``)."""
    picks: tuple[int | str, ...] = ()
    """A move: menu numbers and (lower-cased) action words, in order."""
    problem: str = ""
    """Garbage: what could not be read."""

    @property
    def is_move(self) -> bool:
        """A reply that picks actions (and is not a command)."""
        return bool(self.picks)


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
        return Reading(problem="the reply has no words of its own (an empty reply, or only quoted text)")
    first = " ".join(lines[0].split())
    lowered = first.lower().rstrip(".!")
    if lowered in _SIMPLE:
        return Reading(command=_SIMPLE[lowered])
    if lowered in _STOP:
        return Reading(command="notices", argument="off")
    words = lowered.split()
    if words[0] in ("notices", "notice") and len(words) == 2 and words[1] in _NOTICE_PREFS:
        return Reading(command="notices", argument=words[1])
    if words[0] in ("notices", "notice"):
        return Reading(problem=f"{first!r}: say `notices every`, `notices digest` or `notices off`")
    if words[0] == "resign":
        if len(words) == 1:
            return Reading(command="resign")
        if words[1:] == ["yes"]:
            return Reading(command="resign", argument="yes")
        return Reading(problem=f"{first!r}: to resign, say `resign yes`")
    if words[0] in ("vacation", "holiday"):
        return _vacation(first, words[1:])
    if words[0] == "join":
        name = first.split(None, 1)[1].strip() if len(words) > 1 else ""
        if not name:
            return Reading(problem="`join` needs your name after it, as in `join Ana Lima`")
        return Reading(command="join", argument=name)
    return _picks(lines)


def _vacation(first: str, args: list[str]) -> Reading:
    """``vacation off`` or ``vacation YYYY-MM-DD DAYS`` (the use case checks the date and days)."""
    if args == ["off"]:
        return Reading(command="vacation", argument="off")
    if len(args) == 2 and args[1].isdigit() and args[1].isascii():
        return Reading(command="vacation", argument=f"{args[0]} {int(args[1])}")
    return Reading(problem=f"{first!r}: say `vacation YYYY-MM-DD DAYS` (e.g. `vacation 2027-01-04 7`) or `vacation off`")


def read_reply(text: str, subject: str) -> Reading:
    """What a reply says: its body (:func:`read`), or, when the body has no words of its own,
    a command in its subject. That is how a ``List-Unsubscribe`` mailto (RFC 2369) arrives: the
    subject ``stop notices`` and an empty body. A subject never makes a move."""
    reading = read(text)
    if not reading.problem or first_paragraph(text):
        return reading
    words = subject.split()
    while words and words[0].lower() in ("re:", "fwd:", "fw:", "aw:", "sv:"):
        words = words[1:]
    by_subject = read(" ".join(words))
    return by_subject if by_subject.command else reading


def _picks(lines: Sequence[str]) -> Reading:
    """A move: numbers and words over the paragraph's lines; runs of words make one phrase."""
    picks: list[int | str] = []
    for line in lines:
        for piece in line.replace(";", ",").split(","):
            phrase: list[str] = []
            for word in piece.lower().split():
                word = word.strip(".!")
                if word.isdigit() and word.isascii():
                    if phrase:
                        picks.append(" ".join(phrase))
                        phrase = []
                    picks.append(int(word))
                elif word:
                    phrase.append(word)
            if phrase:
                picks.append(" ".join(phrase))
    if not picks:
        return Reading(problem="the reply has no menu number, action or command in it")
    if len(picks) > MAX_PICKS:
        return Reading(problem=f"the reply picks {len(picks)} actions; a move has at most {MAX_PICKS}")
    return Reading(picks=tuple(picks))


@dataclass(frozen=True)
class Resolved:
    """A move's picks as actions (``actions``, with the menu lines ``chosen``), or the first
    pick that did not fit and why (``problem``)."""

    actions: tuple[dict[str, Any], ...] = ()
    chosen: tuple[Item, ...] = ()
    problem: str = ""


def _normal(word: str) -> str:
    return word.lower().replace("_", "-").replace(" ", "-")


def resolve(picks: Sequence[int | str], items: Sequence[Item]) -> Resolved:
    """Each pick as an item of ``items`` (the menu of the position the mail showed): a number is
    that item; a word is the one item whose action type equals it, else the one whose type or
    text starts with it. Stops at the first pick that fits no item, or several."""
    chosen: list[Item] = []
    for pick in picks:
        if isinstance(pick, int):
            if not 1 <= pick <= len(items):
                return Resolved(problem=f"there is no item {pick} in the menu (it has {len(items)} items, "
                                        f"numbered 1 to {len(items)})" if items else "there is no menu: no action is open")
            chosen.append(items[pick - 1])
            continue
        found = _by_word(pick, items)
        if isinstance(found, str):
            return Resolved(problem=found)
        chosen.append(found)
    return Resolved(actions=tuple(i.action for i in chosen), chosen=tuple(chosen))


def _by_word(word: str, items: Sequence[Item]) -> Item | str:
    """The one item ``word`` names, or the sentence saying why it names none (or several)."""
    want = _normal(word)
    types = [_normal(str(i.action.get("type", ""))) for i in items]
    texts = [_normal(i.text) for i in items]
    for fits in ([i for i, t in zip(items, types, strict=True) if t == want],
                 [i for i, t in zip(items, types, strict=True) if t.startswith(want)],
                 [i for i, t in zip(items, texts, strict=True) if t.startswith(want)],
                 # a word inside the text ("deliver" for "choose the action Deliver goods")
                 [i for i, t in zip(items, texts, strict=True) if f"-{want}" in f"-{t}"]):
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            # one action type with several options (e.g. every "buy-card"): the number decides
            shown = ", ".join(f"{i.number}. {i.text}" for i in fits[:5]) + (" ..." if len(fits) > 5 else "")
            return f"{word!r} fits {len(fits)} items of the menu ({shown}): pick one by its number"
    return f"{word!r} is neither a menu number nor an action of the menu, nor a command (reply `help` for the list)"
