"""The README's first command: `portolan dev` starts Redis, a worker and the API, serves a
match, and a Ctrl-C stops everything it started."""

from __future__ import annotations

import os
import re
import signal
import smtplib
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from service.storage.embedded import free_port
from service.tools.client import Client
from tests.conftest import CREATOR
from tests.helpers.processes import alive
from tests.helpers.processes import children as children_of

pytestmark = pytest.mark.processes  # `portolan dev` and every process it starts

ROOT = Path(__file__).resolve().parents[2]


def test_portolan_dev_runs_everything_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SMTP_URL", "OUTBOX_DIR", "PUBLIC_URL")}
    env["PYTHONPATH"] = str(ROOT)
    mail_port = free_port()  # not 8025: another portolan dev (or test) may hold it
    env["PORTOLAN_MAIL_RECEIVER"] = f"127.0.0.1:{mail_port}"
    proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "dev", "--port", str(port), "--data", str(tmp_path / "var")],
                            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    lines: list[str] = []  # what dev prints, read as it comes (a full pipe would block it)
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, "".join(lines)
            try:
                if requests.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:  # not listening yet, or listening while its worker starts
                pass
            assert time.monotonic() < deadline, "portolan dev did not come up"
            time.sleep(0.2)
        children = children_of(proc.pid)
        assert len(children) >= 3  # redis-server, the worker and the mail receiver
        made = Client(url).create("nauticus", [{"invite": "you@example.org"}, {"bot": "random"}], private_key=CREATOR)
        assert made["status"] == "waiting"
        outbox = tmp_path / "var" / "outbox"
        deadline = time.monotonic() + 30
        while not list(outbox.glob("invite-*.eml")):  # the worker delivered the invitation
            assert time.monotonic() < deadline, "no invitation in the outbox"
            time.sleep(0.2)
        with smtplib.SMTP("127.0.0.1", mail_port, timeout=30) as smtp:  # the receiver of replies
            smtp.ehlo()
            smtp.mail("you@example.org")
            assert smtp.rcpt("someone@example.com")[0] == 550  # no open relay
            assert smtp.rcpt("turns+t-x@portolan.invalid")[0] == 550  # a forged reply token (issue 28: no backscatter)
            invite = next(outbox.glob("invite-*.eml")).read_text()
            reply_to = re.search(r"^Reply-To: .*?<?(turns\+i-[^>\s]+)", invite, re.M | re.I)
            assert reply_to is not None and smtp.rcpt(reply_to[1])[0] == 250  # the invitation's own reply address
            assert smtp.data(b"From: you@example.org\r\nSubject: Re: x\r\n\r\nshow\r\n")[0] == 250
        assert (tmp_path / "var" / "redis" / "appendonly.aof").exists() or list((tmp_path / "var" / "redis").glob("appendonly*"))
    finally:
        # Ctrl-C only once dev has said it is up: its banner comes after its own checks of the
        # API and the receiver, which can lag behind what this test already did with them
        deadline = time.monotonic() + 60
        while proc.poll() is None and not any("Ctrl-C stops everything" in line for line in lines):
            assert time.monotonic() < deadline, "portolan dev never printed that it is up"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        reader.join(timeout=10)
        out = "".join(lines)
    assert proc.returncode == 0, out
    assert "Portolan is running at" in out and "stopping the worker and Redis" in out
    assert f"mail in: smtp://127.0.0.1:{mail_port}" in out
    deadline = time.monotonic() + 10
    while any(alive(c) for c in children):
        assert time.monotonic() < deadline, f"left running: {[c for c in children if alive(c)]}"
        time.sleep(0.2)
