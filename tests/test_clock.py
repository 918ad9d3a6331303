"""One clock for every process (issue 13, item 6): the file clock, the settings, the refusals where
it would be dangerous, the start-up warning, /healthz, and ``portolan clock`` as a subprocess.

No test sleeps on the clock: each moves it (``Clock.advance``) and reads what every reader sees.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import types
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from service.clock import Clock, ClockError
from service.config import ClockRefused, Settings, open_clock
from service.play import listings
from service.runtime import build
from service.storage.embedded import free_port
from service.tools.cli.clock import describe_offset
from service.tools.cli.main import main
from service.tools.devserver import clock_line, dev_clock
from tests.conftest import CREATOR_KEY, Player

ROOT = Path(__file__).resolve().parents[1]


def file_settings(settings: Settings, path: Path, allow: bool = True) -> Settings:
    return replace(settings, clock=f"file:{path}", clock_allow_file=allow)


# -- the file clock ------------------------------------------------------------------------------


def test_a_file_clock_is_the_system_clock_plus_the_offset_in_its_file(tmp_path: Path) -> None:
    clock = Clock.named(f"file:{tmp_path / 'clock'}")
    assert clock.movable and clock.offset() == 0  # a missing file is an offset of 0
    system = Clock()
    assert abs(clock.timestamp() - system.timestamp()) < 60
    assert clock.advance(25 * 3600) == 90000
    assert (tmp_path / "clock").read_text().strip() == "90000.000"
    assert clock.now() - system.now() > timedelta(hours=24, minutes=59)
    # a second reader naming the same file sees the same time: that is how every process agrees
    assert Clock.named(f"file:{tmp_path / 'clock'}").offset() == 90000
    assert not Clock.named("system").movable and Clock.named(None).offset() == 0


def test_a_file_clock_moves_forward_only(tmp_path: Path) -> None:
    clock = Clock.named(f"file:{tmp_path / 'clock'}")
    clock.advance(60)
    for backwards in (0, -1, float("nan")):
        with pytest.raises(ClockError, match="forward"):
            clock.advance(backwards)
    assert clock.offset() == 60  # nothing changed by the refusals
    with pytest.raises(ClockError, match="system clock cannot be moved"):
        Clock().advance(60)
    (tmp_path / "clock").write_text("-500\n")  # a shrunk offset written by hand still never goes back
    assert clock.offset() == 0
    (tmp_path / "clock").write_text("soon\n")
    with pytest.raises(ClockError, match="not a number"):
        clock.offset()


def test_concurrent_readers_see_the_old_or_the_new_offset_never_a_torn_one(tmp_path: Path) -> None:
    """The file is replaced atomically: readers racing 200 advances never fail to read it, and
    each reader's offsets only grow, ending at the last one."""
    path = tmp_path / "clock"
    writer = Clock.named(f"file:{path}")
    writer.advance(1)
    stop = threading.Event()
    seen: list[list[float]] = [[] for _ in range(4)]
    errors: list[BaseException] = []

    def read(into: list[float]) -> None:
        reader = Clock.named(f"file:{path}")
        try:
            while not stop.is_set():
                into.append(reader.offset())
            into.append(reader.offset())
        except BaseException as exc:  # any failure to read is the bug this test looks for
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(s,)) for s in seen]
    for t in threads:
        t.start()
    for _ in range(200):
        writer.advance(1)
    stop.set()
    for t in threads:
        t.join(30)
    assert not errors
    for offsets in seen:
        assert offsets == sorted(offsets) and offsets[-1] == 201
        assert set(offsets) <= {float(n) for n in range(1, 202)}


# -- settings ------------------------------------------------------------------------------------


def test_the_clock_and_vacation_settings() -> None:
    default = Settings.from_env({})
    assert (default.clock, default.clock_allow_file, default.vacation_days) == ("system", False, 21)
    s = Settings.from_env({"PORTOLAN_CLOCK": "file:/tmp/x", "PORTOLAN_CLOCK_ALLOW_FILE": "on",
                           "PORTOLAN_VACATION_DAYS": "0"})
    assert (s.clock, s.clock_allow_file, s.vacation_days) == ("file:/tmp/x", True, 0)
    for env, says in (({"PORTOLAN_CLOCK": "ntp"}, "'system' or 'file:PATH'"),
                      ({"PORTOLAN_CLOCK": "file:"}, "'system' or 'file:PATH'"),
                      ({"PORTOLAN_CLOCK_ALLOW_FILE": "maybe"}, "on or off"),
                      ({"PORTOLAN_VACATION_DAYS": "400"}, "0 to 366"),
                      ({"PORTOLAN_VACATION_DAYS": "-1"}, "negative")):
        with pytest.raises(ValueError, match=says):
            Settings.from_env(env)


# -- refused where dangerous ---------------------------------------------------------------------


def test_a_file_clock_is_refused_unless_allowed(settings: Settings, tmp_path: Path) -> None:
    refused = file_settings(settings, tmp_path / "clock", allow=False)
    with pytest.raises(ClockRefused, match="PORTOLAN_CLOCK_ALLOW_FILE=on") as exc:
        open_clock(refused)
    assert "tests and `portolan dev` only" in str(exc.value) and "every deadline" in str(exc.value)
    with pytest.raises(ClockRefused):
        build(refused)
    from service.api import create_app

    with pytest.raises(ClockRefused):  # also with an injected service: the app itself refuses
        create_app(refused, build(settings))
    assert not open_clock(settings).movable  # the system clock needs no permission


def test_a_file_clock_in_use_logs_a_warning_naming_its_offset(settings: Settings, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "warned-clock"
    Clock.named(f"file:{path}").advance(7200)
    with caplog.at_level(logging.WARNING, logger="portolan.clock"):
        build(file_settings(settings, path))
        build(file_settings(settings, path))  # once per process, not per build
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "FILE clock" in warnings[0] and str(path) in warnings[0]
    assert "7200 s ahead" in warnings[0]


def _env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PORTOLAN_")}
    return {**env, "REDIS_URL": settings.redis_url, "PORTOLAN_NS": settings.namespace, "PYTHONPATH": str(ROOT),
            "OUTBOX_DIR": settings.outbox_dir, **extra}


def _run(args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.processes  # the CLI, a worker, gunicorn or `portolan dev` as processes
@pytest.mark.parametrize("command", [["worker", "--burst"], ["serve", "--port", "0"]])
def test_serve_and_worker_refuse_to_start_on_a_file_clock(settings: Settings, tmp_path: Path,
                                                         command: list[str]) -> None:
    env = _env(settings, PORTOLAN_CLOCK=f"file:{tmp_path / 'clock'}")
    done = _run([sys.executable, "-m", "service.tools.cli", *command], env)
    assert done.returncode != 0
    assert "names a file clock" in done.stderr and "PORTOLAN_CLOCK_ALLOW_FILE=on" in done.stderr


@pytest.mark.processes  # the CLI, a worker, gunicorn or `portolan dev` as processes
def test_gunicorn_refuses_to_start_on_a_file_clock(settings: Settings, tmp_path: Path) -> None:
    env = _env(settings, PORTOLAN_CLOCK=f"file:{tmp_path / 'clock'}", PORTOLAN_BIND=f"127.0.0.1:{free_port()}",
               PORTOLAN_WORKER_CLASS="sync")
    done = _run([sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
                 "service.api:create_app()"], env, cwd=ROOT)
    assert done.returncode != 0
    assert "names a file clock" in done.stderr and "PORTOLAN_CLOCK_ALLOW_FILE=on" in done.stderr


@pytest.mark.processes  # the CLI, a worker, gunicorn or `portolan dev` as processes
def test_an_allowed_file_clock_starts_a_worker_with_a_warning(settings: Settings, tmp_path: Path) -> None:
    Clock.named(f"file:{tmp_path / 'clock'}").advance(90000)
    env = _env(settings, PORTOLAN_CLOCK=f"file:{tmp_path / 'clock'}", PORTOLAN_CLOCK_ALLOW_FILE="on")
    done = _run([sys.executable, "-m", "service.tools.cli", "worker", "--burst"], env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "FILE clock" in done.stderr and "90000 s ahead of the system clock" in done.stderr


# -- what reads the clock ------------------------------------------------------------------------


def test_health_says_which_clock(settings: Settings, tmp_path: Path) -> None:
    from service.api import create_app

    system = create_app(settings, build(settings), TESTING=True).test_client().get("/healthz").get_json()
    assert system == {"status": "ok", "redis": "ok", "clock": {"source": "system", "offset_s": 0}}
    path = tmp_path / "clock"
    Clock.named(f"file:{path}").advance(3600)
    app = create_app(file_settings(settings, path), TESTING=True)
    assert app.test_client().get("/healthz").get_json()["clock"] == {"source": "file", "offset_s": 3600}
    Clock.named(f"file:{path}").advance(60)  # read at each request: the process sees the move
    assert app.test_client().get("/healthz").get_json()["clock"] == {"source": "file", "offset_s": 3660}


def test_the_service_and_the_sweeps_cutoffs_read_the_file_clock(settings: Settings, tmp_path: Path,
                                                                 players: list[Player]) -> None:
    path = tmp_path / "clock"
    m = build(file_settings(settings, path))
    assert abs((m.moment() - Clock().now()).total_seconds()) < 60
    made = m.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                    creator_key=CREATOR_KEY)
    for seat in (0, 1):
        m.claim(made["id"], seat, made["invites"][str(seat)], players[seat].public_key, players[seat].name,
                f"p{seat}@example.org")
    assert m.meta(made["id"]).status == "active"
    # a turn that began just now is not "a notice that never went out"... until the clock says
    # that two minutes have passed (no notice mark: nothing sent one in this test)
    assert not [w for w in listings.unsent_notices(m, older_than_s=120) if w[0] == made["id"]]
    Clock.named(f"file:{path}").advance(300)
    assert [w for w in listings.unsent_notices(m, older_than_s=120) if w[0] == made["id"]]
    assert m.moment() - Clock().now() > timedelta(seconds=290)
    assert m.now() > m.meta(made["id"]).updated_at


# -- portolan dev's clock ------------------------------------------------------------------------


def test_portolan_dev_runs_on_a_file_clock_in_its_data_folder(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    clock = dev_clock(env, tmp_path / "var")
    assert env == {"PORTOLAN_CLOCK": f"file:{(tmp_path / 'var' / 'clock').resolve()}", "PORTOLAN_CLOCK_ALLOW_FILE": "on"}
    assert clock.movable and (tmp_path / "var" / "clock").read_text() == "0\n"
    assert "a test clock" in clock_line(clock) and "portolan clock advance 25h --clock file:" in clock_line(clock)
    chosen = {"PORTOLAN_CLOCK": "system"}
    assert not dev_clock(chosen, tmp_path / "other").movable and "cannot be moved" in clock_line(Clock())
    assert not (tmp_path / "other" / "clock").exists()


# -- portolan clock ------------------------------------------------------------------------------


def _clock_cli(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("PORTOLAN_") and k not in ("REDIS_URL", "QUEUE_REDIS_URL")}
    # nothing listens there: a tick cannot be sent, and the command must say so, not fail
    base.update({"PYTHONPATH": str(ROOT), "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", **env})
    return _run([sys.executable, "-m", "service.tools.cli", *args], base, cwd=cwd)


@pytest.mark.processes  # the CLI, a worker, gunicorn or `portolan dev` as processes
def test_portolan_clock_show_and_advance(tmp_path: Path) -> None:
    spec = f"file:{tmp_path / 'clock'}"
    shown = _clock_cli(["clock", "show"], tmp_path)
    assert shown.returncode == 0 and "by the system clock" in shown.stdout

    refused = _clock_cli(["clock", "advance", "25h"], tmp_path)
    assert refused.returncode == 2 and "the system clock cannot be moved" in refused.stderr

    moved = _clock_cli(["clock", "advance", "25h"], tmp_path, PORTOLAN_CLOCK=spec)
    assert moved.returncode == 0, moved.stderr
    assert "moved the clock forward by 1 day 1 hour" in moved.stdout
    assert "deadlines are checked at the next sweep" in moved.stdout
    assert Clock.named(spec).offset() == 90000

    for bad, says in (("0s", "forward"), ("yesterday", "not a duration"), ("-3h", "-3h")):
        done = _clock_cli(["clock", "advance", bad], tmp_path, PORTOLAN_CLOCK=spec)
        assert done.returncode == 2 and says in done.stderr, (bad, done.stderr)
    assert Clock.named(spec).offset() == 90000  # nothing moved by a refusal

    facts = json.loads(_clock_cli(["--json", "clock", "show"], tmp_path, PORTOLAN_CLOCK=spec).stdout)
    assert facts["offset_s"] == 90000 and facts["movable"] is True and facts["source"] == "PORTOLAN_CLOCK"
    other = f"file:{tmp_path / 'other'}"  # --clock wins over PORTOLAN_CLOCK
    assert _clock_cli(["clock", "advance", "1d12h", "--clock", other], tmp_path, PORTOLAN_CLOCK=spec).returncode == 0
    assert Clock.named(other).offset() == 129600 and Clock.named(spec).offset() == 90000


@pytest.mark.processes  # the CLI, a worker, gunicorn or `portolan dev` as processes
def test_portolan_clock_finds_the_clock_of_portolan_dev(tmp_path: Path) -> None:
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "clock").write_text("0\n")
    moved = _clock_cli(["clock", "advance", "2h"], tmp_path)
    assert moved.returncode == 0, moved.stderr
    shown = _clock_cli(["clock", "show"], tmp_path)
    assert "the clock of `portolan dev`" in shown.stdout and "2 hours ahead" in shown.stdout
    assert Clock.named(f"file:{tmp_path / 'var' / 'clock'}").offset() == 7200


def test_portolan_clock_advance_asks_the_workers_for_a_tick(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """With service.delivery.clock's ``tick_now`` (the workers' side), advancing calls it with the
    settings of the clock just moved."""
    ticks: list[Any] = []
    fake = types.ModuleType("service.delivery.clock")
    fake.tick_now = ticks.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "service.delivery.clock", fake)
    monkeypatch.setenv("PORTOLAN_CLOCK", f"file:{tmp_path / 'clock'}")
    assert main(["clock", "advance", "3d"]) == 0
    assert "the workers were asked to check deadlines now" in capsys.readouterr().out
    assert len(ticks) == 1 and ticks[0].clock == f"file:{tmp_path / 'clock'}" and ticks[0].clock_allow_file

    def unreachable(_: Any) -> None:
        import redis

        raise redis.ConnectionError("connection refused")

    fake.tick_now = unreachable  # type: ignore[attr-defined]
    assert main(["clock", "advance", "1h"]) == 0
    assert "deadlines are checked at the next sweep (no Redis reachable" in capsys.readouterr().out


def test_offsets_in_plain_words() -> None:
    assert describe_offset(0) == "none"
    assert describe_offset(90000) == "1 day 1 hour"
    assert describe_offset(2 * 86400 + 61) == "2 days 1 minute 1 second"


@pytest.mark.processes  # the CLI, a worker, gunicorn or `portolan dev` as processes
def test_portolan_dev_prints_its_clock_and_portolan_clock_advance_moves_it(tmp_path: Path) -> None:
    """`portolan dev` in a folder, then `portolan clock advance 25h` there with nothing set: every
    process of dev (here: the API's /healthz) sees the clock 25 hours ahead."""
    import signal
    import time

    import requests

    port, mail_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PORTOLAN_") and k not in ("REDIS_URL", "SMTP_URL", "OUTBOX_DIR", "PUBLIC_URL")}
    env.update({"PYTHONPATH": str(ROOT), "PORTOLAN_MAIL_RECEIVER": f"127.0.0.1:{mail_port}"})
    proc = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "dev", "--port", str(port)], env=env,
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 90
        while not any("Ctrl-C stops everything" in line for line in lines):
            assert proc.poll() is None and time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        banner = "".join(lines)
        clock_file = (tmp_path / "var" / "clock").resolve()
        assert f"clock: a test clock, file:{clock_file}, 0 s ahead" in banner
        assert "move every process forward with: portolan clock advance 25h\n" in banner
        health = f"http://127.0.0.1:{port}/healthz"
        assert requests.get(health, timeout=10).json()["clock"] == {"source": "file", "offset_s": 0}
        moved = _run([sys.executable, "-m", "service.tools.cli", "clock", "advance", "25h"],
                     env, cwd=tmp_path)
        assert moved.returncode == 0, moved.stderr
        assert requests.get(health, timeout=10).json()["clock"] == {"source": "file", "offset_s": 90000}
        assert (tmp_path / "var" / "dev.json").exists()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        reader.join(timeout=10)
    assert proc.returncode == 0, "".join(lines)
    assert not (tmp_path / "var" / "dev.json").exists()
    assert "FILE clock" in "".join(lines)  # the worker's (and the API's) warning at start
