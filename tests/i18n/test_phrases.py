"""The words kernel (service.i18n): phrases rendered per reader, plural forms, languages, times."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from service import i18n
from service.i18n import catalogs

HU = r'''
msgid ""
msgstr ""
"Language: hu\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgid "build a warehouse in {city}"
msgstr "raktárház építése ide: {city}"

msgid "sail to {city} with {card}"
msgstr "hajózás ide: {city}, ezzel: {card}"

msgid "card {id}"
msgstr "{id} kártya"

msgid "{n} warehouse"
msgid_plural "{n} warehouses"
msgstr[0] "{n} raktárház"
msgstr[1] "{n} raktárház"

msgctxt "player colour"
msgid "red"
msgstr "piros"

msgid "broken {city}"
msgstr "törött {town}"
'''


@pytest.fixture
def hungarian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "hu" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "common.po").write_text(HU, encoding="utf-8")
    monkeypatch.setattr(catalogs, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(catalogs, "_loaded", {})


def test_a_phrase_is_its_english_text_until_rendered(hungarian: None) -> None:
    said = i18n.phrase("sail to {city} with {card}", city="Tunis", card=i18n.phrase("card {id}", id="C27"))
    assert said == "sail to Tunis with card C27"
    assert i18n.render(said, "en") == "sail to Tunis with card C27"
    # the argument that is a phrase itself is rendered in the reader's language too
    assert i18n.render(said, "hu") == "hajózás ide: Tunis, ezzel: C27 kártya"


def test_plural_forms_follow_the_language(hungarian: None) -> None:
    assert i18n.phrase_n("{n} warehouse", "{n} warehouses", 3) == "3 warehouses"
    assert i18n.phrase_n("{n} warehouse", "{n} warehouses", 1) == "1 warehouse"
    # Hungarian keeps the singular after a numeral
    assert i18n.render(i18n.phrase_n("{n} warehouse", "{n} warehouses", 3), "hu") == "3 raktárház"


def test_context_and_fallbacks(hungarian: None) -> None:
    assert i18n.render(i18n.phrase_in("player colour", "red"), "hu") == "piros"
    assert i18n.render(i18n.phrase("red"), "hu") == "red"  # no context: another message, untranslated
    # an untranslated message reads in English; a translation with a wrong placeholder too
    assert i18n.render(i18n.phrase("no such message {x}", x=1), "hu") == "no such message 1"
    assert i18n.render(i18n.phrase("broken {city}", city="Napoli"), "hu") == "broken Napoli"
    assert i18n.render("a plain str", "hu") == "a plain str"


def test_localise_walks_a_view_and_pickles_keep_the_phrase(hungarian: None) -> None:
    view = {"menu": [{"label": i18n.phrase("build a warehouse in {city}", city="Napoli"), "n": 1}], "ply": 3}
    assert i18n.localise(view, "hu") == {"menu": [{"label": "raktárház építése ide: Napoli", "n": 1}], "ply": 3}
    again = pickle.loads(pickle.dumps(view["menu"][0]["label"]))
    assert isinstance(again, i18n.Phrase) and i18n.render(again, "hu") == "raktárház építése ide: Napoli"


@pytest.mark.parametrize(("word", "code"), [
    ("hu", "hu"), ("Magyar", "hu"), ("hu-HU", "hu"), ("hungarian", "hu"), ("angol", "en"), ("en_GB", "en"),
    ("en-AU", "en"), ("klingon", None), ("", None), (None, None),
])
def test_a_language_by_any_of_its_names(word: str | None, code: str | None) -> None:
    assert i18n.parse_language(word) == code


@pytest.mark.parametrize(("header", "code"), [
    ("hu-HU,hu;q=0.9,en;q=0.8", "hu"), ("de-DE,hu;q=0.8,en;q=0.5", "hu"), ("en;q=0.2, hu;q=0.9", "hu"),
    ("de, fr", "en"), ("hu;q=0, en", "en"), ("", "en"), (None, "en"), ("hu;q=abc,en", "en"), (";;;,,,", "en"),
])
def test_accept_language(header: str | None, code: str) -> None:
    assert i18n.negotiate(header) == code


def test_durations_and_moments_in_the_readers_language() -> None:
    assert i18n.duration(3 * 86400 + 4 * 3600, "hu") == "3 nap 4 óra"
    assert i18n.duration(3 * 86400 + 4 * 3600, "en") == "3 days 4 hours"
    assert i18n.duration(86400 + 60, "en") == "1 day"  # parts are consecutive: no hidden hours
    assert i18n.duration(0, "en") == "0 seconds"
    assert i18n.moment(1796000000, "hu") == "2026. nov. 30. 0:53 UTC"
    assert i18n.moment(1796000000, "en") == "Nov 30, 2026 12:53\u202fAM UTC"
