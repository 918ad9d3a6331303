"""The match page is served as the web client expects it: the match id where its script reads it,
the DOM contract's ids in place, and the CSP that keeps injected script from running."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any


class _Elements(HTMLParser):
    """Every start tag's attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _page(client: Any, match_id: str) -> tuple[Any, _Elements]:
    response = client.get(f"/match/{match_id}")
    parsed = _Elements()
    parsed.feed(response.get_data(as_text=True))
    return response, parsed


def test_match_page_names_its_match_and_has_the_contract_ids(client: Any) -> None:
    response, parsed = _page(client, "m-Abc_123")
    assert response.status_code == 200
    body = next(attrs for tag, attrs in parsed.tags if tag == "body")
    assert body["data-match"] == "m-Abc_123"
    assert body["data-page"] == "match"
    ids = {attrs.get("id") for _, attrs in parsed.tags}
    for wanted in ("board", "turn", "ply", "match-status", "happened", "actions", "queue", "send",
                   "clear-queue", "outcome", "log-link", "error", "status"):
        assert wanted in ids, wanted
    link = next(attrs for _, attrs in parsed.tags if attrs.get("id") == "log-link")
    assert link["href"] == "/match/m-Abc_123/log"
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert {"type": "module", "src": "/web/static/js/pages/match.js"} in scripts
    # no inline script: every one is a module file of ours
    assert all(a.get("type") == "module" and (a.get("src") or "").startswith("/web/static/js/") for a in scripts)


def test_match_page_sends_a_csp_without_inline_script(client: Any) -> None:
    response, _ = _page(client, "m1")
    csp = response.headers["Content-Security-Policy"]
    script_src = next(part for part in csp.split(";") if part.strip().startswith("script-src"))
    assert script_src.split() == ["script-src", "'self'"]
    assert "object-src 'none'" in csp


def test_a_match_id_with_markup_is_escaped_not_run(client: Any) -> None:
    hostile = '"><img src=x onerror=alert(1)>'
    response, parsed = _page(client, hostile)
    assert response.status_code == 200
    assert "<img" not in response.get_data(as_text=True)
    body = next(attrs for tag, attrs in parsed.tags if tag == "body")
    assert body["data-match"] == hostile


def test_the_match_modules_are_served_as_javascript(client: Any) -> None:
    for name in ("js/pages/match.js", "js/match/board.js", "js/match/actions.js", "js/match/state.js",
                 "js/match/live.js", "js/match/dom.js"):
        response = client.get(f"/web/static/{name}")
        assert response.status_code == 200, name
        assert response.mimetype in ("text/javascript", "application/javascript"), name
