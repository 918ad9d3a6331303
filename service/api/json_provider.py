"""The API's JSON answers written by orjson (a maintained C library) instead of the standard one.

Encoding the answer was about a tenth of a move's CPU in the API (py-spy, issue 15): a move's
answer carries the mover's view. orjson writes the same JSON values several times faster; keys
stay in the order the code built them (as ``sort_keys = False`` kept them before), and text is
UTF-8 rather than ``\\u`` escapes (the same JSON to any parser). Anything orjson cannot write
(a key that is not a string, an integer past 64 bits) falls back to the standard encoder, so an
answer never fails for the encoder's sake. Reading request bodies is unchanged (the API's own
strict parser, service/api/schemas.py).
"""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider


class FastJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider with orjson's ``dumps`` (see the module)."""

    sort_keys = False

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:  # someone asked for the standard encoder's options: give them that encoder
            return super().dumps(obj, **kwargs)
        try:
            return orjson.dumps(obj).decode()
        except TypeError:
            return super().dumps(obj)

    def response(self, *args: Any, **kwargs: Any) -> Any:
        obj = self._prepare_response_obj(args, kwargs)
        try:
            body = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
        except TypeError:
            body = f"{super().dumps(obj)}\n".encode()
        return self._app.response_class(body, mimetype=self.mimetype)  # type: ignore[arg-type]
