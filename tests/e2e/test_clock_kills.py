"""The clock survives the loss of every process: a timed match runs over a real API process and
two `portolan worker` processes (dispatcher, RQ worker with its scheduler, watchdog, clock tick)
on a file clock; everything is SIGKILLed mid-match, the clock is moved past the late seat's
``acts_at`` while nothing runs, and everything is started again. The timeout must then happen,
exactly once: nothing but the deadline index in Redis remembers it was due (the RQ job scheduled
for it is days away by the system clock), and two workers' ticks race to take it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import requests

from service.clock import Clock
from service.config import Settings
from service.play.matches import Matches
from service.runtime import build
from service.storage.clock import Deadlines
from service.storage.embedded import free_port
from service.tools.client import Client
from tests.conftest import CREATOR_KEY, Player, SmtpSink

ROOT = Path(__file__).resolve().parents[2]
TIMINGS = {"PORTOLAN_OUTBOX_CLAIM_S": "1", "PORTOLAN_JOB_DEADLINE_S": "1.5", "PORTOLAN_JOB_TIMEOUT_S": "2",
           "PORTOLAN_WATCHDOG_S": "0.3", "PORTOLAN_SWEEP_S": "0", "PORTOLAN_CLOCK_TICK_S": "0.5"}

pytestmark = [pytest.mark.processes, pytest.mark.skipif("clock" not in Settings.__dataclass_fields__,
                                reason="needs the settings' clock (PORTOLAN_CLOCK read by runtime.build)")]


class Stack:
    """The API (`portolan serve`) and two workers as child processes, all on one file clock."""

    def __init__(self, settings: Settings, smtp_url: str, clock: Clock, logs: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, REDIS_URL=settings.redis_url, PORTOLAN_NS=settings.namespace, SMTP_URL=smtp_url,
                        PUBLIC_URL=self.url, MAIL_FROM=settings.mail_from, PORTOLAN_PLUGINS="tests.helpers.fixture_game",
                        PYTHONPATH=str(ROOT), PORTOLAN_CLOCK=f"file:{clock.path}", PORTOLAN_CLOCK_ALLOW_FILE="on",
                        **TIMINGS)
        self.logs = logs
        self.procs: list[subprocess.Popen[bytes]] = []
        self.round = 0

    def start(self) -> None:
        self.round += 1
        commands = [["serve", "--port", str(self.port)], ["worker"], ["worker"]]
        for i, args in enumerate(commands):
            log = (self.logs / f"round{self.round}-{i}-{args[0]}.log").open("wb")
            self.procs.append(subprocess.Popen([sys.executable, "-m", "service.tools.cli", *args], env=self.env,
                                               cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        wait_for("the API answers", self._up, 60, self)

    def _up(self) -> bool:
        try:
            return requests.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    def kill_all(self) -> None:
        for proc in self.procs:
            os.killpg(proc.pid, signal.SIGKILL)
        for proc in self.procs:
            proc.wait()
        self.procs = []

    def log_text(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(self.logs.glob("*.log")))


def wait_for(what: str, ok: Callable[[], bool], limit_s: float, stack: Stack) -> None:
    end = time.time() + limit_s
    while not ok():
        if time.time() > end:
            pytest.fail(f"never happened: {what}\n--- logs ---\n{stack.log_text()}")
        time.sleep(0.05)


@pytest.fixture
def stack(settings: Settings, smtp_sink: SmtpSink, tmp_path: Path) -> Iterator[Stack]:
    s = Stack(settings, smtp_sink.url, Clock(str(tmp_path / "clock")), tmp_path)
    try:
        yield s
    finally:
        s.kill_all()


def test_kill_everything_advance_past_the_deadline_restart_one_timeout(
        settings: Settings, stack: Stack, smtp_sink: SmtpSink, tmp_path: Path, players: list[Player]) -> None:
    clock = Clock(str(tmp_path / "clock"))
    m: Matches = build(settings)
    m.now = clock.iso
    stack.start()
    made = m.create("harbour-race", {}, [{"invite": f"p{i}@example.org"} for i in range(2)], creator_key=CREATOR_KEY,
                    time_control={"kind": "per-move", "days": 1}, timeout_policy={"policy": "skip", "grace_hours": 2})
    mid = str(made["id"])
    for seat in range(2):
        m.claim(mid, seat, made["invites"][str(seat)], players[seat].public_key, players[seat].name, f"p{seat}@example.org")
    api = Client(stack.url)
    first = m.meta(mid).active[0]
    wait_for("the first turn notice", lambda: any(str(msg["X-Portolan-Notice"]).startswith(f"notice:{mid}:{first}:")
                                                  for msg in smtp_sink.messages), 60, stack)
    # mid-match: the first player rolls until the turn passes (over HTTP, through the API process)
    while m.meta(mid).active == (first,) and m.meta(mid).status == "active":
        view = api.view(mid, first, players[first].private_key)
        api.move(mid, first, players[first].private_key, [{"type": "roll"}], ply=view["ply"])
    late = m.meta(mid).active[0]
    ply = m.meta(mid).ply
    index = Deadlines(m.store.r, settings.namespace)
    status = m.clock_status(m.meta(mid))[late]
    assert status.running and status.acts_at is not None
    wait_for("the late seat's wake in the index", lambda: index.when(mid) is not None
             and index.when(mid) <= status.acts_at.timestamp() + 1, 60, stack)  # type: ignore[union-attr]

    stack.kill_all()
    clock.advance((status.acts_at - clock.now()).total_seconds() + timedelta(minutes=5).total_seconds())
    assert m.store.log_length(mid) == ply  # nothing ran while everything was down
    stack.start()

    def timed_out() -> list[dict[str, object]]:
        return [e for e in m.store.log(mid) if e["by"] == "clock"]

    wait_for("the timeout", lambda: len(timed_out()) > 0, 60, stack)
    # settled: the clock group caught up, and no promise is overdue (the wakes scheduled for later
    # keep theirs open until then)
    wait_for("the workers to settle", lambda: m.store.outbox_backlog("clock") == 0
             and not m.store.overdue_jobs(time.time()), 60, stack)
    [entry] = timed_out()
    assert entry["seat"] == late and entry["ply"] == ply
    assert entry["clock"]["policy"] == "skip"  # type: ignore[index]
    # the next wake is the other seat's, or none: the late seat's wake is not due any more
    assert index.due(m.moment().timestamp()) == []
