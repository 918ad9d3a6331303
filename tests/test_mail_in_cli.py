"""``portolan mail-in`` as an MTA runs it: a real subprocess, the message on stdin, the exit code
telling the MTA whether to keep the message (75, EX_TEMPFAIL) or not (0; 65 for too big)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.play.mail.reply_address import reply_address
from service.storage.embedded import free_port
from tests.helpers import mailcorpus

pytestmark = pytest.mark.processes  # `portolan mail-in` as the MTA starts it, one process per test

ROOT = Path(__file__).resolve().parents[1]

KEY, BASE = "test-server-key", "turns@portolan.test"
TURN = reply_address(KEY, BASE, "t", "abc", 1, 12)
"""An authentic reply address under the recording CLI's server key: the door (issue 28) lets
nothing else reach the desk."""

# The CLI with the recording desk in place of the real one, printing what the desk received.
RECORDING = """
import json, sys
import service.runtime as runtime
from tests.helpers.recording import RecordingDesk
desk = RecordingDesk()
import types
runtime.build = lambda settings: types.SimpleNamespace(server_key="test-server-key")
runtime.build_desk = lambda settings, matches: desk
from service.tools.cli.main import main
code = main(sys.argv[1:])
print(json.dumps([{"text": m.text, "recipients": m.recipients, "sender": m.sender, "automatic": m.automatic}
                  for m in desk.mails]), file=sys.stderr)
sys.exit(code)
"""


def mail_in(stdin: bytes, *args: str, recording: bool = False, **env: str) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-c", RECORDING] if recording else [sys.executable, "-m", "service.tools.cli"]
    environment: dict[str, Any] = {**os.environ, "PYTHONPATH": str(ROOT), "PORTOLAN_MAIL_REQUIRE_AUTH": "off",
                                   "PORTOLAN_MAIL_REPLY_TO": BASE, **env}
    for name in ("ORIGINAL_RECIPIENT", "RECIPIENT", "SENDER"):
        if name not in env:
            environment.pop(name, None)
    return subprocess.run([*command, "mail-in", *args], input=stdin, capture_output=True, timeout=120, env=environment,
                          check=False)


def test_a_message_on_stdin_reaches_the_desk_and_exits_0() -> None:
    raw = mailcorpus.gmail("3, 1, end").as_bytes()
    done = mail_in(raw, "--recipient", TURN, recording=True)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().startswith("recorded <")
    assert '"text": "3, 1, end"' in done.stderr.decode()
    assert f'"recipients": ["{TURN}", "turns+t-abc-1-12-abcdefghijkmnpqr@portolan.test"]' in done.stderr.decode()


def test_the_recipient_and_sender_come_from_postfix_s_environment() -> None:
    raw = mailcorpus.outlook("show").as_bytes()
    done = mail_in(raw, recording=True, ORIGINAL_RECIPIENT=TURN, SENDER="")
    assert done.returncode == 0, done.stderr.decode()
    out = done.stderr.decode()
    assert f'"recipients": ["{TURN}"' in out and '"automatic": true' in out  # null sender


def test_over_the_size_cap_exits_65_and_says_why() -> None:
    raw = mailcorpus.mixed_with_attachment("3", size=50_000).as_bytes()
    done = mail_in(raw, recording=True, PORTOLAN_MAIL_MAX_BYTES="10000")
    assert done.returncode == 65
    assert b"PORTOLAN_MAIL_MAX_BYTES" in done.stderr and b'[]' in done.stderr  # the desk saw nothing


def test_redis_unreachable_exits_75_so_the_mta_retries() -> None:
    raw = mailcorpus.gmail("3").as_bytes()
    done = mail_in(raw, "--recipient", TURN,
                   REDIS_URL=f"redis://127.0.0.1:{free_port()}/0", PORTOLAN_SERVER_KEY="")
    assert done.returncode == 75, done.stderr.decode()
    assert b"temporary failure" in done.stderr
