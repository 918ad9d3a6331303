"""Mail reads on a phone (issue 27, part 2): the HTML part of every kind of mail, rendered by
Chromium at a phone's 390 x 844 and at a desktop's width, never scrolls sideways, and in a turn
notice (each game's, with its board picture) and in an answer the numbered menu starts within the
first screenful. The mails are the real letters (tests/helpers/mail_pages.py), pictures inlined.

Set ``PORTOLAN_MAIL_SHOTS`` to a folder to keep a full-page screenshot of each, to look at.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from tests.helpers.mail_pages import MailPage, mail_pages

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
FIRST_SCREEN = 800
"""Where the menu's first item must start at the latest, in CSS pixels from the top (844 tall)."""

LAYOUT = """() => {
  const first = document.querySelector("ol > li");
  return {scroll: document.documentElement.scrollWidth, width: window.innerWidth,
          menu: first ? first.getBoundingClientRect().top : null,
          wide: [...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
                 .filter(e => !e.closest("pre[style*='overflow-x:auto']") || e.matches("pre"))
                 .map(e => e.tagName + ": " + (e.textContent || "").slice(0, 60))};
}"""


@pytest.fixture
def pages(settings: Settings) -> list[MailPage]:
    return list(mail_pages(settings))


@pytest.mark.parametrize(("screen", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_no_mail_scrolls_sideways_and_the_menu_is_on_the_first_screen(browser: Any, pages: list[MailPage],
                                                                      screen: str, viewport: dict[str, int]) -> None:
    kinds = {page.kind.split(" (")[0] for page in pages}
    assert {"turn notice", "answer", "invite", "match over", "match aborted", "clock note", "digest",
            "webhook disabled"} <= kinds
    assert sum(page.kind.startswith("turn notice") for page in pages) == 6
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        for mail in pages:
            page.set_content(mail.html, wait_until="load")
            got = page.evaluate(LAYOUT)
            assert got["scroll"] <= got["width"], f"{mail.kind} scrolls sideways at {screen}: {got['wide'][:5]}"
            if mail.has_menu:
                assert got["menu"] is not None, f"{mail.kind} has no menu"
                assert got["menu"] < FIRST_SCREEN, f"{mail.kind}: the menu starts at {got['menu']:.0f} px"
            if "turn notice" in mail.kind:  # the picture, no wider than the column; or its link and the text board
                width = page.evaluate("() => document.querySelector('img')?.getBoundingClientRect().width ?? null")
                if width is None:
                    assert "see it on the web" in mail.html and "<pre" in mail.html, mail.kind
                else:
                    assert 0 < width <= min(viewport["width"], 640)
            shots = os.environ.get("PORTOLAN_MAIL_SHOTS")
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(Path(shots) / f"{screen}-{re.sub(r'[^a-z0-9-]+', '-', mail.kind)}.png"),
                                full_page=True)
    finally:
        context.close()
