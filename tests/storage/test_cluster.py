"""The store on a real Redis Cluster (issue 15), in the default suite: three masters started from
the redis-server binary the project ships (``EmbeddedCluster``), the queues on a plain Redis of
their own (``QUEUE_REDIS_URL``), and the whole way of a match over them: create, claim, play
against a bot that a real RQ worker moves, turn notices over SMTP, the record, its verification,
archiving. .ci/run also runs the end-to-end and racing tests on a cluster
(``PORTOLAN_TEST_REDIS=cluster``); this module keeps the cluster in every plain run.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.api import create_app
from service.config import Settings
from service.proof.verify import verify_record
from service.runtime import build
from service.storage.embedded import EmbeddedCluster, EmbeddedRedis
from tests.conftest import ON_CLUSTER, Player, SmtpSink, as_in_a_worker, drop_namespace, forget_worker_service
from tests.helpers.matches import create

pytestmark = pytest.mark.processes  # a 3-master Redis Cluster of its own and a worker process

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A 3-master cluster and a plain Redis for the queues: their URLs."""
    nodes = EmbeddedCluster(tmp_path_factory.mktemp("cluster"))
    queues = EmbeddedRedis(tmp_path_factory.mktemp("queues"), durable=False)
    try:
        yield nodes.start(), queues.start()
    finally:
        nodes.stop()
        queues.stop()


@pytest.fixture
def on_cluster(cluster: tuple[str, str], settings: Settings, smtp_sink: SmtpSink, tmp_path: Path,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """The test's settings moved onto the cluster (its own namespace there, cleaned after)."""
    state, queues = cluster
    ns = f"pcluster-{uuid.uuid4().hex[:8]}:"
    s = dataclasses.replace(settings, redis_url=state, queue_redis_url=queues, namespace=ns, smtp_url=smtp_sink.url,
                            outbox_dir=str(tmp_path / "outbox"))
    as_in_a_worker(monkeypatch, {"REDIS_URL": state, "QUEUE_REDIS_URL": queues, "PORTOLAN_NS": ns,
                                 "SMTP_URL": smtp_sink.url, "OUTBOX_DIR": s.outbox_dir, "PUBLIC_URL": s.public_url})
    yield s
    forget_worker_service()
    drop_namespace(ns, state, queues)


def test_the_connection_is_a_cluster_client_and_the_queues_are_not(on_cluster: Settings) -> None:
    m = build(on_cluster)
    assert isinstance(m.store.r, redis.RedisCluster)
    assert len(m.store.r.get_primaries()) == 3
    assert isinstance(m.store.q, redis.Redis) and not isinstance(m.store.q, redis.RedisCluster)


@pytest.mark.skipif(ON_CLUSTER, reason="this session's own Redis is the cluster already")
def test_a_whole_match_on_the_cluster(on_cluster: Settings, smtp_sink: SmtpSink, players: list[Player]) -> None:
    m = build(on_cluster)
    client = create_app(on_cluster, m).test_client()
    ids = []
    for _ in range(6):  # several matches: their ids fall in different buckets, so on different nodes
        made = create(client, [{"invite": "p0@example.org"}, {"bot": "random"}], target=8)
        ids.append(made["id"])
        r = client.post(f"/v1/matches/{made['id']}/seats/0/claim", json={
            "token": made["invites"]["0"], "public_key": players[0].public_key, "name": "Ana",
            "email": "p0@example.org"})
        assert r.status_code == 200, r.get_json()
    nodes = {m.store.r.get_node_from_key(m.store._k(mid, "meta")).name for mid in ids}  # type: ignore[attr-defined]
    homes = Counter(nodes)
    mid = ids[0]
    worker = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "worker"], cwd=ROOT,
                              env=dict(os.environ, PORTOLAN_PLUGINS="tests.helpers.fixture_game", PYTHONPATH=str(ROOT)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "the match did not finish"
            view = client.get(f"/v1/matches/{mid}").get_json()
            if view["status"] == "finished":
                break
            if 0 not in view["active_seats"]:
                time.sleep(0.02)  # the bot's turn: the worker plays it
                continue
            action = "bank" if view["board"]["haul"] >= 3 else "roll"
            r = client.post(f"/v1/matches/{mid}/moves?view=none",
                            json=players[0].envelope(mid, 0, view["ply"], [{"type": action}]))
            assert r.status_code == 201, r.get_json()
        while not any(msg["X-Portolan-Notice"] == f"over:{mid}:0" for msg in list(smtp_sink.messages)):
            assert time.monotonic() < deadline, "no match-over mail"
            time.sleep(0.05)
    finally:
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:  # a warm shutdown waits for the job in hand
            worker.kill()
            worker.wait()
    record: dict[str, Any] = client.get(f"/v1/matches/{mid}/record").get_json()
    assert verify_record(record).ok
    sent = Counter(msg["X-Portolan-Notice"] for msg in smtp_sink.messages)
    # (a turn notice the player beat to it is not sent: the test moves as soon as its turn comes)
    assert sent[f"over:{mid}:0"] == 1
    assert all(n == 1 for n in sent.values()), sent
    # the listing reads every bucket of every node
    listed = client.get("/v1/matches?limit=100").get_json()
    assert set(ids) <= {row["id"] for row in listed["matches"]}
    # archived out of the cluster, and read back the same
    assert m.store.archive(mid)
    again = client.get(f"/v1/matches/{mid}/record").get_json()
    assert again["entries"] == record["entries"] and verify_record(again).ok
    assert len(homes) >= 2, f"six matches all on one node: {homes}"
