"""Every player-facing word in the reader's language (issue 29; docs/i18n.md).

A pure kernel beside the rules core: Babel and nothing of the service, so the games may phrase their
words through it. :mod:`.phrases` keeps a phrase as a catalog message and its arguments until the
reader is known; :mod:`.catalogs` reads the ``.po`` files; :mod:`.languages` names the languages;
:mod:`.times` writes dates and durations.
"""

from __future__ import annotations

from .catalogs import DOMAINS, as_json, translations
from .languages import DEFAULT, LANGUAGES, Language, codes, negotiate, parse_language
from .phrases import Phrase, localise, phrase, phrase_in, phrase_n, render
from .times import duration, moment

__all__ = [
    "DEFAULT",
    "DOMAINS",
    "LANGUAGES",
    "Language",
    "Phrase",
    "as_json",
    "codes",
    "duration",
    "localise",
    "moment",
    "negotiate",
    "parse_language",
    "phrase",
    "phrase_in",
    "phrase_n",
    "render",
    "tr",
    "tr_n",
    "translations",
]


def tr(language: str, message: str, /, **args: object) -> str:
    """``message`` (a literal catalog id) in ``language``, its ``{placeholders}`` filled: for code that knows
    its reader already (a letter, a CLI line). Same as ``render(phrase(message, **args), language)``."""
    return render(phrase(message, **args), language)


def tr_n(language: str, singular: str, plural: str, n: int, /, **args: object) -> str:
    """The counted form of a message in ``language``; ``{n}`` is the count."""
    return render(phrase_n(singular, plural, n, **args), language)
