"""The glossaries (service/i18n/glossary/*.toml) hold: a Hungarian message says the rulebook's word.

Each glossary names the catalog domains it speaks for. Every Hungarian translation of a message whose
English says a term (a whole word, any case, any of its forms) must contain one of the term's
Hungarian stems, so "warehouse" is "raktárház" everywhere and never "raktár" in one place and
"tárház" in another.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from service.i18n import catalogs
from service.i18n.languages import DEFAULT, codes

GLOSSARIES = sorted((Path(catalogs.__file__).parent / "glossary").glob("*.toml"))


def _strings(value: object) -> list[str]:
    return [s for s in value if s] if isinstance(value, tuple | list) else [str(value)] if value else []


@pytest.mark.parametrize("glossary", GLOSSARIES, ids=lambda p: p.stem)
def test_translations_use_the_glossarys_words(glossary: Path) -> None:
    data = tomllib.loads(glossary.read_text(encoding="utf-8"))
    assert data.get("domains"), f"{glossary.name}: say which catalog domains it speaks for"
    terms = data.get("terms", {})
    assert terms, f"{glossary.name}: no terms"
    wrong: list[str] = []
    for language in codes():
        if language == DEFAULT:
            continue
        for domain in data["domains"]:
            path = catalogs.catalog_path(language, domain)
            if not path.exists():
                continue
            with path.open("rb") as handle:
                catalog = read_po(handle, locale=language)
            for message in catalog:
                if not message.id or not message.string:
                    continue
                # a {placeholder}'s name is no word of the sentence: {ship} may stand for a ship's number
                english = re.sub(r"\{[^{}]*\}", " ", " ".join(_strings(message.id)))
                for name, term in terms.items():
                    words = [term["en"], *term.get("forms", [])]
                    said = english
                    for other in term.get("not_in", []):  # the same letters meaning something else
                        said = re.sub(re.escape(other), " ", said, flags=re.IGNORECASE)
                    if not re.search(r"\b(" + "|".join(map(re.escape, words)) + r")\b", said, re.IGNORECASE):
                        continue
                    stems = [s.lower() for s in term.get(language, [])]
                    assert stems, f"{glossary.name}: term {name!r} has no {language} word"
                    for string in _strings(message.string):
                        if not any(stem in string.lower() for stem in stems):
                            wrong.append(f"{language}/{domain}: {english!r} -> {string!r} lacks {stems[0]!r} ({name})")
    assert not wrong, "\n".join(wrong)


def test_every_game_has_a_glossary() -> None:
    names = {p.stem for p in GLOSSARIES}
    assert {"common", "el_capitan", "nauticus", "ophir"} <= names
