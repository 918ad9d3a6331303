"""Log entries are stored compactly and read back exactly as they were written (issue 15)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.play.matches import Matches
from service.proof import signing
from service.proof.verify import verify_record
from service.storage import log_codec
from service.storage.log_codec import pack_entry, unpack_entry
from tests.conftest import CREATOR_KEY

MID = "abcdefgh2345"
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
sig = st.binary(min_size=64, max_size=64).map(lambda b: signing.b64e(b))
digest = st.binary(min_size=32, max_size=32).map(bytes.hex)


@st.composite
def entries(draw: Any) -> dict[str, Any]:
    ply = draw(st.integers(0, 5000) | st.booleans())
    seat = draw(st.integers(0, 5) | st.just(1.0))
    envelope = {"match": draw(st.just(MID) | st.text(max_size=12)), "seat": draw(st.just(seat) | st.integers(0, 5)),
                "ply": draw(st.just(ply) | st.integers(0, 9)), "actions": draw(st.lists(json_values, max_size=3)),
                "nonce": draw(st.text(max_size=10))}
    if draw(st.booleans()):  # a client's envelope in another order
        envelope = dict(reversed(list(envelope.items())))
    entry = {"ply": ply, "seat": seat, "by": draw(st.sampled_from(["human", "bot:heuristic", "email"])),
             "envelope": envelope,
             "signature": draw(sig | st.text(max_size=90)), "prev": draw(digest | st.text(max_size=64)),
             "accepted_at": "2026-12-04T03:40:29.767Z", "events": draw(st.lists(json_values, max_size=4)),
             "events_digest": draw(digest | digest.map(str.upper)), "rng_draws": 0,
             "hash": draw(digest), "receipt": draw(sig | st.just("not base64!"))}
    extra = draw(st.dictionaries(st.sampled_from(["mail", "delegation", "clock", "e~"]), json_values, max_size=2))
    return {**entry, **extra}


def reads_back_exactly(entry: dict[str, Any]) -> None:
    """An entry packed and unpacked is the same entry, and hashes and signs the same."""
    back = unpack_entry(pack_entry(entry, MID), MID)
    assert back == entry
    assert json.dumps(back) == json.dumps(entry)  # same types, same key order (but the rebuilt envelope's)
    try:
        canonical = signing.canonical(entry)
    except ValueError:  # past JSON's safe integers: never signed, so never hashed either
        return
    assert signing.canonical(back) == canonical  # what is hashed and signed is unchanged


# The default run draws 60 entries; the slow step the full 300.
@settings(max_examples=60, deadline=None)
@given(entries())
def test_every_entry_reads_back_exactly_as_written(entry: dict[str, Any]) -> None:
    reads_back_exactly(entry)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(entries())
def test_every_entry_of_300_reads_back_exactly_as_written(entry: dict[str, Any]) -> None:
    reads_back_exactly(entry)


def test_real_entries_shrink_to_a_third_and_records_still_verify(service: Matches) -> None:
    for game_id in ("el-capitan", "nauticus", "ophir"):
        mid = str(service.create(game_id, {}, [{"bot": "heuristic"}] * 3, creator_key=CREATOR_KEY)["id"])
        for _ in range(40):
            meta = service.meta(mid)
            service.server_move(mid, meta.active[0], meta.ply)
        log = service.store.log(mid)
        raw = service.store.r.lrange(service.store._k(mid, "log"), 0, -1)
        assert all(r[:1] == log_codec.VERSION_1 for r in raw)
        as_json = sum(len(json.dumps(e, separators=(",", ":"))) for e in log)
        assert sum(len(r) for r in raw) < as_json / 2.5, game_id
        assert verify_record(service.record(mid)).ok


def test_a_match_stored_before_the_codec_reads_and_replays_as_before(service: Matches) -> None:
    """Older entries are JSON with an index of envelope digests: both still work."""
    mid = str(service.create("nauticus", {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY)["id"])
    for _ in range(6):
        meta = service.meta(mid)
        service.server_move(mid, meta.active[0], meta.ply)
    log = service.store.log(mid)
    key = service.store._k(mid, "log")
    r = service.store.r
    r.delete(key)
    r.rpush(key, *[json.dumps(e, separators=(",", ":")) for e in log])
    r.hset(service.store._k(mid, "envs"), mapping={signing.digest(e["envelope"]): e["ply"] for e in log})
    assert service.store.log(mid) == log
    for e in log:
        assert service.store.accepted_ply(mid, signing.digest(e["envelope"]), e["ply"]) == e["ply"]
        assert service.store.accepted_ply(mid, signing.digest(e["envelope"]), 10 ** 6) == e["ply"]  # by the index
    r.delete(service.store._k(mid, "envs"))
    assert service.store.accepted_ply(mid, signing.digest(log[2]["envelope"]), 2) == 2  # by the ply
    assert service.store.accepted_ply(mid, signing.digest(log[2]["envelope"]), 3) is None
    assert verify_record(service.record(mid)).ok


def test_the_dictionary_is_the_frozen_one() -> None:
    assert hashlib.sha256(log_codec.DICTIONARY).hexdigest() == log_codec.DICTIONARY_SHA256
