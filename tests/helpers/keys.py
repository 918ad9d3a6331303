"""Ed25519 keys and signatures a careful verifier refuses: small-order points, non-canonical
encodings, and the signature that a lax verifier accepts for any message (issue 9, finding 2)."""

from __future__ import annotations

from service.proof import signing

# The eight points of small order on edwards25519 (the torsion subgroup), as libsodium lists
# them, and non-canonical encodings (y >= p, or x = 0 with the sign bit set).
P = 2**255 - 19
TORSION = [
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity (order 1)
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = -1 (order 2)
    "0000000000000000000000000000000000000000000000000000000000000000",  # y = 0 (order 4)
    "0000000000000000000000000000000000000000000000000000000000000080",  # y = 0, other x (order 4)
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
]
NON_CANONICAL = [
    (P + 1).to_bytes(32, "little").hex(),  # y = p + 1, the identity written with y >= p
    (P + 2).to_bytes(32, "little").hex(),  # y >= p
    "0100000000000000000000000000000000000000000000000000000000000080",  # identity with a "negative" x = 0
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = 2^255 - 1 >= p
]
BAD_KEYS = [signing.b64e(bytes.fromhex(h)) for h in TORSION + NON_CANONICAL]
IDENTITY_KEY = signing.b64e(bytes.fromhex(TORSION[0]))
ZERO_KEY = signing.b64e(bytes(32))
# R = the identity, S = 0: under a lax verifier it "signs" every message for the identity key
# (and many for the other small-order keys): [S]B = R + [h]A holds when [h]A is the identity.
DEGENERATE_SIG = signing.b64e(bytes.fromhex(TORSION[0]) + bytes(32))
