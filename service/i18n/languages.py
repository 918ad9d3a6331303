"""The languages Portolan speaks, and how a player names one.

A language is known by its code (``"en"``, ``"hu"``): the code of its catalog in ``locale/`` and of
``Accept-Language``. A player may name it the way people do ("magyar", "Hungarian", "hu-HU",
"angol"), in a mail reply (``nyelv magyar``), on the command line or through the API; every one of
those ways goes through :func:`parse_language`. Adding a language is adding a row here and a
catalog folder (docs/i18n.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT", "LANGUAGES", "Language", "codes", "negotiate", "parse_language"]


@dataclass(frozen=True)
class Language:
    """One language: its code, its own name for itself, and the words players may name it by."""

    code: str
    name: str
    """The language's name in the language itself ("magyar"), as the switch on every page shows it."""
    aliases: tuple[str, ...]
    """Other names, lower case without accents folded: English and Hungarian names, regional codes."""


LANGUAGES: tuple[Language, ...] = (
    Language("en", "English", ("english", "angol", "en-gb", "en-us", "en_gb", "en_us", "eng")),
    Language("hu", "magyar", ("hungarian", "magyarul", "hu-hu", "hu_hu", "hun", "ungarisch")),
)
"""Every language with a complete catalog, English (the source language) first."""

DEFAULT = "en"
"""The language of a reader who has not said, and of the catalogs' message ids."""


def codes() -> tuple[str, ...]:
    """The codes of every language, in :data:`LANGUAGES` order."""
    return tuple(language.code for language in LANGUAGES)


def parse_language(word: str | None) -> str | None:
    """The code of the language ``word`` names, ``None`` when it names none we speak.

    ``parse_language("Magyar")`` and ``parse_language("hu-HU")`` are ``"hu"``; a region we do not
    know falls back to its language (``"en-AU"`` is ``"en"``)."""
    if not word:
        return None
    folded = word.strip().lower().replace("_", "-")
    for language in LANGUAGES:
        if folded in (language.code, language.name.lower()) or folded in language.aliases:
            return language.code
    head = folded.split("-", 1)[0]
    return head if head in codes() else None


def negotiate(accept_language: str | None, default: str = DEFAULT) -> str:
    """The language to answer in for an ``Accept-Language`` header: the first we speak by its q-value.

    Malformed parts are skipped (a client that quotes differently still gets an answer); ``q=0``
    refuses a language; a header that names none we speak gets ``default``."""
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "").split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        code = parse_language(tag) if tag.strip() != "*" else default
        if code and q > 0:
            ranked.append((-q, index, code))
    return sorted(ranked)[0][2] if ranked else default
