"""Ended matches leave Redis for the archive; every read route serves them as before (issue 15).

Real Redis (the session's own), the archive in the test's folder, the API through Flask's test
client; the CLI in a child process.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis

from service.config import Settings
from service.play.archiving import archive_due, archive_one
from service.play.matches import Matches
from service.proof.verify import verify_record
from service.storage.archive import FolderArchive, pack, unpack
from service.storage.connection import connect
from tests.conftest import Player
from tests.helpers.matches import started


def _play_to_the_end(client: Any, players: list[Player], mid: str) -> list[dict[str, Any]]:
    """Both seats play a (seeded) random legal action until the match ends; the accepted envelopes."""
    pick = random.Random(mid)
    sent = []
    for _ in range(500):
        match = client.get(f"/v1/matches/{mid}").get_json()
        if match["status"] != "active":
            return sent
        seat = match["active_seats"][0]
        path = f"/v1/matches/{mid}/seats/{seat}/view"
        view = client.get(path, headers=players[seat].auth("GET", path)).get_json()
        env = players[seat].envelope(mid, seat, match["ply"], [pick.choice(view["legal_actions"])["action"]])
        r = client.post(f"/v1/matches/{mid}/moves", json=env)
        assert r.status_code == 201, r.get_json()
        sent.append(env)
    raise AssertionError("the match did not end")


def _reads(client: Any, players: list[Player], mid: str) -> dict[str, Any]:
    """Everything the read routes answer about a match, public and per seat."""
    out: dict[str, Any] = {
        "match": client.get(f"/v1/matches/{mid}").get_json(),
        "log": client.get(f"/v1/matches/{mid}/log?from=0").get_json(),
        "record": client.get(f"/v1/matches/{mid}/record").get_json(),
        "board": client.get(f"/v1/matches/{mid}/board.svg").data,
    }
    for seat in (0, 1):
        path = f"/v1/matches/{mid}/seats/{seat}/view"
        out[f"view{seat}"] = client.get(path, headers=players[seat].auth("GET", path)).get_json()
    return out


def _keys_of(r: redis.Redis, namespace: str, mid: str) -> list[str]:
    return sorted(k.decode() for k in r.scan_iter(match=f"{namespace}*{mid}*"))


def test_an_archived_match_reads_as_before_and_its_record_verifies(
        client: Any, service: Matches, settings: Settings, players: list[Player]) -> None:
    mid, _ = started(client, players)
    sent = _play_to_the_end(client, players, mid)
    before = _reads(client, players, mid)
    assert before["match"]["status"] == "finished" and before["record"]["seed"]

    where = service.store.archive(mid)

    r = connect(settings.redis_url)
    keys = _keys_of(r, settings.namespace, mid)
    assert keys == [f"{settings.namespace}m:{{{mid[0]}}}:{mid}:meta"], keys  # the tombstone only
    tombstone = r.memory_usage(keys[0])
    assert tombstone is not None and tombstone <= 4096
    assert Path(settings.archive_place, mid[0], f"{mid}.json.gz").is_file() and where.endswith(f"{mid}.json.gz")
    assert _reads(client, players, mid) == before
    assert verify_record(client.get(f"/v1/matches/{mid}/record").get_json()).ok
    # the match is in the lobby's listing as before
    assert mid in [row["id"] for row in client.get("/v1/matches?status=finished").get_json()["matches"]]
    # resubmitting an accepted move still answers with the original acceptance, from the archive
    again = client.post(f"/v1/matches/{mid}/moves", json=sent[0])
    assert again.status_code == 200 and again.get_json()["replayed"] is True
    # a new move is refused as for any finished match, and changes nothing
    late = client.post(f"/v1/matches/{mid}/moves", json=players[0].envelope(mid, 0, before["match"]["ply"],
                                                                              [{"type": "roll"}]))
    assert late.status_code == 409, late.get_json()
    # archiving again changes nothing
    assert service.store.archive(mid) == where
    assert _reads(client, players, mid) == before


def test_only_an_ended_match_is_archived(client: Any, service: Matches, settings: Settings,
                                         players: list[Player]) -> None:
    mid, _ = started(client, players)
    before = client.get(f"/v1/matches/{mid}/log?from=0").get_json()
    with pytest.raises(ValueError, match="has not ended"):
        service.store.archive(mid)
    assert archive_one(service, mid).error.startswith(f"match {mid} has not ended")
    assert archive_one(service, "nosuchmatch").error == "no such match"
    assert client.get(f"/v1/matches/{mid}/log?from=0").get_json() == before
    assert not Path(settings.archive_place, mid[0], f"{mid}.json.gz").exists()


def test_a_damaged_or_missing_document_is_a_clear_503(client: Any, service: Matches, settings: Settings,
                                                      players: list[Player]) -> None:
    mid, _ = started(client, players)
    _play_to_the_end(client, players, mid)
    service.store.archive(mid)
    service.store._docs.clear()  # another process would not have it cached either
    path = Path(settings.archive_place, mid[0], f"{mid}.json.gz")
    doc = unpack(path.read_bytes())
    doc["log"][0]["seat"] = 1 - doc["log"][0]["seat"]  # a changed document: its digest differs
    path.write_bytes(pack(doc))
    r = client.get(f"/v1/matches/{mid}/record")
    assert r.status_code == 503 and r.get_json()["code"] == "archive-unavailable"
    assert "SHA-256" in r.get_json()["detail"] and r.headers["Retry-After"]
    path.unlink()
    r = client.get(f"/v1/matches/{mid}/log")
    assert r.status_code == 503 and "no such document" in r.get_json()["detail"]


def test_the_policy_archives_what_ended_long_enough_ago(client: Any, service: Matches, settings: Settings,
                                                        players: list[Player]) -> None:
    ended, _ = started(client, players)
    _play_to_the_end(client, players, ended)
    running, _ = started(client, players)
    now = service.moment().timestamp()
    assert archive_due(service, now + 6 * 86400, after_days=7) == []
    assert archive_due(service, now + 8 * 86400, after_days=0) == []  # 0: never automatically
    done = archive_due(service, now + 8 * 86400, after_days=7)
    assert [(d.match, d.error) for d in done] == [(ended, "")]
    assert archive_due(service, now + 30 * 86400, after_days=7) == []  # the running one is not due
    tombstone = connect(settings.redis_url).hgetall(f"{settings.namespace}m:{{{ended[0]}}}:{ended}:meta")
    assert tombstone[b"archived"] == f"file:{ended[0]}/{ended}.json.gz".encode()
    assert client.get(f"/v1/matches/{running}").get_json()["status"] == "active"


def test_the_archive_folder_writes_whole_documents_and_refuses_strange_ids(tmp_path: Path) -> None:
    archive = FolderArchive(tmp_path)
    body = pack({"format": "portolan-archive/1", "match": "abc", "log": []})
    assert body == pack({"match": "abc", "log": [], "format": "portolan-archive/1"})  # reproducible bytes
    assert archive.put("abc", body) == "file:a/abc.json.gz"
    assert archive.get("abc") == body and archive.get("abd") is None
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["abc.json.gz"]  # no temporary file left
    assert json.loads(gzip.decompress(body))["match"] == "abc"
    with pytest.raises(Exception, match="not a match id"):
        archive.put("../etc", body)


def test_portolan_archive_moves_a_match_by_name(client: Any, service: Matches, settings: Settings,
                                                players: list[Player], tmp_path: Path) -> None:
    mid, _ = started(client, players)
    _play_to_the_end(client, players, mid)
    running, _ = started(client, players)
    env = {**os.environ, "REDIS_URL": settings.redis_url, "PORTOLAN_NS": settings.namespace,
           "PORTOLAN_ARCHIVE": str(tmp_path / "cli-archive"), "OUTBOX_DIR": str(tmp_path / "outbox")}
    if settings.server_key:
        env["PORTOLAN_SERVER_KEY"] = settings.server_key
    out = subprocess.run([sys.executable, "-m", "service.tools.cli", "archive", mid, running],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1, out.stderr  # one of the two could not be archived: it has not ended
    assert f"{mid}: archived to {tmp_path / 'cli-archive'}" in out.stdout
    assert f"{running}: not archived: match {running} has not ended" in out.stdout
    assert "1 archived, 1 not" in out.stdout
    assert (tmp_path / "cli-archive" / mid[0] / f"{mid}.json.gz").is_file()


def test_an_s3_archive_over_http(client: Any, service: Matches, players: list[Player],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The same archiving through boto3 against an S3-compatible server speaking HTTP (moto's)."""
    boto3 = pytest.importorskip("boto3")
    moto_server = pytest.importorskip("moto.server")
    from service.storage.archive import S3Archive, open_archive
    from service.storage.embedded import free_port

    for name, value in (("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test"),
                        ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        endpoint = f"http://127.0.0.1:{port}"
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket="portolan")
        archive = open_archive("s3://portolan/matches", endpoint)
        assert isinstance(archive, S3Archive) and archive.where == "s3://portolan/matches"
        service.store.archive_to = archive
        mid, _ = started(client, players)
        _play_to_the_end(client, players, mid)
        before = _reads(client, players, mid)
        assert service.store.archive(mid) == f"s3:matches/{mid[0]}/{mid}.json.gz"
        service.store._docs.clear()  # read it from the server, not the cache
        assert _reads(client, players, mid) == before
        assert archive.get("nosuchmatch") is None
        listed = boto3.client("s3", endpoint_url=endpoint).list_objects_v2(Bucket="portolan")["Contents"]
        assert [o["Key"] for o in listed] == [f"matches/{mid[0]}/{mid}.json.gz"]
    finally:
        server.stop()
