"""How a log entry is kept in Redis: compact, and exactly what was written when read back.

A log entry as the use cases build it is JSON of about 1 KB: two Ed25519 signatures in base64url,
three SHA-256 digests in hex, the envelope (which repeats the match id, the seat and the ply), the
events with their sentences. Kept as that JSON, a match costs about 1.1 to 1.6 KB of Redis per ply
(``bench/memory.py``). Here an entry is stored as

    b"\\x01" + zstd(msgpack(entry'), dictionary)

where ``entry'`` is the entry with

* ``signature`` and ``receipt`` as their 64 bytes, ``prev``, ``hash`` and ``events_digest`` as
  their 32 (only where the text is exactly the encoding of those bytes: anything else is kept as
  it came, so nothing is ever normalised on the way);
* the envelope's ``match``, ``seat`` and ``ply`` left out when they equal the match's id and the
  entry's own seat and ply (they are put back, first, in that order, when read);

and the zstd frame (level 9) is compressed against a fixed dictionary of typical entries of the three games
(:data:`DICTIONARY`, ``log-dictionary-1.bin``; built once by ``service/tools/log_dictionary.py``
and frozen: an entry written with it can only be read with it, so a better dictionary is a new
version byte, never a changed file). Its SHA-256 is checked at import.

An entry that starts with ``{`` is the JSON of a match stored before this codec, read as such;
everything reads both. The signed and hashed bytes are never these: the chain hashes and the
signatures are over canonical JSON (RFC 8785) of the decoded values, which are equal to the
values that were encoded, so records verify as before (tests/storage/test_log_codec.py).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import threading
from importlib import resources
from typing import Any, cast

import msgpack
import zstandard

VERSION_1 = b"\x01"
DICTIONARY = resources.files("service.storage").joinpath("data/log-dictionary-1.bin").read_bytes()
DICTIONARY_SHA256 = "a719a55e878b7fc246f980bf6a9a3799800f6c33bb48e165553a14e2f7ddc579"
"""The SHA-256 of :data:`DICTIONARY`: entries in Redis were compressed with exactly those bytes."""

B64_FIELDS = ("signature", "receipt")
HEX_FIELDS = ("prev", "hash", "events_digest")
ENVELOPE_SHORT = "e~"
"""The key of an envelope stored without its match, seat and ply (they equal the entry's)."""


def pack_entry(entry: dict[str, Any], match_id: str) -> bytes:
    """The stored bytes of one log entry of match ``match_id`` (see the module). An entry msgpack
    cannot hold (an integer past 64 bits in a client's action, say), or one that has a field of
    the codec's own name, is stored as plain JSON."""
    if ENVELOPE_SHORT in entry:
        return json.dumps(entry, separators=(",", ":")).encode()
    try:
        body = msgpack.packb(shorten(entry, match_id), use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return json.dumps(entry, separators=(",", ":")).encode()
    return VERSION_1 + _coders().packer.compress(body)


def shorten(entry: dict[str, Any], match_id: str) -> dict[str, Any]:
    """The entry as it is packed: binary signatures and digests, the envelope without what the
    entry already says (see the module)."""
    short: dict[str, Any] = {}
    for key, value in entry.items():
        if key in B64_FIELDS and isinstance(value, str):
            short[key] = _from_b64(value)
        elif key in HEX_FIELDS and isinstance(value, str):
            short[key] = _from_hex(value)
        elif key == "envelope" and _derivable(value, entry, match_id):
            key, value = ENVELOPE_SHORT, {k: v for k, v in value.items() if k not in ("match", "seat", "ply")}
            short[key] = value
        else:
            short[key] = value
    return short


def unpack_entry(raw: bytes, match_id: str) -> dict[str, Any]:
    """One log entry of match ``match_id`` as it was written, from its stored bytes (either
    this codec's or the plain JSON of an older entry)."""
    if raw[:1] == b"{":
        return cast(dict[str, Any], json.loads(raw))
    if raw[:1] != VERSION_1:
        raise ValueError(f"a log entry of match {match_id} in an unknown encoding (first byte {raw[:1]!r})")
    short = msgpack.unpackb(_coders().unpacker.decompress(raw[1:]), raw=False)
    entry: dict[str, Any] = {}
    for key, value in short.items():
        if key in B64_FIELDS and isinstance(value, bytes):
            entry[key] = base64.urlsafe_b64encode(value).rstrip(b"=").decode()
        elif key in HEX_FIELDS and isinstance(value, bytes):
            entry[key] = value.hex()
        elif key == ENVELOPE_SHORT:
            entry["envelope"] = {"match": match_id, "seat": short["seat"], "ply": short["ply"], **value}
        else:
            entry[key] = value
    return entry


LEVEL = 9
"""zstd's level: 12 µs and about 250 bytes an entry here, where deflate with the same dictionary
took 630 µs (priming deflate with a dictionary costs that much at every entry; zstd prepares it
once). Any level reads back with the same dictionary."""
_DICT = zstandard.ZstdCompressionDict(DICTIONARY, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
_DICT.precompute_compress(level=LEVEL)
_local = threading.local()


class _Coders:
    """One thread's zstd compressor and decompressor (they may not be shared between threads)."""

    def __init__(self) -> None:
        self.packer = zstandard.ZstdCompressor(dict_data=_DICT, level=LEVEL, write_checksum=False, write_dict_id=False)
        self.unpacker = zstandard.ZstdDecompressor(dict_data=_DICT)


def _coders() -> _Coders:
    coders: _Coders | None = getattr(_local, "coders", None)
    if coders is None:
        coders = _local.coders = _Coders()
    return coders


def _derivable(envelope: Any, entry: dict[str, Any], match_id: str) -> bool:
    """Does the envelope begin with exactly the match id, seat and ply the entry implies?"""
    if not isinstance(envelope, dict) or list(envelope)[:3] != ["match", "seat", "ply"]:
        return False
    return bool(envelope["match"] == match_id and _same(envelope["seat"], entry.get("seat"))
                and _same(envelope["ply"], entry.get("ply")))


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same JSON type (``1`` and ``True`` or ``1.0`` are not the same here)."""
    return type(a) is type(b) and a == b


def _from_b64(text: str) -> str | bytes:
    """The bytes of unpadded base64url text, or the text itself when it is not exactly that."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return text
    return raw if base64.urlsafe_b64encode(raw).rstrip(b"=").decode() == text else text


def _from_hex(text: str) -> str | bytes:
    """The bytes of lowercase hex text, or the text itself when it is not exactly that."""
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return text
    return raw if raw.hex() == text else text


def _check_dictionary() -> None:
    found = hashlib.sha256(DICTIONARY).hexdigest()
    if found != DICTIONARY_SHA256:
        raise RuntimeError(f"log-dictionary-1.bin has changed (SHA-256 {found}): entries stored with the "
                           "original cannot be read; restore the file, never edit it")


_check_dictionary()
