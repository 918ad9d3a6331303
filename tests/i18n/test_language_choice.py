"""The request's language: ?lang= (kept in a cookie), the cookie, Accept-Language, English."""

from __future__ import annotations

from typing import Any

from service import i18n


def test_pages_follow_accept_language_and_the_switch(client: Any) -> None:
    english = client.get("/")
    assert english.status_code == 200 and '<html lang="en">' in english.text
    assert 'hreflang="hu"' in english.text and "magyar" in english.text  # the switch, on every page

    hungarian = client.get("/", headers={"Accept-Language": "hu-HU,hu;q=0.9,en;q=0.5"})
    assert '<html lang="hu">' in hungarian.text
    assert "Accept-Language" in hungarian.headers.get("Vary", "")

    switched = client.get("/new?lang=hu", headers={"Accept-Language": "en"})
    assert '<html lang="hu">' in switched.text
    assert "lang=hu" in switched.headers.get("Set-Cookie", "")
    # the cookie now outranks the browser's header, until switched back
    assert '<html lang="hu">' in client.get("/keys", headers={"Accept-Language": "en"}).text
    assert '<html lang="en">' in client.get("/keys?lang=en").text
    assert '<html lang="en">' in client.get("/keys?lang=klingon", headers={"Accept-Language": "en"}).text


def test_the_browser_gets_the_web_catalog_as_json(client: Any) -> None:
    for code in i18n.codes():
        answer = client.get(f"/web/words/{code}.json")
        assert answer.status_code == 200 and isinstance(answer.json, dict)
    assert client.get("/web/words/en.json").json == {}
    assert client.get("/web/words/xx.json").status_code == 404
    assert client.get("/web/words/..%2Fsecrets.json").status_code == 404
