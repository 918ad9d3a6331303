"""CORS (flask-cors) over real HTTP: a browser's preflight and a cross-origin answer."""

from __future__ import annotations

import dataclasses
from typing import Any

import requests

from service.config import Settings
from service.runtime import build
from tests.conftest import Player


def test_a_preflight_allows_signed_json_requests_from_any_origin(served: str) -> None:
    r = requests.options(f"{served}/v1/me/turns", headers={
        "Origin": "https://frontend.example", "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization, content-type"}, timeout=10)
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type"} <= allowed
    assert "GET" in r.headers["Access-Control-Allow-Methods"]
    assert int(r.headers["Access-Control-Max-Age"]) >= 600
    assert "Access-Control-Allow-Credentials" not in r.headers  # signatures, never cookies


def test_a_cross_origin_answer_exposes_the_headers_a_client_reads(served: str, players: list[Player]) -> None:
    r = requests.get(f"{served}/v1/matches/nosuchmatch1", headers={"Origin": "https://frontend.example"}, timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    exposed = {h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "retry-after", "ratelimit-remaining"} <= exposed
    r = requests.get(f"{served}/v1/games", headers={"Origin": "https://frontend.example"}, timeout=10)
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "*"


def test_configured_origins_only(settings: Settings) -> None:
    from service.api import create_app

    s = dataclasses.replace(settings, cors_origins=("https://play.example",))
    client: Any = create_app(s, build(s), TESTING=True).test_client()
    ok = client.get("/v1/games", headers={"Origin": "https://play.example"})
    assert ok.headers["Access-Control-Allow-Origin"] == "https://play.example"
    other = client.get("/v1/games", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    pre = client.options("/v1/games", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"})
    assert "Access-Control-Allow-Origin" not in pre.headers
    assert Settings.from_env({"PORTOLAN_CORS_ORIGINS": " https://a.example , https://b.example "}).cors_origins == (
        "https://a.example", "https://b.example")
    assert Settings.from_env({}).cors_origins == ("*",)
