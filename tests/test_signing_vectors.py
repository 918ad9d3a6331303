"""The published signing test vectors (docs/signing-vectors.json, shown in docs/signing.md)
are what this code computes: Ed25519 is deterministic, so every signature is fixed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from service.proof import signing

DOCS = Path(__file__).parent.parent / "docs"
VECTORS = json.loads((DOCS / "signing-vectors.json").read_text(encoding="utf-8"))


def _key(v: dict[str, Any]) -> str:
    private = signing.b64e(bytes.fromhex(v["private_key_seed_hex"]))
    assert private == v["private_key"]
    assert signing.public_key_of(private) == v["public_key"]
    assert signing.b64d(v["public_key"]).hex() == v["public_key_hex"]
    return private


@pytest.mark.parametrize("v", VECTORS["vectors"], ids=lambda v: v["name"])
def test_every_vector_recomputes(v: dict[str, Any]) -> None:
    private = _key(v)
    if v["kind"] == "raw":
        message = bytes.fromhex(v["message_hex"])
    else:
        if v["kind"] == "request":
            r = v["request"]
            obj = signing.signed_request_body(r["method"], r["path"], r["ts"], r["nonce"], r["query"],
                                              r["body_text"].encode())
            assert obj == v["object"]
            assert signing.authorization(private, r["method"], r["path"], r["query"], r["body_text"].encode(),
                                         ts=r["ts"], nonce=r["nonce"]) == v["authorization"]
        message = signing.canonical(v["object"])
        assert message.decode("utf-8") == v["canonical_text"]
        assert message.hex() == v["canonical_hex"]
    signature = signing.sign_bytes(private, message)
    assert signature == v["signature"]
    assert signing.b64d(signature).hex() == v["signature_hex"]
    assert signing.verify_bytes(v["public_key"], message, signature)


@pytest.mark.parametrize("v", VECTORS["must_reject"], ids=lambda v: v["name"])
def test_every_must_reject_vector_is_refused(v: dict[str, Any]) -> None:
    assert not signing.verify_bytes(v["public_key"], bytes.fromhex(v["message_hex"]), v["signature"])


def test_the_markdown_shows_every_vector() -> None:
    text = (DOCS / "signing.md").read_text(encoding="utf-8")
    for v in VECTORS["vectors"]:
        assert v["signature"] in text and v["public_key"] in text and v["canonical_hex" if v["kind"] != "raw" else "signature_hex"] in text


# Any JSON value, with the awkward parts on purpose: floats, integers past 2^53, keys and strings
# beyond the Basic Multilingual Plane, control characters, lone surrogates.
_awkward_text = st.text(alphabet=st.characters(blacklist_categories=()), max_size=6) | st.sampled_from(
    ["\ud800", "a\udfff", "\U0001f600", "\uffff", "\u2028", "\x00\x1f\x7f", '"\\/', "é", "\ue000"])
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats(allow_nan=False, allow_infinity=False)
    | _awkward_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_awkward_text, inner, max_size=4),
    max_leaves=25,
)


def same_as_rfc8785(value: Any) -> None:
    """signing.canonical takes the standard encoder where it writes RFC 8785's bytes: never a
    different byte, and the same refusal where RFC 8785 refuses."""
    try:
        expected = rfc8785.dumps(value)
    except Exception as exc:  # lone surrogates, integers past the safe range
        with pytest.raises(type(exc)):
            signing.canonical(value)
        return
    assert signing.canonical(value) == expected


# The default run draws 200 values (a second or two); the slow step the full 2,000.
@settings(max_examples=200, deadline=None)
@given(_json)
def test_the_fast_canonical_form_is_rfc8785s(value: Any) -> None:
    same_as_rfc8785(value)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(_json)
def test_the_fast_canonical_form_is_rfc8785s_over_2000_values(value: Any) -> None:
    same_as_rfc8785(value)
