"""The shape of a move envelope (docs/architecture.md, "Moves"), checked before anything else.

The API's marshmallow schema checks the outer body; the workers call the use cases directly, so
the envelope itself is checked here, once, for both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.i18n import phrase
from service.play.errors import BadRequest
from service.play.limits import check_json_value
from service.proof import signing

MAX_ACTIONS_PER_MOVE = 200


def check_envelope(envelope: Any) -> tuple[dict[str, Any], bytes]:
    """The envelope's shape (the API's schema checks it too; workers call submit directly),
    and its canonical JSON, which both the signature check and the digest use."""
    if not isinstance(envelope, Mapping):
        raise BadRequest("bad-envelope", phrase("the envelope must be a JSON object"))
    want = {"match", "seat", "ply", "actions", "nonce"}
    if set(envelope) != want:
        raise BadRequest("bad-envelope", phrase("the envelope has exactly the fields {fields}", fields=sorted(want)))
    env = dict(envelope)
    if not isinstance(env["match"], str) or not isinstance(env["nonce"], str) or len(env["nonce"]) > 128:
        raise BadRequest("bad-envelope", phrase("match and nonce are strings (nonce at most 128 characters)"))
    for name in ("seat", "ply"):
        if not isinstance(env[name], int) or isinstance(env[name], bool) or env[name] < 0:
            raise BadRequest("bad-envelope", phrase("{name} must be a non-negative integer", name=name))
    actions = env["actions"]
    if not isinstance(actions, list) or not actions or len(actions) > MAX_ACTIONS_PER_MOVE:
        raise BadRequest("bad-envelope", phrase("actions must be a list of 1 to {most} action objects", most=MAX_ACTIONS_PER_MOVE))
    if not all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in actions):
        raise BadRequest("bad-envelope", phrase('every action is an object with a string "type"'))
    # the API has bounded the whole body already; workers and other direct callers have not, and
    # the canonicaliser and the rules core recurse, so nothing deeper than the bound gets past here
    check_json_value(env, phrase("the envelope"))
    try:
        raw = signing.canonical(env)
    except ValueError as exc:  # integers beyond ±2**53, NaN, Infinity: no RFC 8785 form, nothing to verify
        raise BadRequest("bad-envelope", phrase("the envelope has no canonical JSON (RFC 8785): {exc}", exc=exc)) from exc
    return env, raw
