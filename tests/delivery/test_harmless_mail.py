"""Mail must not harm the people who read it (issue 9, finding 5): every line it asks them to
paste into a shell is quoted, and the outbox keeps tokens and private views to the service's user."""

from __future__ import annotations

import dataclasses
import html
import os
import shlex
import stat
import subprocess
from email import message_from_bytes
from email.policy import default
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from service.delivery.mail import Mail, deliver, shell_line
from service.runtime import build
from tests.conftest import CREATOR_KEY, create_match
from tests.helpers.matches import create
from workers import jobs

EVIL = "a`touch${IFS}x`@example.org"  # RFC 5322 admits it; our rule refuses the backtick and $
QUIRKY = "o'brien&{touch}|x@example.org"
"""Valid, and admitted by our rules too (no backtick, $ or backslash), yet full of shell syntax:
a pasted line must still carry it as one word."""


def text_of(path: Path) -> str:
    msg = message_from_bytes(path.read_bytes(), policy=default)
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def run_pasted(line: str, cwd: Path) -> list[str]:
    """Paste ``line`` into a real POSIX shell, with ``portolan`` standing in as a function that
    prints its arguments one per line: what the shell made of the line, word by word."""
    done = subprocess.run(["sh", "-c", "portolan() { printf '%s\\n' \"$@\"; }; " + line], cwd=cwd,
                          capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.splitlines()


def test_an_invite_to_an_address_with_shell_syntax_is_quoted(client: Any, outbox_settings: Settings, tmp_path: Path) -> None:
    refused = create_match(client, {"game": "harbour-race", "seats": [{"invite": EVIL}, {"invite": "b@example.org"}]})
    assert refused.status_code == 400 and "seats.0.invite" in refused.get_data(as_text=True)
    made = create(client, [{"invite": QUIRKY}, {"invite": "b@example.org"}])
    mid, token = made["id"], made["invites"]["0"]
    assert jobs.send_invite(mid, 0, QUIRKY, token).startswith("sent")
    [eml] = Path(outbox_settings.outbox_dir).glob(f"invite-{mid}-0.eml")
    [line] = [ln.strip() for ln in text_of(eml).splitlines() if ln.strip().startswith("portolan claim")]
    work = tmp_path / "shell"
    work.mkdir()
    words = run_pasted(line, work)
    assert words == ["claim", mid, "0", token, "--name", "Your name", "--email", QUIRKY, "--server", "http://portolan.test"]
    assert list(work.iterdir()) == []  # the shell syntax ran nothing
    part = message_from_bytes(eml.read_bytes(), policy=default).get_body(preferencelist=("html",))
    assert part is not None and shlex.quote(QUIRKY) in html.unescape(str(part.get_content()))


def test_a_turn_notice_line_quotes_the_action_json() -> None:
    action = {"type": "name-ship", "name": "O'Brien's $(touch y) `touch z`"}
    line = jobs.cli_line("m1", 0, action)
    assert shlex.split(line)[:4] == ["portolan", "move", "m1", "--seat"]
    assert shlex.split(line)[-1] == '{"type":"name-ship","name":"O\'Brien\'s $(touch y) `touch z`"}'
    assert shell_line(["portolan", "show", "m1"]) == "portolan show m1"  # plain words stay readable


def test_the_outbox_is_private_whatever_the_umask(settings: Settings, tmp_path: Path) -> None:
    mail = Mail(to="a@example.org", subject="s", text="invite token t0k3n", html="<p>t0k3n</p>", key="invite:m:0")
    old = os.umask(0)  # the loosest umask: without explicit modes everything would be 0777/0666
    try:
        where = Path(deliver(settings, mail))
        outbox = Path(settings.outbox_dir)
        assert stat.S_IMODE(outbox.stat().st_mode) == 0o700
        assert stat.S_IMODE(where.stat().st_mode) == 0o600
        # a folder made earlier, world-readable, is closed; a message rewritten stays 0600
        outbox.chmod(0o755)
        where.chmod(0o644)
        again = Path(deliver(settings, mail))
        assert again == where
        assert stat.S_IMODE(outbox.stat().st_mode) == 0o700
        assert stat.S_IMODE(again.stat().st_mode) == 0o600
        assert "t0k3n" in text_of(again)
        assert [p.name for p in outbox.iterdir()] == [where.name]  # no .tmp left behind
    finally:
        os.umask(old)


def test_outbox_mail_of_a_real_match_is_private(client: Any, outbox_settings: Settings) -> None:
    made = create(client, [{"invite": "a@example.org"}, {"bot": "random"}])
    assert jobs.send_invite(made["id"], 0, "a@example.org", made["invites"]["0"]).startswith("sent")
    outbox = Path(outbox_settings.outbox_dir)
    assert stat.S_IMODE(outbox.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in outbox.iterdir())


def test_an_address_email_validator_refuses_is_refused_at_creation(settings: Settings) -> None:
    from service.play.errors import BadRequest

    m = build(dataclasses.replace(settings))
    with pytest.raises(BadRequest) as caught:
        m.create("harbour-race", {}, [{"invite": "a$(touch x)@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY)
    assert caught.value.code == "bad-email"
    assert m.store.match_ids() == []
