"""The ports the use cases talk to besides the store: where accepted moves go out.

:class:`service.delivery.dispatch.RQDispatcher` is the production adapter (RQ jobs); the offline tools
and pure unit tests use :class:`NullDispatcher`.
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
