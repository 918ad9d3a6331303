"""A bot seat's move is its whole turn: every step up to the first that rolls, draws or reveals.

In process over a real Redis (the ``service`` fixture); the RQ path is in tests/workers.
"""

from __future__ import annotations

from typing import Any

import pytest

from service import bots, games
from service.play.errors import BadRequest
from service.play.matches import Matches
from service.play.moves import timeouts
from service.play.views import preview
from service.proof.verify import verify_record
from tests.conftest import CREATOR_KEY


def _play_server_moves(m: Matches, mid: str, limit: int) -> None:
    for _ in range(limit):
        meta = m.meta(mid)
        if meta.status != "active":
            return
        seat = meta.active[0]
        assert m.server_move(mid, seat, meta.ply) is not None


def test_a_bot_sends_its_whole_turn_as_one_move(service: Matches) -> None:
    """El Capitán's turns have many steps; the bot's moves hold several, each but the last shows
    nothing new (no draw, no reveal), and the record of the match verifies."""
    mid = str(service.create("el-capitan", {}, [{"bot": "random"}] * 3, creator_key=CREATOR_KEY)["id"])
    _play_server_moves(service, mid, 3_000)
    assert service.meta(mid).status == "finished"
    log = service.log(mid)
    assert all(e["by"] == "bot:random" for e in log)
    long_moves = [e for e in log if len(e["envelope"]["actions"]) > 1]
    assert long_moves, "no bot move held more than one step"
    report = verify_record(service.record(mid))
    assert report.ok, report


@pytest.mark.parametrize("game_id", ["el-capitan", "nauticus", "ophir"])
def test_a_bot_turn_stops_at_the_first_step_that_shows_something_new(service: Matches, game_id: str) -> None:
    """Every step but the last of a planned turn applies without a draw or a reveal and leaves
    the seat to act; the last one ends the turn, draws, reveals, or fills the step bound."""
    game = games.get(game_id)
    assert game is not None
    mid = str(service.create(game_id, {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY)["id"])
    planned = 0
    for _ in range(120):
        meta = service.meta(mid)
        if meta.status != "active":
            break
        seat, ply = meta.active[0], meta.ply
        state = service.state(mid, meta)
        steps = timeouts._turn(service, mid, seat, ply, state, "random")
        assert 1 <= len(steps) <= timeouts.MAX_BOT_STEPS
        for step in steps[:-1]:
            assert step in game.legal_actions(state, seat)
            after, why = preview.tentative_step(game, state, seat, step)
            assert after is not None, why
            assert seat in game.active_seats(after)
            state = after
        last_after, _ = preview.tentative_step(game, state, seat, steps[-1])
        assert (last_after is None or seat not in game.active_seats(last_after) or game.outcome(last_after) is not None
                or len(steps) == timeouts.MAX_BOT_STEPS)
        planned += len(steps)
        assert service.server_move(mid, seat, ply) is not None
    assert planned > 0


def test_an_unknown_bot_kind_is_refused_with_the_kinds_the_game_has(service: Matches) -> None:
    with pytest.raises(BadRequest) as err:
        service.create("ophir", {}, [{"bot": "search:ultra"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    assert err.value.code == "unknown-bot"
    assert "search:ultra" in err.value.message and "random" in err.value.message
    with pytest.raises(BadRequest) as err:
        service.create("harbour-race", {}, [{"bot": "heuristic"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    assert err.value.code == "unknown-bot"  # the fixture game has no knowledge: random only


def test_the_stand_in_is_the_operators_choice_else_the_strongest(service: Matches) -> None:
    assert service.stand_in_of("el-capitan") == bots.strongest("el-capitan")
    service.stand_in = "heuristic"
    assert service.stand_in_of("el-capitan") == ("heuristic" if "heuristic" in bots.kinds("el-capitan") else "random")
    assert service.stand_in_of("harbour-race") == "random"  # a kind the game lacks falls back


def test_the_catalog_lists_each_games_bots(client: Any) -> None:
    entry = client.get("/v1/games/el-capitan").get_json()
    kinds = [b["kind"] for b in entry["bots"]]
    assert kinds == bots.kinds("el-capitan") and kinds[0] == "random"
    assert all(b["description"] for b in entry["bots"])
    assert [b["kind"] for b in client.get("/v1/games/harbour-race").get_json()["bots"]] == ["random"]
