"""The translation catalogs: one gettext ``.po`` file per language and domain, read with Babel.

The catalogs live in ``service/i18n/locale/<language>/LC_MESSAGES/<domain>.po``. A domain is the
part of the house a message comes from (:data:`DOMAINS`), so that people translating the web client
and the rules of one game never edit the same file. English is the source language: its message ids
are the English text, so it needs no catalog. The ``.po`` files are read directly (compiled in memory
on first use in a process) so that a fresh clone runs without a build step; ``scripts/catalogs.py``
extracts the messages from the code and checks that every language is complete.
"""

from __future__ import annotations

import io
import threading
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from .languages import DEFAULT, codes

__all__ = ["DOMAINS", "LOCALE_DIR", "as_json", "catalog_path", "translations"]

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
"""Where the catalogs live."""

DOMAINS: tuple[str, ...] = ("common", "web", "mail", "desk", "cli", "pictures", "el_capitan", "nauticus", "ophir")
"""The catalogs' domains: ``common`` (the use cases, refusals, the API's sentences), ``web`` (pages
and the browser client), ``mail`` (letters), ``desk`` (the mail desk: replies, commands, answers), ``cli`` (the ``portolan``
command's words for players), ``pictures`` (the words on the board pictures) and one per game (its actions, events, refusals and glossary).
``scripts/catalogs.py`` says which source files feed which domain."""

_lock = threading.Lock()
_loaded: dict[str, NullTranslations] = {}


def catalog_path(language: str, domain: str) -> Path:
    """The ``.po`` file of ``domain`` in ``language``."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


def _read(language: str) -> NullTranslations:
    merged: NullTranslations | None = None
    for domain in DOMAINS:
        path = catalog_path(language, domain)
        if not path.exists():
            continue
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=language, domain=domain)
        buffer = io.BytesIO()
        write_mo(buffer, catalog)  # fuzzy entries are left out, as msgfmt does
        buffer.seek(0)
        part = Translations(buffer, domain=domain)
        if merged is None:
            merged = part
        else:
            assert isinstance(merged, Translations)
            merged.merge(part)
    if merged is None:
        return NullTranslations()
    return merged


def translations(language: str) -> NullTranslations:
    """The merged translations of every domain for ``language`` (English and unknown: none).

    Read once per process and kept: the catalogs are part of the release, not data that changes."""
    if language == DEFAULT or language not in codes():
        return NullTranslations()
    found = _loaded.get(language)
    if found is None:
        with _lock:
            found = _loaded.get(language)
            if found is None:
                found = _loaded[language] = _read(language)
    return found


def as_json(language: str, domain: str) -> dict[str, str | list[str]]:
    """One domain's translated messages as ``{msgid: msgstr}`` for the browser client.

    A plural message is keyed by its singular id and maps to its list of forms; untranslated and
    fuzzy messages are left out (the client shows the English id, as gettext does)."""
    path = catalog_path(language, domain)
    if language == DEFAULT or not path.exists():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language, domain=domain)
    out: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy or not message.string:
            continue
        key = message.id[0] if isinstance(message.id, tuple | list) else message.id
        if message.context:
            key = f"{message.context}\x04{key}"
        if isinstance(message.string, tuple | list):
            if all(message.string):
                out[key] = list(message.string)
        else:
            out[key] = message.string
    return out
