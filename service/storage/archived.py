"""Ended matches moved out of Redis into the archive, and read back from it.

A mixin of :class:`service.storage.store.Store` (whose reads fall back to :meth:`_archived`
when a match's keys are gone): kept apart so the store's own module holds the matches and their
moves. service.storage.archive says what the document is and where it goes.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, cast

import redis

from service.proof.match_record import MatchMeta
from service.storage.archive import Archive, ArchiveError, digest_of, pack, unpack
from service.storage.keys import BUCKETS, ENDED, TOMBSTONE_FIELDS, bucket_of, decode_meta, encode_meta
from service.storage.log_codec import unpack_entry

ARCHIVE_CACHE = 8
"""Archive documents each Store keeps in memory: one request reads a match's meta, log and seed
separately, and a finished match is read in bursts (its last notice, its record, its board)."""


class ArchivedMatches:
    """Archiving a match, finding the ended ones, and reading an archived one's document."""

    r: redis.Redis
    archive_to: Archive
    _docs: OrderedDict[str, dict[str, Any]]
    _docs_lock: threading.Lock

    def _k(self, match_id: str, part: str) -> str:
        raise NotImplementedError  # the store's

    def ended_key(self, bucket: str) -> str:
        raise NotImplementedError  # the store's

    def archive(self, match_id: str) -> str:
        """Move an ended match out of Redis into the archive; returns where it went.

        The document is written and read back before anything is deleted, and the tombstone
        replaces the keys in one MULTI under WATCH of the meta: a change of the match meanwhile
        (a late key attach, say) starts over, so the document always holds the last word.
        Archiving an archived match changes nothing. Raises ``KeyError`` for no such match and
        ``ValueError`` for a match that has not ended."""
        meta_key = self._k(match_id, "meta")
        parts = [self._k(match_id, p) for p in ("state", "log", "envs", "seed")]
        while True:
            with self.r.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(meta_key)  # type: ignore[no-untyped-call]
                    raw = cast(dict[bytes, bytes], pipe.hgetall(meta_key))
                    if not raw:
                        raise KeyError(match_id)
                    meta = decode_meta(raw)  # the stored form: what the document keeps
                    record = MatchMeta.from_dict({"id": match_id, **meta})
                    if record.archived is not None:
                        return record.archived
                    if record.status not in ENDED:
                        raise ValueError(f"match {match_id} has not ended (status {record.status}); "
                                         "only an ended match is archived")
                    state = pipe.get(parts[0])
                    seed = pipe.get(parts[3])
                    doc = {
                        "format": "portolan-archive/1",
                        "match": match_id,
                        "meta": meta,
                        "state": None if state is None else json.loads(cast(bytes, state)),
                        "log": [unpack_entry(e, match_id) for e in cast(list[bytes], pipe.lrange(parts[1], 0, -1))],
                        "envs": {k.decode(): int(v) for k, v in cast(dict[bytes, bytes], pipe.hgetall(parts[2])).items()},
                        "seed": None if seed is None else cast(bytes, seed).decode(),
                    }
                    body = pack(doc)
                    where = self.archive_to.put(match_id, body)
                    if self.archive_to.get(match_id) != body:
                        raise ArchiveError(f"the archive {self.archive_to.where} did not give back what was written "
                                           f"for {match_id}; the match stays in Redis")
                    tombstone = {k: meta[k] for k in TOMBSTONE_FIELDS if k in meta}
                    tombstone.update(archived=where, archived_digest=digest_of(body))
                    pipe.multi()
                    pipe.delete(meta_key, *parts)
                    pipe.hset(meta_key, mapping=encode_meta(tombstone))  # type: ignore[arg-type]
                    pipe.zrem(self.ended_key(bucket_of(match_id)), match_id)
                    pipe.execute()
                    return where
                except redis.WatchError:
                    continue

    def ended_before(self, cutoff: float, limit: int = 100) -> list[str]:
        """Ended, not yet archived matches that ended before ``cutoff`` (epoch seconds), oldest
        first, at most ``limit`` of them (over every bucket)."""
        pipe = self.r.pipeline(transaction=False)
        for b in BUCKETS:
            pipe.zrangebyscore(self.ended_key(b), "-inf", cutoff, start=0, num=limit, withscores=True)
        found = [(score, mid.decode()) for rows in pipe.execute() for mid, score in rows]
        return [mid for _, mid in sorted(found)[:limit]]

    def _archived(self, match_id: str) -> dict[str, Any] | None:
        """The archive document of ``match_id`` when the match is archived, else None."""
        ref, digest = cast(list[bytes | None], self.r.hmget(self._k(match_id, "meta"), ["archived", "archived_digest"]))
        if ref is None:
            return None
        return self._document(match_id, {"archived": ref.decode(), "archived_digest": (digest or b"").decode()})

    def _document(self, match_id: str, tombstone: dict[str, Any]) -> dict[str, Any]:
        """The archive document a tombstone names, checked against its digest (cached)."""
        with self._docs_lock:
            doc = self._docs.get(match_id)
            if doc is not None and doc.get("_digest") == tombstone.get("archived_digest"):
                self._docs.move_to_end(match_id)
                return doc
        body = self.archive_to.get(match_id)
        if body is None:
            raise ArchiveError(f"match {match_id} is archived at {tombstone['archived']}, "
                               f"but {self.archive_to.where} has no such document")
        doc = unpack(body, str(tombstone.get("archived_digest") or "") or None)
        doc["_digest"] = tombstone.get("archived_digest")
        with self._docs_lock:
            self._docs[match_id] = doc
            while len(self._docs) > ARCHIVE_CACHE:
                self._docs.popitem(last=False)
        return doc
