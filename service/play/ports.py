"""The ports the use cases talk to besides the store: where work goes out, and where players'
vacations come from.

The use cases themselves send nothing: what they commit is announced in the outbox, and the
dispatcher (service.delivery.outbox) turns it into jobs through this port, whose production
adapter is :class:`service.delivery.dispatch.RQDispatcher` (RQ jobs). The safety-net sweep
(service.play.listings) uses it too; pure unit tests use :class:`NullDispatcher`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Pauses(Protocol):
    """Where the service learns a player's vacations (service.storage.vacations in production,
    through :class:`service.play.clock.vacations.VacationBook`); the match clocks read it."""

    def pauses(self, public_key: str) -> list[tuple[datetime, datetime]]: ...


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
