"""Issue 12's main test: two people, each in their own browser context (so each with their own
key), and a random bot play a whole match of each game on a real ``portolan dev`` by clicking.

Ana creates the match on /new (her seat, an invitation to Bea, a bot); Bea opens the claim link
of the invitation mail the worker put in the outbox and takes her seat; then both click legal
actions (now and then a board spot, by mouse or keyboard) and Send while the bot moves by itself,
until ``#match-status[data-status=finished]`` and ``#outcome``. On the way: a page follows the
other player's moves live (its ply advances with no reload: a marker set at load survives), a
reload keeps the key (``#key-id`` the same, and the seat can still move), and at the end the log
page verifies the record in the browser and the Python verifier agrees.

How long each match takes by clicking is printed (``-s``) and kept as the test's ``duration``
property; the matches that do not fit the default suite's budget run under ``slow`` (``.ci/run``
runs ``-m "browser and slow"`` after the default suite).
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from service.proof.verify import verify_record
from tests.web.conftest import ROOT, Dev
from tests.web.driver import PLAYERS, Clicker, claim_from_link, create_on_new_page, wait_for_humans, wait_for_ply

MAX_MOVES = 3000
"""A bound on the moves of one match, far above any (a stuck loop fails instead of running on)."""
SCREENSHOT_PLY = 8
WATCH_EVERY = 3
SEEDS = {"el-capitan": 12, "nauticus": 21, "ophir": 30}
MARKER = "() => { window.__portolanLoaded = 'no reload since'; }"


def mark(page: Any) -> None:
    """Set a value in the page's JS world that any reload would wipe."""
    page.evaluate(MARKER)


def not_reloaded(page: Any) -> bool:
    return bool(page.evaluate("() => window.__portolanLoaded === 'no reload since'"))


def record_head(dev: Dev, match_id: str) -> str:
    return str(requests.get(f"{dev.url}/v1/matches/{match_id}", timeout=10).json()["head"])


def save_screenshot(page: Any, tmp_path: Path) -> None:
    """The README's picture of a match page mid-game: always made (into tmp), copied to
    docs/images/match-page.png only when PORTOLAN_SCREENSHOT=1 (a normal run changes no file)."""
    shot = tmp_path / "match-page.png"
    page.screenshot(path=str(shot))  # the first screen, as a player sees it
    assert shot.stat().st_size > 10_000
    if os.environ.get("PORTOLAN_SCREENSHOT") == "1":
        target = ROOT / "docs" / "images" / "match-page.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)


@pytest.mark.parametrize("game", [
    # every whole match is `slow` (.ci/run runs them after the default suite): even Nauticus, the
    # shortest (about 230 plies, 75 s quiet, two minutes busy), took the default suite past its
    # 10-minute budget on 2 cores; the shorter browser tests (keys, refusals, verify) stay in it
    pytest.param("nauticus", marks=pytest.mark.slow),
    pytest.param("el-capitan", marks=pytest.mark.slow),  # 850 to 950 plies: 7 to 9 minutes on 2 cores
    pytest.param("ophir", marks=pytest.mark.slow),  # 950 to 1450 plies: 7 to 10 minutes
])
def test_two_players_and_a_bot_play_a_whole_match_by_clicking(game: str, dev: Dev, new_player: Callable[[], Any],
                                                              tmp_path: Path, record_property: Any) -> None:
    started = time.monotonic()
    rng = random.Random(SEEDS[game])
    ana, bea = new_player(), new_player()
    players = PLAYERS[game]
    seats = ["me", "invite"] + ["bot:random"] * (players - 2)
    match_id = create_on_new_page(ana, game, seats, "Ana Lima", "ana@example.org", {1: "bea@example.org"})
    claim_from_link(bea, dev.claim_link(match_id, "bea@example.org"), "Zoë Brontë")
    pages = {0: ana, 1: bea}
    clickers = {seat: Clicker(page, rng) for seat, page in pages.items()}
    for page in pages.values():
        page.wait_for_selector("#match-status[data-status=active]")
        mark(page)
    key_before = ana.locator("#key-id").get_attribute("data-public-key")
    assert key_before and key_before != bea.locator("#key-id").get_attribute("data-public-key")

    reloaded = shot = False
    live_updates = 0
    for _ in range(MAX_MOVES):
        view = wait_for_humans(dev, match_id, set(pages))
        if view["status"] != "active":
            break
        seat = min(set(view["active_seats"]) & set(pages))
        other = pages[1 - seat]
        # both pages follow the server by themselves: the one to move and (every few plies, since
        # waiting for it costs time) the one watching
        wait_for_ply(pages[seat], view["ply"], mine=True)
        if view["ply"] % WATCH_EVERY == 0 or not live_updates:
            wait_for_ply(other, view["ply"])
            live_updates += 1
        if not reloaded and view["ply"] >= 4 and seat == 0:
            # a reload keeps the key, and the seat can still move with it
            ana.reload()
            ana.wait_for_selector("#key-id")
            assert ana.locator("#key-id").get_attribute("data-public-key") == key_before
            wait_for_ply(ana, view["ply"], mine=True)
            mark(ana)
            reloaded = True
        if not shot and view["ply"] >= SCREENSHOT_PLY:
            save_screenshot(pages[seat], tmp_path)
            shot = True
        clickers[seat].move()
    else:
        pytest.fail(f"{game} did not end within {MAX_MOVES} moves")

    for page in pages.values():
        page.wait_for_selector("#match-status[data-status=finished]", timeout=30_000)
        assert page.locator("#outcome").is_visible()
        assert "rank 1" in (page.locator("#outcome").text_content() or "")
        assert not_reloaded(page), "a page reloaded during the match: its updates were not live"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    assert reloaded and shot and live_updates > 10
    assert clickers[0].moves and clickers[1].moves
    assert sum(c.spot_steps for c in clickers.values()) or not ana.locator("#board svg").count(), "no spot was ever clicked"

    # the log page verifies the finished record in the browser ...
    ana.click("a#log-link")
    ana.wait_for_selector("#log tr.entry")
    ply = view["ply"]
    assert ana.locator("#log tr.entry").count() == ply
    # the chain as the page draws it: each row's prev is the row before's hash
    rows = ana.locator("#log tr.entry").evaluate_all(
        "(rows) => rows.map((r) => Array.from(r.querySelectorAll('td.hash code'), (c) => c.dataset.hash))")
    assert len(rows[0]) == 1  # ply 0's prev is the genesis, the header's digest
    assert [r[1] for r in rows[1:]] == [r[0] for r in rows[:-1]]
    assert rows[-1][0] == record_head(dev, match_id)
    ana.click("button#verify")
    result = ana.wait_for_selector("#verify-result[data-ok]", timeout=60_000)
    assert result.get_attribute("data-ok") == "true", result.text_content()
    words = result.text_content() or ""
    assert "seed" in words and "not checked in the browser" in words and "portolan verify" in words
    # ... and so does the Python verifier (rules replay included)
    record = requests.get(f"{dev.url}/v1/matches/{match_id}/record", timeout=30).json()
    server_key = requests.get(f"{dev.url}/v1/server-key", timeout=10).json()["public_key"]
    report = verify_record(record, server_key)
    assert report.ok and not report.pending, report.text()
    assert {e["seat"] for e in record["entries"]} >= {0, 1, 2}

    seconds = time.monotonic() - started
    all_moves = [x for c in clickers.values() for x in c.seconds]
    moves = sum(c.moves for c in clickers.values())
    record_property("duration", round(seconds, 1))
    print(f"\n{game}: {ply} plies, {moves} moves by clicking ({sum(c.steps for c in clickers.values())} steps, "
          f"{sum(c.spot_steps for c in clickers.values())} on the board, {sum(c.retries for c in clickers.values())} clicks "
          f"again) in {seconds:.0f} s; a move takes {statistics.median(all_moves):.2f} s "
          f"(median) to {max(all_moves):.1f} s, {sum(all_moves):.0f} s in all")
