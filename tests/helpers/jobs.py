"""A human match started through the service, and the notices its jobs wrote."""

from __future__ import annotations

from typing import Any

from service.play.matches import Matches
from tests.conftest import CREATOR_KEY, Player, SmtpSink


def start_human_match(m: Matches, players: list[Player], seats: int = 2) -> str:
    """A harbour race of ``seats`` invited people, each seat claimed with an address: started."""
    made = m.create("harbour-race", {}, [{"invite": f"p{i}@example.org"} for i in range(seats)], creator_key=CREATOR_KEY)
    for i in range(seats):
        m.claim(made["id"], i, made["invites"][str(i)], players[i].public_key, players[i].name, f"p{i}@example.org")
    return str(made["id"])


def notices(sink: SmtpSink) -> list[Any]:
    """The turn notices among what the SMTP sink received (not invitations or other mail)."""
    return [msg for msg in sink.messages if msg["X-Portolan-Notice"].startswith("notice:")]
