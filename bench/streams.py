"""Event streams under load: N open SSE clients while signed moves flow, on the server model that ships.

    python -m bench.streams --streams 1000 --matches 20 --movers 4 --seconds 15 [--workers 2] [--procs 4]

What it starts (and stops again, whatever happens): a Redis of its own unless ``REDIS_URL`` is set
(then only its own namespace's keys are deleted afterwards), and gunicorn with the gevent worker
serving ``service.api:create_app()`` (``--workers`` processes) on a free loopback port.

Setup: ``--matches`` harbour-race matches with two human seats each, created (signed) and claimed
over HTTP. Then ``--streams`` SSE clients (httpx-sse, threads spread over ``--procs`` processes)
each open ``GET /v1/matches/{id}/events`` of one match (round robin) and wait until every one has
its ``started`` event. Then, for ``--seconds``, ``--movers`` threads play the matches (always
``roll``: a 1 passes the turn, so no match ends) with signed moves as fast as the server answers,
and a prober GETs ``/healthz`` every 100 ms. Reported:

* moves/s and the move request latency (p50/p99), the /healthz latency while the streams are open;
* the event latency, commit to client: the client's clock at receipt minus the event's ``at``
  (the server's clock when it accepted the move, ms resolution; same machine, same clock), p50/p99;
* how many events the clients received, and whether each stream got every ply in order.

Clients, movers and servers share the machine (the clients parse every event of every stream,
which costs CPU the server then lacks): on 2 cores the figures are a floor, not a capacity.
Nothing is asserted; tests/test_bench_smoke.py runs a tiny configuration to keep it working.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.api_moves import (
    FIXTURE_PLUGIN,
    BenchError,
    Gunicorn,
    Http,
    ServerConfig,
    children_of,
    cleanup_namespace,
    cpu_seconds,
    ms,
    pct,
)
from service.proof import signing


def make_match(port: int) -> dict[str, Any]:
    """A started 2-seat harbour race: its id, the seats' keys, the seat to move and the ply."""
    http = Http(port)
    creator = signing.generate_private_key()
    keys = [signing.generate_private_key(), signing.generate_private_key()]
    body = json.dumps({"game": "harbour-race", "options": {"target": 100},
                       "seats": [{"invite": "seat0@bench.example.org"}, {"invite": "seat1@bench.example.org"}]}).encode()
    status, made = http.call("POST", "/v1/matches", body,
                             headers={"Authorization": signing.authorization(creator, "POST", "/v1/matches", body=body)})
    if status != 201:
        raise BenchError(f"create: {status} {made}")
    for seat in (0, 1):
        status, claimed = http.call("POST", f"/v1/matches/{made['id']}/seats/{seat}/claim", {
            "token": made["invites"][str(seat)], "public_key": signing.public_key_of(keys[seat]),
            "name": f"bench {seat}", "nonce": secrets.token_hex(8)})
        if status != 200:
            raise BenchError(f"claim: {status} {claimed}")
    status, shown = http.call("GET", f"/v1/matches/{made['id']}")
    http.close()
    return {"id": made["id"], "keys": keys, "seat": shown["active_seats"][0], "ply": shown["ply"]}


# -- the stream clients (threads in child processes) ------------------------------------------


def _follow(url: str, ready: threading.Semaphore, stop: threading.Event, out: dict[str, Any], lock: threading.Lock) -> None:
    import httpx
    from httpx_sse import connect_sse

    lat: list[float] = []
    received, in_order, last = 0, True, -1
    try:
        with httpx.Client(timeout=httpx.Timeout(60.0)) as http, connect_sse(http, "GET", url) as source:
            for sse in source.iter_sse():
                if not sse.data:
                    continue
                now = time.time()
                ply = int(sse.id)
                in_order = in_order and ply == last + 1
                last = ply
                if sse.event == "started":
                    ready.release()
                    continue
                event = sse.json()
                lat.append(now - datetime.fromisoformat(event["at"]).timestamp())
                received += 1
                if stop.is_set():
                    break
    except Exception as exc:
        with lock:
            out["errors"].append(repr(exc))
        ready.release()
    with lock:
        out["lat"].extend(lat)
        out["received"] += received
        out["in_order"] = out["in_order"] and in_order


def stream_process(port: int, match_ids: list[str], first: int, n: int, ready_q: Any, stop_ev: Any, result_q: Any) -> None:
    """``n`` stream clients (the ``first``-th on, round robin over the matches); reports once all
    are connected, and its measurements after ``stop_ev``."""
    out: dict[str, Any] = {"lat": [], "received": 0, "in_order": True, "errors": []}
    lock = threading.Lock()
    ready = threading.Semaphore(0)
    stop = threading.Event()
    threads = [threading.Thread(target=_follow, daemon=True, args=(
        f"http://127.0.0.1:{port}/v1/matches/{match_ids[(first + i) % len(match_ids)]}/events", ready, stop, out, lock))
        for i in range(n)]
    for t in threads:
        t.start()
    for _ in range(n):
        ready.acquire()
    ready_q.put(len(out["errors"]))
    stop_ev.wait()
    stop.set()  # each client leaves at its next event (the movers make one more move per match)
    for t in threads:
        t.join(30)
    result_q.put(out)


# -- movers and the prober (threads here) ------------------------------------------------------


def mover(port: int, matches: list[dict[str, Any]], until: float, lat: list[float], errors: list[str],
          rounds: int | None = None) -> None:
    """Roll in each of ``matches`` in turn until ``until`` (or for ``rounds`` rounds)."""
    http = Http(port)
    done = 0
    try:
        while time.time() < until and (rounds is None or done < rounds):
            done += 1
            for m in matches:
                seat, ply = m["seat"], m["ply"]
                env = {"match": m["id"], "seat": seat, "ply": ply, "actions": [{"type": "roll"}], "nonce": secrets.token_hex(6)}
                t0 = time.time()
                status, body = http.call("POST", f"/v1/matches/{m['id']}/moves",
                                         {"envelope": env, "signature": signing.sign(m["keys"][seat], env)})
                lat.append(time.time() - t0)
                if status != 201:
                    errors.append(f"move: {status} {body}")
                    return
                m["ply"], m["seat"] = body["ply"], body["view"]["active_seats"][0]
    finally:
        http.close()


def final_moves(port: int, matches: list[dict[str, Any]], errors: list[str]) -> None:
    """One more move in each match."""
    mover(port, matches, float("inf"), [], errors, rounds=1)


def prober(port: int, until: float, lat: list[float], errors: list[str]) -> None:
    http = Http(port)
    while time.time() < until:
        t0 = time.time()
        status, _ = http.call("GET", "/healthz")
        lat.append(time.time() - t0)
        if status != 200:
            errors.append(f"healthz: {status}")
        time.sleep(0.1)
    http.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--movers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn gevent worker processes")
    parser.add_argument("--procs", type=int, default=4, help="client processes the stream clients are spread over")
    args = parser.parse_args(argv)
    args.procs = max(1, min(args.procs, args.streams))
    args.movers = max(1, min(args.movers, args.matches))

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    tmp = Path(tempfile.mkdtemp(prefix="portolan-bench-streams-"))
    ns = f"bench-{secrets.token_hex(4)}:"
    redis_url = os.environ.get("REDIS_URL", "")
    embedded = None
    server: Gunicorn | None = None
    children: list[mp.Process] = []
    try:
        if not redis_url:
            from service.storage.embedded import EmbeddedRedis

            embedded = EmbeddedRedis(tmp / "redis", durable=False)
            redis_url = embedded.start()
        root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ, REDIS_URL=redis_url, PORTOLAN_NS=ns, OUTBOX_DIR=str(tmp / "outbox"),
                   PORTOLAN_RATE_LIMITS="off", PORTOLAN_INVITES_PER_CREATOR_HOUR="0",
                   PORTOLAN_INVITES_PER_RECIPIENT_DAY="0", PORTOLAN_INVITES_PER_ADDRESS_HOUR="0",
                   PORTOLAN_INVITES_INSTALL_HOUR="0", PORTOLAN_STREAMS="5000",
                   # every client of the bench is one loopback address: the per-client bound is off
                   PORTOLAN_STREAMS_PER_CLIENT="0",
                   GUNICORN_CMD_ARGS="--worker-connections 5000",
                   PORTOLAN_PLUGINS=",".join(filter(None, [os.environ.get("PORTOLAN_PLUGINS"), FIXTURE_PLUGIN])),
                   PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        env.pop("PORTOLAN_SERVER_KEY", None)
        cfg = ServerConfig(args.workers, "gevent", 0)
        server = Gunicorn("service.api:create_app()", cfg, env, tmp / "api.log")
        server.wait_ready("/healthz")
        print(f"{cfg.describe()}; {args.streams} streams over {args.matches} matches in {args.procs} client "
              f"processes; {args.movers} movers for {args.seconds:g} s", flush=True)
        matches = [make_match(server.port) for _ in range(args.matches)]
        ids = [m["id"] for m in matches]
        ctx = mp.get_context("spawn")
        ready_q, result_q, stop_ev = ctx.Queue(), ctx.Queue(), ctx.Event()
        per = [args.streams // args.procs + (1 if i < args.streams % args.procs else 0) for i in range(args.procs)]
        first = 0
        t_connect = time.time()
        for n in per:
            p = ctx.Process(target=stream_process, args=(server.port, ids, first, n, ready_q, stop_ev, result_q), daemon=True)
            p.start()
            children.append(p)
            first += n
        connect_errors = sum(ready_q.get(timeout=300) for _ in children)
        connect_s = time.time() - t_connect
        move_lat: list[float] = []
        health_lat: list[float] = []
        errors: list[str] = []
        server_pids = [server.proc.pid, *children_of(server.proc.pid)]
        cpu0 = cpu_seconds(server_pids)
        t0 = time.time()
        until = t0 + args.seconds
        workers = [threading.Thread(target=mover, args=(server.port, matches[i::args.movers], until, move_lat, errors))
                   for i in range(args.movers)]
        workers.append(threading.Thread(target=prober, args=(server.port, until, health_lat, errors)))
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.time() - t0
        server_cpu = cpu_seconds(server_pids) - cpu0
        moves = len(move_lat)
        stop_ev.set()
        final_moves(server.port, matches, errors)  # every client wakes once more and leaves
        results = [result_q.get(timeout=120) for _ in children]
        lat = [x for r in results for x in r["lat"]]
        received = sum(r["received"] for r in results)
        stream_errors = [e for r in results for e in r["errors"]]
        in_order = all(r["in_order"] for r in results)
        print(f"""
open streams                   {args.streams} (all connected in {connect_s:.1f} s; {connect_errors} failed to connect)
moves                          {moves} in {elapsed:.1f} s = {moves / elapsed:.0f} moves/s
move latency p50 / p99         {ms(pct(move_lat, 0.5))} / {ms(pct(move_lat, 0.99))}
/healthz latency p50 / p99     {ms(pct(health_lat, 0.5))} / {ms(pct(health_lat, 0.99))} (max {ms(max(health_lat, default=0))}, {len(health_lat)} probes)
events received                {received} (expected about {moves * args.streams // args.matches}; every stream in order: {in_order})
event latency p50 / p99        {ms(pct(lat, 0.5))} / {ms(pct(lat, 0.99))} (commit to client)
API CPU (gunicorn)             {server_cpu:.1f} s in {elapsed:.1f} s = {ms(server_cpu / max(moves, 1))} per move""")
        if errors or stream_errors:
            print(f"errors: {(errors + stream_errors)[:5]}\n{(tmp / 'api.log').read_text()[-3000:]}")
            return 1
        return 0
    except KeyboardInterrupt:
        print("interrupted; cleaning up", file=sys.stderr)
        return 130
    finally:
        for p in children:
            if p.is_alive():
                p.terminate()
                p.join(5)
        if server is not None:
            server.stop()
        if embedded is not None:
            embedded.stop()
        elif redis_url:
            try:
                cleanup_namespace(redis_url, ns)
            except Exception as exc:
                print(f"cleanup of {ns} failed: {exc!r}", file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
