"""Issue 13 in the browser: the match clock on the reference web client, against a real
``portolan dev``.

Ana creates a timed match on /new (a time limit and a rule for late players, sent as
``time_control`` / ``timeout_policy``), Bea takes her invited seat from the invitation mail's
link, and the match page shows each seat's clock: the time left counting down by itself, the
deadline in the viewer's own time. Ana resigns (after a confirm dialog) and both pages show her
seat resigned, the log page in a plain sentence. A player on vacation shows their clock
stopped. An abort vote shows who is still to vote, until the last vote aborts the match. A time limit the server refuses is shown next to its
field, and nothing is created.

When ``portolan dev`` runs a file clock (``<data>/clock``), one more test moves it with
``portolan clock advance``: past a deadline the seat shows late, past the grace the match clock
times it out and a stand-in plays it, until its player clicks "I'm back" (under ``slow``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import requests

from tests.web.conftest import ROOT, WAIT_S, Dev
from tests.web.driver import claim_from_link, error_text, match_view, wait_for_humans

GAME = "nauticus"
"""A game for two: the clock tests never play it out, they only need a match that runs."""


def fill_new_page(page: Any, seats: list[str], name: str, email: str, invites: dict[int, str], *,
                  time_control: str = "none", numbers: dict[str, str] | None = None, weekends: bool = True,
                  policy: str = "stand-in", grace: str | None = None) -> None:
    """Fill /new: the seats (``me``, ``invite``, ``bot:random``), the time limit (the radio
    ``tc-<kind>`` and its number fields by id) and the rule for late players (``policy-<id>``)."""
    page.goto(f"/new?game={GAME}")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    rows = page.locator("#seats .seat-row")
    while rows.count() < len(seats):
        page.click("#add-seat")
    while rows.count() > len(seats):
        page.click("#remove-seat")
    for i, kind in enumerate(seats):
        rows.nth(i).locator("select.seat-kind").select_option(kind)
        if kind == "invite":
            rows.nth(i).locator("input.seat-email").fill(invites[i])
    page.check(f"#tc-{time_control}")
    for field, value in (numbers or {}).items():
        page.fill(f"#{field}", value)
    if time_control != "none":
        page.set_checked("#tc-weekends", weekends)
    page.check(f"#policy-{policy}")
    if grace is not None:
        page.fill("#grace-hours", grace)
    page.fill("input#my-name", name)
    page.fill("input#my-email", email)


def create(page: Any) -> str:
    """Click Create and answer the new match's id once the browser is on its page."""
    page.click("button#create")
    page.wait_for_url("**/match/*", timeout=WAIT_S * 1000)
    return str(page.url.rstrip("/").rsplit("/", 1)[-1])


def ana_and_bea(dev: Dev, new_player: Callable[[], Any], tag: str, **clock: Any) -> tuple[Any, Any, str]:
    """Ana creates a two-seat match (hers and an invitation to Bea) with ``clock``'s settings on
    /new; Bea takes her seat from the invitation mail. Both end on the match page."""
    ana, bea = new_player(), new_player()
    bea_email = f"bea-{tag}@example.org"
    fill_new_page(ana, ["me", "invite"], "Ana", f"ana-{tag}@example.org", {1: bea_email}, **clock)
    match_id = create(ana)
    claim_from_link(bea, dev.claim_link(match_id, bea_email), "Bea")
    for page in (ana, bea):
        page.goto(f"/match/{match_id}")
        page.wait_for_selector("#match-status[data-status=active]", state="attached", timeout=WAIT_S * 1000)
    return ana, bea, match_id


def shows(page: Any, selector: str, dev: Dev, match_id: str) -> None:
    """Wait until ``selector`` is in the page; failing, say what the page and the server say."""
    try:
        page.wait_for_selector(selector, state="attached", timeout=WAIT_S * 1000)
    except Exception as exc:
        view = match_view(dev, match_id)
        raise AssertionError(f"the page has no {selector}: its error {error_text(page)!r}, its status "
                             f"{page.locator('#status').text_content()!r}; the server says status {view['status']}, "
                             f"standing {view.get('standing')}") from exc


def seat_clock(page: Any, seat: int) -> Any:
    return page.locator(f"#clock-list li[data-seat='{seat}']")


def test_a_time_limit_the_server_refuses_is_shown_next_to_its_field(new_player: Callable[[], Any]) -> None:
    ana = new_player()
    fill_new_page(ana, ["me", "bot:random"], "Ana", "ana-refused@example.org", {}, time_control="per-move",
                  numbers={"tc-days": "30"})
    with ana.expect_response(lambda r: r.url.endswith("/v1/matches") and r.request.method == "POST") as answer:
        ana.click("button#create")
    assert answer.value.status == 400
    problem = answer.value.json()
    assert problem["code"] == "bad-time-control" and problem["field"] == "days"
    beside = ana.locator("#tc-days-error")
    beside.wait_for(state="visible")
    assert "days" in (beside.text_content() or "")
    assert ana.locator("#tc-days").get_attribute("aria-invalid") == "true"
    assert "/new" in ana.url  # nothing was created: the form stays, with what was typed
    assert ana.input_value("#tc-days") == "30"

    # a grace period out of range: the policy's refusal, next to its own field
    ana.fill("#tc-days", "3")
    ana.fill("#grace-hours", "999")
    ana.click("button#create")
    ana.locator("#grace-hours-error").wait_for(state="visible")
    assert ana.locator("#tc-days-error").is_hidden()
    assert ana.errors == []


def test_a_timed_match_shows_each_clock_and_a_resignation(dev: Dev, new_player: Callable[[], Any]) -> None:
    ana, bea, match_id = ana_and_bea(dev, new_player, "resign", time_control="per-move", numbers={"tc-days": "3"},
                                     weekends=False, policy="forfeit-bot", grace="12")
    clock = match_view(dev, match_id)["clock"]
    assert clock["time_control"] == {"kind": "per-move", "days": 3, "weekends": False, "reminders": ["half", 24]}
    assert clock["timeout_policy"] == {"policy": "forfeit", "after_forfeit": "bot", "grace_hours": 12}

    view = wait_for_humans(dev, match_id, {0, 1})
    to_act = view["active_seats"][0]
    ana.reload()
    ana.wait_for_selector("#clock-box:not([hidden])", state="attached")
    rules = ana.locator("#clock-rules").text_content() or ""
    assert "3 days per move" in rules and "Saturdays and Sundays" in rules and "12 hours after the deadline" in rules
    running = seat_clock(ana, to_act)
    assert running.get_attribute("data-state") == "running"
    text = running.text_content() or ""
    assert " left" in text and "deadline" in text and "(your time)" in text
    # the page counts down by itself, reading the server no more often than before
    first = int(running.get_attribute("data-remaining") or "0")
    assert 0 < first <= 3 * 86400
    if datetime.now(UTC).weekday() < 5:
        ana.wait_for_function("([seat, first]) => Number(document.querySelector(`#clock-list li[data-seat='${seat}']`)"
                              ".dataset.remaining) < first", arg=[to_act, first])
    else:  # this clock does not count weekends: on a Saturday or a Sunday (UTC) it stands still
        ana.wait_for_timeout(2500)
        assert int(running.get_attribute("data-remaining") or "0") == first
    other = seat_clock(ana, 1 - to_act)
    assert other.get_attribute("data-running") == "false" and "not to move now" in (other.text_content() or "")

    # Ana resigns: a confirm dialog first, and Cancel keeps her in
    ana.click("#leave-box button.resign[data-seat='0']")
    dialog = ana.locator("#resign-dialog")
    dialog.wait_for(state="visible")
    assert "ranked last" in (ana.locator("#resign-question").text_content() or "")
    ana.click("#resign-cancel")
    dialog.wait_for(state="hidden")
    assert match_view(dev, match_id)["standing"]["controllers"][0] == "player"
    ana.click("#leave-box button.resign[data-seat='0']")
    ana.click("#resign-confirm")
    for page in (ana, bea):  # Bea's page learns it live, from the event stream
        shows(page, "#clock-list li[data-seat='0'][data-state=resigned]", dev, match_id)
        assert "resigned" in (seat_clock(page, 0).text_content() or "")
    assert match_view(dev, match_id)["standing"]["forfeited"] == [0]
    assert ana.locator("#leave-box").is_hidden()  # nothing more to do for a seat that left
    assert "resigned (ranked last)" in (ana.locator("#happened").text_content() or "")

    ana.goto(f"/match/{match_id}/log")
    ana.wait_for_selector("#log tr.entry", state="attached")
    assert "Ana (seat 0) resigned (ranked last)." in (ana.locator("#log").text_content() or "")
    assert ana.errors == [] and bea.errors == []


def test_an_abort_vote_shows_who_is_still_to_vote(dev: Dev, new_player: Callable[[], Any]) -> None:
    ana, bea, match_id = ana_and_bea(dev, new_player, "abort", time_control="bank",
                                     numbers={"tc-initial-days": "5", "tc-increment-days": "1", "tc-cap-days": "10"})
    view = match_view(dev, match_id)
    assert view["clock"]["time_control"]["kind"] == "bank"
    if requests.get(f"{dev.url}/v1/me/vacations", timeout=10).status_code != 404:
        # Bea declares a day off from today (by the server's clock), signed with her browser's key:
        # her clock stops, and both pages say so
        today = requests.get(f"{dev.url}/v1/matches/{match_id}", timeout=10).headers["Portolan-Now"][:10]
        bea.evaluate("async (start) => (await import('/web/static/js/api.js'))"
                     ".api('POST', '/v1/me/vacations', {body: {start, days: 1}, signed: true})", today)
        assert [v[0][:10] for v in match_view(dev, match_id)["clock"]["seats"][1]["vacations"]] == [today]
        for page in (ana, bea):
            page.reload()
            shows(page, "#clock-list li[data-seat='1'][data-state=vacation]", dev, match_id)
            assert "on vacation: the clock is stopped" in (seat_clock(page, 1).text_content() or "")
    ana.click("#leave-box button.vote-abort[data-seat='0']")
    votes = ana.locator("#abort-votes")
    ana.wait_for_selector("#abort-votes:not([hidden])", state="attached")
    assert votes.text_content() == "Voted to abort: Ana (seat 0). Still to vote: Bea (seat 1)."
    assert ana.locator("#leave-box .voted").text_content() == "You voted to abort."
    assert ana.locator("#leave-box button.vote-abort").count() == 0
    shows(bea, "#abort-votes[data-waiting='1']", dev, match_id)
    assert "Still to vote: Bea (seat 1)." in (bea.locator("#abort-votes").text_content() or "")

    bea.click("#leave-box button.vote-abort[data-seat='1']")
    for page in (ana, bea):
        shows(page, "#match-status[data-status=aborted]", dev, match_id)
        assert page.locator("#abort-votes").is_hidden() and page.locator("#leave-box").is_hidden()
    assert match_view(dev, match_id)["status"] == "aborted"

    bea.goto(f"/match/{match_id}/log")
    bea.wait_for_selector("#log tr.entry", state="attached")
    log = bea.locator("#log").text_content() or ""
    assert "Ana (seat 0) voted to abort the match. Still to vote: Bea (seat 1)." in log
    assert "The match was aborted: every remaining player voted to abort." in log
    assert ana.errors == [] and bea.errors == []


def dev_clock(dev: Dev) -> str | None:
    """The file clock ``portolan dev`` runs (``file:<data>/clock``), or None without one."""
    path = dev.outbox.parent / "clock"
    return f"file:{path}" if path.exists() else None


def advance(dev: Dev, clock: str, by: str) -> None:
    """``portolan clock advance`` on dev's file clock (which also wakes the workers' deadlines)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PORTOLAN_CLOCK": clock, "PORTOLAN_CLOCK_ALLOW_FILE": "on"}
    moved = subprocess.run([sys.executable, "-m", "service.tools.cli", "clock", "advance", by], env=env,
                           cwd=dev.outbox.parent, capture_output=True, text=True, timeout=WAIT_S)
    assert moved.returncode == 0, moved.stdout + moved.stderr


def wait_for_server(dev: Dev, match_id: str, done: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    """Poll the spectator view until ``done(view)`` (the workers act on a deadline by themselves)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        view = match_view(dev, match_id)
        if done(view):
            return view
        assert time.monotonic() < deadline, f"the server never showed {what}: {view.get('standing')} {view.get('clock')}"
        time.sleep(0.2)


@pytest.mark.slow  # about 25 s (two clock moves and a timeout by the workers): the default suite keeps its budget
def test_a_late_seat_then_its_stand_in_and_i_am_back(dev: Dev, new_player: Callable[[], Any]) -> None:
    clock = dev_clock(dev)
    if clock is None:
        pytest.skip("portolan dev runs no file clock here (no <data>/clock): lateness needs `portolan clock advance`")
    ana, bea, match_id = ana_and_bea(dev, new_player, "late", time_control="per-move", numbers={"tc-days": "1"})
    view = wait_for_humans(dev, match_id, {0, 1})
    late = view["active_seats"][0]
    mine = ana if late == 0 else bea

    # past the deadline (1 day), within the grace (24 h): late, and the page says until when
    advance(dev, clock, "25h")
    answer = requests.get(f"{dev.url}/v1/matches/{match_id}", timeout=10)
    # late: the service clock (Portolan-Now) is past the seat's deadline (both written alike, so
    # the strings compare as the times do)
    assert answer.json()["clock"]["seats"][late]["deadline"] <= answer.headers["Portolan-Now"]
    for page in (ana, bea):
        page.reload()
        shows(page, f"#clock-list li[data-seat='{late}'][data-state=late]", dev, match_id)
        text = seat_clock(page, late).text_content() or ""
        assert "late since" in text and "the timeout rule acts at" in text
    assert mine.locator("#leave-box button.back").count() == 0  # nobody stands in yet

    # past the grace: the clock times the seat out and a stand-in plays it; the page shows it live
    advance(dev, clock, "24h")
    wait_for_server(dev, match_id, lambda v: v["standing"]["controllers"][late] == "stand-in", "a stand-in")
    shows(mine, f"#clock-list li[data-seat='{late}'][data-state=stand-in]", dev, match_id)
    assert "stand-in playing" in (seat_clock(mine, late).text_content() or "")
    assert "ran out of time" in (mine.locator("#happened").text_content() or "")

    mine.click(f"#leave-box button.back[data-seat='{late}']")
    shows(mine, f"#clock-list li[data-seat='{late}'][data-controller=player]", dev, match_id)
    assert mine.locator("#leave-box button.back").count() == 0
    assert match_view(dev, match_id)["standing"]["controllers"][late] == "player"

    mine.goto(f"/match/{match_id}/log")
    mine.wait_for_selector("#log tr.entry", state="attached")
    log = mine.locator("#log").text_content() or ""
    assert "by the match clock" in log and "ran out of time" in log and "is back and plays their own seat again" in log
    assert ana.errors == [] and bea.errors == []
