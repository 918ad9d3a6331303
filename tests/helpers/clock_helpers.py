"""What the clock tests share: a clock the test moves, and a started match of the fixture game.

The use cases take their time from ``Matches.now`` (PORTOLAN_CLOCK in production); a test sets
it to :class:`Hands` and moves the hands instead of sleeping.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from service.clock import iso
from service.play.matches import Matches
from tests.conftest import CREATOR_KEY, Player

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday


class Hands:
    """A clock the test moves (``Matches.now``): ``advance(timedelta)`` or ``advance(hours=3)``."""

    def __init__(self, at: datetime = START) -> None:
        self.at = at

    def __call__(self) -> str:
        return iso(self.at)

    def advance(self, delta: timedelta | None = None, **kw: float) -> None:
        self.at += (delta or timedelta()) + timedelta(**kw)


def started(m: Matches, players: list[Player], n: int = 2, target: int | None = None, **kw: Any) -> str:
    """A started match of the fixture game (harbour race) with ``n`` claimed seats; ``kw`` goes to
    ``Matches.create`` (``time_control``, ``timeout_policy``)."""
    options = {} if target is None else {"target": target}
    made = m.create("harbour-race", options, [{"invite": f"p{i}@example.org"} for i in range(n)],
                    creator_key=CREATOR_KEY, **kw)
    mid = str(made["id"])
    for seat in range(n):
        m.claim(mid, seat, made["invites"][str(seat)], players[seat].public_key, players[seat].name,
                f"p{seat}@example.org")
    assert m.meta(mid).status == "active"
    return mid


def move(m: Matches, p: Player, mid: str, seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Sign ``actions`` with ``p``'s key at the match's current ply and submit them."""
    ply = m.meta(mid).ply
    signed = p.envelope(mid, seat, ply, actions, nonce=f"n{ply}")
    return m.submit(mid, signed["envelope"], signed["signature"])
