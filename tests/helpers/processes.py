"""Looking at real processes from the tests that start them (`portolan dev` and its children)."""

from __future__ import annotations

import os
import subprocess


def children(pid: int) -> list[int]:
    """The direct children of ``pid``, by ``ps``."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie (exited, not yet reaped) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")
