"""Finding English words left in text that should be in another language (issue 29, item 4).

The English vocabulary is every word of the catalogs' English messages (and a list of everyday English
words), less every word that any translation uses too: Hungarian "is", "part", "hat" and the proper
names (Portolan, cities, VP) are words of both. A rendering in Hungarian that still holds an English
word of that vocabulary names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from babel.messages.pofile import read_po

from service.i18n import catalogs
from service.i18n.languages import DEFAULT, codes

WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)

EVERYDAY = frozenset(["the", "and", "with", "your", "you", "for", "from", "into", "onto", "this", "that", "these", "those", "there", "their", "them", "they", "what", "which", "when", "where", "who", "whose", "will", "would", "shall", "should", "can", "could", "must", "may", "might", "not", "now", "then", "than", "also", "only", "just", "more", "most", "less", "each", "every", "any", "some", "all", "none", "other", "another", "before", "after", "again", "here", "over", "under", "between", "about", "above", "below", "turn", "turns", "move", "moves", "player", "players", "seat", "seats", "match", "matches", "game", "games", "card", "cards", "buy", "bought", "sell", "sold", "build", "built", "take", "took", "taken", "pay", "paid", "paying", "cost", "costs", "free", "end", "ends", "ended", "pass", "passed", "back", "round", "rounds", "phase", "phases", "next", "last", "first", "second", "third", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "money", "coin", "coins", "city", "cities", "ship", "ships", "good", "goods", "point", "points", "score", "scores", "win", "wins", "winner", "lost", "left", "right", "yes", "yes", "none", "menu", "reply", "replies", "mail", "send", "sent", "show", "help", "log", "undo", "resign", "abort", "vote", "votes", "clock", "deadline", "days", "hours", "minutes", "seconds", "day", "hour", "minute", "second", "invited", "invitation", "invite", "accept", "declined", "open", "closed", "waiting"])
"""Everyday English beside the catalogs' own words, so an untranslated f-string is caught too."""


def _words(texts: Iterable[str]) -> set[str]:
    return {w.lower() for text in texts for w in WORD.findall(text)}


@cache
def vocabularies() -> tuple[frozenset[str], frozenset[str]]:
    """(English words of the catalogs and everyday English, words of every translation)."""
    english: set[str] = set(EVERYDAY)
    translated: set[str] = set()
    for language in codes():
        if language == DEFAULT:
            continue
        for domain in catalogs.DOMAINS:
            path = catalogs.catalog_path(language, domain)
            if not path.exists():
                continue
            with path.open("rb") as handle:
                catalog = read_po(handle, locale=language)
            for message in catalog:
                if not message.id:
                    continue
                ids = message.id if isinstance(message.id, tuple | list) else [message.id]
                strings = message.string if isinstance(message.string, tuple | list) else [message.string]
                # a word our English writes only capitalised is a name ("Ana Lima" in an example):
                # English words are those it also writes in lower case (or everyday English)
                english |= {w for w in _words(str(i) for i in ids) if re.search(rf"\b{w}\b", " ".join(map(str, ids)))}
                translated |= _words(str(s) for s in strings if s)
    # placeholders are not words of either language
    english = {w for w in english if w not in {"n", "city", "card"}}
    return frozenset(english), frozenset(translated)


def english_words(text: str, allow: Iterable[str] = ()) -> list[str]:
    """The English words in ``text`` (lower case, in order, each once) that no translation also uses.

    ``allow`` adds words that may stay (proper names a test knows)."""
    english, translated = vocabularies()
    allowed = {a.lower() for a in allow}
    found: list[str] = []
    for word in WORD.findall(text):
        low = word.lower()
        if low in english and low not in translated and low not in allowed and low not in found:
            found.append(low)
    return found
