"""The browser tests' fixtures: a real ``portolan dev`` (embedded Redis, worker, gunicorn with
gevent, the mail receiver; mail into an outbox folder), Debian's Chromium driven by Playwright
(never a downloaded browser), and a fresh browser context per player, so each player has their
own IndexedDB and therefore their own key.

Chromium is ``$PORTOLAN_CHROMIUM`` or ``/usr/bin/chromium``; where neither exists the browser
tests are skipped with that reason (``.ci/run`` installs it and fails if it cannot, so CI always
runs them).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import pytest
import requests

from service.storage.embedded import free_port
from tests.helpers.processes import alive
from tests.helpers.processes import children as children_of

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
CLAIM_LINK = re.compile(r"(https?://[^\s\"'<>]+/claim/([A-Za-z0-9_-]+)/(\d+)#token=[A-Za-z0-9_.~%-]+)")
WAIT_S = 60.0
"""How long a fixture waits for what must come (dev up, a mail): a bound that only stops a broken run."""


def wanted_chromium() -> str:
    """Where the tests look for Chromium: $PORTOLAN_CHROMIUM, else Debian's /usr/bin/chromium."""
    return os.environ.get("PORTOLAN_CHROMIUM") or "/usr/bin/chromium"


def chromium_path() -> str | None:
    """The Chromium the tests drive, None when there is none where they look."""
    path = wanted_chromium()
    return path if os.access(path, os.X_OK) else None


NO_CHROMIUM = "no Chromium at {} (apt-get install chromium, or set PORTOLAN_CHROMIUM; .ci/run installs it)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test here that drives a browser is a ``browser`` test; without Chromium those are
    skipped, saying where it was looked for (the page tests without a browser still run)."""
    here = Path(__file__).parent
    missing = chromium_path() is None
    for item in items:
        if here in Path(str(item.fspath)).parents and "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
            if missing:
                item.add_marker(pytest.mark.skip(reason=NO_CHROMIUM.format(wanted_chromium())))


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    for child in children_of(pid):
        found += [child, *_descendants(child)]
    return found


@dataclass
class Dev:
    """A running ``portolan dev``: its base URL, its outbox folder and what it printed."""

    url: str
    outbox: Path
    lines: list[str] = field(default_factory=list)

    def mails(self, to: str, pattern: str = "*.eml") -> list[EmailMessage]:
        """The mails in the outbox addressed to ``to`` (oldest first)."""
        found = []
        for path in sorted(self.outbox.glob(pattern), key=lambda p: p.stat().st_mtime):
            msg = message_from_bytes(path.read_bytes(), policy=default_policy)
            if to.lower() in str(msg["To"]).lower():
                found.append(msg)
        return found  # type: ignore[return-value]

    def claim_link(self, match_id: str, to: str) -> str:
        """The web claim link of the invitation ``to`` got for ``match_id`` (waits for the worker
        to deliver it): ``{public_url}/claim/{match}/{seat}#token=...``."""
        deadline = time.monotonic() + WAIT_S
        while True:
            for msg in self.mails(to, "invite-*.eml"):
                part = msg.get_body(("plain",))
                text = part.get_content() if part is not None else ""
                for link, mid, _seat in CLAIM_LINK.findall(text):
                    if mid == match_id:
                        return str(link)
            assert time.monotonic() < deadline, f"no invitation with a claim link for {to} in {self.outbox}"
            time.sleep(0.2)


@pytest.fixture(scope="session")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dev]:
    """``portolan dev`` as the README's first command starts it, on free ports with its own data
    folder (embedded Redis there) and mail into that folder's outbox; stopped with Ctrl-C (SIGINT)
    at the end of the session, and every process it started must be gone."""
    if chromium_path() is None:
        pytest.skip(NO_CHROMIUM.format(wanted_chromium()))
    home = tmp_path_factory.mktemp("dev")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SMTP_URL", "OUTBOX_DIR", "PUBLIC_URL")}
    env["PYTHONPATH"] = str(ROOT)
    env["PORTOLAN_MAIL_RECEIVER"] = f"127.0.0.1:{free_port()}"  # not 8025: another dev or test may hold it
    proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "dev", "--port", str(port), "--data", str(home / "var")],
                            env=env, cwd=home, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    running = Dev(url=f"http://127.0.0.1:{port}", outbox=home / "var" / "outbox")
    reader = threading.Thread(target=lambda: running.lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    everyone: list[int] = []
    try:
        deadline = time.monotonic() + WAIT_S
        # the banner comes after dev's own checks of the API and the receiver: up means up
        while not any("Ctrl-C stops everything" in line for line in running.lines):
            assert proc.poll() is None, "".join(running.lines)
            assert time.monotonic() < deadline, "portolan dev did not say it is up:\n" + "".join(running.lines)
            time.sleep(0.1)
        assert requests.get(f"{running.url}/healthz", timeout=5).status_code == 200
        everyone = _descendants(proc.pid)
        yield running
    finally:
        everyone = everyone or _descendants(proc.pid)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        reader.join(timeout=10)
        deadline = time.monotonic() + 15
        while any(alive(c) for c in everyone) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [c for c in everyone if alive(c)]
        for pid in left:  # never leave a Redis or worker behind, but say so: it is a bug in dev
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 0, "".join(running.lines)
    assert not left, f"portolan dev left running: {left}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium through Playwright, one per test module. Why not one for the
    session: Playwright's sync API runs one driver per thread at a time, and a module may start
    its own (pytest ends a module's fixtures before the next module's begin)."""
    path = chromium_path()
    if path is None:
        pytest.skip(NO_CHROMIUM.format(wanted_chromium()))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=LAUNCH_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def new_player(browser: Any, dev: Dev) -> Iterator[Callable[[], Any]]:
    """Make a player: a fresh browser context (own storage, so own key) and a page in it, with
    the dev server as base URL; uncaught exceptions collected in ``page.errors``, console
    errors in ``page.console_errors``."""
    contexts: list[Any] = []

    def make() -> Any:
        context = browser.new_context(base_url=dev.url, viewport={"width": 1100, "height": 900})
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        # uncaught exceptions are always bugs; console errors include the browser's own line for
        # every refused request, which some tests provoke on purpose
        page.errors = []  # type: ignore[attr-defined]
        page.console_errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        # the page's API calls in flight (not its event stream, which stays open): a test that
        # clicks waits for them, so its click does not land on buttons a refresh is replacing
        page.inflight = set()  # type: ignore[attr-defined]
        api_call = lambda r: "/v1/" in r.url and "/events" not in r.url  # noqa: E731
        page.on("request", lambda r: page.inflight.add(r) if api_call(r) else None)
        page.on("requestfinished", lambda r: page.inflight.discard(r))
        page.on("requestfailed", lambda r: page.inflight.discard(r))
        page.on("console", lambda msg: page.console_errors.append(msg.text) if msg.type == "error" else None)
        return page

    yield make
    for context in contexts:
        context.close()
