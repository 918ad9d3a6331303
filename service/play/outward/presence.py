"""Who is live on the match page: the presence of a seat's player, kept by their open event stream.

Why (issue 27, "less mail"): a player who watches the match live sees their turn come on the page;
a turn notice by mail on top of it is noise. Only a stream that proved the seat's key counts (a
match stream opened with ``?seat=N`` and signed by that seat's key: the API authenticates it
before the stream begins); the public stream is anyone's to open and suppresses nobody's notice.

The rule, as the turn-notice job applies it (workers.jobs.send_turn_notice): a seat whose player
is live when the job runs gets no notice *yet*; the job leaves its promise open and asks the
watchdog to look again when the presence would lapse. A notice follows if the player leaves
before moving: a closing stream hurries the notice's promise (:meth:`SeatWatch.leave`), and a
stream whose process died simply lapses after :attr:`SeatWatch.ttl_s`. Once the seat has acted
(it need not act any more, or a later turn began) the notice is obsolete and never goes out.

Nothing here knows Redis: the records go through a :class:`PresenceBook` port
(service/storage/presence.py is the adapter), the hurry through a callable the API hands in.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from service.play.context import MatchContext

Hurry = Callable[[str, int, int], None]
"""Have the turn notice of (match, seat, ply) looked at now, if it is still promised."""


class PresenceBook(Protocol):
    """The presence records (service.storage.presence.Presence)."""

    def here(self, match_id: str, seat: int, stream: str, ttl_s: float) -> None: ...
    def gone(self, match_id: str, seat: int, stream: str) -> None: ...


class SeatWatch:
    """The presence one open, seat-authenticated stream keeps: renewed every ``every_s`` while the
    stream runs (:meth:`beat`, from its loop), removed when it ends (:meth:`leave`). It lapses
    ``ttl_s`` (two renewals' worth of slack, at least) after the last renewal, so a stream whose
    process was killed keeps nothing back for long."""

    def __init__(self, ctx: MatchContext, book: PresenceBook, hurry: Hurry, match_id: str, seat: int,
                 every_s: float, ttl_s: float) -> None:
        self.ctx = ctx
        self.book = book
        self.hurry = hurry
        self.match_id = match_id
        self.seat = seat
        self.every_s = every_s
        self.ttl_s = max(ttl_s, 2 * every_s)
        self.stream = secrets.token_hex(8)  # this stream's own member: two tabs are two members
        self._renewed: float | None = None

    def beat(self, now: float) -> None:
        """The stream is still open at ``now`` (a monotonic clock): renew when due."""
        if self._renewed is None or now - self._renewed >= self.every_s:
            self.book.here(self.match_id, self.seat, self.stream, self.ttl_s)
            self._renewed = now

    def leave(self) -> None:
        """The stream ended: forget its presence, and if the seat still has to act, have its turn
        notice looked at now (it goes out unless another stream of the seat is still open; a
        notice already sent or never kept back is left as it is: the hurry only moves an open
        promise forward)."""
        if self._renewed is None:
            return
        self._renewed = None
        self.book.gone(self.match_id, self.seat, self.stream)
        meta = self.ctx.meta(self.match_id)
        since = (meta.active_since or {}).get(str(self.seat))
        if meta.status == "active" and self.seat in meta.active and since is not None:
            self.hurry(self.match_id, self.seat, int(since))  # the notice's ply: when this turn began
