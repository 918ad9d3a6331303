"""Issue 28, item 5: search bots' CPU is bounded per match of bots only.

One search:hard vs search:hard match cost 39.7 CPU-seconds. Now the search bots of a match with
bots only share a budget of search iterations (PORTOLAN_BOT_SEARCH_BUDGET); past it they play as
the heuristic does, and the log says so (``by: "bot:heuristic"``). The bound is counted in calls
of the search and their iterations, never in time. A match with a person in it keeps its bots'
full strength. In process over a real Redis (the ``service`` fixture).
"""

from __future__ import annotations

from typing import Any

import pytest

from service import bots
from service.bots import search as search_module
from service.games.base import Rng
from service.play.matches import Matches
from service.play.throttle import BotLimits
from service.proof.verify import verify_record
from tests.conftest import CREATOR_KEY, Player


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The nominal iterations (the level's, what the budget counts) of every decision the search
    bots ran: one entry per real search."""
    ran: list[int] = []
    real = search_module.search

    def counted(knowledge: Any, game: Any, view: Any, seat: int, legal: Any, rng: Any, budget: Any) -> Any:
        if len(legal) > 1:  # a single legal action is returned without searching
            ran.append(budget.iterations)
        return real(knowledge, game, view, seat, legal, rng, budget)

    monkeypatch.setattr(search_module, "search", counted)
    return ran


def play_out(m: Matches, mid: str, limit: int = 5000) -> None:
    for _ in range(limit):
        meta = m.meta(mid)
        if meta.status != "active":
            return
        for seat in meta.active:
            m.server_move(mid, seat, meta.ply)
    raise AssertionError("the match did not end")


def test_a_whole_search_match_stays_within_its_budget_then_plays_as_the_heuristic(service: Matches,
                                                                                  searches: list[int]) -> None:
    cost = bots.search_iterations("nauticus", "search:easy")
    assert cost == 30
    service.bot_limits = BotLimits(search_budget=3 * cost + cost // 2)  # a part of a decision is no decision
    mid = str(service.create("nauticus", {}, [{"bot": "search:easy"}] * 2, creator_key=CREATOR_KEY)["id"])
    play_out(service, mid)
    assert service.meta(mid).status == "finished"
    assert searches == [cost] * 3  # the whole budget that a decision fits in, and not one search more
    kinds = [e["by"] for e in service.log(mid)]
    # searched first, then the heuristic to the end; each move says which kind played it
    first_heuristic = kinds.index("bot:heuristic")
    assert set(kinds[:first_heuristic]) == {"bot:search:easy"} and set(kinds[first_heuristic:]) == {"bot:heuristic"}
    assert verify_record(service.record(mid)).ok


def test_a_match_with_a_person_keeps_its_bots_full_strength(service: Matches, searches: list[int],
                                                            players: list[Player]) -> None:
    service.bot_limits = BotLimits(search_budget=1)  # smaller than any decision
    made = service.create("nauticus", {}, [{"invite": "ana@example.org"}, {"bot": "search:easy"}],
                          creator_key=CREATOR_KEY)
    mid = str(made["id"])
    service.claim(mid, 0, made["invites"]["0"], players[0].public_key, "Ana", "ana@example.org")
    bot_moves = 0
    while bot_moves < 1:
        meta = service.meta(mid)
        if 1 in meta.active:
            service.server_move(mid, 1, meta.ply)
            bot_moves += 1
            continue
        # the person plays what a random bot would, signed with her own key
        _, state = service.fresh(mid, meta)
        game = service.game_of(meta)
        action = bots.choose(game, "random", state, 0, Rng.derive(b"ana", str(meta.ply)))
        signed = players[0].envelope(mid, 0, meta.ply, [action], nonce=f"n{meta.ply}")
        service.submit(mid, signed["envelope"], signed["signature"])
    assert searches  # the search ran though the budget holds less than one decision
    assert {e["by"] for e in service.log(mid) if e["by"].startswith("bot:")} == {"bot:search:easy"}
