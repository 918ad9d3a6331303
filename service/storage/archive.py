"""Where finished matches go: a folder (the default) or an S3-compatible object store.

A match that ended some days ago (``PORTOLAN_ARCHIVE_AFTER_DAYS``) leaves Redis: its meta, state,
log, accepted-envelope index and seed are written here as one **archive document** and Redis
keeps a tombstone of a few hundred bytes (:meth:`service.storage.store.Store.archive`). Every read
of the store falls back to the document, so the record, log, views and board of an archived match
are served as before and the record still verifies.

The document is gzip-compressed JSON, written once and never changed::

    {"format": "portolan-archive/1", "match": ID, "meta": {...}, "state": {...},
     "log": [entry, ...], "envs": {digest: ply}, "seed": HEX}

Its SHA-256 is kept in the tombstone, so a document that was changed or lost since is noticed at
the first read (:class:`ArchiveError`), never served as if nothing happened. Gzip's header carries
no time or name here (``mtime=0``), so the same match always packs to the same bytes.

Backends (``PORTOLAN_ARCHIVE``):

* a folder path (default ``var/archive``): ``<folder>/<bucket>/<id>.json.gz``, written to a
  temporary file, fsynced and renamed into place, so a crash leaves either the whole document or
  none;
* ``s3://bucket/prefix``: any S3-compatible store through boto3 (the optional dependency
  ``portolan[s3]``), which reads its credentials the usual way (``AWS_ACCESS_KEY_ID`` and
  friends) and ``PORTOLAN_S3_ENDPOINT`` for a store other than AWS (MinIO, Ceph, R2...).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Protocol, cast

FORMAT = "portolan-archive/1"


class ArchiveError(Exception):
    """An archive document is missing, damaged or not the one the tombstone names."""


class Archive(Protocol):
    """A write-once store of archive documents, by match id."""

    where: str
    """A human-readable name of the place (printed by ``portolan archive``)."""

    def put(self, match_id: str, body: bytes) -> str:
        """Store ``body`` for ``match_id`` (replacing nothing: a document is written once; a
        second write of the same match writes the same bytes) and return where it went."""
        ...

    def get(self, match_id: str) -> bytes | None:
        """The stored document of ``match_id``, or None when there is none."""
        ...


def pack(doc: dict[str, Any]) -> bytes:
    """An archive document as bytes: compact JSON, gzip without a timestamp (reproducible)."""
    raw = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    return gzip.compress(raw, compresslevel=6, mtime=0)


def unpack(body: bytes, digest: str | None = None) -> dict[str, Any]:
    """The document in ``body``; with ``digest``, checked against the SHA-256 the tombstone kept."""
    if digest is not None and hashlib.sha256(body).hexdigest() != digest:
        raise ArchiveError("the archived document is not the one that was written (its SHA-256 differs)")
    try:
        doc = json.loads(gzip.decompress(body))
    except (OSError, EOFError, ValueError) as exc:
        raise ArchiveError(f"the archived document cannot be read: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ArchiveError(f"not a {FORMAT} document")
    return cast(dict[str, Any], doc)


def digest_of(body: bytes) -> str:
    """The SHA-256 (hex) a tombstone keeps of its document."""
    return hashlib.sha256(body).hexdigest()


class FolderArchive:
    """Archive documents as files under one folder (see the module)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.where = str(self.root)

    def _path(self, match_id: str) -> Path:
        if not match_id.isalnum():  # ids are [a-z0-9]: nothing else may name a file
            raise ArchiveError(f"not a match id: {match_id!r}")
        return self.root / match_id[0] / f"{match_id}.json.gz"

    def put(self, match_id: str, body: bytes) -> str:
        path = self._path(match_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{match_id}.", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(body)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        # the rename itself must reach the disk before Redis forgets the match
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return f"file:{match_id[0]}/{match_id}.json.gz"

    def get(self, match_id: str) -> bytes | None:
        try:
            return self._path(match_id).read_bytes()
        except FileNotFoundError:
            return None


class S3Archive:
    """Archive documents as objects in an S3-compatible bucket (boto3, see the module)."""

    def __init__(self, bucket: str, prefix: str = "", endpoint_url: str | None = None, client: Any = None) -> None:
        if client is None:
            try:
                import boto3  # an optional dependency: only an S3 archive needs it
            except ImportError as exc:  # pragma: no cover - depends on the installation
                raise ArchiveError("an s3:// archive needs boto3: pip install 'portolan[s3]'") from exc
            client = boto3.client("s3", endpoint_url=endpoint_url or None)
        self.client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.where = f"s3://{bucket}/{self.prefix}" if self.prefix else f"s3://{bucket}"

    def _key(self, match_id: str) -> str:
        name = f"{match_id[0]}/{match_id}.json.gz"
        return f"{self.prefix}/{name}" if self.prefix else name

    def put(self, match_id: str, body: bytes) -> str:
        self.client.put_object(Bucket=self.bucket, Key=self._key(match_id), Body=body,
                               ContentType="application/json", ContentEncoding="gzip")
        return f"s3:{self._key(match_id)}"

    def get(self, match_id: str) -> bytes | None:
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self._key(match_id))
        except Exception as exc:  # botocore's ClientError: only "no such key" means absent
            code = getattr(exc, "response", {}).get("Error", {}).get("Code")
            if code in ("NoSuchKey", "404"):
                return None
            raise
        return cast(bytes, answer["Body"].read())


def open_archive(spec: str, endpoint_url: str | None = None) -> Archive:
    """The archive ``PORTOLAN_ARCHIVE`` names: ``s3://bucket/prefix`` or a folder path."""
    if spec.startswith("s3://"):
        bucket, _, prefix = spec[len("s3://"):].partition("/")
        if not bucket:
            raise ValueError(f"PORTOLAN_ARCHIVE={spec!r}: no bucket after s3://")
        return S3Archive(bucket, prefix, endpoint_url)
    return FolderArchive(spec)
