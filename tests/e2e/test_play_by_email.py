"""End to end: two people playing with the ``portolan`` CLI and a random bot, over real HTTP,
a real worker process, a real Redis and a real SMTP sink. Players act when their turn notice
arrives, as in play-by-email; every notice must arrive exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from service import games
from service.config import Settings
from service.games.base import Rng
from service.games.undo import UNDO
from service.proof import signing
from service.proof.replay import replay
from service.proof.verify import verify_record
from service.storage.embedded import free_port
from service.tools.cli.main import main
from tests.conftest import SmtpSink

pytestmark = pytest.mark.processes  # `portolan worker` as a child process (stack)

ROOT = Path(__file__).resolve().parents[2]
GAME_IDS = sorted(games.registry())
# Ophir's CLI game is three minutes of subprocesses (a CLI call per step of a long game), and El
# Capitán's two and a half (fewer steps since undo is picked one time in 20, UNDO_ONE_IN; the turns,
# and their notices, are as many): they run under the slow marker, so the default suite stays under ten
# minutes (.ci/run runs El Capitán's after it); their rules, record and verifier are in the
# default suite through tests/games and tests/test_verify.py.
SLOW_GAMES = {"ophir", "el-capitan"}
# who sits at the table: two people and a random bot, except Ophir, whose 2-player game brings
# its own rival ship (moved by the seat whose turn it is) instead of a third seat
BOT_SEATS = {"ophir": 0}


@pytest.fixture
def stack(settings: Settings, smtp_sink: SmtpSink, tmp_path: Path) -> Iterator[str]:
    """The API on a loopback port and `portolan worker` as a child process."""
    from service.api import create_app
    from service.runtime import build

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, REDIS_URL=settings.redis_url, PORTOLAN_NS=settings.namespace, SMTP_URL=smtp_sink.url,
               PUBLIC_URL=url, PORTOLAN_PLUGINS="tests.helpers.fixture_game", PYTHONPATH=str(ROOT))
    # the worker's log goes to a file: a pipe nobody reads fills up and blocks the worker
    log = (tmp_path / "worker.log").open("wb")
    worker = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "worker"], env=env, cwd=ROOT,
                              stdout=log, stderr=subprocess.STDOUT)
    s = Settings(**{**settings.__dict__, "smtp_url": smtp_sink.url, "public_url": url})
    server = make_server("127.0.0.1", port, create_app(s, build(s)), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url
    finally:
        server.shutdown()
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:
            worker.kill()
        log.close()


class CliPlayer:
    """A person at a terminal: their own config folder, running `portolan` commands."""

    def __init__(self, home: Path, url: str, email: str) -> None:
        self.home, self.url, self.email = home, url, email

    def run(self, *args: str, capsys: pytest.CaptureFixture[str]) -> str:
        old = os.environ.get("PORTOLAN_HOME")
        os.environ["PORTOLAN_HOME"] = str(self.home)
        try:
            capsys.readouterr()
            code = main(["--server", self.url, *args])
            out = capsys.readouterr().out
        finally:
            if old is None:
                os.environ.pop("PORTOLAN_HOME", None)
            else:
                os.environ["PORTOLAN_HOME"] = old
        assert code == 0, out
        return out


def notices_for(sink: SmtpSink, match: str, seat: int) -> list[Any]:
    return [m for m in list(sink.messages) if m["X-Portolan-Notice"].startswith(f"notice:{match}:{seat}:")]


UNDO_ONE_IN = 20
"""Where undo is offered, the player takes it about one time in this many. A uniform pick took it
as often as any step (one pick in five of El Capitán's, half its game undoing and redoing, twice
its CLI calls); at one in 20 a whole El Capitán match still undoes about 50 times through the CLI."""


def choose(legal: list[dict[str, Any]], pick: Rng) -> int:
    """The index of a random step among ``legal`` (as ``portolan actions --json`` lists them), or of
    undo about one time in :data:`UNDO_ONE_IN` where it is offered (or where it is all there is)."""
    undo = [i for i, a in enumerate(legal) if a["action"].get("type") == UNDO]
    steps = [i for i in range(len(legal)) if i not in undo]
    if undo and (not steps or pick.randbelow(UNDO_ONE_IN) == 0):
        return undo[0]
    return steps[pick.randbelow(len(steps))]


def wait_for(predicate: Any, timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# El Capitán (2 minutes on two busy cores) in CI's slow step; Ophir (9 minutes) with PORTOLAN_SOAK=1
@pytest.mark.parametrize("game", [pytest.param(g, marks=pytest.mark.soak if g == "ophir" else pytest.mark.slow)
                                  if g in SLOW_GAMES else g for g in GAME_IDS])
def test_two_cli_players_and_a_bot_play_to_the_end(game: str, stack: str, smtp_sink: SmtpSink, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    ana = CliPlayer(tmp_path / "ana", stack, "ana@example.org")
    bea = CliPlayer(tmp_path / "bea", stack, "bea@example.org")
    ana.run("keygen", capsys=capsys)
    bea.run("keygen", capsys=capsys)
    assert oct((tmp_path / "ana" / "keys" / "default.key").stat().st_mode & 0o777) == "0o600"
    bots = ["--bot", "random"] * BOT_SEATS.get(game, 1)
    made = json.loads(ana.run("--json", "create", game, "--invite", ana.email, "--invite", bea.email, *bots,
                              capsys=capsys))
    mid = made["id"]
    ana.run("claim", mid, "0", made["invites"]["0"], "--name", "Ana", "--email", ana.email, capsys=capsys)
    bea.run("claim", mid, "1", made["invites"]["1"], "--name", "Bea", "--email", bea.email, capsys=capsys)
    people = {0: ana, 1: bea}
    seen = {0: 0, 1: 0}
    pick = Rng.from_seed(f"e2e/{game}")
    deadline = time.monotonic() + 600
    while True:
        view = json.loads(ana.run("--json", "show", mid, capsys=capsys))
        if view["status"] == "finished":
            break
        assert time.monotonic() < deadline, "the match did not finish"
        humans = [s for s in view["active_seats"] if s in people]
        if not humans:
            time.sleep(0.02)  # the bot's turn: the worker plays it
            continue
        seat = humans[0]
        p = people[seat]
        wait_for(lambda s=seat: len(notices_for(smtp_sink, mid, s)) > seen[s], what=f"seat {seat}'s turn notice")
        seen[seat] = len(notices_for(smtp_sink, mid, seat))
        turns = json.loads(p.run("--json", "my-turns", capsys=capsys))
        assert {"match": mid, "seat": seat} in [{"match": t["match"], "seat": t["seat"]} for t in turns]
        ply = view["ply"]
        while True:  # act until the turn passes: a bot that plays its whole turn at once may hand it
            # straight back, and that next turn is the one its notice announces, so it waits for it
            now = json.loads(p.run("--json", "show", mid, capsys=capsys))
            if now["ply"] != ply or seat not in now["active_seats"]:
                break
            legal = json.loads(p.run("--json", "actions", mid, capsys=capsys))
            if not legal:
                break
            p.run("move", mid, "--pick", str(1 + choose(legal, pick)), capsys=capsys)
            ply += 1
    text = ana.run("show", mid, capsys=capsys)
    assert "finished" in text and "Final:" in text
    record = json.loads(ana.run("record", mid, capsys=capsys))
    assert verify_record(record).ok
    # every human turn start got exactly one notice, and nothing else did
    expected: Counter[str] = Counter()
    game_obj = games.get(game)
    assert game_obj is not None
    before: list[int] = []
    for step in replay(record["header"], bytes.fromhex(record["seed"]), record["entries"]):
        active = game_obj.active_seats(step.state)
        for s in active:
            if s in people and s not in before:
                expected[f"notice:{mid}:{s}:{step.ply + 1}"] += 1
        before = active
    wait_for(lambda: sum(1 for m in smtp_sink.messages if m["X-Portolan-Notice"].startswith("over:")) == 2,
             what="the match-over mails")
    got = Counter(m["X-Portolan-Notice"] for m in smtp_sink.messages if m["X-Portolan-Notice"].startswith("notice:"))
    assert got == expected
    assert all(n == 1 for n in got.values())


def test_the_cli_creates_signed_and_only_the_creator_aborts(stack: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    ana = CliPlayer(tmp_path / "ana", stack, "ana@example.org")
    bea = CliPlayer(tmp_path / "bea", stack, "bea@example.org")
    # no keygen first: create makes the key it signs with, as claim does
    out = ana.run("create", "harbour-race", "--invite", bea.email, "--bot", "random", capsys=capsys)
    assert out.startswith("new key 'default'")  # the key it made and signed with
    mid = out.split("\nmatch ", 1)[1].split()[0]
    assert f"portolan abort {mid}" in out and "creator token" not in out
    ana_key = signing.public_key_of((tmp_path / "ana" / "keys" / "default.key").read_text().strip())
    assert json.loads(ana.run("--json", "show", mid, capsys=capsys))["creator_key"] == ana_key
    bea.run("keygen", capsys=capsys)
    with monkeypatch.context() as env:
        env.setenv("PORTOLAN_HOME", str(bea.home))
        assert main(["--server", stack, "abort", mid]) == 2
    assert "403 not-the-creator" in capsys.readouterr().err
    assert ana.run("abort", mid, capsys=capsys).strip() == f"match {mid} is aborted"
