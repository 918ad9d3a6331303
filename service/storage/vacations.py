"""Redis persistence of vacations: one document per player key.

``<ns>vacations:<public key>`` is a JSON string ``{"periods": [...], "taken": {"2026": 5}}``:
each period is ``{"id", "start", "end", "declared_at"}`` (ISO times, ``end`` exclusive), and
``taken`` the days counted against each calendar year's allowance. Both are written together by
:meth:`VacationStore.update`, a read-modify-write under WATCH, so two declarations sent at once
cannot both pass the allowance or overlap check. The rules (what may be declared, how days
count) are the use case's (service.play.clock.vacations); this module only keeps the document.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

import redis

Document = dict[str, Any]
"""``{"periods": [period, ...], "taken": {year: days}}``."""


def _empty() -> Document:
    return {"periods": [], "taken": {}}


class VacationStore:
    """The vacation documents of every player key, under ``namespace``."""

    def __init__(self, client: redis.Redis, namespace: str = "portolan:") -> None:
        self.r = client
        self.prefix = f"{namespace}vacations:"

    def _key(self, public_key: str) -> str:
        return self.prefix + public_key

    def read(self, public_key: str) -> Document:
        """The key's document (empty when it never declared a vacation)."""
        raw = cast(bytes | None, self.r.get(self._key(public_key)))
        return _decoded(raw)

    def update(self, public_key: str, change: Callable[[Document], Document | None]) -> Document:
        """Read the key's document, let ``change`` return the new one (None: leave it; it may
        raise to refuse, and then nothing is written), write it unless another writer got there
        first (then read again and retry). Returns the document as stored."""
        key = self._key(public_key)
        while True:
            with self.r.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]
                    current = _decoded(cast(bytes | None, pipe.get(key)))
                    new = change(current)
                    if new is None:
                        pipe.unwatch()  # type: ignore[no-untyped-call]
                        return current
                    pipe.multi()
                    pipe.set(key, json.dumps(new, separators=(",", ":"), sort_keys=True))
                    pipe.execute()
                    return new
                except redis.WatchError:
                    continue


def _decoded(raw: bytes | str | None) -> Document:
    if raw is None:
        return _empty()
    doc = json.loads(raw)
    if not isinstance(doc, dict):
        return _empty()
    doc.setdefault("periods", [])
    doc.setdefault("taken", {})
    return doc
