"""Keeping child processes running: what ``portolan dev`` and a bare ``portolan worker`` do.

A :class:`Supervisor` starts its children, looks at them every half second, and starts again any
that exited: after a second the first time, doubling to ``MAX_WAIT_S`` while the child keeps dying
young (a crash loop is not a busy loop), back to a second once it has run ``STEADY_S``. Each exit
and restart is said on the console: which child, its pid, its exit code and how many times it has
been restarted. So a worker SIGKILLed, or one that exited because Redis went away, is back within
``MAX_WAIT_S`` plus half a second, well inside the 15 s issue 28 asks for.

**Worker groups** (:data:`WORKER_GROUPS`). A worker process runs one job at a time, so one that
works every queue makes a turn notice wait behind every bot turn queued before it, and behind a
webhook receiver that answers slowly (issue 28, items 5 and 6: 208 bot jobs ahead of 320 notices,
invitations ~3 minutes late; one dripping receiver held the worker 181 s). Each group gets its own
process: **mail** (the ``notices`` queue: turn notices, invitations, answers, reminders, digests,
game-over mail), **bots** (bot turns, then the clock's wakes) and **webhooks**. The operating
system shares the CPU between them, so a flood of bot turns slows the mail only as much as one more
busy process does. Separate processes rather than one queue order because an order alone cannot
help a job already running (a bot's search, a slow receiver) and RQ's workers are not threads.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

WORKER_GROUPS: Mapping[str, str] = {"mail": "notices", "bots": "bots,clock", "webhooks": "webhooks"}
"""Worker process name -> the queues it works (``portolan worker --queues``)."""

FIRST_WAIT_S = 1.0
MAX_WAIT_S = 10.0
STEADY_S = 60.0
POLL_S = 0.5


def worker_command(queues: str, fork: bool = False) -> list[str]:
    """The command of one worker process on ``queues``."""
    return [sys.executable, "-m", "service.tools.cli", "worker", "--queues", queues, *(["--fork"] if fork else [])]


def die_with_parent() -> None:
    """In a child before exec: ask Linux to SIGKILL it when its parent dies (PR_SET_PDEATHSIG), so
    a supervisor killed with -9 leaves no workers behind; elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG


@dataclass
class Child:
    """One supervised child: how to start it and how to stop it."""

    name: str
    start: Callable[[], subprocess.Popen[bytes]]
    stop_signal: int = signal.SIGTERM
    proc: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    started_at: float = 0.0
    due: float | None = None
    """When a child that exited is to be started again (monotonic)."""
    wait_s: float = 0.0


@dataclass
class Supervisor:
    """Children started, watched and restarted; ``say`` writes a line on the console."""

    say: Callable[[str], None]
    children: list[Child] = field(default_factory=list)
    stopping: bool = False

    def add(self, child: Child) -> Child:
        """Start ``child`` and watch it from now on."""
        child.proc = child.start()
        child.started_at = time.monotonic()
        self.children.append(child)
        return child

    def get(self, name: str) -> Child:
        """The child named ``name``."""
        return next(c for c in self.children if c.name == name)

    def check(self) -> None:
        """One look: a child that exited is said and scheduled for a restart; one whose restart is
        due is started again (and said)."""
        now = time.monotonic()
        for child in self.children:
            if self.stopping:
                return
            if child.due is None and child.proc is not None and child.proc.poll() is not None:
                ran = now - child.started_at
                child.wait_s = FIRST_WAIT_S if ran >= STEADY_S or not child.wait_s else min(MAX_WAIT_S, child.wait_s * 2)
                child.due = now + child.wait_s
                self.say(f"{child.name} (pid {child.proc.pid}) exited with {child.proc.returncode} after {ran:.1f} s; "
                         f"restarting it in {child.wait_s:g} s")
            elif child.due is not None and now >= child.due:
                child.due = None
                child.restarts += 1
                try:
                    child.proc = child.start()
                except Exception as exc:  # say why and try again later, never give up
                    child.wait_s = min(MAX_WAIT_S, child.wait_s * 2)
                    child.due = time.monotonic() + child.wait_s
                    self.say(f"{child.name} could not be restarted ({exc}); trying again in {child.wait_s:g} s")
                    continue
                child.started_at = time.monotonic()
                self.say(f"{child.name} restarted (pid {child.proc.pid}, restart {child.restarts})")

    def watch(self, until: Callable[[], bool] = lambda: False) -> None:
        """Check every ``POLL_S`` until ``until()`` (or an exception: KeyboardInterrupt)."""
        while not until():
            self.check()
            time.sleep(POLL_S)

    def stop(self, names: list[str] | None = None, timeout: float = 15.0) -> None:
        """Stop the children named (all, in reverse order of starting, by default): each is sent its
        stop signal (to its process group), then SIGKILL if it is still there after ``timeout``."""
        self.stopping = True
        chosen = [c.proc for c in reversed(self.children) if c.proc is not None and (names is None or c.name in names)]
        for child, sig in [(c.proc, c.stop_signal) for c in reversed(self.children) if c.proc in chosen]:
            if child is not None and child.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, sig)  # all at once: their warm shutdowns run side by side
        deadline = time.monotonic() + timeout
        for proc in chosen:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def spawner(command: list[str], env: Mapping[str, str]) -> Callable[[], subprocess.Popen[bytes]]:
    """How to start ``command`` as a supervised child: in a session of its own (a terminal's Ctrl-C
    reaches the supervisor, which stops the children in order), and killed with its parent."""
    def start() -> subprocess.Popen[bytes]:
        # preexec_fn: the supervisors run no threads of their own, so forking with it is safe here
        return subprocess.Popen(command, env=dict(env), start_new_session=True, preexec_fn=die_with_parent)
    return start


def run_worker_groups(fork: bool = False, env: Mapping[str, str] | None = None) -> int:
    """A bare ``portolan worker``: one worker process per group of :data:`WORKER_GROUPS`, each
    restarted when it exits, until SIGINT or SIGTERM, which each child gets in turn (RQ's warm
    shutdown: the job in hand is finished, within 60 s)."""
    def said(line: str) -> None:
        print(f"portolan worker: {line}", file=sys.stderr, flush=True)

    def stop(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sup = Supervisor(said)
    try:
        for name, queues in WORKER_GROUPS.items():
            command = worker_command(queues, fork)
            sup.add(Child(name=f"worker {name} ({queues})", stop_signal=signal.SIGINT,
                          start=spawner(command, dict(env if env is not None else os.environ))))
        said("workers " + ", ".join(f"{c.name} pid {c.proc.pid if c.proc else '?'}" for c in sup.children))
        sup.watch()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sup.stop(timeout=60)
    return 0
