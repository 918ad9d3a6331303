"""Bounds on the JSON a caller may send, checked once where request data enters the use cases.

Why here and not in each game: the canonicaliser (RFC 8785), the marshmallow schemas, the
rules core and Redis all walk or encode what a caller sent. A structure a thousand levels deep
makes Python's recursive walkers raise ``RecursionError`` (a 500), a NUL reaches the rules core
and the logs, and a lone surrogate (``"\\ud800"``) is valid JSON but cannot be encoded as UTF-8,
so it fails later, when the match is stored. All three are refused up front with a 400 that
names the rule, before anything reads the value.
"""

from __future__ import annotations

import json
import re
from typing import Any

from service.i18n import phrase
from service.play.errors import BadRequest

MAX_JSON_DEPTH = 32
"""Nesting depth of arrays and objects (the outermost counts as 1). The deepest real body, a
move envelope with an action holding a list of objects, is about 5 levels; 32 leaves room for any
game's actions while keeping every recursive walker far from Python's recursion limit."""

_BAD_CHARS = re.compile("[\x00\ud800-\udfff]")


def parse_json(raw: bytes | str) -> Any:
    """Decode a request body. Malformed JSON raises 400 ``malformed-json``; a body nested deeper
    than :data:`MAX_JSON_DEPTH` raises 400 ``too-deep`` (also when the decoder itself would have run
    out of stack); NUL or lone surrogates in a string raise 400 ``bad-string``."""
    try:
        data = json.loads(raw)
    except RecursionError as exc:  # the C decoder gives up long before our bound matters
        raise _too_deep() from exc
    except json.JSONDecodeError as exc:
        # the decoder's own words are English: the position is what every reader can use
        raise BadRequest("malformed-json", phrase("the request body is not JSON: {why}: line {line} column {column} (char {pos})",
                                                  why=exc.msg, line=exc.lineno, column=exc.colno, pos=exc.pos)) from exc
    except ValueError as exc:  # UnicodeDecodeError for bytes that are not UTF-8/16/32
        raise BadRequest("malformed-json", phrase("the request body is not JSON: {exc}", exc=exc)) from exc
    check_json_value(data)
    return data


def check_json_value(value: Any, what: str = phrase("the request body")) -> None:
    """Refuse a decoded JSON value nested deeper than :data:`MAX_JSON_DEPTH` levels or holding a
    string (key or value) with NUL or a lone surrogate. Iterative, so it cannot itself overflow."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_string(item, what)
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise _too_deep(what)
            if isinstance(item, dict):
                for key, child in item.items():
                    if isinstance(key, str):
                        _check_string(key, what)
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)


def _check_string(text: str, what: str) -> None:
    bad = _BAD_CHARS.search(text)
    if bad is not None:
        char = "NUL (U+0000)" if bad.group() == "\x00" else f"a lone surrogate (U+{ord(bad.group()):04X})"
        raise BadRequest("bad-string", phrase("{what} has a string containing {char}; strings must be valid Unicode text without NUL (rule: JSON text is exchanged as UTF-8, RFC 8259 §8.1)", what=what, char=char))


def _too_deep(what: str = "the request body") -> BadRequest:
    return BadRequest("too-deep", phrase("{what} nests arrays and objects deeper than {most} levels, the most this server accepts", what=what, most=MAX_JSON_DEPTH))
