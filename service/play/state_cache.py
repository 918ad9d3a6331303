"""The per-process cache of parsed rules states, one entry per match.

Parsing a state from its JSON costs more than most moves, so each process keeps the state of the
ply it last saw for each match, and, when it made that ply itself, the meta as its commit left it
(the fast path of a move skips reading the meta: see :func:`service.play.moves.commit.submit_checked`).
An entry is only ever used for exactly the ply it was made for: a request holding an older meta
must not be judged against a newer state (issue 9: a stale move gets 409, never a rules error).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from service.proof.match_record import MatchMeta

MISSING = object()
"""What :meth:`StateCache.state_at` gives when it holds no state for that ply."""


class StateCache:
    """match id -> (ply, rules state at that ply, the meta at that ply when this process made it),
    the ``size`` most recently used matches; safe to share between threads."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._items: OrderedDict[str, tuple[int, Any, MatchMeta | None]] = OrderedDict()
        self._lock = threading.Lock()

    def state_at(self, match_id: str, ply: int) -> Any:
        """The cached state of the match at exactly ``ply``, else :data:`MISSING`."""
        with self._lock:
            hit = self._items.get(match_id)
            if hit is None or hit[0] != ply:
                return MISSING
            self._items.move_to_end(match_id)
            return hit[1]

    def held_meta(self, match_id: str, ply: int) -> MatchMeta | None:
        """The meta this process left at ``ply`` when it made that ply of an active match, else None."""
        with self._lock:
            hit = self._items.get(match_id)
        if hit is None or hit[0] != ply or hit[2] is None or hit[2].status != "active":
            return None
        return hit[2]

    def remember(self, match_id: str, ply: int, state: Any, meta: MatchMeta | None = None) -> None:
        """Keep ``state`` (and the ``meta`` of the same ply, if known) as the match's latest."""
        with self._lock:
            self._items[match_id] = (ply, state, meta)
            self._items.move_to_end(match_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget everything (an operator tool or a test that rewrote stored matches behind the
        process's back)."""
        with self._lock:
            self._items.clear()
