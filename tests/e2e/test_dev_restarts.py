"""`portolan dev` keeps its children running (issue 28, item 7): each of its processes (the three
workers, the API, the mail receiver, the embedded Redis) SIGKILLed in turn is started again within
15 s, its console says which, with the exit code and the restart count, and afterwards the service
works: a match made before Redis was killed is still there, an invitation goes out and an all-bot
match plays."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import requests

from service.storage.embedded import free_port
from service.tools.client import Client
from tests.conftest import CREATOR
from tests.helpers.processes import alive, children

pytestmark = pytest.mark.processes  # `portolan dev` and every process it starts, killed one by one

ROOT = Path(__file__).resolve().parents[2]


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def child_running(dev: int, marks: tuple[str, ...]) -> int | None:
    """The pid of ``dev``'s child whose command line holds every one of ``marks``."""
    for pid in children(dev):
        if all(m in command_line(pid) for m in marks) and alive(pid):
            return pid
    return None


def wait_for(what: str, ok: Callable[[], bool], limit_s: float, lines: list[str]) -> float:
    """Wait until ``ok()``; the seconds it took. Fails with dev's console when it never happens."""
    began = time.monotonic()
    while not ok():
        assert time.monotonic() - began < limit_s, f"{what} not within {limit_s:g} s:\n{''.join(lines)[-5000:]}"
        time.sleep(0.1)
    return time.monotonic() - began


CHILDREN = {  # as the console names them -> what their command line holds
    "worker mail": ("worker", "--queues notices"),
    "worker bots": ("worker", "--queues bots,clock"),
    "worker webhooks": ("worker", "--queues webhooks"),
    "API (gunicorn)": ("gunicorn",),
    "mail receiver": ("mail-receiver",),
    "redis-server": ("redis-server",),
}


def test_portolan_dev_restarts_every_child_that_dies(tmp_path: Path) -> None:
    port, mail_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SMTP_URL", "OUTBOX_DIR", "PUBLIC_URL",
                                                             "QUEUE_REDIS_URL")}
    env.update(PYTHONPATH=str(ROOT), PORTOLAN_MAIL_RECEIVER=f"127.0.0.1:{mail_port}")
    proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "dev", "--port", str(port),
                             "--data", str(tmp_path / "var")], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    outbox = tmp_path / "var" / "outbox"
    try:
        wait_for("portolan dev up", lambda: any("Ctrl-C stops everything" in line for line in lines), 90, lines)
        client = Client(url)
        kept = client.create("nauticus", [{"invite": "kept@example.org"}, {"bot": "random"}], private_key=CREATOR)
        wait_for("the first invitation", lambda: len(list(outbox.glob("invite-*.eml"))) == 1, 30, lines)
        time.sleep(1.5)  # Redis writes its append-only file every second: what it acknowledged is on disk

        for name, marks in CHILDREN.items():
            pid = child_running(proc.pid, marks)
            assert pid is not None, (name, [command_line(p) for p in children(proc.pid)])
            os.kill(pid, signal.SIGKILL)
            took = wait_for(f"{name} restarted", lambda name=name: any(f"{name} restarted" in line for line in lines),
                            15, lines)
            said = "".join(lines)
            assert re.search(rf"{re.escape(name)} \(pid {pid}\) exited with -9 after [\d.]+ s; restarting it", said), said
            assert re.search(rf"{re.escape(name)} restarted \(pid \d+, restart 1\)", said), said
            assert child_running(proc.pid, marks) not in (None, pid)
            assert took < 15
            print(f"{name}: killed, restarted {took:.1f} s later")  # the figure for issue 28's note

        def healthy() -> bool:
            try:
                return requests.get(f"{url}/healthz", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        wait_for("the API answering", healthy, 60, lines)
        assert client.show(str(kept["id"]))["id"] == kept["id"]  # acknowledged before Redis died: still there
        client.create("nauticus", [{"invite": "after@example.org"}, {"bot": "random"}], private_key=CREATOR)
        wait_for("the invitation after the kills", lambda: len(list(outbox.glob("invite-*.eml"))) == 2, 60, lines)
        bots = client.create("nauticus", [{"bot": "random"}, {"bot": "random"}], private_key=CREATOR)
        wait_for("the all-bot match playing", lambda: int(client.show(str(bots["id"]))["ply"]) > 0, 60, lines)
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=10)
    assert proc.returncode == 0, "".join(lines)[-5000:]
