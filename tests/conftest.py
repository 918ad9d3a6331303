"""Shared fixtures: a real Redis, a namespace of our own, the app, an SMTP sink, players.

Redis: ``REDIS_URL`` when set, else a redis-server this session starts itself (the embedded
default). Every test gets its own key namespace and RQ queue names, and cleans only those.
``PORTOLAN_TEST_REDIS=cluster`` starts a 3-master Redis Cluster instead, and a plain Redis for the
queues (``QUEUE_REDIS_URL``, set for the child processes too): .ci/run runs the end-to-end and
racing tests once more so (issue 15).

Under pytest-xdist (``-n 2``) every worker is a session of its own: its own redis-server (or
cluster, and queue Redis, whose URL it sets in its own process's environment), its own tmp paths,
free ports asked of the OS; the workers share nothing but the machine.
"""

from __future__ import annotations

import json as jsonlib
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service import games
from service.config import Settings
from service.play.matches import Matches
from service.proof import signing
from service.runtime import build
from service.storage.connection import connect
from service.storage.embedded import EmbeddedCluster, EmbeddedRedis, free_port
from tests.helpers.fixture_game import GAME as FIXTURE
from tests.helpers.serving import serving

games.register(FIXTURE)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    if os.environ.get("PORTOLAN_TEST_REDIS") == "cluster":
        cluster = EmbeddedCluster(tmp_path_factory.mktemp("cluster"))
        queues = EmbeddedRedis(tmp_path_factory.mktemp("queues"), durable=False)
        url = cluster.start()
        os.environ["QUEUE_REDIS_URL"] = queues.start()
        try:
            yield url
        finally:
            cluster.stop()
            queues.stop()
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), durable=False)
    url = server.start()
    yield url
    server.stop()


@pytest.fixture
def namespace(redis_url: str) -> Iterator[str]:
    ns = f"ptest-{uuid.uuid4().hex[:10]}:"
    yield ns
    drop_namespace(ns, redis_url, os.environ.get("QUEUE_REDIS_URL") or redis_url)


def drop_namespace(ns: str, state_url: str, queue_url: str) -> None:
    """Delete a test's keys: its namespace where the matches are and where the queues are, and its
    RQ keys. Only those: the tests never flush a server."""
    for url, pattern in ((state_url, f"{ns}*"), (queue_url, f"{ns}*"), (queue_url, f"rq:*{ns}*")):
        client = connect(url)  # on a cluster: SCAN over every node, DEL split by slot
        keys = list(client.scan_iter(match=pattern, count=1000))
        if keys:
            client.delete(*keys)


@pytest.fixture
def settings(redis_url: str, namespace: str, tmp_path: Path) -> Settings:
    return Settings(redis_url=redis_url, smtp_url=None, outbox_dir=str(tmp_path / "outbox"),
                    public_url="http://portolan.test", namespace=namespace, server_key=None,
                    mail_from="Portolan <turns@portolan.test>", mail_require_auth=False,
                    queue_redis_url=os.environ.get("QUEUE_REDIS_URL", ""))


@pytest.fixture
def service(settings: Settings) -> Matches:
    return build(settings)


@pytest.fixture
def app(settings: Settings, service: Matches) -> Any:
    from service.api import create_app

    return create_app(settings, service, TESTING=True)


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def served(app: Any) -> Iterator[str]:
    """The app over real HTTP, as `portolan dev` and `portolan serve` run it (werkzeug's threaded
    server, a free loopback port, the test Redis behind it); yields the base URL."""
    with serving(app) as url:
        yield url


@pytest.fixture
def gevent_served(settings: Settings, tmp_path: Path) -> Iterator[str]:
    """The API as it ships: gunicorn with a gevent worker, started exactly as ``portolan dev``
    starts it (``devserver.gunicorn_command``), in its own process on the test's Redis and
    namespace (the fixture game loaded as a plugin); yields the base URL."""
    import subprocess
    import time

    import requests

    from service.tools.devserver import gunicorn_command

    port = free_port()
    env = {**os.environ, "REDIS_URL": settings.redis_url, "PORTOLAN_NS": settings.namespace,
           "OUTBOX_DIR": settings.outbox_dir, "PUBLIC_URL": settings.public_url, "PORTOLAN_PLUGINS": "tests.helpers.fixture_game",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    log = open(tmp_path / "gunicorn.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(gunicorn_command("127.0.0.1", port), env=env, stdout=log, stderr=log, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "gunicorn.log").read_text()[-3000:]
            try:
                if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:  # the master listens before its worker is ready
                pass
            assert time.monotonic() < deadline, "gunicorn did not come up"
            time.sleep(0.1)
        yield url
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        log.close()


@dataclass
class SmtpSink:
    url: str
    messages: list[Any] = field(default_factory=list)


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    """A real SMTP server (aiosmtpd) on loopback that keeps every message it receives."""
    from email import message_from_bytes
    from email.policy import default

    sink = SmtpSink(url="")

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            sink.messages.append(message_from_bytes(envelope.content, policy=default))
            return "250 OK"

    with smtp_server(Handler()) as url:
        sink.url = url
        yield sink


@contextmanager
def smtp_server(handler: Any) -> Iterator[str]:
    """A real SMTP server (aiosmtpd) on a free loopback port running ``handler``; yields its URL."""
    from aiosmtpd.controller import Controller

    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield f"smtp://127.0.0.1:{port}"
    finally:
        controller.stop()


@dataclass
class Player:
    """A person with a key pair, as the CLI would hold it."""

    name: str
    private_key: str = field(default_factory=signing.generate_private_key)

    @property
    def public_key(self) -> str:
        return signing.public_key_of(self.private_key)

    def envelope(self, match: str, seat: int, ply: int, actions: list[dict[str, Any]], nonce: str = "n") -> dict[str, Any]:
        env = {"match": match, "seat": seat, "ply": ply, "actions": actions, "nonce": nonce}
        return {"envelope": env, "signature": signing.sign(self.private_key, env)}

    def auth(self, method: str, path: str, query: str = "", body: bytes = b"") -> dict[str, str]:
        return signed_headers(self.private_key, method, path, body, query)


def signed_headers(private_key: str, method: str, path: str, body: bytes = b"", query: str = "") -> dict[str, str]:
    """The headers of a signed request (docs/signing.md): the one place the tests build them."""
    return {"Authorization": signing.authorization(private_key, method, path, query, body)}


ON_CLUSTER = os.environ.get("PORTOLAN_TEST_REDIS") == "cluster"
"""The session runs on a Redis Cluster (see ``redis_url``): a test that counts one Redis's round
trips skips then, as redis-py's cluster client splits them by node."""
one_redis_only = pytest.mark.skipif(ON_CLUSTER, reason="counts the round trips of one Redis, not of a cluster")

CREATOR = signing.generate_private_key()
"""The key the tests create matches with, unless a test is about who the creator is."""
CREATOR_KEY = signing.public_key_of(CREATOR)


def signed_post(client: Any, path: str, json: Any = None, private_key: str = CREATOR,
                data: bytes | str | None = None, **kwargs: Any) -> Any:
    """POST through the Flask test client as a signed request: the body is sent as exactly the
    bytes that were signed (text is sent as UTF-8)."""
    body = (data.encode() if isinstance(data, str) else data) if data is not None else jsonlib.dumps(json).encode()
    headers = {**signed_headers(private_key, "POST", path, body), **kwargs.pop("headers", {})}
    return client.post(path, data=body, headers=headers, content_type=kwargs.pop("content_type", "application/json"),
                       **kwargs)


def create_match(client: Any, body: dict[str, Any], private_key: str = CREATOR) -> Any:
    """``POST /v1/matches`` signed by ``private_key`` (the creator); returns the response."""
    return signed_post(client, "/v1/matches", body, private_key)


@pytest.fixture
def players() -> list[Player]:
    return [Player("Ana"), Player("Bea"), Player("Cid"), Player("Dov")]


def as_in_a_worker(monkeypatch: pytest.MonkeyPatch, env: dict[str, Any]) -> None:
    """Give the jobs ``env``: they build their settings and service from the environment, as in
    a worker process, so what they built from an earlier test's environment is dropped too."""
    for name, value in env.items():
        monkeypatch.setenv(name, str(value))
    forget_worker_service()


def forget_worker_service() -> None:
    """Drop the settings and service the jobs built (they are cached per process)."""
    from workers import jobs

    jobs.settings.cache_clear()
    jobs.service.cache_clear()


def worker_burst(settings: Settings) -> None:
    """Run a real RQ worker until the queues are empty."""
    from workers.worker import run

    run(settings, burst=True)


__all__ = ["CREATOR", "CREATOR_KEY", "Player", "SmtpSink", "as_in_a_worker", "connect", "create_match", "forget_worker_service", "signed_headers", "signed_post", "worker_burst"]
