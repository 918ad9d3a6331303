"""The webhook routes answer as openapi.yaml says (openapi-core, every status the flow reaches)."""

from __future__ import annotations

from typing import Any

from openapi_core import OpenAPI

from tests.conftest import CREATOR, Player, create_match, signed_headers
from tests.helpers.contract import Api, signed


def test_the_webhook_routes_answer_as_documented(app: Any, openapi: OpenAPI, players: list[Player]) -> None:
    api = Api(app.test_client(), openapi)
    app.extensions["portolan.webhooks"].resolve = lambda host, port: ["93.184.215.14"]  # public; no DNS here
    mid = create_match(app.test_client(), {"game": "harbour-race", "seats": [{"invite": "a@example.org"},
                                                                          {"invite": "b@example.org"}]}).get_json()["id"]
    me = players[0].private_key
    body = {"url": "https://hooks.example.org/p", "description": "mine"}
    for base, key in (("/v1/me/webhooks", me), (f"/v1/matches/{mid}/webhooks", CREATOR)):
        hook = api("POST", base, 201, **signed(body, base, key)).get_json()
        api("GET", base, 200, headers=signed_headers(key, "GET", base))
        api("GET", base, 401, valid_request=False)
        api("POST", base, 400, code="bad-webhook-url", **signed({"url": "http://hooks.example.org/"}, base, key))
        api("POST", base, 422, code="webhook-address-refused", **signed({"url": "https://10.0.0.1/"}, base, key))
        api("POST", base, 400, code="malformed-request", valid_request=False, **signed({"uri": "x"}, base, key))
        path = f"{base}/{hook['id']}/ping"
        api("POST", path, 202, headers=signed_headers(key, "POST", path))
        path = f"{base}/{hook['id']}/deliveries"
        api("GET", path, 200, headers=signed_headers(key, "GET", path))
        path = f"{base}/wh_0000000000000000/deliveries"
        api("GET", path, 404, code="unknown-webhook", headers=signed_headers(key, "GET", path))
        path = f"{base}/{hook['id']}"
        api("DELETE", path, 204, headers=signed_headers(key, "DELETE", path))
        api("DELETE", path, 404, code="unknown-webhook", headers=signed_headers(key, "DELETE", path))
    base = f"/v1/matches/{mid}/webhooks"
    api("POST", base, 403, code="not-the-creator", **signed(body, base, me))
    api("GET", "/v1/matches/nosuchmatch1/webhooks", 404, code="unknown-match",
        headers=signed_headers(CREATOR, "GET", "/v1/matches/nosuchmatch1/webhooks"))
    for i in range(10):
        api("POST", base, 201, **signed({"url": f"https://hooks.example.org/{i}"}, base, CREATOR))
    api("POST", base, 409, code="too-many-webhooks", **signed(body, base, CREATOR))
