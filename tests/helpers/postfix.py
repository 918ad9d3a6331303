"""A private Postfix instance for the tests (issue 27 part 6, "A real MTA in the tests").

Debian's ``postfix`` package (.ci/run installs it) runs here as a second instance of its own:
its own ``config_directory``, ``queue_directory`` and ``data_directory`` in a temporary folder,
smtpd on a free loopback port instead of 25, nothing leaving the machine (no DNS, anything not
routed by the transport map is refused by the ``error`` transport). Postfix's MULTI_INSTANCE_README
describes such instances; ``postfix -c DIR`` starts and stops it, ``postconf -c DIR`` edits it.

Onto that bare instance the tests load the files of ``deploy/mail/`` exactly as deploy/README.md
"Mail in" tells an operator to, with only the domain, the ports and the paths filled in (see
:func:`deploy_text`), so what is tested is what is documented.

Postfix's master must be started by root (it drops to the ``postfix`` user the package creates).
Where it cannot run, :func:`require_postfix` skips, except in CI (``CI`` or
``PORTOLAN_REQUIRE_POSTFIX=1``), where a missing Postfix fails the run instead of hiding.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_MAIL = ROOT / "deploy" / "mail"
DOCUMENTED_DOMAIN = "play.example.org"
"""The reply domain deploy/mail/ and deploy/README.md use; the tests put their own in its place."""
WAIT_S = 60
"""How long a wait for mail or for the queue may take: a bound that only stops a broken run."""


def missing_postfix() -> str | None:
    """Why a private Postfix cannot run here, or None when it can."""
    if os.geteuid() != 0:
        return "Postfix's master must be started as root"
    for tool in ("postfix", "postconf", "postqueue", "postmap"):
        if shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") is None:
            return f"no {tool} (apt-get install postfix)"
    try:
        pwd.getpwnam("postfix")
    except KeyError:
        return "no postfix user (Debian's postfix package creates it)"
    return None


def require_postfix() -> None:
    """Skip when Postfix cannot run here; in CI fail instead, as the browser tests do without Chromium."""
    reason = missing_postfix()
    if reason is None:
        return
    if os.environ.get("CI") or os.environ.get("PORTOLAN_REQUIRE_POSTFIX") == "1":
        pytest.fail(f"a real Postfix is required here: {reason}")
    pytest.skip(reason)


def deploy_text(name: str, domain: str, fill: dict[str, str] | None = None) -> str:
    """The file ``deploy/mail/NAME`` with the documented reply domain replaced by ``domain`` and
    each key of ``fill`` (a path or port of the documented installation) by its value."""
    text = (DEPLOY_MAIL / name).read_text().replace(DOCUMENTED_DOMAIN, domain)
    for old, new in (fill or {}).items():
        assert old in text, f"deploy/mail/{name} no longer says {old!r}"
        text = text.replace(old, new)
    return text


def settings_lines(text: str) -> list[str]:
    """The ``name = value`` lines of a main.cf fragment (comments and blank lines dropped): what
    deploy/README.md pipes into ``postconf -e``."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@dataclass
class QueuedMail:
    """One message in Postfix's queue, as ``postqueue -j`` shows it."""

    queue: str
    sender: str
    recipients: list[str]
    reasons: list[str]


class PrivatePostfix:
    """A Postfix instance of its own in ``root`` (a folder that must not exist yet, or be empty)."""

    def __init__(self, root: Path, smtp_port: int) -> None:
        self.root = root
        self.etc = root / "etc"
        self.smtp_port = smtp_port
        # MAIL_CONFIG: postmap and friends read this instance's main.cf, not /etc/postfix's
        self.env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin", MAIL_CONFIG=str(self.etc))

    @classmethod
    def create(cls, smtp_port: int) -> PrivatePostfix:
        """A new instance in a new folder under the system's temp dir, readable by all: the
        pipe service's user (not root) must read the wrapper and settings the tests put there."""
        root = Path(tempfile.mkdtemp(prefix="portolan-postfix-"))
        root.chmod(0o755)
        return cls(root, smtp_port)

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """A Postfix command line, its output captured."""
        done = subprocess.run(list(argv), capture_output=True, text=True, env=self.env, timeout=60)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(argv)}: exit {done.returncode}\n{done.stdout}{done.stderr}\n{self.log()}")
        return done

    def postconf(self, *args: str) -> None:
        """``postconf -c DIR ARGS``: edits main.cf (``-e``) or master.cf (``-M``, ``-F``)."""
        self.run("postconf", "-c", str(self.etc), *args)

    def configure_base(self) -> None:
        """The bare instance: Debian's master.cf with smtpd moved to the test's port, loopback
        only, no DNS, every destination without a transport refused, logs to a file, and retries
        after a second instead of minutes (so a deferred message is tried again while the test waits)."""
        self.etc.mkdir(parents=True)
        (self.root / "queue").mkdir()
        (self.root / "data").mkdir()
        shutil.chown(self.root / "data", "postfix")  # master.lock and the caches live there, written as postfix
        shutil.copy("/etc/postfix/master.cf", self.etc / "master.cf")
        (self.etc / "main.cf").write_text("")
        self.postconf(
            "-e",
            f"queue_directory = {self.root / 'queue'}", f"data_directory = {self.root / 'data'}",
            "compatibility_level = 3.6", "myhostname = mta.portolan.test", "mydomain = portolan.test",
            "inet_interfaces = 127.0.0.1", "inet_protocols = ipv4", "mynetworks = 127.0.0.0/8",
            "mydestination =", "alias_maps =", "alias_database =", "local_recipient_maps =",
            "smtp_dns_support_level = disabled", "lmtp_host_lookup = native", "smtp_host_lookup = native",
            "default_transport = error:5.7.1 nothing leaves this test instance",
            f"maillog_file = {self.root / 'maillog'}", f"maillog_file_prefixes = {self.root}",
            "queue_run_delay = 1s", "minimal_backoff_time = 1s", "maximal_backoff_time = 2s",
            "smtpd_banner = $myhostname ESMTP", "biff = no",
        )
        # no chroot (Debian's master.cf chroots most services, which needs copies of /etc files in
        # the queue dir); smtpd on the test's port instead of 25
        self.postconf("-F", "*/*/chroot = n")
        self.postconf("-M#", "smtp/inet")
        self.postconf("-M", f"127.0.0.1:{self.smtp_port}/inet = 127.0.0.1:{self.smtp_port} inet n - n - - smtpd")

    def write_map(self, name: str, text: str) -> Path:
        """A lookup table file in the instance's config dir, compiled with ``postmap``."""
        path = self.etc / name
        path.write_text(text)
        self.run("postmap", f"hash:{path}")
        return path

    def start(self) -> None:
        """``postfix -c DIR start`` (the queue dirs are created and owned right by its checks)."""
        self.run("postfix", "-c", str(self.etc), "check")
        self.run("postfix", "-c", str(self.etc), "start")
        deadline = time.monotonic() + WAIT_S
        while not self.running():
            assert time.monotonic() < deadline, self.log()
            time.sleep(0.05)

    def reload(self) -> None:
        """``postfix reload``: the daemons read main.cf again."""
        self.run("postfix", "-c", str(self.etc), "reload")

    def running(self) -> bool:
        """Whether the instance's master runs (``postfix status``)."""
        return self.run("postfix", "-c", str(self.etc), "status", check=False).returncode == 0

    def stop(self) -> None:
        """Stop the instance (``postfix stop``; ``abort`` if it lingers) and drop its folder."""
        if (self.root / "data").exists() and self.running():
            self.run("postfix", "-c", str(self.etc), "stop", check=False)
            deadline = time.monotonic() + 15
            while self.running() and time.monotonic() < deadline:
                time.sleep(0.1)
            if self.running():
                self.run("postfix", "-c", str(self.etc), "abort", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def queue(self) -> list[QueuedMail]:
        """Every message in the queue (``postqueue -j``: one JSON object a line)."""
        out = self.run("postqueue", "-c", str(self.etc), "-j").stdout
        mails = []
        for line in out.splitlines():
            item: dict[str, Any] = json.loads(line)
            rcpts = item.get("recipients", [])
            mails.append(QueuedMail(item["queue_name"], item.get("sender", ""), [r["address"] for r in rcpts],
                                    [r.get("delay_reason", "") for r in rcpts]))
        return mails

    def flush(self) -> None:
        """``postqueue -f``: try every queued message now."""
        self.run("postqueue", "-c", str(self.etc), "-f")

    def log(self, tail: int = 6000) -> str:
        """The end of the instance's log (``maillog_file``), for failure messages."""
        path = self.root / "maillog"
        return path.read_text(errors="replace")[-tail:] if path.exists() else "(no maillog)"

    def wait(self, what: str, done: Callable[[], bool]) -> None:
        """Wait until ``done()``; fail with the instance's log after :data:`WAIT_S`."""
        deadline = time.monotonic() + WAIT_S
        while not done():
            assert time.monotonic() < deadline, f"waited {WAIT_S} s for {what}\n{self.log()}"
            time.sleep(0.05)

    def wait_deferred(self) -> QueuedMail:
        """Wait until the queue holds one message, deferred (a delivery was tried and failed
        temporarily); that message. A bounce meanwhile fails at once: it will not be deferred."""
        log = self.log(tail=10**7)
        bounced, deferrals = log.count("status=bounced"), log.count("status=deferred")
        seen: list[QueuedMail] = []

        def deferred() -> bool:
            # the queue shows it deferred, or the log says a delivery was deferred: Postfix tries a
            # deferred message again after a second here, so a look at the queue may always find
            # it active, in the middle of its next try
            text = self.log(tail=10**7)
            assert text.count("status=bounced") == bounced, f"bounced, not deferred:\n{self.log()}"
            queued = self.queue()
            if [q.queue for q in queued] == ["deferred"]:
                seen[:] = queued
                return True
            if text.count("status=deferred") > deferrals:
                line = [t for t in text.splitlines() if "status=deferred" in t][-1]
                reason = line.split("status=deferred", 1)[1].strip(" ()")
                seen[:] = [QueuedMail("deferred", "", [], [reason])]
                return True
            return False

        self.wait("a deferred message", deferred)
        return seen[0]

    def wait_empty(self) -> None:
        """Wait until the queue is empty (every message delivered or bounced)."""
        self.wait("an empty queue", lambda: not self.queue())

    def wait_logged(self, pattern: str) -> None:
        """Wait until the log has a line matching ``pattern`` (a regular expression): Postfix
        logs a delivery once the transport has answered, which may be after its effects are seen."""
        self.wait(f"a log line {pattern!r}", lambda: re.search(pattern, self.log(tail=10**7)) is not None)
