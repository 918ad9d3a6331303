"""Every page of the web client in Hungarian as the server serves it (issue 29; no browser here).

Each page is rendered with ``?lang=hu`` and its visible text (the words between tags, the page title,
and the labels a screen reader says: aria-label, title, placeholder, alt) must hold no English word
(tests/helpers/untranslated.py) but the proper names below. The JavaScript's own words are the
browser test's (test_hungarian_in_browser.py) and scripts/catalogs.py --check's: every t()/tn() message
is in the catalog.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from tests.helpers.untranslated import english_words

PAGES = ["/", "/new", "/claim/abc123/1", "/match/abc123", "/match/abc123/log", "/keys"]

PROPER_NAMES = ["Portolan", "English", "Ed25519", "JSON"]
"""Words that stay as they are in Hungarian: the service's name, the switch naming English in English,
the key's algorithm and the record's file format."""

SAID = ("aria-label", "title", "placeholder", "alt")


class _Visible(HTMLParser):
    """The words a person sees or hears on a page: text outside script and style, and the labels.

    The text of <code> is left out: it is machine text (a match id, the ``portolan verify``
    command), as are the record's field names ``prev`` and ``genesis`` in <em>."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "code", "em"):
            self._hidden += 1
        self.parts += [value for name, value in attrs if name in SAID and value]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "code", "em"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    """The visible words of an HTML page, one string."""
    parser = _Visible()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


@pytest.mark.parametrize("path", PAGES)
def test_each_page_has_no_english_word_in_hungarian(client: Any, path: str) -> None:
    answer = client.get(path, query_string={"lang": "hu"})
    assert answer.status_code == 200 and '<html lang="hu">' in answer.text
    assert english_words(visible_text(answer.text), allow=PROPER_NAMES) == []
    # the finder finds the English page's words: the scan above can fail
    english = client.get(path, query_string={"lang": "en"}, headers={"Accept-Language": "en"})
    assert english_words(visible_text(english.text), allow=PROPER_NAMES) != []


def test_hungarian_pages_say_these_words(client: Any) -> None:
    hu = {"Accept-Language": "hu-HU,hu;q=0.9"}
    assert "Új játszma indítása" in client.get("/", headers=hu).text
    new = client.get("/new", headers=hu).text
    assert "<title>Új játszma · Portolan</title>" in new and "A játszma létrehozása" in new
    claim = client.get("/claim/abc123/1", headers=hu).text
    assert "A(z) 1. hely elfoglalása" in claim and "kulcsoldalon</a> készíthetsz róla." in claim
    match = client.get("/match/abc123", headers=hu).text
    assert '<h1 id="match-title">Játszma: <code>abc123</code></h1>' in match  # the id stays markup, not text
    assert "A lépés elküldése" in match
    log = client.get("/match/abc123/log", headers=hu).text
    assert "<code>portolan verify</code>." in log and "<em>genesis</em>" in log


def test_english_pages_keep_their_words(client: Any) -> None:
    en = {"Accept-Language": "en"}
    assert "Start a new match" in client.get("/", headers=en).text
    assert '<h1 id="match-title">Match <code>abc123</code></h1>' in client.get("/match/abc123", headers=en).text
    claim = client.get("/claim/abc123/1", headers=en).text
    assert 'Back it up on the <a href="/keys">key page</a>.' in claim and "Take seat 1" in claim


def test_a_name_with_markup_in_a_sentence_stays_text(client: Any) -> None:
    # the match id is put into a translated sentence (Markup.format): it must be escaped there too
    page = client.get("/match/%3Cb%3Ex", headers={"Accept-Language": "hu"}).text
    assert "<code>&lt;b&gt;x</code>" in page and "<b>x" not in page


def test_the_switch_links_this_page_and_never_echoes_its_query(client: Any) -> None:
    page = client.get("/claim/abc123/2?token=leak&game=ophir", headers={"Accept-Language": "hu"}).text
    assert 'href="/claim/abc123/2?lang=en" hreflang="en"' in page
    assert 'href="/claim/abc123/2?lang=hu" hreflang="hu" lang="hu" aria-current="true"' in page
    assert "leak" not in page  # header.js adds the query and the #fragment in the browser
