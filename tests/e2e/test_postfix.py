"""Mail through a real Postfix (issue 27 part 6): deploy/README.md "Mail in", as documented, tested.

A private Postfix instance (tests/helpers/postfix.py) is set up from the files in ``deploy/mail/``
the way deploy/README.md tells an operator to, only ports and paths filled in: the reply domain
``play.example.org`` (the documented one) goes to Portolan, the players' domain
``players.example.net`` to an SMTP sink (the players' mailboxes). ``portolan worker`` (a child
process) sends its invitations, turn notices and answers through Postfix; the test replies as a mail client would and submits the
reply to Postfix over SMTP, as the player's own mail server would; Postfix delivers it to Portolan
either over LMTP to ``portolan mail-receiver --lmtp`` (a child process) or through the ``pipe``
service running ``portolan mail-in``. What must hold: the move is played and answered through
Postfix; a receiver that is down or a ``mail-in`` exit 75 leaves the reply queued and delivered
later; a refusal (too big: 552 over LMTP, exit 65 from ``mail-in``) and a reply that keeps failing
past ``maximal_queue_lifetime`` bounce to the player instead of being retried forever; an
address that does not exist is refused at RCPT TO; and the queue is empty at the end. With
``PORTOLAN_MAIL_AUTHSERV_ID`` (issue 28), a spoofed From plays nothing, whatever A-R it forges.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import smtplib
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from service.play.mail.reply_address import parse_reply_address
from service.play.matches import Matches
from service.runtime import build
from service.storage.embedded import free_port
from tests.conftest import CREATOR, SmtpSink, create_match
from tests.helpers.postfix import PrivatePostfix, deploy_text, require_postfix, settings_lines

pytestmark = pytest.mark.mta

ROOT = Path(__file__).resolve().parents[2]
REPLY_DOMAIN = "play.example.org"  # the documented one: deploy/mail/ as it ships
BASE = f"turns@{REPLY_DOMAIN}"
ANA = "ana@players.example.net"
RECEIVER_MAX_BYTES = 100_000
"""Portolan's cap in these tests, far below the documented ``message_size_limit`` (10 MB) so that
Postfix accepts a reply Portolan then refuses: the refusal's way back to the player is tested."""
README_POSTCONF = "sed '/^#/d;/^$/d' deploy/mail/postfix-main.cf | xargs -d '\\n' postconf -e"
"""The line of deploy/README.md "Mail in" that loads deploy/mail/postfix-main.cf (held in step below)."""
WAIT_S = 60
"""A bound on every wait for mail or for the match: it only stops a broken run."""
FLUSH_S = 5
"""How long a wait lets Postfix retry a deferred mail by itself before asking it to (Mta.mail)."""


def portolan_env(s: Settings, **extra: str) -> dict[str, str]:
    """The settings of the Portolan processes (the same for the worker, the receiver and mail-in)."""
    env = {"REDIS_URL": s.redis_url, "PORTOLAN_NS": s.namespace, "SMTP_URL": s.smtp_url or "",
           "PUBLIC_URL": s.public_url, "MAIL_FROM": s.mail_from, "PORTOLAN_MAIL_REPLY_TO": BASE,
           "OUTBOX_DIR": s.outbox_dir, "PORTOLAN_MAIL_MAX_BYTES": str(RECEIVER_MAX_BYTES),
           "PORTOLAN_MAIL_REQUIRE_AUTH": "off"}
    if os.environ.get("QUEUE_REDIS_URL"):
        env["QUEUE_REDIS_URL"] = os.environ["QUEUE_REDIS_URL"]
    env.update(extra)
    return env


class Child:
    """A ``portolan`` command as a child process, its output in a log file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", *args], cwd=ROOT,
                                         env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)

    def alive(self) -> None:
        """Fail with the child's log if it has exited."""
        assert self.proc.poll() is None, self.log.read_text()[-3000:]

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 s."""
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def wait_listening(port: int, child: Child) -> None:
    """Wait until something accepts connections on 127.0.0.1:``port``."""
    import socket

    deadline = time.monotonic() + WAIT_S
    while True:
        child.alive()
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        assert time.monotonic() < deadline, f"nothing listens on {port}: {child.log.read_text()[-3000:]}"
        time.sleep(0.05)


@dataclasses.dataclass
class Mta:
    """Everything one test plays with: Postfix, the players' mailboxes (the sink), Portolan."""

    postfix: PrivatePostfix
    sink: SmtpSink
    settings: Settings
    matches: Matches
    worker: Child
    tmp: Path

    def mail(self, what: str, match: Callable[[EmailMessage], bool]) -> EmailMessage:
        """The first mail in the players' mailboxes for which ``match`` holds (waits for it)."""
        deadline = time.monotonic() + WAIT_S
        flushed = time.monotonic()
        while True:
            found: list[EmailMessage] = [m for m in list(self.sink.messages) if match(m)]
            if found:
                return found[0]
            self.worker.alive()
            if time.monotonic() - flushed > FLUSH_S:
                # Postfix retries a deferred mail on its own schedule; once, a deferral while qmgr
                # found the message "still being delivered" went untried for over a minute (CI,
                # mta step). What is tested is that a deferred reply is dealt with when tried again,
                # not Postfix's scheduler: so ask for the try, as an operator's `postqueue -f` would
                self.postfix.flush()
                flushed = time.monotonic()
            assert time.monotonic() < deadline, f"no {what} arrived\n{self.postfix.log()}\n" \
                f"{self.worker.log.read_text()[-3000:]}"
            time.sleep(0.05)

    def submit(self, msg: EmailMessage, sender: str = ANA) -> None:
        """Hand ``msg`` to Postfix over SMTP, as the player's mail server would."""
        with smtplib.SMTP("127.0.0.1", self.postfix.smtp_port, timeout=30) as smtp:
            refused = smtp.send_message(msg, from_addr=sender, to_addrs=[str(msg["To"])])
        assert not refused, refused

    def prompt(self, match_id: str, seat: int) -> EmailMessage:
        """The mail asking ``seat`` to move at the match's current ply, once the seat is to act."""
        def ready() -> int | None:
            meta = self.matches.meta(match_id)
            return meta.ply if meta.status == "active" and seat in meta.active else None

        def asks(msg: EmailMessage) -> bool:
            address = parse_reply_address(str(msg.get("Reply-To", "")))
            ply = ready()
            return (address is not None and address.kind == "t" and address.match == match_id
                    and address.seat == seat and ply is not None and address.ply == ply)

        return self.mail(f"turn notice of seat {seat}", asks)


def reply_to(original: EmailMessage, words: str, *, padding: int = 0) -> EmailMessage:
    """Ana's reply to ``original`` as her mail client writes it: her words on top, the notice
    quoted below; ``padding`` bytes of a long letter after the words (to be too big)."""
    body = original.get_body(preferencelist=("plain",))
    assert body is not None
    quoted = "\n".join("> " + line for line in str(body.get_content()).splitlines())
    letter = "\n".join(["All well at sea, the crew sends greetings."] * (padding // 42 + 1)) if padding else ""
    msg = EmailMessage()
    msg["From"] = f"Ana Lima <{ANA}>"
    msg["To"] = parseaddr(str(original["Reply-To"]))[1]
    msg["Subject"] = "Re: " + str(original["Subject"])
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@players.example.net>"
    msg["In-Reply-To"] = str(original["Message-ID"])
    msg["References"] = str(original["Message-ID"])
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg.set_content(f"{words}\n\n{letter}\n\nOn {original['Date']}, Portolan <{BASE}> wrote:\n{quoted}\n")
    return msg


def first_menu_number(msg: EmailMessage) -> str:
    """The number of the first line of the notice's menu ("What you can do now:")."""
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    text = str(body.get_content())
    start = text.find("What you can do now:")
    assert start >= 0, text
    for line in text[start:].splitlines()[1:]:
        head = line.strip().split(".", 1)[0]
        if head.isdigit():
            return head
    raise AssertionError(text)


def words(msg: EmailMessage, *types: str) -> str:
    """The text of every part of ``msg`` of the given types (default: text/plain), its lines
    joined: a phrase does not depend on where the text wraps."""
    wanted = {f"text/{t}" if "/" not in t else t for t in (types or ("plain",))}
    texts = []
    for part in msg.walk():
        if part.get_content_type() in wanted:
            payload = part.get_payload(decode=True) if not part.is_multipart() else None
            texts.append(payload.decode("utf-8", "replace") if isinstance(payload, bytes) else part.as_string())
    return " ".join(" ".join(texts).split())


def is_bounce_to_ana(msg: EmailMessage) -> bool:
    """A delivery status notification from Postfix to Ana."""
    return msg.get_content_type() == "multipart/report" and ANA in str(msg["To"])


def through_postfix(msg: EmailMessage) -> bool:
    """Whether ``msg`` came through the private Postfix (its Received: line)."""
    return any("mta.portolan.test" in str(h) for h in msg.get_all("Received", []))


def answer_to(msg_id: str) -> Callable[[EmailMessage], bool]:
    """Portolan's answer to the reply whose Message-ID is ``msg_id``."""
    return lambda m: str(m.get("X-Portolan-Notice", "")).startswith("answer:") and msg_id in str(m.get("In-Reply-To", ""))


def moves_of(m: Matches, match_id: str, seat: int) -> list[dict[str, Any]]:
    """The log entries of ``seat`` (the bot's own moves may go on meanwhile)."""
    return [e for e in m.log(match_id) if e["seat"] == seat]


def moved_by_mail(m: Matches, match_id: str, seat: int, ply: int) -> bool:
    """Whether ``seat`` made the move of ``ply`` by mail."""
    return any(e["seat"] == seat and e["by"] == "email" and e.get("ply", i) == ply for i, e in enumerate(m.log(match_id)))


# -- the setups ------------------------------------------------------------------------------------


def test_the_readme_loads_main_cf_with_the_tested_line() -> None:
    """The command deploy/README.md gives for main.cf is the one the tests below run."""
    assert README_POSTCONF in (ROOT / "deploy" / "README.md").read_text()


def documented_postfix(postfix: PrivatePostfix, sink: SmtpSink, transport_line: str) -> None:
    """Load deploy/mail/postfix-main.cf, postfix-transport and postfix-recipients into ``postfix``
    as deploy/README.md says; ``transport_line`` picks the pipe or the LMTP way."""
    postfix.configure_base()
    etc = f"{postfix.etc}/"
    # main.cf: deploy/README.md's own command line, run on the file with the paths filled in
    (postfix.etc / "postfix-main.cf").write_text(deploy_text("postfix-main.cf", REPLY_DOMAIN, {"/etc/postfix/": etc}))
    postfix.run("sh", "-c", README_POSTCONF.replace("deploy/mail/", f"{postfix.etc}/"))
    main_cf = (postfix.etc / "main.cf").read_text().splitlines()
    wanted = [" = ".join(part.strip() for part in line.split("=", 1))
              for line in settings_lines((postfix.etc / "postfix-main.cf").read_text())]
    assert set(wanted) <= set(main_cf), (wanted, main_cf)
    transport = [line for line in deploy_text("postfix-transport", REPLY_DOMAIN).splitlines()
                 if line.strip() and not line.startswith("# ")]
    chosen = [line.lstrip("#") for line in transport if line.lstrip("#").split()[1].startswith(transport_line)]
    assert len(chosen) == 1, transport
    # the players' own mail server, for the notices and answers: the SMTP sink
    sink_port = sink.url.rpartition(":")[2]
    postfix.write_map("transport", "\n".join(chosen) + f"\nplayers.example.net smtp:[127.0.0.1]:{sink_port}\n")
    postfix.write_map("portolan_recipients", deploy_text("postfix-recipients", REPLY_DOMAIN))


@pytest.fixture
def postfix_port() -> int:
    return free_port()


@pytest.fixture
def postfix(postfix_port: int) -> Iterator[PrivatePostfix]:
    """A private Postfix instance, not yet configured nor started; stopped and removed after the test."""
    require_postfix()
    instance = PrivatePostfix.create(postfix_port)
    yield instance
    instance.stop()


@pytest.fixture
def mta_settings(settings: Settings, postfix_port: int) -> Settings:
    """The worker sends through the private Postfix, as turns@play.example.org."""
    return dataclasses.replace(settings, smtp_url=f"smtp://127.0.0.1:{postfix_port}", mail_from=f"Portolan <{BASE}>",
                               mail_reply_to=BASE)


@pytest.fixture
def worker(mta_settings: Settings, tmp_path: Path) -> Iterator[Child]:
    child = Child(["worker"], portolan_env(mta_settings), tmp_path / "worker.log")
    yield child
    child.stop()


def start_match(client: Any, mta: Mta) -> tuple[str, EmailMessage]:
    """Ana is invited (through Postfix), joins by replying (through Postfix), and gets her first
    turn notice (through Postfix); a random bot holds the other seat."""
    r = create_match(client, {"game": "nauticus", "seats": [{"invite": ANA}, {"bot": "random"}]}, CREATOR)
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["id"]
    invite = mta.mail("invitation", lambda m: str(m.get("X-Portolan-Notice", "")).startswith(f"invite:{match_id}:"))
    assert through_postfix(invite), invite["Received"]
    join = reply_to(invite, "join Ana Lima")
    mta.submit(join)
    welcome = mta.mail("welcome", answer_to(str(join["Message-ID"])))
    assert through_postfix(welcome) and "Welcome aboard" in words(welcome)
    return match_id, mta.prompt(match_id, 0)


# -- the LMTP way ----------------------------------------------------------------------------------


def test_lmtp_way_through_postfix(client: Any, mta_settings: Settings, smtp_sink: SmtpSink, postfix: PrivatePostfix,
                                  worker: Child, tmp_path: Path) -> None:
    receiver_port = free_port()
    documented_postfix(postfix, smtp_sink, "lmtp:")
    # the documented port of the receiver (portolan-mail.service) is the only thing changed
    postfix.write_map("transport", (postfix.etc / "transport").read_text().replace(":8025", f":{receiver_port}"))
    receiver_args = ["mail-receiver", "--lmtp", "--listen", f"127.0.0.1:{receiver_port}"]
    receiver = Child(receiver_args, portolan_env(mta_settings), tmp_path / "receiver.log")
    try:
        postfix.start()
        wait_listening(receiver_port, receiver)
        mta = Mta(postfix, smtp_sink, mta_settings, build(mta_settings), worker, tmp_path)
        match_id, notice = start_match(client, mta)
        ply = mta.matches.meta(match_id).ply

        # the receiver is down (a restart): Postfix keeps the reply and delivers it when it is back
        receiver.stop()
        move = reply_to(notice, first_menu_number(notice))
        mta.submit(move)
        queued = postfix.wait_deferred()
        assert queued.recipients[0].startswith("turns+t-") and "Connection refused" in queued.reasons[0], queued
        assert not moved_by_mail(mta.matches, match_id, 0, ply)
        receiver = Child(receiver_args, portolan_env(mta_settings), tmp_path / "receiver.log")
        wait_listening(receiver_port, receiver)
        answer = mta.mail("answer to the move", answer_to(str(move["Message-ID"])))
        assert through_postfix(answer) and " accepted: " in words(answer)
        assert moved_by_mail(mta.matches, match_id, 0, ply)
        postfix.wait_logged(r"to=<turns\+t-[^>]+@play\.example\.org>.*relay=127\.0\.0\.1\[127\.0\.0\.1\]:\d+.*status=sent")

        # too big for Portolan (552 from the receiver, announced as its SIZE): bounced to Ana, not retried
        log_before = moves_of(mta.matches, match_id, 0)
        notice = mta.prompt(match_id, 0)
        mta.submit(reply_to(notice, first_menu_number(notice), padding=RECEIVER_MAX_BYTES + 10_000))
        bounce = mta.mail("bounce of the big reply", is_bounce_to_ana)
        assert "exceeds size limit" in words(bounce, "message/delivery-status", "plain"), bounce.as_string()[:3000]
        postfix.wait_empty()
        assert moves_of(mta.matches, match_id, 0) == log_before

        # an address of the reply domain that does not exist: refused at RCPT TO, nothing queued
        with smtplib.SMTP("127.0.0.1", postfix.smtp_port, timeout=30) as smtp, \
                pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            smtp.sendmail(ANA, [f"someone@{REPLY_DOMAIN}"], b"Subject: hello\r\n\r\nhello\r\n")
        assert refused.value.recipients[f"someone@{REPLY_DOMAIN}"][0] == 550
        assert postfix.queue() == []
    finally:
        receiver.stop()


# -- the pipe way ----------------------------------------------------------------------------------


def write_env_file(path: Path, env: dict[str, str]) -> None:
    """/etc/portolan/portolan.env as the wrapper reads it (``set -a; . FILE``)."""
    path.write_text("".join(f"{name}={shlex.quote(value)}\n" for name, value in env.items()))
    path.chmod(0o644)


def world_can_run(path: Path) -> bool:
    """Whether a user other than root (the pipe service's) can run ``path``: every folder on the
    way searchable by others, the file readable and executable by them."""
    real = path.resolve()
    return all(p.stat().st_mode & 0o001 for p in real.parents) and real.stat().st_mode & 0o005 == 0o005


@contextlib.contextmanager
def searchable_by_others(*paths: Path) -> Iterator[None]:
    """Let other users pass through the folders above ``paths`` for a while (``o+x`` only:
    they may not list them), and put every mode back afterwards. A checkout in a private temp
    folder (``mktemp -d`` makes it 0700, as CI's fresh clone does) is otherwise out of the pipe
    user's reach, where a real installation lives in /opt, readable by its own user."""
    changed: dict[Path, int] = {}
    for path in paths:
        for folder in (path.resolve(), *path.resolve().parents):
            mode = folder.stat().st_mode
            if folder.is_dir() and not mode & 0o001 and folder not in changed:
                changed[folder] = mode
                folder.chmod(mode | 0o001)
    try:
        yield
    finally:
        for folder, mode in changed.items():
            folder.chmod(mode & 0o7777)


def portolan_for_pipe(folder: Path) -> str:
    """The ``portolan`` command the pipe service's user runs: this virtualenv's, or, where its
    interpreter lives where that user cannot reach (CI's pyenv Python under /root, mode 0700), a
    launcher that runs the same code with the system's Python of the same minor version and this
    virtualenv's packages. (redis-py imports the ``async-timeout`` package on Pythons before
    3.11.3 only, so it is not in the lock: the launcher gives it asyncio's own, which is what
    redis-py takes on later ones.)"""
    portolan = Path(sys.executable).parent / "portolan"
    if world_can_run(Path(sys.executable)) and portolan.exists():
        return str(portolan)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = Path("/usr/bin") / version
    assert system.exists() and world_can_run(system), f"no {version} that the pipe's user can run"
    shim = folder / "shim"
    shim.mkdir(mode=0o755)
    (shim / "async_timeout.py").write_text("from asyncio import timeout\n\n__all__ = ['timeout']\n")
    packages = Path(sys.prefix) / "lib" / version / "site-packages"
    for folder_needed in (packages, ROOT):
        assert world_can_run(folder_needed), f"the pipe's user (nobody) cannot read {folder_needed}: " \
            "check out and install Portolan where other users can read it"
    launcher = folder / "portolan"
    launcher.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(f'{packages}:{ROOT}:{shim}')} "
                        f"exec {system} -m service.tools.cli \"$@\"\n")
    launcher.chmod(0o755)
    return str(launcher)


@pytest.fixture
def pipe_reach() -> Iterator[None]:
    """The pipe user may reach this checkout and its virtualenv while the test runs."""
    with searchable_by_others(ROOT, Path(sys.prefix) / "lib"):
        yield


def test_pipe_way_through_postfix(pipe_reach: None, client: Any, mta_settings: Settings, smtp_sink: SmtpSink,
                                  postfix: PrivatePostfix, worker: Child, tmp_path: Path) -> None:
    documented_postfix(postfix, smtp_sink, "portolan:")
    env_file = postfix.root / "portolan.env"
    wrapper = postfix.root / "portolan-mail-in"
    portolan = portolan_for_pipe(postfix.root)
    write_env_file(env_file, portolan_env(mta_settings))
    wrapper.write_text(deploy_text("portolan-mail-in", REPLY_DOMAIN, {
        "/etc/portolan/portolan.env": str(env_file), "/opt/portolan/venv/bin/portolan": portolan}))
    wrapper.chmod(0o755)
    # master.cf's "portolan" service as shipped; its user is one that exists on every Debian
    # (the documented one is a portolan user of the installation's own)
    with (postfix.etc / "master.cf").open("a") as master:
        master.write(deploy_text("postfix-master.cf", REPLY_DOMAIN, {
            "user=portolan": "user=nobody", "/opt/portolan/bin/portolan-mail-in": str(wrapper)}))
    postfix.start()
    mta = Mta(postfix, smtp_sink, mta_settings, build(mta_settings), worker, tmp_path)
    match_id, notice = start_match(client, mta)
    ply = mta.matches.meta(match_id).ply

    # the wrapper cannot read the settings (a wrong mode): it exits 75, not the shell's 2,
    # so Postfix defers the reply instead of bouncing it, and delivers it once the mode is right
    env_file.chmod(0o600)
    move = reply_to(notice, first_menu_number(notice))
    mta.submit(move)
    deferred = postfix.wait_deferred()
    assert "cannot read" in deferred.reasons[0] and "temporary failure" in deferred.reasons[0], deferred
    assert not moved_by_mail(mta.matches, match_id, 0, ply)
    env_file.chmod(0o644)
    answer = mta.mail("answer to the move", answer_to(str(move["Message-ID"])))
    assert through_postfix(answer) and " accepted: " in words(answer)
    assert moved_by_mail(mta.matches, match_id, 0, ply)
    postfix.wait_logged(r"to=<turns\+t-[^>]+@play\.example\.org>.*relay=portolan.*status=sent")
    postfix.wait_empty()

    # Redis out of reach: mail-in itself exits 75; deferred, then dealt with once Redis is back
    notice = mta.prompt(match_id, 0)
    write_env_file(env_file, portolan_env(mta_settings, REDIS_URL="redis://127.0.0.1:1/0"))
    look = reply_to(notice, "show")
    mta.submit(look)
    deferred = postfix.wait_deferred()
    assert "temporary failure" in deferred.reasons[0] and "Connection refused" in deferred.reasons[0], deferred
    write_env_file(env_file, portolan_env(mta_settings))
    board = mta.mail("answer to show", answer_to(str(look["Message-ID"])))
    assert "The board and the whole menu." in words(board)
    postfix.wait_empty()

    # too big for Portolan: mail-in exits 65, Postfix bounces it to Ana at once
    log_before = moves_of(mta.matches, match_id, 0)
    mta.submit(reply_to(notice, first_menu_number(notice), padding=RECEIVER_MAX_BYTES + 10_000))
    bounce = mta.mail("bounce of the big reply", is_bounce_to_ana)
    assert f"over the limit of {RECEIVER_MAX_BYTES} bytes" in words(bounce, "message/delivery-status", "plain"), \
        bounce.as_string()[:3000]
    postfix.wait_empty()
    assert moves_of(mta.matches, match_id, 0) == log_before

    # a reply that fails every time (exit 75 forever) is not retried forever: past
    # maximal_queue_lifetime (5 days by default; 0 here: one attempt) it bounces to the sender
    sink_before = len(smtp_sink.messages)
    postfix.postconf("-e", "maximal_queue_lifetime = 0")
    postfix.reload()
    write_env_file(env_file, portolan_env(mta_settings, REDIS_URL="redis://127.0.0.1:1/0"))
    mta.submit(reply_to(notice, "show"))
    bounce = mta.mail("bounce of the failing reply",
                      lambda m: is_bounce_to_ana(m) and m in smtp_sink.messages[sink_before:])
    assert "Connection refused" in words(bounce, "message/delivery-status", "plain"), bounce.as_string()[:3000]
    postfix.wait_empty()
    assert moves_of(mta.matches, match_id, 0) == log_before


# -- who sent it (issue 28) --------------------------------------------------------------------------

OUR_ID = "mta.portolan.test"
"""The authserv-id of the private Postfix's Authentication-Results (its myhostname)."""


def test_a_spoofed_from_cannot_play_through_postfix(client: Any, mta_settings: Settings, smtp_sink: SmtpSink,
                                                    postfix: PrivatePostfix, worker: Child, tmp_path: Path) -> None:
    """PORTOLAN_MAIL_AUTHSERV_ID behind a real Postfix. The players' own mail server (connecting from
    127.0.0.1) is the one our MTA finds passing DMARC: an access map's PREPEND stands in for the
    DMARC milter's Authentication-Results. A spoofer elsewhere (127.0.0.3) writes Ana's From and,
    on top, an A-R of our id, which deploy/README.md's header_checks line removes on the way in:
    it plays nothing and nobody is mailed. Ana's own replies join and move."""
    receiver_port = free_port()
    documented_postfix(postfix, smtp_sink, "lmtp:")
    postfix.write_map("transport", (postfix.etc / "transport").read_text().replace(":8025", f":{receiver_port}"))
    players = ANA.rpartition("@")[2]
    # the stand-in for the milter: Postfix runs header_checks over what smtpd PREPENDs too (a
    # milter's headers it leaves alone), so the verdict comes under another name and is renamed
    postfix.write_map("client_auth", f"127.0.0.1 PREPEND X-Test-Verdict: {OUR_ID}; "
                                     f"dkim=pass header.d={players}; dmarc=pass header.from={players}\n")
    documented = next(line.strip() for line in (ROOT / "deploy" / "README.md").read_text().splitlines()
                      if line.strip().startswith("/^Authentication-Results:"))
    (postfix.etc / "header_checks").write_text(
        documented.replace("mx\\.example\\.org", OUR_ID.replace(".", "\\.")) + "\n"
        "/^X-Test-Verdict:(.*)$/  REPLACE Authentication-Results:$1\n")
    postfix.postconf("-e", f"smtpd_client_restrictions = check_client_access hash:{postfix.etc}/client_auth",
                     f"header_checks = regexp:{postfix.etc}/header_checks")
    env = portolan_env(mta_settings, PORTOLAN_MAIL_REQUIRE_AUTH="on", PORTOLAN_MAIL_AUTHSERV_ID=OUR_ID)
    receiver = Child(["mail-receiver", "--lmtp", "--listen", f"127.0.0.1:{receiver_port}"], env,
                     tmp_path / "receiver.log")
    try:
        postfix.start()
        wait_listening(receiver_port, receiver)
        mta = Mta(postfix, smtp_sink, mta_settings, build(mta_settings), worker, tmp_path)
        match_id, notice = start_match(client, mta)  # Ana's join came from her own server: authenticated
        ply = mta.matches.meta(match_id).ply

        spoof = reply_to(notice, first_menu_number(notice))
        forged = f"Authentication-Results: {OUR_ID}; dmarc=pass header.from={players}\r\n".encode()
        with smtplib.SMTP("127.0.0.1", postfix.smtp_port, timeout=30, source_address=("127.0.0.3", 0)) as smtp:
            assert not smtp.sendmail(ANA, [str(spoof["To"])], forged + spoof.as_bytes(policy=spoof.policy.clone(
                linesep="\r\n")))
        deadline = time.monotonic() + WAIT_S
        while "its sender is not authenticated" not in receiver.log.read_text():
            receiver.alive()
            assert time.monotonic() < deadline, receiver.log.read_text()[-3000:]
            time.sleep(0.05)
        postfix.wait_empty()  # delivered to Portolan (and dropped there), nothing bounced or queued
        assert not moved_by_mail(mta.matches, match_id, 0, ply)

        move = reply_to(notice, first_menu_number(notice))
        mta.submit(move)
        answer = mta.mail("answer to the move", answer_to(str(move["Message-ID"])))
        assert " accepted: " in words(answer) and moved_by_mail(mta.matches, match_id, 0, ply)
        assert not [m for m in smtp_sink.messages if answer_to(str(spoof["Message-ID"]))(m)]  # the spoof: no mail
    finally:
        receiver.stop()
