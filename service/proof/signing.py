"""Canonical JSON and Ed25519 signatures: what makes a move provable.

A signed object is serialised with the JSON Canonicalization Scheme (RFC 8785), so two
implementations agree on the exact bytes, and signed with Ed25519. Keys and signatures travel
as unpadded base64url text.

Verification is strict (libsodium through PyNaCl): a public key must be a canonical encoding
of a curve point outside the small-order subgroup, and a signature's R must not be of small
order and its S must be canonical (below the group order). Without these rules a seat claimed
with, say, the all-zero key accepts a fixed degenerate signature for every message, so anyone
could move for it. The same rules apply in the server and in the offline verifier, since both
call this module. docs/signing.md publishes test vectors.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
from functools import lru_cache
from typing import Any

import nacl.bindings
import nacl.exceptions
import nacl.signing
import rfc8785

# The nonce of a signed request: long enough to be unguessable, short enough to store.
NONCE_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def b64e(raw: bytes) -> str:
    """Unpadded base64url."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64d(text: str) -> bytes:
    """Inverse of :func:`b64e`; raises ValueError on malformed input."""
    if not isinstance(text, str):
        raise ValueError("expected base64url text")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (ValueError, TypeError) as exc:
        raise ValueError("malformed base64url") from exc


def canonical(obj: Any) -> bytes:
    """The RFC 8785 canonical JSON bytes of ``obj``.

    Most of what is signed and hashed here (envelopes, log entries, receipts) holds only strings,
    safe integers, booleans, null, lists and objects with plain keys; for those the standard
    library's C encoder with sorted keys writes exactly RFC 8785's bytes, about five times faster
    than the ``rfc8785`` package's pure-Python writer (a move canonicalises several objects). What
    could differ goes to ``rfc8785``: floats (ECMAScript number formatting), integers beyond 2^53,
    keys outside the Basic Multilingual Plane (RFC 8785 sorts by UTF-16 code units, Python by code
    points) and strings with lone surrogates (refused there). tests/test_signing_vectors.py holds
    the two equal on every vector and on generated values."""
    if _plain(obj):
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return rfc8785.dumps(obj)


_SAFE_INT = (1 << 53) - 1


def _plain(obj: Any) -> bool:
    """Is ``obj`` JSON whose canonical form the standard encoder writes byte for byte? (see above)"""
    kind = type(obj)
    if kind is str:
        return obj.isascii() or _encodable(obj)
    if kind is dict:
        return all(type(k) is str and (k.isascii() or (_encodable(k) and max(k) <= "\uffff")) and _plain(v)
                   for k, v in obj.items())
    if kind is list:
        return all(_plain(v) for v in obj)
    if kind is int:
        return bool(-_SAFE_INT <= obj <= _SAFE_INT)
    return obj is None or kind is bool


def _encodable(text: str) -> bool:
    """Has ``text`` no lone surrogate (which UTF-8, and so RFC 8785, cannot write)?"""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def digest(obj: Any) -> str:
    """Hex SHA-256 of the canonical form: how entries of the hash chain are named."""
    return hashlib.sha256(canonical(obj)).hexdigest()


def generate_private_key() -> str:
    """A new Ed25519 private key (its 32-byte seed, base64url)."""
    return b64e(secrets.token_bytes(32))


def private_key_from_seed(seed: bytes) -> str:
    """A deterministic private key from 32 bytes (server-held bot keys are derived this way)."""
    return b64e(hashlib.sha256(seed).digest())


@lru_cache(maxsize=4096)
def _private(private_key: str) -> nacl.signing.SigningKey:
    raw = b64d(private_key)
    if len(raw) != 32:
        raise ValueError("an Ed25519 private key (seed) is 32 bytes")
    return nacl.signing.SigningKey(raw)


@lru_cache(maxsize=65536)
def _public(public_key: str) -> nacl.signing.VerifyKey:
    raw = b64d(public_key)
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    # canonical (y < p), on the curve, and not one of the 8 small-order (torsion) points
    if not nacl.bindings.crypto_core_ed25519_is_valid_point(raw):
        raise ValueError("not a canonical Ed25519 point of large order")
    return nacl.signing.VerifyKey(raw)


def public_key_of(private_key: str) -> str:
    """The base64url public key of a private key."""
    return b64e(bytes(_private(private_key).verify_key))


def valid_public_key(public_key: Any) -> bool:
    """Is this a well-formed Ed25519 public key in base64url: 32 bytes encoding a canonical
    curve point that is not of small order?"""
    try:
        _public(public_key)
    except (ValueError, TypeError):
        return False
    return True


def sign(private_key: str, obj: Any) -> str:
    """The base64url Ed25519 signature of ``obj``'s canonical JSON."""
    return sign_bytes(private_key, canonical(obj))


def sign_bytes(private_key: str, message: bytes) -> str:
    """The base64url Ed25519 signature of raw bytes."""
    return b64e(_private(private_key).sign(message).signature)


def verify(public_key: str, obj: Any, signature: str) -> bool:
    """Does ``signature`` sign ``obj`` (canonically serialised) under ``public_key``?"""
    return verify_bytes(public_key, canonical(obj), signature)


def verify_bytes(public_key: str, message: bytes, signature: str) -> bool:
    """Strict Ed25519 verification (see the module docstring); False for anything malformed."""
    try:
        sig = b64d(signature)
        if len(sig) != 64:
            return False
        _public(public_key).verify(message, sig)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.CryptoError, ValueError, TypeError):
        return False
    return True


def body_digest(body: bytes) -> str:
    """Hex SHA-256 of a request's raw body bytes (of b'' when there is none)."""
    return hashlib.sha256(body).hexdigest()


def signed_request_body(method: str, path: str, ts: int, nonce: str, query: str = "",
                        body: bytes = b"") -> dict[str, object]:
    """What a signed request signs (docs/signing.md): method, path, raw query string, the
    SHA-256 of the raw body, the time and a one-time nonce, so a seen signature cannot be
    reused for another request nor, within the time window, for the same one."""
    return {"method": method.upper(), "path": path, "query": query, "body": body_digest(body),
            "ts": ts, "nonce": nonce}


def new_nonce() -> str:
    """A fresh random request nonce (22 base64url characters, 128 bits)."""
    return secrets.token_urlsafe(16)


def authorization(private_key: str, method: str, path: str, query: str = "", body: bytes = b"",
                  ts: int | None = None, nonce: str | None = None) -> str:
    """The ``Authorization`` header value of a signed request (a fresh nonce when None)."""
    ts = int(time.time()) if ts is None else ts
    nonce = new_nonce() if nonce is None else nonce
    sig = sign(private_key, signed_request_body(method, path, ts, nonce, query, body))
    return f'Portolan key="{public_key_of(private_key)}", ts="{ts}", nonce="{nonce}", sig="{sig}"'
