"""service.tools.supervise: a child that exits is said and started again; one that keeps dying
young is started again later and later, up to the cap; a stop stops every child."""

from __future__ import annotations

import os
import signal
import time

import pytest

from service.tools import supervise
from service.tools.supervise import Child, Supervisor, spawner


def looks(sup: Supervisor, until: float) -> None:
    end = time.monotonic() + until
    while time.monotonic() < end:
        sup.check()
        time.sleep(0.01)


def test_a_killed_child_is_said_and_started_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervise, "FIRST_WAIT_S", 0.1)
    said: list[str] = []
    sup = Supervisor(said.append)
    child = sup.add(Child(name="sleeper", start=spawner(["sleep", "30"], dict(os.environ))))
    assert child.proc is not None
    first = child.proc.pid
    try:
        os.kill(first, signal.SIGKILL)
        child.proc.wait()
        looks(sup, 0.6)
        assert child.proc.pid != first and child.proc.poll() is None
        assert child.restarts == 1
        assert said[0].startswith(f"sleeper (pid {first}) exited with -9 after ")
        assert said[0].endswith("restarting it in 0.1 s")
        assert said[1] == f"sleeper restarted (pid {child.proc.pid}, restart 1)"
    finally:
        sup.stop(timeout=5)
    assert child.proc.poll() is not None


def test_a_child_dying_young_is_restarted_later_and_later(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervise, "FIRST_WAIT_S", 0.02)
    monkeypatch.setattr(supervise, "MAX_WAIT_S", 0.16)
    said: list[str] = []
    sup = Supervisor(said.append)
    child = sup.add(Child(name="crasher", start=spawner(["sh", "-c", "exit 3"], dict(os.environ))))
    looks(sup, 1.2)
    sup.stop(timeout=5)
    waits = [line.rsplit(" in ", 1)[1] for line in said if "exited with 3" in line]
    assert waits[:5] == ["0.02 s", "0.04 s", "0.08 s", "0.16 s", "0.16 s"], said
    assert child.restarts >= 4


def test_a_stop_sends_each_child_its_own_signal() -> None:
    sup = Supervisor(lambda _: None)
    trap = "trap 'exit 7' INT; sleep 30 & wait"
    child = sup.add(Child(name="int", start=spawner(["sh", "-c", trap], dict(os.environ)), stop_signal=signal.SIGINT))
    time.sleep(0.2)  # the shell has set its trap
    sup.stop(timeout=5)
    assert child.proc is not None and child.proc.returncode == 7
    sup.check()  # a stopped supervisor restarts nothing
    assert child.restarts == 0


def test_a_bare_worker_command_runs_one_group() -> None:
    assert supervise.worker_command("bots,clock")[-3:] == ["worker", "--queues", "bots,clock"]
    assert set(supervise.WORKER_GROUPS.values()) == {"notices", "bots,clock", "webhooks"}
