"""Words said now and read later, in the reader's language: :class:`Phrase`, :func:`phrase`, :func:`render`.

The rules core words an action ("sail to Tunis with …") when nobody knows yet who will read it:
a turn notice goes out in the seat's mail language, the same menu shows in Hungarian in one browser
and in English in another. So a phrase is kept as what it *is*, a catalog message id and its
arguments, and rendered when the reader is known::

    label = phrase("sail to {city} with {card}", city=name, card=phrase("card {id}", id=cid))
    str(label)            # 'sail to Tunis with card C27': English, the source language
    render(label, "hu")   # the Hungarian catalog's message, its arguments rendered in Hungarian too

A :class:`Phrase` is a ``str`` (its English text), so code that only passes words along, logs them or
compares them in tests keeps working; only the places that know the reader call :func:`render` (or
:func:`localise` for a whole view). The message id is the English template; the extraction in
``scripts/catalogs.py`` finds every ``phrase``/``phrase_n``/``phrase_in`` call by name, so an id must be a
literal string there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .catalogs import translations
from .languages import DEFAULT

__all__ = ["Phrase", "localise", "phrase", "phrase_in", "phrase_n", "render"]


class Phrase(str):
    """A phrase in English that knows its catalog message id and arguments (see the module)."""

    msgid: str
    plural: str | None
    n: int | None
    context: str | None
    args: Mapping[str, Any]

    def __new__(cls, msgid: str, args: Mapping[str, Any], *, plural: str | None = None, n: int | None = None,
                context: str | None = None) -> Phrase:
        """A phrase; use :func:`phrase`, :func:`phrase_n` or :func:`phrase_in` rather than this."""
        template = plural if plural is not None and n is not None and n != 1 else msgid
        self = super().__new__(cls, _format(template, template, args, DEFAULT))
        self.msgid, self.plural, self.n, self.context, self.args = msgid, plural, n, context, dict(args)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (RQ job arguments, caches) as itself, not as a bare str
        return (_rebuilt, (self.msgid, self.args, self.plural, self.n, self.context))


def _rebuilt(msgid: str, args: Mapping[str, Any], plural: str | None, n: int | None, context: str | None) -> Phrase:
    return Phrase(msgid, args, plural=plural, n=n, context=context)


def phrase(msgid: str, /, **args: Any) -> Phrase:
    """A phrase of the catalogs: ``phrase("build a warehouse in {city}", city="Napoli")``."""
    return Phrase(msgid, args)


def phrase_n(singular: str, plural: str, n: int, /, **args: Any) -> Phrase:
    """A phrase with a count: ``phrase_n("{n} coin", "{n} coins", 3)``. ``{n}`` is the count.

    The catalog gives each language its own forms (Hungarian uses the singular after a numeral:
    "3 raktárház")."""
    return Phrase(singular, {"n": n, **args}, plural=plural, n=n)


def phrase_in(context: str, msgid: str, /, **args: Any) -> Phrase:
    """A phrase whose English words mean different things in different places (``msgctxt``).

    ``phrase_in("card colour", "red")`` and ``phrase_in("player colour", "red")`` translate apart."""
    return Phrase(msgid, args, context=context)


def _format(template: str, fallback: str, args: Mapping[str, Any], language: str) -> str:
    values = {key: render(value, language) if isinstance(value, str) else value for key, value in args.items()}
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError, AttributeError):
        # a translation whose placeholders do not match its id reads as the English one: a word
        # left in English is better than a traceback in the middle of a turn notice
        return fallback.format_map(values)


def render(text: Any, language: str) -> str:
    """``text`` in ``language``: a :class:`Phrase` through the catalog, anything else as it is.

    Missing translations fall back to English, message by message (as gettext does)."""
    if not isinstance(text, Phrase):
        return text if isinstance(text, str) else str(text)
    if language == DEFAULT:
        return str.__str__(text)
    t = translations(language)
    if text.plural is not None and text.n is not None:
        template = str(t.npgettext(text.context, text.msgid, text.plural, text.n) if text.context
                       else t.ngettext(text.msgid, text.plural, text.n))
        english = text.plural if text.n != 1 else text.msgid
    else:
        template = str(t.pgettext(text.context, text.msgid) if text.context else t.gettext(text.msgid))
        english = text.msgid
    return _format(template, english, text.args, language)


def localise(value: Any, language: str) -> Any:
    """``value`` with every :class:`Phrase` in it rendered in ``language``: dicts, lists and tuples walked.

    For a whole view or menu on its way to one reader (the API's answer, a letter's context)."""
    if isinstance(value, Phrase):
        return render(value, language)
    if isinstance(value, dict):
        return {key: localise(item, language) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [localise(item, language) for item in value]
    return value
