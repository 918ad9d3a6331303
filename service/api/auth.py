"""Authenticated reads: a request signed with the seat's Ed25519 key.

``Authorization: Portolan key="<public key>", ts="<unix seconds>", sig="<signature>"`` where
the signature signs the canonical JSON ``{"method": "GET", "path": "/v1/...", "ts": <ts>}``.
Requests older or newer than five minutes are refused, which bounds replays of a read.
"""

from __future__ import annotations

import re
import time

from flask import request

from service.play.errors import Unauthorized
from service.proof import signing
from service.proof.signing import signed_request_body

WINDOW_S = 300
_PARAM = re.compile(r'(\w+)="([^"]*)"')


def signed_key() -> str:
    """The public key that signed this request, or 401."""
    header = request.headers.get("Authorization", "")
    if not header.startswith("Portolan "):
        raise Unauthorized("missing-signature", 'this read needs an Authorization: Portolan key="...", ts="...", sig="..." header')
    params = dict(_PARAM.findall(header))
    try:
        key, ts, sig = params["key"], int(params["ts"]), params["sig"]
    except (KeyError, ValueError) as exc:
        raise Unauthorized("bad-authorization", "the Authorization header needs key, ts and sig") from exc
    if abs(int(time.time()) - ts) > WINDOW_S:  # int arithmetic: a huge ts must not overflow a float
        raise Unauthorized("stale-signature", f"the signed timestamp is more than {WINDOW_S} s away from the server's clock")
    if not signing.verify(key, signed_request_body(request.method, request.path, ts), sig):
        raise Unauthorized("bad-signature", "the request signature does not verify under the given key")
    return str(key)
