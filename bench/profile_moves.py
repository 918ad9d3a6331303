"""Where a signed move's server CPU goes: a few thousand moves in one process, under a profiler.

    python -m bench.profile_moves [--moves 3000] [--matches 16] [--profiler cprofile|pyinstrument|none]
                                  [--view full|none] [--top 40]

The app (``service.api.create_app``) runs in this process behind Flask's test client, on a real
Redis: its own embedded one (``service.storage.embedded``) unless ``REDIS_URL`` is set, under a
``PORTOLAN_NS`` namespace of its own whose keys it deletes afterwards (never FLUSHALL). The clients
play harbour races (``tests.helpers.fixture_game``) as ``bench.api_moves`` does: sign an envelope, POST it,
and on a turn change make one signed GET of the next seat's view. Matches are created before the
profiler starts, so only moves (and their GETs) are profiled.

The test client builds a WSGI environ instead of parsing HTTP, so gunicorn's share is missing;
everything from ``Flask.wsgi_app`` inward is the server's own. ``--profiler none`` prints the
wall time per move only (a quick before/after of one change). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import json
import os
import pstats
import random
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from service.games.undo import without_undo
from service.proof import signing


class ServerCpu:
    """The app's own CPU per route: thread time from entering ``wsgi_app`` until the response
    body is produced. Thread time, not wall time, so the neighbours' load and the wait for Redis
    are not counted; the client side (the test client) is outside."""

    def __init__(self, app: Any) -> None:
        self.by_route: dict[tuple[str, str], list[float]] = {}
        inner = app.wsgi_app

        def timed(environ: dict[str, Any], start_response: Any) -> Any:
            t0 = time.thread_time()
            body = list(inner(environ, start_response))
            key = (environ["REQUEST_METHOD"], _route_of(environ["PATH_INFO"]))
            self.by_route.setdefault(key, []).append(time.thread_time() - t0)
            return body

        app.wsgi_app = timed

    def reset(self) -> None:
        self.by_route.clear()


def _route_of(path: str) -> str:
    """/v1/matches/ID/seats/0/view -> /v1/matches/{id}/seats/{seat}/view"""
    parts = path.split("/")
    if len(parts) > 3 and parts[2] == "matches":
        parts[3] = "{id}"
    if len(parts) > 5 and parts[4] == "seats":
        parts[5] = "{seat}"
    return "/".join(parts)


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Table:
    """One match with both seats, played at random through the test client."""

    def __init__(self, client: Any, rand: random.Random, view: str) -> None:
        self.client = client
        self.rand = rand
        self.keys = [signing.generate_private_key(), signing.generate_private_key()]
        self.creator = signing.generate_private_key()
        self.query = "" if view == "full" else f"?view={view}"
        self.counter = 0
        self.gets = 0
        self.new_match()

    def new_match(self) -> None:
        made = json.dumps({"game": "harbour-race", "options": {"target": 100},
                           "seats": [{"invite": "a@bench.example.org"}, {"invite": "b@bench.example.org"}]},
                          separators=(",", ":")).encode()
        resp = self.client.post("/v1/matches", data=made, content_type="application/json", headers={
            "Authorization": signing.authorization(self.creator, "POST", "/v1/matches", body=made)})
        assert resp.status_code == 201, resp.get_json()
        body = resp.get_json()
        self.match = body["id"]
        for seat in (0, 1):
            resp = self.client.post(f"/v1/matches/{self.match}/seats/{seat}/claim", json={
                "token": body["invites"][str(seat)], "public_key": signing.public_key_of(self.keys[seat]),
                "name": f"bench {seat}", "nonce": secrets.token_hex(8)})
            assert resp.status_code == 200, resp.get_json()
        shown = self.client.get(f"/v1/matches/{self.match}").get_json()
        self.ply, self.seat = shown["ply"], shown["active_seats"][0]
        self.legal = self.fetch_legal(self.seat)

    def fetch_legal(self, seat: int) -> list[dict[str, Any]]:
        path = f"/v1/matches/{self.match}/seats/{seat}/view"
        resp = self.client.get(path, headers={"Authorization": signing.authorization(self.keys[seat], "GET", path)})
        assert resp.status_code == 200, resp.get_json()
        view = resp.get_json()
        self.ply = view["ply"]
        self.gets += 1
        return without_undo([a["action"] for a in view["legal_actions"]])

    def move(self) -> None:
        self.counter += 1
        env = {"match": self.match, "seat": self.seat, "ply": self.ply,
               "actions": [self.rand.choice(self.legal)], "nonce": f"p{self.counter}"}
        resp = self.client.post(f"/v1/matches/{self.match}/moves{self.query}",
                                json={"envelope": env, "signature": signing.sign(self.keys[self.seat], env)})
        assert resp.status_code == 201, resp.get_json()
        result = resp.get_json()
        self.ply = result["ply"]
        if result["status"] != "active":
            self.new_match()
            return
        view = result.get("view")
        if view is not None and self.seat in view["active_seats"]:
            self.legal = without_undo([a["action"] for a in view["legal_actions"]])
            return
        # without a view in the answer, the mover's own legal actions need a GET too
        self.seat = view["active_seats"][0] if view is not None else self._next_seat()
        self.legal = self.fetch_legal(self.seat)

    def _next_seat(self) -> int:
        shown = self.client.get(f"/v1/matches/{self.match}").get_json()
        self.gets += 1
        return int(shown["active_seats"][0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--profiler", choices=["cprofile", "pyinstrument", "none"], default="cprofile")
    parser.add_argument("--view", choices=["full", "none"], default="full", help="the move POST's ?view=")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    from service import games
    from service.api import create_app
    from service.config import Settings
    from service.runtime import build
    from tests.helpers.fixture_game import GAME

    games.register(GAME)
    tmp = Path(tempfile.mkdtemp(prefix="portolan-profile-"))
    ns = f"profile-{secrets.token_hex(4)}:"
    redis_url = os.environ.get("REDIS_URL", "")
    embedded = None
    try:
        if not redis_url:
            from service.storage.embedded import EmbeddedRedis

            embedded = EmbeddedRedis(tmp / "redis", durable=False)
            redis_url = embedded.start()
        os.environ.update(PORTOLAN_RATE_LIMITS="off", PORTOLAN_INVITES_PER_CREATOR_HOUR="0",
                          PORTOLAN_INVITES_PER_RECIPIENT_DAY="0", PORTOLAN_INVITES_PER_ADDRESS_HOUR="0",
                          PORTOLAN_INVITES_INSTALL_HOUR="0")
        settings = Settings.from_env()
        settings = dataclasses.replace(settings, redis_url=redis_url, namespace=ns, outbox_dir=str(tmp / "outbox"),
                                       smtp_url=None)
        app = create_app(settings, build(settings))
        spent = ServerCpu(app)
        client = app.test_client()
        rand = random.Random(args.seed)
        tables = [Table(client, rand, args.view) for _ in range(args.matches)]
        for t in tables:
            t.gets = 0
        spent.reset()
        redis_cpu = _cpu_of(embedded.proc.pid) if embedded is not None and embedded.proc is not None else None
        profiler: Any = None
        if args.profiler == "cprofile":
            # CPU time, not wall time: on a shared machine a wall clock charges whoever was
            # preempted, and time spent waiting for Redis is not this process's cost
            profiler = cProfile.Profile(time.process_time)
        elif args.profiler == "pyinstrument":
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.0002)
        start, cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable() if args.profiler == "cprofile" else profiler.start()
        for i in range(args.moves):
            tables[i % len(tables)].move()
        if profiler is not None:
            profiler.disable() if args.profiler == "cprofile" else profiler.stop()
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        gets = sum(t.gets for t in tables)
        print(f"{args.moves} moves and {gets} GETs in {took:.2f} s, {cpu:.2f} s of this process's CPU: "
              f"{1e6 * cpu / args.moves:.0f} µs CPU per move (GETs and the client side included; view={args.view})")
        for (method, endpoint), times in sorted(spent.by_route.items()):
            times.sort()
            # the median and the lower quartile move less with the neighbours' load than the mean
            print(f"  server CPU (thread time inside the app) {method} {endpoint}: {len(times)} requests, "
                  f"mean {1e6 * sum(times) / len(times):.0f} µs, median {1e6 * times[len(times) // 2]:.0f} µs, "
                  f"lower quartile {1e6 * times[len(times) // 4]:.0f} µs")
        if redis_cpu is not None and embedded is not None and embedded.proc is not None:
            used = _cpu_of(embedded.proc.pid) - redis_cpu
            print(f"  redis-server CPU: {1e6 * used / args.moves:.0f} µs per move")
        if args.profiler == "cprofile":
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
            print(out.getvalue())
        elif args.profiler == "pyinstrument":
            print(profiler.output_text(unicode=True, color=False, show_all=False))
        return 0
    finally:
        if embedded is not None:
            embedded.stop()
        elif redis_url:
            import redis

            r = redis.Redis.from_url(redis_url)
            doomed = list(r.scan_iter(match=f"{ns}*", count=1000)) + list(r.scan_iter(match=f"rq:*{ns}*", count=1000))
            for i in range(0, len(doomed), 500):
                r.delete(*doomed[i:i + 500])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
