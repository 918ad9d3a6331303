"""The app over real sockets: werkzeug's HTTP server (the ``served`` fixture) and gunicorn's gevent
worker as ``portolan dev`` and deploy/gunicorn.conf.py run it (``gevent_served``: the standard
library monkey-patched, so signing, Flask-Limiter and redis-py run on greenlets).

The Flask test client hands the app a complete body; a real server reads it off the wire, where a
client may send ``Transfer-Encoding: chunked`` (no Content-Length) - ``requests`` does for a
generator body, as do streaming HTTP libraries and proxies.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.conftest import CREATOR, signed_headers


def _chunks(data: bytes, size: int = 7) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i:i + size]


@pytest.fixture(params=["werkzeug", pytest.param("gevent", marks=pytest.mark.processes)])  # gevent: gunicorn
def server(request: pytest.FixtureRequest) -> str:
    url: str = request.getfixturevalue("served" if request.param == "werkzeug" else "gevent_served")
    return url


def test_a_chunked_body_is_read_whole(server: str) -> None:
    served = server
    body = b'{"game": "harbour-race", "seats": [{"bot": "random"}, {"bot": "random"}]}'
    headers = {"Content-Type": "application/json", **signed_headers(CREATOR, "POST", "/v1/matches", body)}
    r = requests.post(f"{served}/v1/matches", data=_chunks(body), headers=headers, timeout=30)
    assert r.request.headers.get("Transfer-Encoding") == "chunked"
    assert r.status_code == 201, r.text
    assert r.json()["game"] == "harbour-race"


def test_a_chunked_body_over_the_limit_is_413_not_a_truncated_read(server: str, app: Any) -> None:
    served = server
    limit = app.config["MAX_CONTENT_LENGTH"]
    body = b'{"game": "harbour-race", "seats": [], "pad": "' + b"x" * limit + b'"}'
    headers = {"Content-Type": "application/json", **signed_headers(CREATOR, "POST", "/v1/matches", body)}
    r = requests.post(f"{served}/v1/matches", data=_chunks(body, 4096), headers=headers, timeout=30)
    assert r.status_code == 413, r.text
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["code"] == "body-too-large" and str(limit) in r.json()["detail"]


def test_a_405_keeps_its_allow_header(server: str) -> None:
    served = server
    r = requests.put(f"{served}/v1/matches", timeout=30)
    assert r.status_code == 405
    assert r.json()["code"] == "method-not-allowed"
    assert set(r.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}
