"""The web client in Hungarian, in Debian's Chromium (issue 29): the lobby, the new-match page, a
match page and a claim page, reached by ``Accept-Language: hu`` and by the language switch, show no
English word in ``document.body.innerText`` (tests/helpers/untranslated.py), and the switch keeps
the page's query and the claim link's ``#fragment`` (where the invite token lives).

Allowed besides the proper names: the words the server supplies and the page only shows, each
read from the API in Hungarian (so they allow nothing once the server says them in Hungarian):
the games' titles and option schemas (labels, descriptions, values), the players' and bots' names,
match ids, and on the match page the board's text and picture, the legal actions' labels and the
events of the log. Those are translated on the server (the game and common catalogs), not here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.untranslated import english_words
from tests.web.driver import create_on_new_page

pytestmark = pytest.mark.browser

PROPER_NAMES = ["Portolan", "English", "Ed25519"]
PHONE = {"width": 390, "height": 844}

# What the server supplies for a page, read by the page's own api.js (signed with its key where the
# seat's view needs it), in the page's language: every string in those answers.
SERVER_WORDS = """async ([match]) => {
  const { api, getText, signedText, mySeats } = await import('/web/static/js/api.js');
  const { currentKey } = await import('/web/static/js/keys.js');
  const out = [];
  const quiet = (promise) => promise.catch(() => '');  // a waiting match has no board yet (409)
  const games = (await api('GET', '/v1/games')).games;
  for (const g of games) out.push(JSON.stringify(await api('GET', '/v1/games/' + g.id)));
  if (match) {
    const base = '/v1/matches/' + match;
    const view = await api('GET', base);
    out.push(JSON.stringify(view), JSON.stringify(await api('GET', base + '/log')), await quiet(getText(base + '/board.svg')));
    const key = await currentKey();
    for (const seat of key ? mySeats(view, key.publicKey) : []) {
      out.push(JSON.stringify(await quiet(api('GET', base + '/seats/' + seat + '/view', { signed: true }))));
      out.push(await quiet(signedText(base + '/board.svg', 'seat=' + seat)));
    }
  }
  const listed = await Promise.all(['waiting', 'active'].map((s) => api('GET', '/v1/matches', { query: 'status=' + s })));
  out.push(JSON.stringify(listed));
  return out.join(' ');
}"""


def server_words(page: Any, match: str | None = None) -> list[str]:
    """The words of what the server supplied for this page (see SERVER_WORDS): allowed to stay."""
    text = str(page.evaluate(SERVER_WORDS, [match]))
    return sorted(set(re.findall(r"[^\W\d_]{3,}", text.replace("_", " "))))


def english_on(page: Any, match: str | None = None) -> list[str]:
    """The English words the page shows, less the proper names and the server's own words."""
    page.wait_for_function("() => document.documentElement.lang === 'hu'")
    shown = str(page.evaluate("() => document.body.innerText"))
    return english_words(shown, allow=[*PROPER_NAMES, *server_words(page, match)])


def ready(page: Any) -> None:
    """Wait for a page that says when its first data is shown (lobby, new, claim)."""
    page.wait_for_function("() => document.body.dataset.ready === 'true'")


def match_shown(page: Any) -> None:
    """Wait for the match page to show the match (its turn line written)."""
    page.wait_for_function("() => !document.querySelector('#match').hidden && document.querySelector('#turn').textContent !== ''")


@pytest.fixture
def person(browser: Any, served: str) -> Iterator[Any]:
    """A fresh browser profile with a language (Accept-Language and navigator.language), on a phone."""
    contexts: list[Any] = []

    def page(locale: str) -> Any:
        context = browser.new_context(base_url=served, locale=locale, viewport=PHONE)
        context.set_default_timeout(15_000)
        contexts.append(context)
        opened = context.new_page()
        opened.errors = []
        opened.on("pageerror", lambda exc: opened.errors.append(str(exc)))
        return opened

    yield page
    for context in contexts:
        context.close()


def test_pages_in_hungarian_by_accept_language(person: Any) -> None:
    ana = person("hu-HU")
    ana.goto("/new")
    ready(ana)
    assert ana.locator("#create").inner_text() == "A játszma létrehozása"
    assert english_on(ana) == []
    match = create_on_new_page(ana, "el-capitan", ["me", "bot:random", "bot:random"], "Ana", "ana@example.org")
    match_shown(ana)
    assert ana.locator("#match-title").inner_text().startswith("El Capitán játszma")
    assert english_on(ana, match) == []
    ana.goto("/")
    ready(ana)
    ana.wait_for_function("() => document.querySelectorAll('#my-matches li').length > 0")
    assert "A játszmáid" in ana.locator("#my-heading").inner_text()
    assert english_on(ana) == []
    # the switch fits a 390 px phone: in the header, nothing wider than the screen
    box = ana.locator("nav.languages").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert ana.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert ana.locator("nav.languages a[aria-current=true]").inner_text() == "magyar"
    assert ana.errors == []


def test_the_switch_turns_pages_hungarian_and_keeps_the_claim_token(person: Any) -> None:
    ana = person("hu-HU")
    match = create_on_new_page(ana, "el-capitan", ["me", "invite", "bot:random"], "Ana", "ana@example.org",
                               {1: "bea@example.org"})
    bea = person("en-US")
    bea.goto(f"/claim/{match}/1?from=mail#token=not-a-real-token")
    ready(bea)
    assert bea.locator("html").get_attribute("lang") == "en" and bea.locator("#claim").inner_text() == "Take seat 1"
    bea.click("nav.languages a[hreflang=hu]")
    bea.wait_for_url(f"**/claim/{match}/1?from=mail&lang=hu#token=not-a-real-token")
    ready(bea)
    assert bea.evaluate("() => location.hash") == "#token=not-a-real-token"
    assert bea.locator("#error").is_hidden()  # the token was found: no "this link has no invite token"
    assert english_on(bea) == []
    # the cookie keeps the choice: the match page is Hungarian too, and its switch goes back
    bea.goto(f"/match/{match}")
    match_shown(bea)
    assert english_on(bea, match) == []
    bea.click("nav.languages a[hreflang=en]")
    bea.wait_for_url(f"**/match/{match}?lang=en")
    match_shown(bea)
    assert bea.locator("#seats-heading").inner_text() == "Players"
    assert bea.errors == [] and ana.errors == []


def test_the_clock_speaks_hungarian(person: Any) -> None:
    # the time limit's sentences, the time left (Intl's units) and the deadline (Intl.DateTimeFormat)
    ana = person("hu-HU")
    ana.goto("/new?game=el-capitan")
    ready(ana)
    ana.wait_for_function("() => document.querySelectorAll('#seats .seat-row').length > 0")
    while ana.locator("#seats .seat-row").count() > 2:
        ana.click("#remove-seat")
    ana.locator("#seats .seat-row").nth(1).locator("select.seat-kind").select_option("bot:random")
    ana.select_option("#option-start_player", "0")  # Ana's clock runs: the time left is shown
    ana.check("#tc-per-move")
    assert ana.locator("label[for=tc-days]").inner_text() == "Napok lépésenként"
    ana.fill("input#my-name", "Ana")
    ana.fill("input#my-email", "ana@example.org")
    ana.click("button#create")
    ana.wait_for_url("**/match/*")
    match = ana.url.rstrip("/").rsplit("/", 1)[-1]
    match_shown(ana)
    ana.wait_for_function("() => !document.querySelector('#clock-box').hidden")
    rules = ana.locator("#clock-rules").inner_text()
    assert rules.startswith("Lépésenként 3 nap. A határidő után 24 óra elteltével egy helyettes robot"), rules
    clock = ana.locator("#clock-list").inner_text()
    # "Ana (0. hely): még 2 nap 23 óra van hátra, határidő: 2026. dec. 8., K 17:00 (a te időd szerint)"
    assert re.search(r"még \d+ nap( \d+ óra)? van hátra, határidő: \d{4}\. .*\(a te időd szerint\)", clock), clock
    assert english_on(ana, match) == []
    assert ana.errors == []
