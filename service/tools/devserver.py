"""``portolan dev``: the whole service on one machine, with nothing installed but Python.

Starts a real Redis (embedded, data and append-only file under ``./var/redis``) unless
``REDIS_URL`` is set, a worker per queue group (mail, bots, webhooks: service.tools.supervise)
with RQ's scheduler as child processes, and the API as
production serves it: gunicorn with one gevent worker (deploy/gunicorn.conf.py's server model),
so the event streams and long-polls behave here as they ship. Mail goes to ``./var/outbox/*.eml``
unless ``SMTP_URL`` is set; replies come in through the SMTP receiver it starts on
``PORTOLAN_MAIL_RECEIVER`` (``127.0.0.1:8025``). Ctrl-C (or SIGTERM) stops everything it started.
Any child that exits (Redis included) is started again within about 11 s, and its console says so.

Every process runs on one file clock, ``<data>/clock`` (unless ``PORTOLAN_CLOCK`` says otherwise),
so ``portolan clock advance 25h`` moves a match past its deadlines without waiting; while it
runs, ``<data>/dev.json`` says where its Redis is, so that command can ask the workers for a
clock tick at once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from service.clock import Clock
from service.config import Settings, parse_listen
from service.storage.embedded import EmbeddedRedis
from service.tools.supervise import MAX_WAIT_S, WORKER_GROUPS, Child, Supervisor, spawner, worker_command


def _stop(*_: object) -> None:
    raise KeyboardInterrupt


def run_dev(host: str = "127.0.0.1", port: int = 8000, data_dir: str = "var") -> int:
    data = Path(data_dir)
    env = dict(os.environ)
    redis_proc: EmbeddedRedis | None = None
    url = f"http://{host}:{port}"
    sup = Supervisor(say)
    previous = signal.signal(signal.SIGTERM, _stop)
    previous_int = signal.signal(signal.SIGINT, _stop)  # also when started in the background
    try:
        if not env.get("REDIS_URL"):
            redis_proc = EmbeddedRedis(data / "redis", durable=True)
            env["REDIS_URL"] = redis_proc.url
            sup.add(Child(name="redis-server", start=_redis_starter(redis_proc)))
        if not env.get("SMTP_URL"):
            env.setdefault("OUTBOX_DIR", str((data / "outbox").resolve()))
        env.setdefault("PUBLIC_URL", url)
        env.setdefault("PORTOLAN_LONG_POLLS", "1000")  # a waiting long-poll is a greenlet here, as in production
        # local play by mail: the From is trusted as it is (production requires an authenticated one, issue 28)
        env.setdefault("PORTOLAN_MAIL_REQUIRE_AUTH", "off")
        clock = dev_clock(env, data)
        os.environ.update({k: env[k] for k in ("REDIS_URL", "PUBLIC_URL") if k in env})
        if "OUTBOX_DIR" in env:
            os.environ["OUTBOX_DIR"] = env["OUTBOX_DIR"]
        # each in its own session: a Ctrl-C in the terminal reaches only us, and we stop the
        # workers (and their schedulers) before Redis, so nothing complains about a vanished server;
        # one worker per queue group (service.tools.supervise), so no bot flood or slow webhook
        # receiver holds up a notice
        for group, queues in WORKER_GROUPS.items():
            sup.add(Child(name=f"worker {group}", start=spawner(worker_command(queues), env), stop_signal=signal.SIGINT))
        api = sup.add(Child(name="API (gunicorn)", start=spawner(gunicorn_command(host, port), env)))
        listen = env.get("PORTOLAN_MAIL_RECEIVER") or Settings.mail_receiver
        receiver = sup.add(Child(name="mail receiver", start=spawner(receiver_command(listen), env)))
        assert api.proc is not None and receiver.proc is not None
        _wait_until_up(api.proc, host, port)
        _wait_until_listening(receiver.proc, listen)
        mail = env.get("SMTP_URL") or env["OUTBOX_DIR"]
        _write_dev_facts(data, env)
        replies = Settings.from_env(env).reply_base()
        workers = ", ".join(f"{c.name.removeprefix('worker ')} pid {c.proc.pid if c.proc else '?'}"
                            for c in sup.children if c.name.startswith("worker "))
        print(f"""
Portolan is running at {url}
  Redis: {env['REDIS_URL']}{' (embedded, data in ' + str(data / 'redis') + ')' if redis_proc else ''}
  workers: {workers} (each: outbox dispatcher, RQ worker, watchdog); mail: {mail}
  mail in: smtp://{listen} (pid {receiver.proc.pid}) takes replies to {replies.replace('@', '+...@')}
  clock: {clock_line(clock)}
  a process that exits is started again within {MAX_WAIT_S + 1:g} s, and said here

Play in a browser: open {url}/ (the lobby; New match starts one).
Or play your first match from a terminal (in another one):
  portolan keygen && portolan create harbour-race --invite you@example.org --bot random
  portolan claim MATCH 0 TOKEN --name You          # MATCH and TOKEN as printed by create
  portolan show MATCH && portolan move MATCH --pick 1

Ctrl-C stops everything.""".replace("harbour-race", _first_game()), flush=True)
        sup.watch()
    except KeyboardInterrupt:
        pass
    finally:
        # A second Ctrl-C (or a SIGTERM) while stopping must not cut the stop short and leave
        # children and Redis behind: every step below is bounded by its own timeout instead.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("\nstopping the worker and Redis...", flush=True)
        # gunicorn's graceful stop (open streams are cut); a message the receiver had cut off got
        # no 250, so its sender retries; the workers' warm shutdown finishes the job in hand
        sup.stop([c.name for c in sup.children if c.name != "redis-server"])
        sup.stop(["redis-server"])
        (data / DEV_FACTS).unlink(missing_ok=True)
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)
    return 0


def say(line: str) -> None:
    """A line of ``portolan dev`` on its console (a child exited, was restarted)."""
    print(f"portolan dev: {line}", file=sys.stderr, flush=True)


def _redis_starter(redis_proc: EmbeddedRedis) -> Callable[[], subprocess.Popen[bytes]]:
    """Start the embedded Redis (again: the same port, data folder and append-only file, so what
    it acknowledged before it died is there again, and the workers reconnect to it)."""
    def start() -> subprocess.Popen[bytes]:
        redis_proc.start()
        assert redis_proc.proc is not None
        return redis_proc.proc
    return start


DEV_FACTS = "dev.json"
"""Beside the clock file while ``portolan dev`` runs: its Redis URL and namespace (service.tools.cli.clock)."""


def dev_clock(env: dict[str, str], data: Path) -> Clock:
    """The clock of every process ``portolan dev`` starts: ``PORTOLAN_CLOCK`` when set, else the
    file clock ``<data>/clock`` (made at offset 0 when missing); a file clock is allowed here
    (``PORTOLAN_CLOCK_ALLOW_FILE=on``), as nowhere in production. Sets both in ``env``."""
    if not env.get("PORTOLAN_CLOCK", "").strip():
        path = (data / "clock").resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text("0\n")
        env["PORTOLAN_CLOCK"] = f"file:{path}"
    env.setdefault("PORTOLAN_CLOCK_ALLOW_FILE", "on")
    return Clock.named(env["PORTOLAN_CLOCK"])


def clock_line(clock: Clock) -> str:
    """The banner's clock line: which clock, its offset, and how to move it."""
    if not clock.movable:
        return "the system clock (PORTOLAN_CLOCK); it cannot be moved"
    default = clock.path is not None and Path(clock.path) == (Path("var") / "clock").resolve()
    command = "portolan clock advance 25h" + ("" if default else f" --clock file:{clock.path}")
    return (f"a test clock, file:{clock.path}, {clock.offset():g} s ahead of the system clock; "
            f"move every process forward with: {command}")


def _write_dev_facts(data: Path, env: dict[str, str]) -> None:
    data.mkdir(parents=True, exist_ok=True)
    facts = {"redis_url": env["REDIS_URL"], "namespace": env.get("PORTOLAN_NS", "portolan:"), "pid": os.getpid()}
    (data / DEV_FACTS).write_text(json.dumps(facts) + "\n")


def gunicorn_command(host: str, port: int) -> list[str]:
    """gunicorn serving the API with one gevent worker: the production server model on one port."""
    return [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}", "--workers", "1",
            "--worker-class", "gevent", "--worker-connections", "2500", "--timeout", "60",
            "--graceful-timeout", "3", "--log-level", "warning", "service.api:create_app()"]


def receiver_command(listen: str) -> list[str]:
    """The SMTP receiver of replies (``portolan mail-receiver``) on ``listen`` (host:port)."""
    return [sys.executable, "-m", "service.tools.cli", "mail-receiver", "--listen", listen]


def _wait_until_listening(receiver: subprocess.Popen[bytes], listen: str, timeout: float = 60.0) -> None:
    """Return once the mail receiver accepts connections on ``listen``; raise if it exits first
    (most often: the port is taken, by another ``portolan dev`` or a local MTA)."""
    import socket

    # parse_listen lives in service.config: importing the receiver (aiosmtpd, the mail parsers)
    # here cost this process a second or more under load, while Ctrl-C could already come
    host, port = parse_listen(listen)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if receiver.poll() is not None:
            raise RuntimeError(f"the mail receiver exited with {receiver.returncode} at start: is {listen} taken? "
                               "(set PORTOLAN_MAIL_RECEIVER to another host:port)")
        try:
            with socket.create_connection((host, port), timeout=5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the mail receiver did not listen on {listen} within {timeout:g} s")


def _wait_until_up(api: subprocess.Popen[bytes], host: str, port: int, timeout: float = 60.0) -> None:
    """Return once the API answers ``/healthz``; raise if gunicorn exits first. (gunicorn's
    master listens before its worker has built the app, so an open port is not enough.)"""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if api.poll() is not None:
            raise RuntimeError(f"the API server (gunicorn) exited with {api.returncode} at start")
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:  # refused, reset, timed out, or a 503 while Redis is not up yet
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the API server did not answer on {host}:{port} within {timeout:g} s")


def _first_game() -> str:
    from service import games

    ids = list(games.registry())
    return "el-capitan" if "el-capitan" in ids else (ids[0] if ids else "GAME")


