"""``/v1/unsubscribe/{token}`` (RFC 8058 one-click): the exact POST turns one address's mail off and
nothing else; a GET, a wrong body, a forged, altered or foreign token change nothing. Every answer
is checked against openapi.yaml (openapi-core, tests/helpers/contract.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from openapi_core import OpenAPI

from service.api import create_app
from service.config import Settings
from service.delivery.unsubscribe import TOKEN_CHARS, address_of, token_of
from service.play.matches import Matches
from service.proof import signing
from service.storage.preferences import NoticePreferences, address_digest
from tests.helpers.contract import Api

ZOE, BEA = "zoe@example.org", "bea@example.org"
FORM = {"data": "List-Unsubscribe=One-Click", "content_type": "application/x-www-form-urlencoded"}


def prefs(settings: Settings, service: Matches) -> NoticePreferences:
    return NoticePreferences(service.store.r, settings.namespace)


def path(service: Matches, email: str) -> str:
    return f"/v1/unsubscribe/{token_of(service.server_key, email)}"


def test_a_token_names_one_address_whatever_its_case_and_only_with_this_servers_key(service: Matches) -> None:
    token = token_of(service.server_key, ZOE)
    assert len(token) == TOKEN_CHARS == 64 and ZOE.split("@")[0] not in token  # the address is not in the URL
    assert token_of(service.server_key, f"  {ZOE.upper()} ") == token
    assert address_of(service.server_key, token) == address_digest(ZOE)
    assert token_of(service.server_key, BEA) != token
    other_server = signing.b64e(bytes(32))
    assert address_of(other_server, token) is None
    assert address_of(service.server_key, token_of(other_server, ZOE)) is None
    assert address_of(service.server_key, token + "\n") is None and address_of(service.server_key, token[:-1]) is None


def test_the_one_click_post_turns_the_address_off_and_says_so(client: Any, openapi: OpenAPI, settings: Settings,
                                                             service: Matches) -> None:
    api = Api(client, openapi)
    p = prefs(settings, service)
    p.set(BEA, "digest")
    r = api("POST", path(service, ZOE), 200, **FORM)
    assert r.mimetype == "text/plain" and "no more" in r.get_data(as_text=True)
    assert r.headers["Cache-Control"] == "no-store"
    assert p.get(ZOE) == "off" and p.get(ZOE.upper()) == "off"
    assert p.get(BEA) == "digest"  # one token, one address
    # said again (a provider's retry): the same answer, still off
    assert api("POST", path(service, ZOE), 200, **FORM).get_data() == r.get_data()
    # RFC 8058 prefers multipart/form-data; the same field that way works the same
    api("POST", path(service, BEA), 200, data={"List-Unsubscribe": "One-Click"}, content_type="multipart/form-data")
    assert p.get(BEA) == "off"


def test_a_get_shows_the_button_and_changes_nothing(client: Any, openapi: OpenAPI, settings: Settings,
                                                    service: Matches) -> None:
    api = Api(client, openapi)
    r = api("GET", path(service, ZOE), 200)
    page = r.get_data(as_text=True)
    assert r.mimetype == "text/html" and r.headers["Cache-Control"] == "no-store"
    assert f'<form method="post" action="{path(service, ZOE)}">' in page
    assert '<input type="hidden" name="List-Unsubscribe" value="One-Click">' in page
    assert "<script" not in page and "default-src 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["Referrer-Policy"] == "no-referrer"
    assert client.head(path(service, ZOE)).status_code == 200
    assert prefs(settings, service).get(ZOE) == "every"


def test_forged_altered_or_foreign_tokens_are_404_and_change_nothing(client: Any, openapi: OpenAPI,
                                                                    settings: Settings, service: Matches) -> None:
    api = Api(client, openapi)
    token = token_of(service.server_key, ZOE)
    flipped = ("A" if token[-1] != "A" else "B")
    altered_mac = token[:-1] + flipped
    altered_digest = ("A" if token[0] != "A" else "B") + token[1:]
    made_elsewhere = token_of(signing.b64e(bytes(32)), ZOE)
    # the digest of Bea with Zoë's MAC: one address's token cannot be made to name another
    spliced = signing.b64e(bytes.fromhex(address_digest(BEA)) + signing.b64d(token)[32:])
    for bad in (altered_mac, altered_digest, made_elsewhere, spliced):
        api("POST", f"/v1/unsubscribe/{bad}", 404, code="bad-unsubscribe-token", **FORM)
        api("GET", f"/v1/unsubscribe/{bad}", 404, code="bad-unsubscribe-token")
    for malformed in ("x", token[:-1], token + "A", token[:-1] + "=", token[:-1] + "+"):
        api("POST", f"/v1/unsubscribe/{malformed}", 404, valid_request=False, code="bad-unsubscribe-token", **FORM)
    p = prefs(settings, service)
    assert p.get(ZOE) == "every" and p.get(BEA) == "every"


def test_a_post_without_the_one_click_body_is_400_and_changes_nothing(client: Any, openapi: OpenAPI,
                                                                     settings: Settings, service: Matches) -> None:
    api = Api(client, openapi)
    for kw in ({}, {"data": "List-Unsubscribe=Yes", "content_type": "application/x-www-form-urlencoded"},
               {"data": "List-Unsubscribe=One-Click&List-Unsubscribe=One-Click",
                "content_type": "application/x-www-form-urlencoded"},
               {"json": {"List-Unsubscribe": "One-Click"}}):
        api("POST", path(service, ZOE), 400, valid_request=False, code="not-one-click", **kw)
    assert prefs(settings, service).get(ZOE) == "every"


def test_the_routes_are_rate_limited_before_anything_changes(settings: Settings, service: Matches) -> None:
    client = create_app(dataclasses.replace(settings, rate_read="1/minute"), service, TESTING=True).test_client()
    assert client.get(path(service, ZOE)).status_code == 200
    assert client.get(path(service, ZOE)).status_code == 429
    assert client.post(path(service, ZOE), data="List-Unsubscribe=No",
                       content_type="application/x-www-form-urlencoded").status_code == 400
    r = client.post(path(service, ZOE), **FORM)
    assert r.status_code == 429 and r.get_json()["code"] == "rate-limited" and r.headers["Retry-After"]
    assert prefs(settings, service).get(ZOE) == "every"
