"""Turn notices over the positions of recorded playthroughs (tests/helpers/playthrough.py), as
sent: the size budget's test (tests/delivery/test_notice_size.py), the phone layout's browser test
and bench/notice_sizes.py build them here.

A real match of the game and player count is created (every seat invited and claimed, so every
seat has an address), then for each sampled step the notice is written from the playthrough's
state at that step: the seat's view as the service makes it (service.play.views.match.view_of,
over the match's meta moved to that ply and those active seats) and what happened since the
seat last acted, folded and filtered as :func:`service.delivery.letters.happened_since` does.
Only the chain head and the ply in the mail's words are the real match's, not the playthrough's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from service.config import Settings
from service.delivery import letters
from service.delivery.mail import Mail, to_message, wire_bytes
from service.games.undo import fold_undone
from service.play.matches import Matches
from service.play.views.match import view_of
from service.proof.chain import visible_events
from tests.conftest import CREATOR_KEY, Player
from tests.helpers.playthrough import Playthrough

NAMES = ("Zoë Ångström", "Bea", "Cid", "Dov", "Eve")
"""Every seat a person (one name beyond ASCII), so every seat has an address and a notice."""
GAMES = ("el-capitan", "nauticus", "ophir")


@dataclass(frozen=True)
class SizedNotice:
    """One notice as sent, and where it was written from."""

    game: str
    players: int
    step: int
    seat: int
    mail: Mail
    raw: bytes

    @property
    def size(self) -> int:
        return len(self.raw)


def match_for(m: Matches, game_id: str, players: int) -> str:
    """A started match of ``game_id`` with ``players`` seats, each claimed by a person."""
    made = m.create(game_id, {}, [{"invite": f"p{s}@example.org"} for s in range(players)],
                    creator_key=CREATOR_KEY, creator_name="Ana")
    mid = str(made["id"])
    for seat in range(players):
        m.claim(mid, seat, made["invites"][str(seat)], Player(NAMES[seat]).public_key, NAMES[seat],
                f"p{seat}@example.org")
    return mid


def happened_before(play: Playthrough, index: int, seat: int) -> list[str]:
    """What ``seat`` is told happened before step ``index``: the events since its own last step."""
    since: list[dict[str, Any]] = []
    for step in reversed(play.steps[:index]):
        if step.seat == seat:
            break
        since[:0] = step.events
    return [e.get("text", e["type"]) for e in visible_events(fold_undone(since), seat)]


def sample(play: Playthrough, count: int) -> list[int]:
    """``count`` step indices spread evenly over the playthrough, its last step always among them
    (late positions carry the fullest boards and the longest histories)."""
    last = len(play.steps) - 1
    return sorted({round(last * i / max(1, count - 1)) for i in range(count)} | {last})


def notices(m: Matches, settings: Settings, mid: str, play: Playthrough, steps: list[int]) -> list[SizedNotice]:
    """The turn notice of the seat to act at each of ``steps``, written and serialised as sent."""
    meta = m.meta(mid)
    out = []
    for index in steps:
        step = play.steps[index]
        at = dataclasses.replace(meta, ply=index, active=tuple(step.active))
        view = view_of(m, at, step.seat, state=step.before)
        mail = letters.notice_of(m, settings, at, step.seat, view, happened_before(play, index, step.seat),
                                 f"notice:{mid}:{step.seat}:{index}")
        raw = wire_bytes(to_message(mail, settings.mail_from, settings.message_domain()), None)  # CRLF, as over SMTP
        out.append(SizedNotice(play.game.id, play.players, index, step.seat, mail, raw))
    return out
