"""Rebuilding a match's cached state from its log (operator command ``portolan rebuild``).

The log is the truth (docs/architecture.md, "State in Redis"); after a rules fix, or to audit, the state is replayed from
the seed and the accepted moves and compared with the stored cache.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from service.play.errors import ServiceError
from service.play.matches import Matches
from service.proof.replay import ReplayMismatch, replay


@dataclass
class RebuildLine:
    match: str
    ok: bool
    detail: str

    def text(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.match}: {self.detail}"


def rebuild(service: Matches, match_id: str, write: bool = False) -> RebuildLine:
    """Replay one match; report whether the stored state equals the replayed one (and with
    ``write``, store the replayed state)."""
    meta = service.store.meta(match_id)
    if meta is None:
        return RebuildLine(match_id, False, "no such match")
    if meta.status == "waiting" or not meta.head:  # waiting, or aborted before its start
        return RebuildLine(match_id, True, f"{meta.status}: nothing to replay")
    header = service.header(meta)
    entries = service.store.log(match_id)
    try:
        game = service.game_of(meta)
        state = None
        for step in replay(header, service.store.seed(match_id), entries, meta.setup_events, game=game):
            state = step.state
    except (ReplayMismatch, ServiceError) as exc:  # ServiceError: the match's edition is not installed
        return RebuildLine(match_id, False, str(exc))
    replayed = game.dump(state)
    stored = service.store.state(match_id)
    same = stored is not None and stored["ply"] == len(entries) and json.dumps(stored["state"], sort_keys=True) == json.dumps(
        replayed, sort_keys=True)
    if write and not same:
        service.store.set_state(match_id, {"ply": len(entries), "state": replayed})
        return RebuildLine(match_id, True, f"{len(entries)} moves replayed; stored state replaced")
    return RebuildLine(match_id, same, f"{len(entries)} moves replayed; " + (
        "stored state equals the replay" if same else "stored state DIFFERS from the replay"))
