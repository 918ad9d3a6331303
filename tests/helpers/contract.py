"""Requests checked against openapi.yaml (openapi-core) as they are sent."""

from __future__ import annotations

import json
from typing import Any

from openapi_core import OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest, WerkzeugOpenAPIResponse
from werkzeug.test import EnvironBuilder

from tests.conftest import CREATOR, signed_headers


class Api:
    """Sends requests through the Flask test client and validates each against the spec."""

    def __init__(self, client: Any, openapi: OpenAPI) -> None:
        self.client = client
        self.openapi = openapi
        self.seen: set[tuple[str, str, int]] = set()

    def __call__(self, method: str, path: str, status: int, *, valid_request: bool = True, code: str | None = None,
                 **kw: Any) -> Any:
        r = self.client.open(path, method=method, **kw)
        assert r.status_code == status, (method, path, r.status_code, r.get_data(as_text=True))
        # A fresh request object: the one the app saw has had its body stream read.
        request = WerkzeugOpenAPIRequest(EnvironBuilder(path=path, method=method, **kw).get_request())
        if valid_request:
            self.openapi.validate_request(request)
        self.openapi.validate_response(request, WerkzeugOpenAPIResponse(r))
        if status >= 400:
            assert r.mimetype == "application/problem+json"
            body = r.get_json()
            assert body["status"] == status and body["type"].endswith("/" + body["code"])
            if code is not None:
                assert body["code"] == code, body
        self.seen.add((method.lower(), path, status))
        return r


def signed(body: Any, path: str = "/v1/matches", private_key: str = CREATOR) -> dict[str, Any]:
    """The keyword arguments of a signed JSON POST (creation): exactly the bytes that were signed."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return {"data": data, "content_type": "application/json",
            "headers": signed_headers(private_key, "POST", path, data)}
