"""Issue 12's main test: two people, each in their own browser context (so each with their own
key), and a random bot play a whole match on a real ``portolan dev`` by clicking; and, for the
longer games, prepared positions (issue 26: a whole match by clicking once, not once per game).

Ana creates the match on /new (her seat, an invitation to Bea, a bot); Bea opens the claim link
of the invitation mail the worker put in the outbox and takes her seat; then both click legal
actions (now and then a board spot, by mouse or keyboard) and Send while the bot moves by itself,
until ``#match-status[data-status=finished]`` and ``#outcome``. On the way: a page follows the
other player's moves live (its ply advances with no reload: a marker set at load survives), a
reload keeps the key (``#key-id`` the same, and the seat can still move), and at the end the log
page verifies the record in the browser and the Python verifier agrees.

The whole match is Nauticus's, the shortest (about 230 plies, two minutes on 2 cores: ``slow``,
``.ci/run`` runs ``-m "browser and slow"``). El Capitán (850 to 950 plies) and Ophir (950 to 1,450)
took 7 to 10 minutes each that way; their pages are proven on positions the test prepares through
the API (tests/web/positions.py), where the browser does the part that matters:

* mid-game: both players click board spots (by mouse and by Enter) and buttons, queue several
  steps and send them as one move (the record holds each clicked move as one entry of exactly
  those steps), each page follows the other's moves live, and a reload keeps the key;
* near the end: the players click on until the match ends; both pages show the end screen with
  the ranks, the log page draws the chain and verifies the record in the browser, and the Python
  verifier agrees.

How long each test takes is printed (``-s``) and kept as the test's ``duration`` property.
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

from service.proof import signing
from service.proof.verify import verify_record
from tests.web.conftest import ROOT, Dev
from tests.web.driver import PLAYERS, Clicker, claim_from_link, create_on_new_page, wait_for_humans, wait_for_ply
from tests.web.positions import PLANS, Prepared, prepare, take_over

pytestmark = pytest.mark.browser

MAX_MOVES = 3000
"""A bound on the moves of one match, far above any (a stuck loop fails instead of running on)."""
SCREENSHOT_PLY = 8
WATCH_EVERY = 3
SEEDS = {"el-capitan": 12, "nauticus": 21, "ophir": 30}
PREPARED = ["el-capitan", "ophir"]
"""The games whose pages are proven on prepared positions instead of whole matches by clicking."""
MID_PLY = 30
"""Where the mid-game position begins: past every game's setup choices, into its turns."""
MID_MOVES = 60
"""A bound on the clicked and Python moves of the mid-game test (it stops as soon as it saw everything)."""
END_MOVES = 400
"""A bound on the moves from a near-end position to the end (a stuck match fails instead of running on)."""
MARKER = "() => { window.__portolanLoaded = 'no reload since'; }"


def mark(page: Any) -> None:
    """Set a value in the page's JS world that any reload would wipe."""
    page.evaluate(MARKER)


def not_reloaded(page: Any) -> bool:
    return bool(page.evaluate("() => window.__portolanLoaded === 'no reload since'"))


def record_head(dev: Dev, match_id: str) -> str:
    return str(requests.get(f"{dev.url}/v1/matches/{match_id}", timeout=10).json()["head"])


def save_screenshot(page: Any, tmp_path: Path, publish: bool = True) -> None:
    """The README's picture of a match page mid-game: always made (into tmp), copied to
    docs/images/match-page.png only when PORTOLAN_SCREENSHOT=1 (a normal run changes no file) and
    ``publish`` (the README shows Nauticus's: the prepared positions' pictures stay in tmp)."""
    shot = tmp_path / "match-page.png"
    page.screenshot(path=str(shot))  # the first screen, as a player sees it
    assert shot.stat().st_size > 10_000
    if publish and os.environ.get("PORTOLAN_SCREENSHOT") == "1":
        target = ROOT / "docs" / "images" / "match-page.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)


def check_the_record(dev: Dev, page: Any, match_id: str, ply: int) -> dict[str, Any]:
    """On a finished match: the log page draws the chain and verifies the record in the browser,
    and so does the Python verifier (rules replay included); every seat moved. Answers the record."""
    page.click("a#log-link")
    page.wait_for_selector("#log tr.entry")
    assert page.locator("#log tr.entry").count() == ply
    # the chain as the page draws it: each row's prev is the row before's hash
    rows = page.locator("#log tr.entry").evaluate_all(
        "(rows) => rows.map((r) => Array.from(r.querySelectorAll('td.hash code'), (c) => c.dataset.hash))")
    assert len(rows[0]) == 1  # ply 0's prev is the genesis, the header's digest
    assert [r[1] for r in rows[1:]] == [r[0] for r in rows[:-1]]
    assert rows[-1][0] == record_head(dev, match_id)
    page.click("button#verify")
    result = page.wait_for_selector("#verify-result[data-ok]", timeout=60_000)
    assert result.get_attribute("data-ok") == "true", result.text_content()
    words = result.text_content() or ""
    assert "seed" in words and "not checked in the browser" in words and "portolan verify" in words
    record: dict[str, Any] = requests.get(f"{dev.url}/v1/matches/{match_id}/record", timeout=30).json()
    server_key = requests.get(f"{dev.url}/v1/server-key", timeout=10).json()["public_key"]
    report = verify_record(record, server_key)
    assert report.ok and not report.pending, report.text()
    assert {e["seat"] for e in record["entries"]} >= {0, 1, 2}
    return record


def check_the_end_screen(pages: dict[int, Any]) -> None:
    """Every page shows the finished match and its ranks, followed live (no reload), with no error."""
    for page in pages.values():
        page.wait_for_selector("#match-status[data-status=finished]", timeout=30_000)
        assert page.locator("#outcome").is_visible()
        assert "rank 1" in (page.locator("#outcome").text_content() or "")
        assert not_reloaded(page), "a page reloaded during the match: its updates were not live"
        assert not page.errors, page.errors  # type: ignore[attr-defined]


def check_moves_were_sent_whole(record: dict[str, Any], clickers: dict[int, Clicker]) -> None:
    """Each clicked move is one entry of the record, at its ply, by its seat, with exactly the steps
    that were queued (a queue sent as several moves, or cut short, fails here)."""
    entries = {int(e["envelope"]["ply"]): e for e in record["entries"]}
    for seat, clicker in clickers.items():
        for ply, steps in clicker.sent:
            entry = entries[ply]
            assert entry["seat"] == seat and len(entry["envelope"]["actions"]) == steps, (ply, steps, entry)


@pytest.mark.slow  # about 230 plies: two minutes on 2 cores, past the default suite's budget
@pytest.mark.parametrize("game", ["nauticus"])
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

    check_the_end_screen(pages)
    assert reloaded and shot and live_updates > 10
    assert clickers[0].moves and clickers[1].moves
    assert sum(c.spot_steps for c in clickers.values()) or not ana.locator("#board svg").count(), "no spot was ever clicked"

    ply = view["ply"]
    check_moves_were_sent_whole(check_the_record(dev, ana, match_id, ply), clickers)

    seconds = time.monotonic() - started
    all_moves = [x for c in clickers.values() for x in c.seconds]
    moves = sum(c.moves for c in clickers.values())
    record_property("duration", round(seconds, 1))
    print(f"\n{game}: {ply} plies, {moves} moves by clicking ({sum(c.steps for c in clickers.values())} steps, "
          f"{sum(c.spot_steps for c in clickers.values())} on the board, {sum(c.retries for c in clickers.values())} clicks "
          f"again) in {seconds:.0f} s; a move takes {statistics.median(all_moves):.2f} s "
          f"(median) to {max(all_moves):.1f} s, {sum(all_moves):.0f} s in all")


def python_moves_until_a_browser_seat(prepared: Prepared, pages: dict[int, Any], prefer: bool) -> dict[str, Any]:
    """Seat 2 is the test's: it moves from Python until a browser seat must act or the match ended;
    answers the public view then."""
    public = prepared.public()
    while public["status"] == "active" and not set(public["active_seats"]) & set(pages):
        public = prepared.step(int(public["active_seats"][0]), public, prefer=prefer)
    return public


@pytest.mark.parametrize("game", PREPARED)
def test_a_prepared_mid_game_is_played_by_clicking(game: str, dev: Dev, new_player: Callable[[], Any],
                                                  tmp_path: Path, record_property: Any) -> None:
    """Spots and buttons, several steps sent as one move, live updates and a reload, mid-game."""
    started = time.monotonic()
    prepared, public = prepare(dev.url, game, SEEDS[game], lambda view: int(view["ply"]) >= MID_PLY)
    prepared_at, by_api = int(public["ply"]), prepared.plies_by_python
    pages = take_over(prepared, new_player, tmp_path)
    rng = random.Random(SEEDS[game])
    # spots more often than in a whole match: this test is where the board's spots are proven
    clickers = {seat: Clicker(page, rng, spot_share=0.5) for seat, page in pages.items()}
    ana = pages[0]
    for page in pages.values():
        mark(page)
    key_before = ana.locator("#key-id").get_attribute("data-public-key")
    assert key_before == signing.public_key_of(prepared.keys[0])
    assert pages[1].locator("#key-id").get_attribute("data-public-key") == signing.public_key_of(prepared.keys[1])

    reloaded = False
    live_updates = 0
    for _ in range(MID_MOVES):
        public = python_moves_until_a_browser_seat(prepared, pages, prefer=False)
        assert public["status"] == "active", "the match ended during the mid-game test"
        seat = min(set(public["active_seats"]) & set(pages))
        # the page to move and the one watching both follow the server by themselves
        wait_for_ply(pages[seat], public["ply"], mine=True)
        wait_for_ply(pages[1 - seat], public["ply"])
        live_updates += 1
        if not reloaded and seat == 0 and clickers[0].moves:
            # a reload keeps the key, and the seat can still move with it
            ana.reload()
            ana.wait_for_selector("#key-id")
            assert ana.locator("#key-id").get_attribute("data-public-key") == key_before
            wait_for_ply(ana, public["ply"], mine=True)
            mark(ana)
            reloaded = True
        clickers[seat].move()
        several = any(steps >= 2 for c in clickers.values() for _ply, steps in c.sent)
        spots = sum(c.spot_steps for c in clickers.values())
        if reloaded and several and spots >= 2 and live_updates >= 6 and all(c.moves >= 2 for c in clickers.values()):
            break
    else:
        pytest.fail(f"{game}: in {MID_MOVES} moves from ply {prepared_at}: reloaded {reloaded}, {live_updates} live updates, "
                    f"{sum(c.spot_steps for c in clickers.values())} spots, moves {[c.sent for c in clickers.values()]}")
    save_screenshot(pages[seat], tmp_path, publish=False)
    assert ana.locator("#board svg").count(), "the board is drawn"

    record = requests.get(f"{dev.url}/v1/matches/{prepared.match_id}/record", timeout=30).json()
    check_moves_were_sent_whole(record, clickers)
    for page in pages.values():
        assert not_reloaded(page), "a page reloaded: its updates were not live"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    seconds = time.monotonic() - started
    record_property("duration", round(seconds, 1))
    print(f"\n{game} mid-game: prepared to ply {prepared_at} by {by_api} API moves, then "
          f"{sum(c.moves for c in clickers.values())} moves by clicking ({sum(c.steps for c in clickers.values())} steps, "
          f"{sum(c.spot_steps for c in clickers.values())} on the board), {live_updates} live updates; {seconds:.0f} s")


@pytest.mark.parametrize("game", PREPARED)
def test_a_prepared_near_end_is_played_to_the_end_by_clicking(game: str, dev: Dev, new_player: Callable[[], Any],
                                                              tmp_path: Path, record_property: Any) -> None:
    """From a position near the end the players click until the match ends: the end screen with
    the ranks on both pages, and the finished record verified on the log page and in Python."""
    started = time.monotonic()
    plan = PLANS[game]
    prepared, public = prepare(dev.url, game, SEEDS[game], lambda view: plan.near_end(view["board"]), plan.hand_over)
    prepared_at, by_api = int(public["ply"]), prepared.plies_by_python
    pages = take_over(prepared, new_player, tmp_path)
    rng = random.Random(SEEDS[game])
    # heading for the end as the preparation did: the preferred steps first, now and then a spot
    clickers = {seat: Clicker(page, rng, spot_share=0.15, prefer=plan.prefer, prefer_share=plan.share)
                for seat, page in pages.items()}
    for page in pages.values():
        mark(page)
    for _ in range(END_MOVES):
        public = python_moves_until_a_browser_seat(prepared, pages, prefer=True)
        if public["status"] != "active":
            break
        seat = min(set(public["active_seats"]) & set(pages))
        wait_for_ply(pages[seat], public["ply"], mine=True)
        if public["ply"] % WATCH_EVERY == 0:
            wait_for_ply(pages[1 - seat], public["ply"])
        clickers[seat].move()
    else:
        pytest.fail(f"{game} did not end within {END_MOVES} moves of ply {prepared_at}")
    assert public["status"] == "finished", public["status"]
    check_the_end_screen(pages)
    assert sum(c.moves for c in clickers.values()), "no move was made by clicking"
    ply = int(public["ply"])
    record = check_the_record(dev, pages[0], prepared.match_id, ply)
    check_moves_were_sent_whole(record, clickers)
    scores = public["outcome"]
    assert scores and sorted(scores["ranks"])[0] == 1 and len(scores["scores"]) == len(prepared.keys), scores
    seconds = time.monotonic() - started
    record_property("duration", round(seconds, 1))
    print(f"\n{game} near the end: prepared to ply {prepared_at} by {by_api} API moves, then "
          f"{sum(c.moves for c in clickers.values())} moves by clicking to the end at ply {ply}; {seconds:.0f} s")
