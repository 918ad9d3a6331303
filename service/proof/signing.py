"""Canonical JSON and Ed25519 signatures: what makes a move provable.

A signed object is serialised with the JSON Canonicalization Scheme (RFC 8785), so two
implementations agree on the exact bytes, and signed with Ed25519. Keys and signatures travel
as unpadded base64url text.
"""

from __future__ import annotations

import base64
import hashlib
import time
from functools import lru_cache
from typing import Any

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat


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
    """The RFC 8785 canonical JSON bytes of ``obj``."""
    return rfc8785.dumps(obj)


def digest(obj: Any) -> str:
    """Hex SHA-256 of the canonical form: how entries of the hash chain are named."""
    return hashlib.sha256(canonical(obj)).hexdigest()


def generate_private_key() -> str:
    """A new Ed25519 private key (its 32-byte seed, base64url)."""
    return b64e(Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()))


def private_key_from_seed(seed: bytes) -> str:
    """A deterministic private key from 32 bytes (server-held bot keys are derived this way)."""
    return b64e(hashlib.sha256(seed).digest())


@lru_cache(maxsize=4096)
def _private(private_key: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(b64d(private_key))


@lru_cache(maxsize=65536)
def _public(public_key: str) -> Ed25519PublicKey:
    raw = b64d(public_key)
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def public_key_of(private_key: str) -> str:
    """The base64url public key of a private key."""
    return b64e(_private(private_key).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))


def valid_public_key(public_key: Any) -> bool:
    """Is this a well-formed Ed25519 public key in base64url?"""
    try:
        _public(public_key)
    except (ValueError, TypeError):
        return False
    return True


def sign(private_key: str, obj: Any) -> str:
    """The base64url Ed25519 signature of ``obj``'s canonical JSON."""
    return sign_bytes(private_key, canonical(obj))


def sign_bytes(private_key: str, message: bytes) -> str:
    return b64e(_private(private_key).sign(message))


def verify(public_key: str, obj: Any, signature: str) -> bool:
    """Does ``signature`` sign ``obj`` (canonically serialised) under ``public_key``?"""
    return verify_bytes(public_key, canonical(obj), signature)


def verify_bytes(public_key: str, message: bytes, signature: str) -> bool:
    try:
        sig = b64d(signature)
        if len(sig) != 64:
            return False
        _public(public_key).verify(sig, message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def signed_request_body(method: str, path: str, ts: int) -> dict[str, object]:
    """What a signed read signs (see service/api/auth.py)."""
    return {"method": method.upper(), "path": path, "ts": ts}


def authorization(private_key: str, method: str, path: str, ts: int | None = None) -> str:
    """The ``Authorization`` header value of a signed read."""
    ts = int(time.time()) if ts is None else ts
    sig = sign(private_key, signed_request_body(method, path, ts))
    return f'Portolan key="{public_key_of(private_key)}", ts="{ts}", sig="{sig}"'
