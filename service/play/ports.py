"""The ports the use cases talk to besides the store: where work goes out.

The use cases themselves send nothing: what they commit is announced in the outbox, and the
dispatcher (service.delivery.outbox) turns it into jobs through this port, whose production
adapter is :class:`service.delivery.dispatch.RQDispatcher` (RQ jobs). The safety-net sweep
(service.play.listings) uses it too; pure unit tests use :class:`NullDispatcher`.
"""

from __future__ import annotations

from typing import Protocol


class Dispatcher(Protocol):
    """Where accepted moves go out: turn notices, bot turns, finished-match notices."""

    def turn(self, match_id: str, ply: int, seats: list[int]) -> None: ...
    def bot(self, match_id: str, ply: int, seat: int) -> None: ...
    def finished(self, match_id: str, ply: int, seats: list[int]) -> None: ...
    def invite(self, match_id: str, seat: int, email: str, token: str) -> None: ...


class NullDispatcher:
    """Sends nothing (pure unit tests, the offline tools)."""

    def turn(self, match_id: str, ply: int, seats: list[int]) -> None:
        pass

    def bot(self, match_id: str, ply: int, seat: int) -> None:
        pass

    def finished(self, match_id: str, ply: int, seats: list[int]) -> None:
        pass

    def invite(self, match_id: str, seat: int, email: str, token: str) -> None:
        pass
