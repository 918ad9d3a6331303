"""How the browser tests act as a player: create a match on /new, claim a seat from the
invitation's link, and make moves on the match page by clicking legal actions (buttons, and
now and then a board spot, by mouse or keyboard) and Send. Only the DOM contract of
docs/web-client.md is used (``#actions button.action``, ``#queue li``, ``#send``, ``#ply``...),
so a test that passes here passes for the page a player sees.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import requests
from playwright.sync_api import Error as PlaywrightError

from tests.web.conftest import WAIT_S, Dev

SEND_SHARE = 0.3
"""After each queued step, how often the player sends at once rather than queue another (when
the preview leaves the move open): mostly several steps a move, as the queue is meant for."""
CLICK_TRIES = 4
RETRY_AFTER_S = 1.5
"""How long a click may take to show in the queue before the test clicks again (see Clicker.move)."""
PLAYERS = {"el-capitan": 3, "nauticus": 3, "ophir": 3}
"""The player count each game's browser match uses: three (two people and a bot) where allowed."""


def create_on_new_page(page: Any, game: str, seats: list[str], name: str, email: str,
                       invite_emails: dict[int, str] | None = None) -> str:
    """Fill in /new (game, one row per seat: ``me``, ``invite`` or ``bot:random``) and create;
    answers the new match's id once the browser is on its page."""
    page.goto(f"/new?game={game}")
    page.wait_for_function("() => document.querySelectorAll('#seats .seat-row').length > 0")
    page.select_option("select#game", game)
    rows = page.locator("#seats .seat-row")
    while rows.count() < len(seats):
        page.click("#add-seat")
    while rows.count() > len(seats):
        page.click("#remove-seat")
    for i, kind in enumerate(seats):
        rows.nth(i).locator("select.seat-kind").select_option(kind)
        if kind == "invite":
            rows.nth(i).locator("input.seat-email").fill((invite_emails or {})[i])
    page.fill("input#my-name", name)
    page.fill("input#my-email", email)
    page.click("button#create")
    page.wait_for_url("**/match/*", timeout=WAIT_S * 1000)
    return str(page.url.rstrip("/").rsplit("/", 1)[-1])


def claim_from_link(page: Any, link: str, name: str) -> None:
    """Open an invitation's claim link and take the seat under ``name``."""
    page.goto(link)
    page.fill("input#name", name)
    page.click("button#claim")
    page.wait_for_url("**/match/*", timeout=WAIT_S * 1000)


def error_text(page: Any) -> str:
    """The words in ``#error`` when it shows, else ""."""
    box = page.locator("#error")
    return str(box.text_content() or "").strip() if box.is_visible() else ""


def settle(page: Any, quiet_s: float = 0.12, timeout_s: float = 10.0) -> None:
    """Wait until the page has had no API call in flight for ``quiet_s`` (a live update re-reads
    the views and re-draws the buttons: clicking meanwhile would hit buttons about to go)."""
    deadline = time.monotonic() + timeout_s
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        if page.inflight:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_s:
            return
        page.wait_for_timeout(30)


def wait_for_ply(page: Any, ply: int, *, mine: bool | None = None, timeout_s: float = WAIT_S) -> None:
    """Wait until the page shows ``ply`` (and, with ``mine``, whose turn it says), without reloading."""
    # functions, not expression strings: the page's CSP forbids eval, which Playwright uses for those
    condition = """([ply, mine]) => {
      const shown = document.querySelector('#ply');
      const turn = document.querySelector('#turn');
      return !!shown && shown.dataset.ply === String(ply) && (mine === null || turn.dataset.myTurn === String(mine));
    }"""
    try:
        page.wait_for_function(condition, arg=[ply, mine], timeout=timeout_s * 1000)
    except Exception as exc:
        shown = page.locator("#ply").get_attribute("data-ply")
        raise AssertionError(f"the page shows ply {shown}, not {ply} (error: {error_text(page)!r})") from exc


STEP_BUTTONS = "#actions button.action:not([data-type=undo])"
"""The action buttons a clicker picks from: all but undo (a random player that undoes goes back
and forth, and the match takes longer for nothing; tests/games/test_undo.py covers undo)."""


@dataclass
class Clicker:
    """Makes moves for one seat by clicking, choices drawn from a seeded random stream."""

    page: Any
    rng: random.Random
    spot_share: float = 0.3
    """How often a step is picked on the board instead of from the buttons (when it has spots)."""
    prefer: tuple[str, ...] = ()
    """Action types to click first when a button of one is there (the first type listed that is),
    ``prefer_share`` of the time: a player heading for the end of a prepared position (donating to
    the temple, passing) instead of wandering; the rest of the time any button or spot."""
    prefer_share: float = 0.0
    steps: int = 0
    spot_steps: int = 0
    retries: int = 0
    moves: int = 0
    seconds: list[float] = field(default_factory=list)
    sent: list[tuple[int, int]] = field(default_factory=list)
    """``(ply, steps queued)`` of every move sent: the record must hold each as one entry of that many actions."""

    def _preferred(self) -> Any:
        """A button of the first preferred action type the page offers, or None."""
        for kind in self.prefer:
            buttons = self.page.locator(f"{STEP_BUTTONS}[data-type='{kind}']")
            n = buttons.count()
            if n:
                return buttons.nth(self.rng.randrange(n))
        return None

    def _pick_spot(self) -> str:
        """Pick a step on the board (a spot, by mouse or keyboard; the chooser when it stands for
        several actions); answers what was done, or "" when the board has no spot."""
        spots = self.page.locator("#board .spot")
        n = spots.count()
        if not n:
            return ""
        spot = spots.nth(self.rng.randrange(n))
        try:
            actions = spot.get_attribute("data-actions", timeout=RETRY_AFTER_S * 1000) or ""
        except PlaywrightError:
            return "a spot that was gone"
        label = f"spot (actions {actions})"
        several = len(actions.split()) > 1
        try:  # a live update may re-draw the board under the click: then the queue check retries
            if self.rng.random() < 0.5:
                spot.click(timeout=RETRY_AFTER_S * 1000)
                label += " clicked"
            else:  # the keyboard way in: a spot is a focusable button
                spot.focus(timeout=RETRY_AFTER_S * 1000)
                spot.press("Enter", timeout=RETRY_AFTER_S * 1000)
                label += " by Enter"
            if several:
                chooser = self.page.locator("#spot-chooser")
                chooser.wait_for(state="visible", timeout=RETRY_AFTER_S * 1000)
                choices = chooser.locator("button.choice")
                choices.nth(self.rng.randrange(choices.count())).click(timeout=RETRY_AFTER_S * 1000)
                label += ", then a choice"
        except PlaywrightError as exc:
            return f"{label}: gone before the click landed ({type(exc).__name__})"
        self.spot_steps += 1
        return label

    def move(self, max_steps: int = 4) -> None:
        """Queue one to ``max_steps`` legal steps (more only while the preview leaves the move
        open), then Send; waits until the server accepted it (the ply advanced)."""
        started = time.monotonic()
        page = self.page
        ply = int(page.locator("#ply").get_attribute("data-ply") or "0")
        queued = 0
        while queued < max_steps:
            buttons = page.locator(STEP_BUTTONS)
            n = buttons.count()
            if not n or (queued and self.rng.random() < SEND_SHARE):
                break
            queued += 1
            for attempt in range(CLICK_TRIES):
                settle(page)
                how = self._pick_spot() if self.rng.random() < self.spot_share else ""
                if not how:
                    wanted = self._preferred() if self.prefer and self.rng.random() < self.prefer_share else None
                    button = wanted or page.locator(STEP_BUTTONS).nth(self.rng.randrange(n))
                    how = f"button {button.text_content()!r}"
                    button.click()
                try:
                    page.wait_for_function("(n) => document.querySelectorAll('#queue li').length >= n"
                                           " && !document.querySelector('#send').disabled", arg=queued,
                                           timeout=(WAIT_S if attempt == CLICK_TRIES - 1 else RETRY_AFTER_S) * 1000)
                    queued = page.locator("#queue li").count()  # a slow first click may have landed too
                    break
                except Exception as exc:
                    if error_text(page) or attempt == CLICK_TRIES - 1:
                        raise AssertionError(f"step {queued} of the move at ply {ply} ({how}) was not queued: "
                                             f"{error_text(page)!r}") from exc
                    # the page re-drew its buttons (a live update) as the click landed, and drops a
                    # click on buttons that are gone: a person clicks again, and so does the test
                    self.retries += 1
                    n = page.locator(STEP_BUTTONS).count() or n
        assert queued, f"no action to click at ply {ply}: {error_text(page)!r}"
        page.click("#send")
        try:
            page.wait_for_function("(ply) => Number(document.querySelector('#ply').dataset.ply) > ply"
                                   " && document.querySelectorAll('#queue li').length === 0", arg=ply, timeout=WAIT_S * 1000)
        except Exception as exc:
            raise AssertionError(f"the move at ply {ply} was not accepted: {error_text(page)!r}") from exc
        self.steps += queued
        self.sent.append((ply, queued))
        self.moves += 1
        self.seconds.append(time.monotonic() - started)


def match_view(dev: Dev, match_id: str) -> dict[str, Any]:
    """The spectator view, straight from the API (what the server says, not the page)."""
    answer = requests.get(f"{dev.url}/v1/matches/{match_id}", timeout=10)
    answer.raise_for_status()
    return dict(answer.json())


def wait_for_humans(dev: Dev, match_id: str, humans: set[int], timeout_s: float = WAIT_S) -> dict[str, Any]:
    """Wait while only bots are to act; answers the view once a human seat must act or the match ended."""
    deadline = time.monotonic() + timeout_s
    while True:
        view = match_view(dev, match_id)
        if view["status"] != "active" or set(view["active_seats"]) & humans:
            return view
        assert time.monotonic() < deadline, f"the bot did not move at ply {view['ply']}"
        time.sleep(0.05)


def play_until(dev: Dev, match_id: str, clickers: dict[int, Clicker], moves: int = 1, max_moves: int = 200) -> None:
    """Let the seats in ``clickers`` move by clicking (the bots by themselves) until each of them
    has made ``moves`` more moves (or the match ended)."""
    target = {seat: c.moves + moves for seat, c in clickers.items()}
    for _ in range(max_moves):
        view = wait_for_humans(dev, match_id, set(clickers))
        if view["status"] != "active" or all(c.moves >= target[s] for s, c in clickers.items()):
            return
        seat = min(set(view["active_seats"]) & set(clickers))
        wait_for_ply(clickers[seat].page, view["ply"], mine=True)
        clickers[seat].move()
    raise AssertionError(f"the seats did not make {moves} moves each within {max_moves} moves")
