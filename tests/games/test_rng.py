"""The Rng is specified bit for bit (docs/fairness.md): these vectors pin it."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from service.games.base import Rng


def test_stream_is_sha256_counter_mode() -> None:
    key = bytes(range(32))
    rng = Rng(key)
    block0 = hashlib.sha256(key + (0).to_bytes(8, "big")).digest()
    block1 = hashlib.sha256(key + (1).to_bytes(8, "big")).digest()
    words = [int.from_bytes(b[i : i + 8], "big") for b in (block0, block1) for i in (0, 8, 16, 24)]
    assert [rng.randbelow(1 << 63) for _ in range(8)] == [w % (1 << 63) for w in words]


def test_derive_is_hmac_of_label() -> None:
    import hmac

    a = Rng.derive(b"secret", "ply:3")
    b = Rng(hmac.new(b"secret", b"ply:3", hashlib.sha256).digest())
    assert [a.randbelow(1000) for _ in range(20)] == [b.randbelow(1000) for _ in range(20)]
    assert Rng.derive(b"secret", "ply:4").randbelow(1 << 60) != Rng.derive(b"secret", "ply:3").randbelow(1 << 60)


def test_die_is_roughly_uniform_and_in_range() -> None:
    rng = Rng.from_seed("dice")
    counts = Counter(rng.die() for _ in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(800 < c < 1200 for c in counts.values())


def test_shuffled_is_a_permutation_and_leaves_input() -> None:
    deck = list(range(20))
    out = Rng.from_seed(3).shuffled(deck)
    assert sorted(out) == deck and out != deck and deck == list(range(20))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        Rng(b"short")
    with pytest.raises(ValueError):
        Rng.from_seed(1).randbelow(0)
