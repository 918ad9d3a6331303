"""What a move costs in Redis round trips (docs/performance.md): one when this process made the
match's last ply, two when another process did (the meta and the state together, then the commit)."""

from __future__ import annotations

from typing import Any

import pytest

from service.config import Settings
from service.play.matches import Matches
from service.runtime import build
from tests.conftest import Player, one_redis_only
from tests.helpers.matches import started


def _counting(service: Matches, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The commands and pipelines ``service``'s Redis client sends from now on."""
    calls: list[str] = []
    client_type = type(service.store.r)
    pipeline_type = type(service.store.r.pipeline())
    command, execute = client_type.execute_command, pipeline_type.execute

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(args[0]))
        return command(self, *args, **kwargs)

    def counted_pipeline(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append("pipeline: " + " ".join(str(c[0][0]) for c in self.command_stack))
        return execute(self, *args, **kwargs)

    monkeypatch.setattr(client_type, "execute_command", counted)
    monkeypatch.setattr(pipeline_type, "execute", counted_pipeline)
    return calls


@one_redis_only
def test_a_move_costs_one_round_trip_or_two_on_another_process(
        client: Any, service: Matches, settings: Settings, players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    mid, view = started(client, players)
    other = build(settings)  # a second API process: its own caches, the same Redis
    other.secret(mid, other.meta(mid))  # read once per match and process, as a real one would have
    seat = view["active_seats"][0]
    calls = _counting(service, monkeypatch)
    env = players[seat].envelope(mid, seat, 0, [{"type": "roll"}])
    first = service.submit(mid, env["envelope"], env["signature"])
    assert first["ply"] == 1
    calls.clear()
    # this process made ply 1: the commit alone
    seat = first["view"]["active_seats"][0]
    env = players[seat].envelope(mid, seat, 1, [{"type": "roll"}], nonce="a")
    second = service.submit(mid, env["envelope"], env["signature"], with_view=False)
    assert second["ply"] == 2 and calls == ["EVALSHA"]
    # the other process did not: the meta and the state in one MULTI, then the commit
    seat = service.view(mid)["active_seats"][0]
    calls.clear()
    env = players[seat].envelope(mid, seat, 2, [{"type": "roll"}], nonce="b")
    third = other.submit(mid, env["envelope"], env["signature"], with_view=False)
    assert third["ply"] == 3 and calls == ["pipeline: HGETALL GET", "EVALSHA"]
    # and judged against the right state: the stored one replays to the same chain
    log = other.log(mid)
    assert [e["ply"] for e in log] == [0, 1, 2] and log[-1]["hash"] == third["head"]
