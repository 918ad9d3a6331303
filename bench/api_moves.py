"""HTTP move throughput: signed moves through gunicorn + Flask + Redis, against a bare Flask app.

    python -m bench.api_moves --clients 32 --seconds 20 [--rounds 2] [--game harbour-race]
                              [--worker-class gthread --threads 4 --workers 2] [--procs 4]

What it starts (and stops again, whatever happens):

* a Redis of its own (``service.storage.embedded.EmbeddedRedis``, no persistence) unless ``REDIS_URL``
  is set; on a Redis it did not start it deletes only its own namespace's keys and the RQ keys
  of its own queues and jobs (never FLUSHALL);
* gunicorn serving ``service.api:create_app()`` with ``PORTOLAN_NS=bench-<random>:`` on a free
  loopback port, and a second gunicorn with the same configuration serving :func:`bare_app`, a
  Flask app whose one endpoint reads a JSON body and answers a tiny JSON object.

Phase 1 (moves): every client owns one 2-seat match (two human seats, two Ed25519 keys, created
and claimed over HTTP before the clock starts) and plays random legal moves: it signs an
envelope with ``service.proof.signing``, POSTs it, and takes the next ply and the legal actions from
the move response (``ply`` and ``view.legal_actions``), so a move is one request. The move
response only carries the mover's legal actions: when the turn passes to the other seat the
client makes one signed GET of that seat's view (counted and timed apart, and included in the
wall time, so it lowers moves/s). A finished match is replaced by a new one (also counted).
Every move appends its outbox entry inside the commit's Lua script (issue 10; before it, every
turn change enqueued a turn notice to RQ inside the move request). No worker or dispatcher runs,
so the outbox entries stay unread: the append is part of the measured cost of a move, the fan-out
is not. Comparing with a build from before the outbox compares the enqueue with the append.

Phase 2 (bare): the same clients POST a body of the same size to the bare app for as long.
``--rounds N`` alternates the two phases N times, which evens out a machine whose background
load drifts; the server CPU per request (read from /proc for gunicorn and the embedded Redis)
gives a ratio that such load does not skew.

Clients are threads spread over several processes (``--procs``), each with its own keep-alive
``http.client`` connection, so the client side is not held back by one GIL. The clients run on
the same machine as the servers and take CPU from them: the table shows how much.
Nothing here is asserted; the figures go into the notes.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.games.undo import without_undo
from service.proof import signing

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_GAME = "harbour-race"
FIXTURE_PLUGIN = "tests.helpers.fixture_game"
HTTP_TIMEOUT_S = 10.0
SETUP_BUDGET_S = 60.0


# -- the bare app (served by its own gunicorn: 'bench.api_moves:bare_app()') -------------------


def bare_app() -> Any:
    """A Flask app with one JSON endpoint: the floor that Flask + gunicorn alone cost."""
    from flask import Flask, request

    app = Flask("portolan-bare")

    @app.post("/bare")
    def bare() -> Any:
        request.get_json(force=True, silent=True)
        return {"ok": True}

    @app.get("/healthz")
    def healthz() -> Any:
        return {"status": "ok"}

    return app


# -- the client side --------------------------------------------------------------------------


class BenchError(Exception):
    pass


class Http:
    """One keep-alive connection (reopened when the server closes it, as sync workers do)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HTTP_TIMEOUT_S)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        # bytes go as they are: a signed request sends exactly the body it signed
        data = body if isinstance(body, bytes) or body is None else json.dumps(body, separators=(",", ":")).encode()
        hdrs = {"Content-Type": "application/json"} if data is not None else {}
        hdrs.update(headers or {})
        try:
            self.conn.request(method, path, body=data, headers=hdrs)
            resp = self.conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()  # one retry on a fresh connection (a keep-alive the server dropped)
            self.conn.request(method, path, body=data, headers=hdrs)
            resp = self.conn.getresponse()
            raw = resp.read()
        if resp.will_close:
            self.conn.close()
        return resp.status, (json.loads(raw) if raw else None)

    def close(self) -> None:
        self.conn.close()


@dataclass
class Tally:
    """What one client process measured inside the window."""

    moves: int = 0
    move_lat: list[float] = field(default_factory=list)
    view_gets: int = 0
    view_lat: list[float] = field(default_factory=list)
    setups: int = 0  # matches created (and claimed) inside the window
    setup_requests: int = 0
    notices: int = 0  # moves after which a different seat must act (a turn notice each, once dispatched)
    finished: int = 0
    bare: int = 0
    bare_lat: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    cpu_s: float = 0.0
    server_cpu: dict[str, float] = field(default_factory=dict)  # seconds per server process group
    loads: list[float] = field(default_factory=list)  # 1-minute load average when each phase started

    def merge(self, t: Tally) -> None:
        self.moves += t.moves
        self.move_lat += t.move_lat
        self.view_gets += t.view_gets
        self.view_lat += t.view_lat
        self.setups += t.setups
        self.setup_requests += t.setup_requests
        self.notices += t.notices
        self.finished += t.finished
        self.bare += t.bare
        self.bare_lat += t.bare_lat
        self.errors += t.errors
        self.cpu_s += t.cpu_s
        for k, v in t.server_cpu.items():
            self.server_cpu[k] = self.server_cpu.get(k, 0.0) + v
        self.loads += t.loads


class Player:
    """One client: one match with both seats, played at random through the API."""

    def __init__(self, port: int, game: str, options: dict[str, Any], seed: int, tally: Tally,
                 lock: threading.Lock, window: tuple[float, float]) -> None:
        self.http = Http(port)
        self.game = game
        self.options = options
        self.rand = random.Random(seed)
        self.tally = tally
        self.lock = lock
        self.t0, self.t1 = window
        self.keys = [signing.generate_private_key(), signing.generate_private_key()]
        self.creator = signing.generate_private_key()  # creating a match is a signed request
        self.match = ""
        self.ply = 0
        self.seat = 0
        self.legal: list[dict[str, Any]] = []
        self.counter = 0

    def _in_window(self, start: float, end: float) -> bool:
        return start >= self.t0 and end <= self.t1

    def new_match(self) -> None:
        start = time.time()
        made = json.dumps({"game": self.game, "options": self.options,
                           "seats": [{"invite": "seat0@bench.example.org"}, {"invite": "seat1@bench.example.org"}]},
                          separators=(",", ":")).encode()
        status, body = self.http.call("POST", "/v1/matches", made, headers={
            "Authorization": signing.authorization(self.creator, "POST", "/v1/matches", body=made)})
        if status != 201:
            raise BenchError(f"create: {status} {body}")
        self.match = body["id"]
        for seat in (0, 1):
            status, claimed = self.http.call("POST", f"/v1/matches/{self.match}/seats/{seat}/claim", {
                "token": body["invites"][str(seat)], "public_key": signing.public_key_of(self.keys[seat]),
                "name": f"bench {seat}", "nonce": secrets.token_hex(8)})
            if status != 200:
                raise BenchError(f"claim: {status} {claimed}")
        status, shown = self.http.call("GET", f"/v1/matches/{self.match}")
        if status != 200 or shown["status"] != "active":
            raise BenchError(f"show: {status} {shown}")
        self.ply = shown["ply"]
        self.seat = shown["active_seats"][0]
        self.legal = self._fetch_legal(self.seat, count=False)
        if self._in_window(start, time.time()):
            with self.lock:
                self.tally.setups += 1
                self.tally.setup_requests += 5

    def _fetch_legal(self, seat: int, count: bool = True) -> list[dict[str, Any]]:
        path = f"/v1/matches/{self.match}/seats/{seat}/view"
        start = time.time()
        status, view = self.http.call("GET", path, headers={"Authorization": signing.authorization(self.keys[seat], "GET", path)})
        end = time.time()
        if status != 200:
            raise BenchError(f"view: {status} {view}")
        if count and self._in_window(start, end):
            with self.lock:
                self.tally.view_gets += 1
                self.tally.view_lat.append(end - start)
        self.ply = view["ply"]
        return without_undo([a["action"] for a in view["legal_actions"]])

    def move(self) -> None:
        action = self.rand.choice(self.legal)
        self.counter += 1
        env = {"match": self.match, "seat": self.seat, "ply": self.ply, "actions": [action], "nonce": f"b{self.counter}"}
        body = {"envelope": env, "signature": signing.sign(self.keys[self.seat], env)}
        start = time.time()
        status, result = self.http.call("POST", f"/v1/matches/{self.match}/moves", body)
        end = time.time()
        if status != 201:
            raise BenchError(f"move: {status} {result}")
        inside = self._in_window(start, end)
        if inside:
            with self.lock:
                self.tally.moves += 1
                self.tally.move_lat.append(end - start)
        self.ply = result["ply"]
        view = result["view"]
        if result["status"] != "active":
            if inside:
                with self.lock:
                    self.tally.finished += 1
            self.new_match()
            return
        active = view["active_seats"]
        if self.seat in active:
            self.legal = without_undo([a["action"] for a in view["legal_actions"]])
            return
        if inside:
            with self.lock:
                self.tally.notices += 1
        self.seat = active[0]
        self.legal = self._fetch_legal(self.seat)

    def run_moves(self) -> None:
        while time.time() < self.t1:
            self.move()

    def run_bare(self, body: dict[str, Any]) -> None:
        while time.time() < self.t1:
            start = time.time()
            status, _ = self.http.call("POST", "/bare", body)
            end = time.time()
            if status != 200:
                raise BenchError(f"bare: {status}")
            if self._in_window(start, end):
                with self.lock:
                    self.tally.bare += 1
                    self.tally.bare_lat.append(end - start)


def client_process(mode: str, port: int, n_clients: int, game: str, options: dict[str, Any], seed: int,
                   ready: Any, go: Any, window_len: float, out: Any) -> None:
    """Run ``n_clients`` threads. Setup first (matches created and claimed), then report
    ready and wait for the common start time; the parent's ``go`` value is the window start."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    tally = Tally()
    lock = threading.Lock()
    cpu0 = os.times()
    players: list[Player] = []
    try:
        far = time.time() + 3600.0
        for i in range(n_clients):
            p = Player(port, game, options, seed * 1000 + i, tally, lock, (far, far))
            if mode == "moves":
                p.new_match()
            players.append(p)
    except Exception as exc:
        tally.errors.append(f"setup: {exc!r}")
    ready.put(len(players))
    t0 = go.get()
    if t0 is None or tally.errors:
        out.put(tally)
        return
    for p in players:
        p.t0, p.t1 = t0, t0 + window_len
    bare_body = {"envelope": {"match": "x" * 12, "seat": 0, "ply": 0, "actions": [{"type": "roll"}], "nonce": "b1"},
                 "signature": "s" * 86}

    def loop(p: Player) -> None:
        try:
            if mode == "moves":
                p.run_moves()
            else:
                p.run_bare(bare_body)
        except Exception as exc:
            with lock:
                tally.errors.append(repr(exc))
        finally:
            p.http.close()

    cpu0 = os.times()
    threads = [threading.Thread(target=loop, args=(p,), daemon=True) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join(window_len + 2 * HTTP_TIMEOUT_S + 5)
    cpu1 = os.times()
    tally.cpu_s = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    out.put(tally)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes so far (Linux /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, ValueError, IndexError):
                continue
    return out


def run_phase(mode: str, port: int, clients: int, procs: int, seconds: float, game: str,
              options: dict[str, Any], watch: dict[str, list[int]] | None = None) -> Tally:
    """Spread ``clients`` over ``procs`` processes, start them together, merge their tallies."""
    ctx = mp.get_context("spawn")
    ready, out = ctx.Queue(), ctx.Queue()
    gos = []
    children = []
    per = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
    for i, n in enumerate(x for x in per if x):
        go = ctx.Queue()
        child = ctx.Process(target=client_process, args=(mode, port, n, game, options, i, ready, go, seconds, out),
                            daemon=True)
        child.start()
        gos.append(go)
        children.append(child)
    merged = Tally()
    try:
        for _ in children:
            ready.get(timeout=SETUP_BUDGET_S)
        t0 = time.time() + 1.0  # a common start for every process
        for go in gos:
            go.put(t0)
        merged.loads.append(os.getloadavg()[0])
        if watch and sys.platform.startswith("linux"):  # server CPU spent inside the window
            time.sleep(max(0.0, t0 - time.time()))
            before = {k: cpu_seconds(v) for k, v in watch.items()}
            time.sleep(max(0.0, t0 + seconds - time.time()))
            merged.server_cpu = {k: cpu_seconds(v) - before[k] for k, v in watch.items()}
        for _ in children:
            t = out.get(timeout=seconds + 2 * HTTP_TIMEOUT_S + 60)
            t.loads, t.server_cpu = [], {}  # the parent measures those
            merged.merge(t)
    finally:
        for go in gos:
            go.put(None)  # harmless when already started; unblocks a child still waiting
        for child in children:
            child.join(5)
            if child.is_alive():
                child.terminate()
                child.join(5)
    return merged


# -- the server side --------------------------------------------------------------------------


@dataclass
class ServerConfig:
    workers: int
    worker_class: str
    threads: int

    def describe(self) -> str:
        extra = f", {self.threads} threads each" if self.worker_class == "gthread" else ""
        return f"gunicorn -w {self.workers} -k {self.worker_class}{extra}"


class Gunicorn:
    def __init__(self, app_spec: str, cfg: ServerConfig, env: dict[str, str], log_path: Path) -> None:
        from service.storage.embedded import free_port

        self.port = free_port()
        self.log_path = log_path
        args = [sys.executable, "-m", "gunicorn", "--chdir", str(ROOT), "--bind", f"127.0.0.1:{self.port}",
                "--workers", str(cfg.workers), "--worker-class", cfg.worker_class, "--backlog", "2048",
                "--timeout", "30", "--graceful-timeout", "5", "--keep-alive", "30",
                "--error-logfile", str(log_path), "--log-level", "warning"]
        if cfg.worker_class == "gthread":
            args += ["--threads", str(cfg.threads)]
        self.log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([*args, app_spec], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)

    def wait_ready(self, path: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"gunicorn exited at start:\n{self.log_path.read_text()[-3000:]}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", path)
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.1)
        raise BenchError(f"gunicorn did not answer {path} within {timeout}s:\n{self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def cleanup_namespace(redis_url: str, ns: str, queue_url: str) -> int:
    """Delete this run's keys on a Redis this bench did not start: the namespace (on a cluster
    too), its RQ queues and the jobs those queues (and their registries) name, on the queues'
    Redis (``queue_url``). Returns how many keys went."""
    from service.storage.connection import connect

    gone = 0
    if queue_url != redis_url:
        state = connect(redis_url)  # on a cluster: SCAN over every node, DEL split by slot
        keys = list(state.scan_iter(match=f"{ns}*", count=1000))
        if keys:
            state.delete(*keys)
        gone += len(keys)
    client = connect(queue_url)
    doomed: set[bytes] = set()
    for pattern in (f"{ns}*", f"rq:*{ns}*"):
        doomed.update(client.scan_iter(match=pattern, count=1000))
    job_ids: set[bytes] = set()
    for key in doomed:
        kind = client.type(key)
        if kind == b"list" and key.startswith(b"rq:"):
            job_ids.update(client.lrange(key, 0, -1))  # type: ignore[arg-type]
        elif kind == b"zset" and key.startswith(b"rq:"):
            job_ids.update(client.zrange(key, 0, -1))  # type: ignore[arg-type]
    for jid in job_ids:
        doomed.update(client.scan_iter(match=b"rq:*" + jid + b"*", count=1000))
    queues = [k for k in doomed if k.startswith(b"rq:queue:")]
    if queues:
        client.srem("rq:queues", *queues)
    keys = sorted(doomed)
    for i in range(0, len(keys), 500):
        client.delete(*keys[i:i + 500])
    return gone + len(keys)


# -- report -----------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(x: float) -> str:
    return f"{1000 * x:.1f} ms"


def per_request(cpu: dict[str, float], n: int) -> str:
    if not cpu or not n:
        return "n/a"
    parts = [f"{k} {1e6 * v / n:.0f} µs" for k, v in cpu.items()]
    return f"{1e6 * sum(cpu.values()) / n:.0f} µs ({', '.join(parts)})"


def cpu_ratio(moves: Tally, bare: Tally) -> str:
    """Moves per bare request at equal server CPU: what the ratio would be on a machine where
    the servers had the CPUs to themselves (the clients' and the neighbours' load cancels)."""
    if not (moves.server_cpu and bare.server_cpu and moves.moves and bare.bare):
        return "n/a"
    per_move = sum(moves.server_cpu.values()) / moves.moves
    per_bare = sum(bare.server_cpu.values()) / bare.bare
    return f"{per_bare / per_move:.0%} (server CPU per bare request / per move, GETs and setups included)"


def verdict(moves_s: float, bare_s: float, lat: list[float]) -> str:
    ratio_ok = bool(bare_s) and moves_s / bare_s >= 0.6
    p99_ok = bool(lat) and pct(lat, 0.99) <= 0.050
    return f"ratio {'met' if ratio_ok else 'NOT met'}, p99 {'met' if p99_ok else 'NOT met'}"


def report(args: argparse.Namespace, cfg: ServerConfig, moves: Tally, bare: Tally, queued: dict[str, int]) -> None:
    s = args.seconds * args.rounds
    moves_s = moves.moves / s
    api_s = (moves.moves + moves.view_gets + moves.setup_requests) / s
    bare_s = bare.bare / s
    rows = [
        ("clients (threads / processes)", f"{args.clients} / {args.procs}"),
        ("server", f"{cfg.describe()} ({os.cpu_count()} CPUs shared with the clients)"),
        ("game", f"{args.game} {json.dumps(args.options)}"),
        ("measured time per phase", f"{s:g} s" + (f" ({args.rounds} rounds of moves then bare, {args.seconds:g} s each)"
                                                  if args.rounds > 1 else "")),
        ("", ""),
        ("signed moves accepted", f"{moves.moves}"),
        ("signed moves/s", f"{moves_s:,.0f}"),
        ("move POST p50 / p90 / p99", f"{ms(pct(moves.move_lat, 0.5))} / {ms(pct(moves.move_lat, 0.9))} / "
                                      f"{ms(pct(moves.move_lat, 0.99))}"),
        ("move POST max", ms(max(moves.move_lat, default=float("nan")))),
        ("turn changes (a notice each, via the outbox)", f"{moves.notices} ({100 * moves.notices / max(moves.moves, 1):.0f}% of moves)"),
        ("view GETs on turn change", f"{moves.view_gets}, p50 {ms(pct(moves.view_lat, 0.5))}, p99 {ms(pct(moves.view_lat, 0.99))}"),
        ("matches finished / new in window", f"{moves.finished} / {moves.setups} ({moves.setup_requests} setup requests)"),
        ("all API requests/s", f"{api_s:,.0f}"),
        ("client CPU per move phase", f"{moves.cpu_s:.1f} s ({1e6 * moves.cpu_s / max(moves.moves, 1):.0f} µs per move)"),
        ("server CPU per move", per_request(moves.server_cpu, moves.moves)),
        ("", ""),
        ("bare Flask req/s", f"{bare_s:,.0f}"),
        ("bare POST p50 / p99", f"{ms(pct(bare.bare_lat, 0.5))} / {ms(pct(bare.bare_lat, 0.99))}"),
        ("client CPU per bare phase", f"{bare.cpu_s:.1f} s ({1e6 * bare.cpu_s / max(bare.bare, 1):.0f} µs per request)"),
        ("server CPU per bare request", per_request(bare.server_cpu, bare.bare)),
        ("", ""),
        ("ratio signed moves/s : bare req/s", f"{moves_s / bare_s:.0%}" if bare_s else "n/a"),
        ("ratio all API req/s : bare req/s", f"{api_s / bare_s:.0%}" if bare_s else "n/a"),
        ("ratio by server CPU (bare : move)", cpu_ratio(moves, bare)),
        ("1-min load average at phase start", f"moves {', '.join(f'{x:.1f}' for x in moves.loads)}; bare "
                                              f"{', '.join(f'{x:.1f}' for x in bare.loads)} (it counts runnable threads, this bench's own included)"),
        ("issue 15 target", ">= 60% of bare, p99 <= 50 ms at 32 clients: " + verdict(moves_s, bare_s, moves.move_lat)),
        ("RQ jobs left queued (no worker)", ", ".join(f"{k}: {v}" for k, v in queued.items())),
    ]
    width = max(len(k) for k, _ in rows)
    print()
    print("-" * (width + 50))
    for k, v in rows:
        print(f"{k:<{width}}  {v}" if k else "")
    print("-" * (width + 50))
    errors = moves.errors + bare.errors
    if errors:
        print(f"{len(errors)} client errors, first: {errors[:3]}")


# -- main -------------------------------------------------------------------------------------


def hosted_games() -> list[str]:
    games_dir = ROOT / "service" / "games"
    real = [p.name.replace("_", "-") for p in games_dir.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    return [FIXTURE_GAME, *sorted(real)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each measured phase")
    parser.add_argument("--game", default=FIXTURE_GAME, choices=hosted_games())
    parser.add_argument("--options", type=json.loads, default=None,
                        help='match options as JSON (default for harbour-race: {"target": 100}, long matches)')
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-class", default="gthread", choices=["sync", "gthread", "gevent"],
                        help="gevent: the production model (deploy/gunicorn.conf.py); gunicorn patches at its start")
    parser.add_argument("--threads", type=int, default=4, help="threads per gthread worker")
    parser.add_argument("--procs", type=int, default=4, help="client processes the client threads are spread over")
    parser.add_argument("--rounds", type=int, default=1,
                        help="alternate the two phases this many times (evens out a machine whose load drifts)")
    parser.add_argument("--skip-bare", action="store_true")
    parser.add_argument("--cluster", action="store_true",
                        help="match state on a 3-master Redis Cluster of its own, the queues on a plain Redis")
    parser.add_argument("--rate-limits", action="store_true",
                        help="count the API's rate limits (raised so they never trip) to measure their cost; "
                             "off by default, since every client is one address")
    args = parser.parse_args(argv)
    if args.options is None:
        args.options = {"target": 100} if args.game == FIXTURE_GAME else {}
    args.procs = max(1, min(args.procs, args.clients))
    args.rounds = max(1, args.rounds)
    cfg = ServerConfig(args.workers, args.worker_class, args.threads)

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    tmp = Path(tempfile.mkdtemp(prefix="portolan-bench-"))
    ns = f"bench-{secrets.token_hex(4)}:"
    redis_url = os.environ.get("REDIS_URL", "")
    queue_url = os.environ.get("QUEUE_REDIS_URL", "")  # "": the queues are in REDIS_URL
    embedded = None
    cluster = None
    queues = None
    servers: list[Gunicorn] = []
    try:
        if args.cluster:
            from service.storage.embedded import EmbeddedCluster, EmbeddedRedis

            cluster = EmbeddedCluster(tmp / "cluster")
            redis_url = cluster.start()
            queues = EmbeddedRedis(tmp / "queues", durable=False)
            queue_url = queues.start()
        elif not redis_url:
            from service.storage.embedded import EmbeddedRedis

            embedded = EmbeddedRedis(tmp / "redis", durable=False)
            redis_url = embedded.start()
        env = dict(os.environ, REDIS_URL=redis_url, PORTOLAN_NS=ns, OUTBOX_DIR=str(tmp / "outbox"),
                   PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        env.pop("PORTOLAN_SERVER_KEY", None)
        if queue_url:
            env["QUEUE_REDIS_URL"] = queue_url
        # every client is 127.0.0.1 and invites the same two addresses, many times a minute: the
        # abuse limits would measure themselves; --rate-limits keeps the request limits on
        env.update(PORTOLAN_INVITES_PER_CREATOR_HOUR="0", PORTOLAN_INVITES_PER_RECIPIENT_DAY="0",
                   PORTOLAN_INVITES_PER_ADDRESS_HOUR="0", PORTOLAN_INVITES_INSTALL_HOUR="0")
        if not args.rate_limits:
            env["PORTOLAN_RATE_LIMITS"] = "off"
        else:  # counted, so their cost is measured, but raised so that they never trip
            for name in ("PORTOLAN_RATE_READ", "PORTOLAN_RATE_WRITE", "PORTOLAN_RATE_CREATE",
                         "PORTOLAN_RATE_CREATE_PER_ADDRESS"):
                env.setdefault(name, "100000000/minute")
        if args.game == FIXTURE_GAME:
            env["PORTOLAN_PLUGINS"] = ",".join(filter(None, [os.environ.get("PORTOLAN_PLUGINS"), FIXTURE_PLUGIN]))
        where = ("a 3-master cluster (embedded) + a queue Redis" if cluster else "embedded" if embedded
                 else urllib.parse.urlsplit(redis_url)._replace(netloc="…").geturl())
        print(f"redis: {where}; namespace {ns}; {cfg.describe()}; {args.clients} clients in {args.procs} processes")
        api = Gunicorn("service.api:create_app()", cfg, env, tmp / "api.log")
        servers.append(api)
        bare_srv = Gunicorn("bench.api_moves:bare_app()", cfg, env, tmp / "bare.log")
        servers.append(bare_srv)
        api.wait_ready("/healthz")
        bare_srv.wait_ready("/healthz")

        moves, bare = Tally(), Tally()
        for r in range(1, args.rounds + 1):
            print(f"round {r}/{args.rounds}: signed moves for {args.seconds:g} s ...", flush=True)
            watch = {"gunicorn": [api.proc.pid, *children_of(api.proc.pid)]}
            if embedded is not None and embedded.proc is not None:
                watch["redis"] = [embedded.proc.pid]
            if cluster is not None:
                watch["redis"] = [n.proc.pid for n in cluster.nodes if n.proc is not None]
            moves.merge(run_phase("moves", api.port, args.clients, args.procs, args.seconds, args.game, args.options,
                                  watch))
            if moves.errors:
                print(f"move clients failed: {moves.errors[:3]}\n{(tmp / 'api.log').read_text()[-3000:]}")
                break
            if not args.skip_bare:
                print(f"round {r}/{args.rounds}: bare Flask for {args.seconds:g} s ...", flush=True)
                bare.merge(run_phase("bare", bare_srv.port, args.clients, args.procs, args.seconds, args.game,
                                     args.options, {"gunicorn": [bare_srv.proc.pid, *children_of(bare_srv.proc.pid)]}))

        import redis

        client = redis.Redis.from_url(queue_url or redis_url)
        queued = {kind: int(client.llen(f"rq:queue:{ns}{kind}")) for kind in ("notices", "bots")}  # type: ignore[arg-type]
        report(args, cfg, moves, bare, queued)
        return 1 if moves.errors or bare.errors else 0
    except KeyboardInterrupt:
        print("interrupted; cleaning up", file=sys.stderr)
        return 130
    finally:
        for srv in servers:
            srv.stop()
        if cluster is not None and queues is not None:
            cluster.stop()
            queues.stop()
        elif embedded is not None:
            embedded.stop()
        elif redis_url:
            try:
                gone = cleanup_namespace(redis_url, ns, queue_url or redis_url)
                print(f"deleted {gone} keys of namespace {ns} from the given Redis")
            except Exception as exc:  # report, never mask the run's own outcome
                print(f"cleanup of {ns} failed: {exc!r}", file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
