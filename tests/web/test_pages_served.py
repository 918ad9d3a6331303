"""The web client's pages and files are served as a browser needs them (no browser here).

Each page answers 200 with the Content-Security-Policy that keeps injected script from running,
the ES modules come with a JavaScript content type (browsers refuse module scripts otherwise),
and every module a page loads exists. The browser tests (``-m browser``) drive the pages
themselves.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from service.web import CSP

STATIC = Path(__file__).resolve().parents[2] / "service" / "web" / "static"

PAGES = ["/", "/new", "/claim/abc123/1", "/match/abc123", "/match/abc123/log", "/keys"]

# the modules this helper's pages load; the match and log pages' own modules are checked by the
# test below only when they exist (they are built on other branches)
CORE_MODULES = ["js/b64.js", "js/ui.js", "js/keys.js", "js/api.js", "js/header.js", "js/vectors.js",
                "js/pages/lobby.js", "js/pages/new.js", "js/pages/claim.js", "js/pages/keys.js",
                "vendor/canonicalize.mjs"]


@pytest.mark.parametrize("path", PAGES)
def test_each_page_is_html_with_the_csp(client: Any, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.mimetype == "text/html"
    assert answer.headers["Content-Security-Policy"] == CSP
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP.split("script-src")[1].split(";")[0]
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    page = answer.get_data(as_text=True)
    # the DOM contract every page keeps, and no inline script (the CSP would block it anyway)
    assert 'id="error"' in page and 'role="alert"' in page and 'id="status"' in page
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page) is None


def test_claim_with_a_seat_that_is_not_a_number_is_not_found(client: Any) -> None:
    assert client.get("/claim/abc123/x").status_code == 404
    assert client.get("/claim/abc123/-1").status_code == 404


def test_claim_page_carries_its_match_and_seat_but_never_a_token(client: Any) -> None:
    page = client.get("/claim/abc123/2?token=leak").get_data(as_text=True)
    assert 'data-match="abc123"' in page and 'data-seat="2"' in page
    assert "leak" not in page


@pytest.mark.parametrize("module", CORE_MODULES)
def test_modules_are_served_as_javascript(client: Any, module: str) -> None:
    answer = client.get(f"/web/static/{module}")
    assert answer.status_code == 200
    assert answer.mimetype in {"text/javascript", "application/javascript"}
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Cache-Control"] == "no-cache"  # never a module left over from an older client


def test_stylesheet_is_css(client: Any) -> None:
    answer = client.get("/web/static/css/portolan.css")
    assert answer.status_code == 200
    assert answer.mimetype == "text/css"


@pytest.mark.parametrize("path", PAGES)
def test_every_script_and_stylesheet_a_page_names_exists(client: Any, path: str) -> None:
    page = client.get(path).get_data(as_text=True)
    refs = re.findall(r'(?:src|href)="(/web/static/[^"]+)"', page)
    assert any(ref.endswith(".css") for ref in refs)
    for ref in refs:
        if not (STATIC / ref.removeprefix("/web/static/")).exists() and ref.endswith(("match.js", "log.js")):
            pytest.skip(f"{ref} is built on another branch")
        assert client.get(ref).status_code == 200, ref


def test_every_relative_import_of_a_module_resolves() -> None:
    # a typo in an import path only shows in a browser; catch it here
    for module in sorted(STATIC.rglob("*.js")) + sorted(STATIC.rglob("*.mjs")):
        for target in re.findall(r'^\s*import\s[^;]*?from\s+"(\.[^"]+)"', module.read_text(), re.M):
            assert (module.parent / target).resolve().exists(), f"{module.name} imports {target}"


def test_vendored_canonicalize_keeps_its_licence_and_version() -> None:
    head = (STATIC / "vendor" / "canonicalize.mjs").read_text().splitlines()[0]
    assert re.search(r"canonicalize \d+\.\d+\.\d+", head)
    assert "Apache License" in (STATIC / "vendor" / "canonicalize.LICENSE").read_text()


def test_every_static_file_is_packaged() -> None:
    # `pip install .` (the Containerfile) copies only package-data patterns; a file none matches
    # is served in a checkout and missing in a deployment
    import fnmatch
    import tomllib

    pyproject = tomllib.loads((STATIC.parents[2] / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["*"]
    for path in [*STATIC.rglob("*"), *(STATIC.parent / "templates").rglob("*")]:
        if path.is_file():
            assert any(fnmatch.fnmatch(path.name, p) for p in patterns), f"{path.name} is not package data"
