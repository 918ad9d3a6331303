"""Fair randomness: the match seed, its commitment, and the random stream of every ply.

At creation the server draws a 32-byte secret seed and publishes ``sha256(seed)``. The dice a
match actually uses come from a *match secret* that mixes the seed with what every seat
contributed at claim time (its public key and an optional nonce), so neither the server (which
committed to the seed before the keys existed) nor a player (who cannot see the seed) chooses
them alone. docs/fairness.md is the normative description; this module is its reference code.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence
from typing import Any

from service.games.base import Rng
from service.proof.signing import canonical

SEED_BYTES = 32


def new_seed() -> bytes:
    """A fresh secret seed from the operating system's CSPRNG."""
    return os.urandom(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: lowercase hex SHA-256."""
    return hashlib.sha256(seed).hexdigest()


def contributions(seats: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The public material each seat contributed, in seat order."""
    return [{"seat": s["seat"], "public_key": s["public_key"], "nonce": s.get("nonce") or ""} for s in seats]


def match_secret(seed: bytes, match_id: str, seats: Sequence[dict[str, Any]]) -> bytes:
    """HMAC-SHA256 keyed by the seed over the canonical JSON of the match id and every seat's
    contribution: the key of all of the match's random streams."""
    message = canonical({"match": match_id, "contributions": contributions(seats)})
    return hmac.new(seed, message, hashlib.sha256).digest()


def setup_rng(secret: bytes) -> Rng:
    """The stream that ``Game.setup`` draws from."""
    return Rng.derive(secret, "setup")


def ply_rng(secret: bytes, ply: int) -> Rng:
    """The stream for the move accepted at ``ply`` (all its actions draw from it in order)."""
    return Rng.derive(secret, f"ply:{ply}")
