"""The translation catalogs (service/i18n/locale): extract the messages from the code, update, check.

    python scripts/catalogs.py            update every language's .po files from the code: new messages
                                          are added untranslated, gone ones dropped, translations kept
    python scripts/catalogs.py --check    CI: exit 1 when a message of the code is missing or untranslated
                                          in a complete language, or a translation's {placeholders}
                                          differ from its message's (nothing is written)
    python scripts/catalogs.py --stats    the share translated per domain and language

Which files feed which domain is :data:`SOURCES` (first match wins). Messages are found by the names
the code says them with: in Python ``phrase``, ``phrase_n``, ``phrase_in`` (service.i18n, for words read
later), ``tr``, ``tr_n`` (a known reader) and Flask-Babel's ``_``/``gettext``/``ngettext``/
``lazy_gettext``; in Jinja templates ``_``, ``gettext`` and ``ngettext``; in the browser's JavaScript
``t`` and ``tn``. A message id must be a literal string for extraction to see it.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.i18n.catalogs import DOMAINS, catalog_path  # noqa: E402
from service.i18n.languages import DEFAULT, codes  # noqa: E402

SOURCES: list[tuple[str, str]] = [
    ("service/games/el_capitan/*", "el_capitan"),
    ("service/games/nauticus/*", "nauticus"),
    ("service/games/ophir/*", "ophir"),
    ("service/web/*", "web"),
    ("service/api/*", "common"),
    ("service/delivery/*", "mail"),
    ("service/play/mail/*", "desk"),
    ("workers/*", "mail"),
    ("service/tools/*", "cli"),
    ("service/pictures/*", "pictures"),
    ("service/*", "common"),
]
"""(glob, domain): the first glob a file's repository path matches names its domain."""

PYTHON_KEYWORDS: dict[str, object] = {
    "phrase": None, "phrase_n": (1, 2), "phrase_in": ((1, "c"), 2), "tr": (2,), "tr_n": (2, 3),
    "_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None, "pgettext": ((1, "c"), 2),
}
TEMPLATE_KEYWORDS: dict[str, object] = {"_": None, "gettext": None, "ngettext": (1, 2)}
SCRIPT_KEYWORDS: dict[str, object] = {"t": None, "tn": (1, 2)}

PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)[^{}]*\}(?!\})|%\(([A-Za-z_]+)\)s")


def domain_of(path: str) -> str | None:
    """The domain of a repository path, ``None`` for a file outside every source glob."""
    for pattern, domain in SOURCES:
        if fnmatch.fnmatch(path, pattern):
            return domain
    return None


def _files() -> Iterator[tuple[Path, str, str, dict[str, object]]]:
    for top in ("service", "workers"):
        for path in sorted((ROOT / top).rglob("*")):
            relative = path.relative_to(ROOT).as_posix()
            if "__pycache__" in relative or "/locale/" in relative or not path.is_file():
                continue
            if path.suffix == ".py":
                method, keywords = "python", PYTHON_KEYWORDS
            elif path.suffix in (".html", ".txt") and "/templates/" in relative:
                method, keywords = "jinja2.ext:babel_extract", TEMPLATE_KEYWORDS
            elif path.suffix == ".js" and relative.startswith("service/web/"):
                method, keywords = "javascript", SCRIPT_KEYWORDS
            else:
                continue
            yield path, relative, method, keywords


def extracted() -> dict[str, Catalog]:
    """Every domain's messages as found in the code now, as template catalogs."""
    templates = {domain: Catalog(domain=domain, fuzzy=False) for domain in DOMAINS}
    for path, relative, method, keywords in _files():
        domain = domain_of(relative)
        if domain is None:
            continue
        options = {"extensions": "jinja2.ext.i18n", "trimmed": "true"} if method.startswith("jinja2") else {}
        with path.open("rb") as handle:
            for lineno, message, comments, context in extract(method, handle, keywords, ["i18n:"], options):  # type: ignore[arg-type]
                if not message or (isinstance(message, tuple) and not message[0]):
                    continue
                templates[domain].add(message, None, [(relative, lineno)], auto_comments=comments, context=context)
    return templates


def _placeholders(text: str) -> set[str]:
    return {a or b for a, b in PLACEHOLDER.findall(text)}


def _read(language: str, domain: str) -> Catalog | None:
    path = catalog_path(language, domain)
    if not path.exists():
        return None
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=domain)


def problems(templates: dict[str, Catalog]) -> list[str]:
    """What keeps a complete language from being complete: missing, untranslated, fuzzy, mismatched."""
    found: list[str] = []
    for language in codes():
        if language == DEFAULT:
            continue
        for domain, template in templates.items():
            catalog = _read(language, domain)
            for message in template:
                if not message.id:
                    continue
                where = f"{language}/{domain}: {message.locations[0][0]}:{message.locations[0][1]}"
                have = catalog.get(message.id, context=message.context) if catalog is not None else None
                ident = message.id[0] if isinstance(message.id, tuple | list) else message.id
                if have is None:
                    found.append(f"{where}: missing {ident!r}")
                    continue
                strings = [str(s or "") for s in (have.string if isinstance(have.string, tuple | list) else [have.string])]
                if have.fuzzy or not all(strings):
                    found.append(f"{where}: untranslated {ident!r}")
                    continue
                ids = [str(i) for i in (message.id if isinstance(message.id, tuple | list) else [message.id])]
                wanted = set().union(*(_placeholders(i) for i in ids))
                for string in strings:
                    if _placeholders(string) - wanted:
                        found.append(f"{where}: {ident!r} translated with unknown placeholders {sorted(_placeholders(string) - wanted)}")
    found.extend(disagreements())
    return found


def disagreements() -> list[str]:
    """Messages that two domains translate differently: every language's domains are read as one table
    (service.i18n.catalogs), so one of the two translations would silently win. Agree on one, or give
    the message a context (``phrase_in``)."""
    found: list[str] = []
    for language in codes():
        if language == DEFAULT:
            continue
        said: dict[tuple[object, object], tuple[str, object]] = {}
        for domain in DOMAINS:
            catalog = _read(language, domain)
            if catalog is None:
                continue
            for message in catalog:
                if not message.id or message.fuzzy or not message.string:
                    continue
                key = (message.context, tuple(message.id) if isinstance(message.id, tuple | list) else message.id)
                string = tuple(message.string) if isinstance(message.string, tuple | list) else message.string
                if key in said and said[key][1] != string:
                    found.append(f"{language}: {key[1]!r} is {said[key][1]!r} in {said[key][0]} but {string!r} in {domain}")
                said.setdefault(key, (domain, string))
    return found


def update(templates: dict[str, Catalog]) -> None:
    """Write every language's catalogs from ``templates``, keeping what is translated."""
    for language in codes():
        if language == DEFAULT:
            continue
        for domain, template in templates.items():
            catalog = _read(language, domain)
            if catalog is None:
                if not len(template):
                    continue
                catalog = Catalog(locale=language, domain=domain, project="Portolan", version="", fuzzy=False,
                                  header_comment=f"# Portolan's {domain} messages in {language} (docs/i18n.md).\n"
                                                 "# Updated by python scripts/catalogs.py; translate the msgstr lines.",
                                  copyright_holder="the Portolan authors", msgid_bugs_address="",
                                  last_translator="the Portolan authors", language_team=language)
            catalog.update(template, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            path = catalog_path(language, domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            buffer = io.BytesIO()
            write_po(buffer, catalog, width=100, omit_header=False, sort_output=False, include_previous=False,
                     include_lineno=False)  # lines move with every edit; the file is enough to find it
            text = re.sub(rb'"POT-Creation-Date: [^"]*"\n', b"", buffer.getvalue())  # no churn per run
            text = re.sub(rb'"PO-Revision-Date: [^"]*"\n', b"", text)
            if not path.exists() or path.read_bytes() != text:
                path.write_bytes(text)
                print(f"catalogs: wrote {path.relative_to(ROOT)}")


def stats(templates: dict[str, Catalog]) -> None:
    """Print the share translated per domain and language."""
    for language in codes():
        if language == DEFAULT:
            continue
        for domain, template in templates.items():
            catalog = _read(language, domain)
            total = sum(1 for m in template if m.id)
            done = 0
            for message in template:
                have = catalog.get(message.id, context=message.context) if (catalog is not None and message.id) else None
                strings = (list(have.string) if isinstance(have.string, tuple | list) else [have.string]) if have else []
                done += bool(have and not have.fuzzy and strings and all(strings))
            share = f"{100 * done / total:.0f} %" if total else "-"
            print(f"{language} {domain:<11} {done:>5} of {total:<5} {share}")


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail on any message not translated in a complete language")
    parser.add_argument("--stats", action="store_true", help="print the share translated per domain")
    args = parser.parse_args(argv)
    templates = extracted()
    if args.stats:
        stats(templates)
        return 0
    if args.check:
        found = problems(templates)
        for line in found:
            print(line)
        total = sum(sum(1 for m in t if m.id) for t in templates.values())
        print(f"catalogs: {total} messages, {len(found)} problem(s)")
        return 1 if found else 0
    update(templates)
    return 0


if __name__ == "__main__":
    sys.exit(main())
