"""Webhooks end to end: the API registers them, the outbox handler queues deliveries, a real RQ
worker POSTs them to a real HTTP receiver in this process, which checks every signature with the
algorithm docs/webhooks.md documents (PyNaCl, the server key from GET /v1/server-key)."""

from __future__ import annotations

import base64
import dataclasses
import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from service.config import Settings
from service.delivery.webhooks import Delivery, DeliveryFailed, body_of, outbox_handler, signature
from service.play.matches import Matches
from service.play.webhooks import match_owner, player_owner
from service.runtime import build, build_webhooks
from tests.conftest import CREATOR, CREATOR_KEY, Player, signed_headers, signed_post, worker_burst
from workers import jobs
from workers import webhooks as hook_jobs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


# -- the documented verification (docs/webhooks.md), as a receiver would write it ----------------

def b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(server_public_key: str, headers: dict[str, str], body: bytes) -> bool:
    msg_id, ts = headers["webhook-id"], headers["webhook-timestamp"]
    key = VerifyKey(b64url(server_public_key))
    for sig in headers["webhook-signature"].split():
        version, _, value = sig.partition(",")
        if version != "v1a":
            continue
        try:
            key.verify(f"{msg_id}.{ts}.".encode() + body, base64.b64decode(value))
            return True
        except (BadSignatureError, ValueError):
            pass
    return False


# -- a real receiver ----------------------------------------------------------------------------

@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    status: int

    @property
    def event(self) -> dict[str, Any]:
        return dict(json.loads(self.body))


@dataclass
class Receiver:
    """An HTTP server on loopback: answers each POST with the next status of ``plan`` (then 200)."""

    plan: list[int] = field(default_factory=list)
    delay_s: float = 0.0
    got: list[Received] = field(default_factory=list)
    url: str = ""

    def ok(self) -> list[Received]:
        return [r for r in self.got if r.status == 200]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rec = Receiver()
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                status = rec.plan.pop(0) if rec.plan else 200
                rec.got.append(Received({k.lower(): v for k, v in self.headers.items()}, body, status))
            if rec.delay_s:
                time.sleep(rec.delay_s)
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    rec.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    yield rec
    server.shutdown()
    thread.join(10)


@dataclass(frozen=True)
class Entry:
    """An outbox entry as service.delivery.outbox hands it to a consumer group's handler."""

    kind: str
    match: str
    ply: int
    data: dict[str, Any] = field(default_factory=dict)
    stream_id: str = "0-1"


def _env(monkeypatch: pytest.MonkeyPatch, s: Settings) -> None:
    """The jobs build their service from the environment, as in a worker process."""
    for name, value in {"REDIS_URL": s.redis_url, "PORTOLAN_NS": s.namespace, "PUBLIC_URL": s.public_url,
                        "OUTBOX_DIR": s.outbox_dir, "PORTOLAN_WEBHOOKS_ALLOW_PRIVATE": "on" if s.webhooks_allow_private
                        else "off", "PORTOLAN_WEBHOOK_RETRIES": ",".join(map(str, s.webhook_retries)) or "none",
                        "PORTOLAN_WEBHOOK_TIMEOUT": str(int(s.webhook_timeout)),
                        "PORTOLAN_WEBHOOK_DISABLE_AFTER": str(s.webhook_disable_after)}.items():
        monkeypatch.setenv(name, value)
    jobs.settings.cache_clear()
    jobs.service.cache_clear()
    hook_jobs.hooks.cache_clear()


@pytest.fixture
def hs(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Webhooks to loopback allowed (the receiver), retries at once, a short timeout."""
    s = dataclasses.replace(settings, webhooks_allow_private=True, webhook_retries=(0, 0, 0), webhook_timeout=1.0,
                            webhook_disable_after=4)
    _env(monkeypatch, s)
    return s


@pytest.fixture
def hs_app(hs: Settings) -> Any:
    from service.api import create_app

    return create_app(hs, build(hs), TESTING=True)


def start_match(m: Matches, players: list[Player], emails: bool = True) -> str:
    made = m.create("harbour-race", {}, [{"invite": f"p{i}@example.org"} for i in range(2)], creator_key=CREATOR_KEY)
    for i in range(2):
        m.claim(made["id"], i, made["invites"][str(i)], players[i].public_key, players[i].name,
                f"p{i}@example.org" if emails else "")
    return str(made["id"])


def server_key(client: Any) -> str:
    return str(client.get("/v1/server-key").get_json()["public_key"])


def signed_get(client: Any, path: str, key: str) -> Any:
    return client.get(path, headers=signed_headers(key, "GET", path))


# -- the signature ----------------------------------------------------------------------------

def test_the_documented_test_vector_holds() -> None:
    text = DOCS.read_text().split("### Test vector", 1)[1]
    rows = {}
    for line in text.splitlines():
        if line.startswith("| ") and "`" in line:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 2:
                rows[cells[0].strip("`")] = cells[1].split("`")[1]
    private = rows["server private key (seed, base64url)"]
    from service.proof import signing

    assert signing.public_key_of(private) == rows["server public key (base64url)"]
    body = rows["body"].encode()
    assert body == body_of(json.loads(body))  # the server's own serialisation of that event
    assert f"{rows['webhook-id']}.{rows['webhook-timestamp']}.".encode() + body == rows["signed bytes"].encode()
    sig = signature(private, rows["webhook-id"], int(rows["webhook-timestamp"]), body)
    assert sig == rows["webhook-signature"]
    headers = {"webhook-id": rows["webhook-id"], "webhook-timestamp": rows["webhook-timestamp"], "webhook-signature": sig}
    assert verify(rows["server public key (base64url)"], headers, body)
    # a tampered body, id or timestamp does not verify
    assert not verify(rows["server public key (base64url)"], headers, body.replace(b'"ply":1', b'"ply":2'))
    assert not verify(rows["server public key (base64url)"], {**headers, "webhook-id": "k3x9wq2mzt7p.2"}, body)
    assert not verify(rows["server public key (base64url)"], {**headers, "webhook-timestamp": "1764466001"}, body)


# -- a player's hook ----------------------------------------------------------------------------

def test_a_players_hook_gets_its_seats_view_and_your_turn_signed(hs: Settings, hs_app: Any, receiver: Receiver,
                                                                 players: list[Player]) -> None:
    client = hs_app.test_client()
    m: Matches = hs_app.extensions["portolan"]
    r = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=players[0].private_key)
    assert r.status_code == 201, r.get_json()
    hook = r.get_json()
    assert hook["scope"] == "player" and hook["disabled"] is False and r.headers["Location"].startswith("/v1/me/webhooks/")
    listed = signed_get(client, "/v1/me/webhooks", players[0].private_key).get_json()["webhooks"]
    assert [h["id"] for h in listed] == [hook["id"]]
    assert signed_get(client, "/v1/me/webhooks", players[1].private_key).get_json()["webhooks"] == []

    mid = start_match(m, players)
    handle = outbox_handler(hs)
    handle(m, Entry("started", mid, 0))
    handle(m, Entry("started", mid, 0))  # at-least-once: the same entry twice
    worker_burst(hs)
    pub = server_key(client)
    assert receiver.got and all(verify(pub, r.headers, r.body) for r in receiver.got)
    types = sorted(r.event["type"] for r in receiver.ok())
    first = m.meta(mid)["active"][0]
    assert types == (["started", "your-turn"] if first == 0 else ["started"])
    started = next(r for r in receiver.ok() if r.event["type"] == "started")
    assert started.headers["webhook-id"] == f"{mid}.0@0" and started.event["match"] == mid

    # a move: the hook hears it as seat 0 sees it
    view = m.view(mid, first)
    action = view["legal_actions"][0]["action"]
    mover = players[first]
    result = m.submit(mid, mover.envelope(mid, first, 0, [action])["envelope"],
                      mover.envelope(mid, first, 0, [action])["signature"])
    after = m.meta(mid)
    handle(m, Entry("moved", mid, result["ply"], {"seat": first, "before": [first], "after": after["active"],
                                                 "status": after["status"]}))
    worker_burst(hs)
    moves = [r for r in receiver.ok() if r.event["type"] == "move"]
    assert len(moves) == 1 and verify(pub, moves[0].headers, moves[0].body)
    assert moves[0].event["seat"] == first and moves[0].event["ply"] == 1
    assert moves[0].headers["webhook-id"] == f"{mid}.1@0"


def test_a_tampered_delivery_does_not_verify(hs: Settings, hs_app: Any, receiver: Receiver,
                                             players: list[Player]) -> None:
    client = hs_app.test_client()
    hook = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=players[0].private_key).get_json()
    assert signed_post(client, f"/v1/me/webhooks/{hook['id']}/ping", None, private_key=players[0].private_key,
                       data=b"").status_code == 202
    worker_burst(hs)
    [got] = receiver.got
    pub = server_key(client)
    assert verify(pub, got.headers, got.body)
    assert got.event["type"] == "ping" and got.event["hook"] == hook["id"]
    assert not verify(pub, got.headers, got.body.replace(b'"ping"', b'"move"'))
    assert not verify(pub, got.headers, got.body + b" ")
    assert not verify(server_key(client).replace(pub[0], "B" if pub[0] != "B" else "C", 1), got.headers, got.body)


# -- retries, the log, switching off ---------------------------------------------------------------

def test_a_receiver_that_fails_twice_gets_the_event_once_it_recovers(hs: Settings, hs_app: Any,
                                                                     receiver: Receiver) -> None:
    client = hs_app.test_client()
    made = signed_post(client, "/v1/matches", {"game": "harbour-race", "seats": [{"bot": "random"}, {"invite": "x@example.org"}]})
    mid = made.get_json()["id"]
    base = f"/v1/matches/{mid}/webhooks"
    hook = signed_post(client, base, {"url": receiver.url, "description": "scoreboard"}).get_json()
    assert hook["scope"] == "match" and hook["match"] == mid
    receiver.plan = [500, 503]
    assert signed_post(client, f"{base}/{hook['id']}/ping", None, data=b"").status_code == 202
    worker_burst(hs)
    assert [r.status for r in receiver.got] == [500, 503, 200]
    assert len({r.headers["webhook-id"] for r in receiver.got}) == 1  # one message, three attempts
    assert verify(server_key(client), receiver.got[-1].headers, receiver.got[-1].body)
    log = signed_get(client, f"{base}/{hook['id']}/deliveries", CREATOR).get_json()
    assert [(d["status"], d["ok"], d["attempt"]) for d in log["deliveries"]] == [(200, True, 3), (503, False, 2),
                                                                              (500, False, 1)]
    assert all(d["latency_ms"] >= 0 and d["event"] == receiver.got[0].event["id"] for d in log["deliveries"])
    assert log["deliveries"][1]["error"] == "answered 503"
    assert log["webhook"]["failures"] == 0 and log["webhook"]["disabled"] is False
    # the same job again (at-least-once) is not sent twice: the success is marked
    worker_burst(hs)
    assert len(receiver.ok()) == 1


def test_a_dead_receiver_is_switched_off_and_its_owner_told(hs: Settings, hs_app: Any, receiver: Receiver,
                                                           players: list[Player]) -> None:
    client = hs_app.test_client()
    m: Matches = hs_app.extensions["portolan"]
    mid = start_match(m, players)  # seat 0 gave an email when claiming: the notice goes there
    owner_key = players[0].private_key
    hook = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=owner_key).get_json()
    receiver.plan = [500] * 20
    handle = outbox_handler(hs)
    handle(m, Entry("started", mid, 0))
    worker_burst(hs)
    # disable_after=4: the fourth consecutive failed attempt switched it off; nothing after that
    assert len(receiver.got) == 4 and not receiver.ok()
    [listed] = signed_get(client, "/v1/me/webhooks", owner_key).get_json()["webhooks"]
    assert listed["disabled"] is True and listed["failures"] == 4 and "answered 500" in listed["disabled_reason"]
    mails = list(Path(hs.outbox_dir).glob("hookoff-*.eml"))
    assert len(mails) == 1
    text = mails[0].read_text()
    assert "p0@example.org" in text and hook["id"] in text and "portolan webhook ping" in text
    # a switched-off hook gets no events ...
    handle(m, Entry("started", mid, 0))
    worker_burst(hs)
    assert len(receiver.got) == 4
    # ... but a ping, and a ping that gets through switches it back on
    receiver.plan = []
    signed_post(client, f"/v1/me/webhooks/{hook['id']}/ping", None, private_key=owner_key, data=b"")
    worker_burst(hs)
    [back] = signed_get(client, "/v1/me/webhooks", owner_key).get_json()["webhooks"]
    assert back["disabled"] is False and back["failures"] == 0


def test_a_slow_receiver_times_out_and_is_logged(hs: Settings, hs_app: Any, receiver: Receiver,
                                                 players: list[Player]) -> None:
    client = hs_app.test_client()
    hook = signed_post(client, "/v1/me/webhooks", {"url": receiver.url}, private_key=players[0].private_key).get_json()
    receiver.delay_s = 2.5  # the timeout is 1 s
    hooks = build_webhooks(hs, hs_app.extensions["portolan"])
    owner = player_owner(players[0].public_key)
    delivery = Delivery(hooks, hs_app.extensions["portolan"].server_key, dataclasses.replace(hs, webhook_disable_after=99))
    with pytest.raises(DeliveryFailed, match="timed out"):
        delivery.run(owner, hook["id"], "m.1", {"id": "m.1", "type": "move"})
    [attempt] = hooks.store.deliveries(owner, hook["id"])
    assert attempt["ok"] is False and attempt["status"] is None and "timed out" in attempt["error"]


# -- where a hook may point ----------------------------------------------------------------------

@pytest.mark.parametrize(("url", "status", "code"), [
    ("http://example.org/hook", 400, "bad-webhook-url"),
    ("https://user:pw@example.org/hook", 400, "bad-webhook-url"),
    ("ftp://example.org/hook", 400, "bad-webhook-url"),
    ("https://" + "a" * 1100 + ".org/", 400, "bad-webhook-url"),
    ("https://10.0.0.1/hook", 422, "webhook-address-refused"),
    ("https://127.0.0.1/hook", 422, "webhook-address-refused"),
    ("https://[::1]/hook", 422, "webhook-address-refused"),
    ("https://[::ffff:127.0.0.1]/hook", 422, "webhook-address-refused"),
    ("https://169.254.169.254/latest/meta-data", 422, "webhook-address-refused"),
    ("https://0.0.0.0/", 422, "webhook-address-refused"),
    ("https://224.0.0.1/", 422, "webhook-address-refused"),
    ("https://100.64.0.1/", 422, "webhook-address-refused"),
    ("https://localhost/hook", 422, "webhook-address-refused"),
    ("https://no-such-host.invalid/hook", 422, "webhook-host-unresolvable"),
])
def test_unsafe_urls_are_refused_as_problems(client: Any, players: list[Player], url: str, status: int, code: str) -> None:
    r = signed_post(client, "/v1/me/webhooks", {"url": url}, private_key=players[0].private_key)
    assert r.status_code == status, r.get_json()
    assert r.mimetype == "application/problem+json" and r.get_json()["code"] == code
    assert signed_get(client, "/v1/me/webhooks", players[0].private_key).get_json()["webhooks"] == []


def test_a_host_that_rebinds_to_loopback_after_registration_is_refused_at_delivery(
        settings: Settings, service: Matches, receiver: Receiver) -> None:
    answers = {"hooks.example.org": ["93.184.215.14"]}
    hooks = dataclasses.replace(build_webhooks(settings, service), resolve=lambda host, port: answers[host])
    hook = hooks.add(player_owner(CREATOR_KEY), "https://hooks.example.org/x")
    answers["hooks.example.org"] = ["93.184.215.14", "127.0.0.1"]  # DNS now also says loopback
    delivery = Delivery(hooks, service.server_key, settings, resolve=lambda host, port: answers[host])
    with pytest.raises(DeliveryFailed, match=r"127\.0\.0\.1"):
        delivery.run(player_owner(CREATOR_KEY), hook["id"], "e.1", {"id": "e.1", "type": "move"})
    [attempt] = hooks.store.deliveries(player_owner(CREATOR_KEY), hook["id"])
    assert attempt["ok"] is False and "loopback" in attempt["error"]
    assert receiver.got == []


# -- ownership and bounds --------------------------------------------------------------------------

def test_only_the_creator_manages_a_matchs_hooks_and_the_count_is_bounded(settings: Settings, app: Any,
                                                                          players: list[Player]) -> None:
    client = app.test_client()
    mid = signed_post(client, "/v1/matches", {"game": "harbour-race", "seats": [{"invite": "a@example.org"},
                                                                             {"invite": "b@example.org"}]}).get_json()["id"]
    base = f"/v1/matches/{mid}/webhooks"
    hooks = app.extensions["portolan.webhooks"]
    hooks.resolve = lambda host, port: ["93.184.215.14"]  # a public address; no DNS in the test
    r = signed_post(client, base, {"url": "https://hooks.example.org/a"}, private_key=players[0].private_key)
    assert r.status_code == 403 and r.get_json()["code"] == "not-the-creator"
    assert client.get(base).status_code == 401
    assert signed_post(client, "/v1/matches/nosuchmatch1/webhooks", {"url": "https://hooks.example.org/a"}).status_code == 404
    for i in range(hooks.per_owner):
        assert signed_post(client, base, {"url": f"https://hooks.example.org/{i}"}).status_code == 201
    r = signed_post(client, base, {"url": "https://hooks.example.org/more"})
    assert r.status_code == 409 and r.get_json()["code"] == "too-many-webhooks"
    listed = signed_get(client, base, CREATOR).get_json()["webhooks"]
    assert len(listed) == hooks.per_owner
    gone = listed[0]["id"]
    path = f"{base}/{gone}"
    assert client.delete(path, headers=signed_headers(CREATOR, "DELETE", path)).status_code == 204
    assert client.delete(path, headers=signed_headers(CREATOR, "DELETE", path)).status_code == 404
    assert signed_get(client, f"/v1/me/webhooks/{listed[1]['id']}/deliveries", CREATOR).status_code == 404
    assert hooks.store.get(match_owner(mid), listed[1]["id"]) is not None


def test_a_matchs_hook_hears_the_public_events(hs: Settings, hs_app: Any, receiver: Receiver,
                                               players: list[Player]) -> None:
    client = hs_app.test_client()
    m: Matches = hs_app.extensions["portolan"]
    made = m.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                    creator_key=CREATOR_KEY)
    mid = made["id"]
    assert signed_post(client, f"/v1/matches/{mid}/webhooks", {"url": receiver.url}).status_code == 201
    for i in range(2):
        m.claim(mid, i, made["invites"][str(i)], players[i].public_key, players[i].name, "")
    outbox_handler(hs)(m, Entry("started", mid, 0))
    worker_burst(hs)
    [got] = receiver.ok()
    assert got.event["type"] == "started" and got.headers["webhook-id"] == f"{mid}.0"
    assert verify(server_key(client), got.headers, got.body)


# -- the CLI, over real HTTP ------------------------------------------------------------------------

def test_the_cli_adds_lists_pings_reads_and_removes_a_webhook(hs: Settings, hs_app: Any, receiver: Receiver,
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from werkzeug.serving import make_server

    from service.tools import cli

    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path / "home"))
    server = make_server("127.0.0.1", 0, hs_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = ["--server", f"http://127.0.0.1:{server.port}"]
        assert cli.main([*base, "keygen"]) == 0
        assert cli.main([*base, "--json", "webhook", "add", receiver.url, "--description", "mine"]) == 0
        out = capsys.readouterr().out
        hook = json.loads(out[out.index("{"):])
        assert cli.main([*base, "webhook", "list"]) == 0
        assert hook["id"] in capsys.readouterr().out
        assert cli.main([*base, "webhook", "ping", hook["id"]]) == 0
        assert "queued" in capsys.readouterr().out
        worker_burst(hs)
        assert [r.event["type"] for r in receiver.ok()] == ["ping"]
        assert cli.main([*base, "webhook", "deliveries", hook["id"]]) == 0
        assert " 200 " in capsys.readouterr().out
        assert cli.main([*base, "webhook", "add", "ftp://example.org/x"]) == 2
        assert "bad-webhook-url" in capsys.readouterr().err
        assert cli.main([*base, "webhook", "remove", hook["id"]]) == 0
        assert cli.main([*base, "webhook", "remove", hook["id"]]) == 2
        assert "unknown-webhook" in capsys.readouterr().err
    finally:
        server.shutdown()
        thread.join(10)


# -- HTTPS: the checked address, the URL's name in TLS ------------------------------------------------

@pytest.fixture
def tls_receiver(tmp_path: Path) -> Iterator[tuple[Receiver, str]]:
    """An HTTPS receiver on loopback whose certificate (from a throwaway CA) names hooks.example.org."""
    import ssl

    import trustme

    ca = trustme.CA()
    cert = ca.issue_cert("hooks.example.org")
    rec = Receiver()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            rec.got.append(Received({k.lower(): v for k, v in self.headers.items()}, body, 200))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    rec.url = f"https://hooks.example.org:{server.server_address[1]}/in"
    yield rec, str(bundle)
    server.shutdown()
    thread.join(10)


def test_https_goes_to_the_checked_address_with_the_urls_name_and_a_verified_certificate(
        hs: Settings, service: Matches, tls_receiver: tuple[Receiver, str]) -> None:
    rec, bundle = tls_receiver
    resolved: list[str] = []

    def resolve(host: str, port: int) -> list[str]:  # the name lives only here: no real DNS
        resolved.append(host)
        return ["127.0.0.1"]

    hooks = dataclasses.replace(build_webhooks(hs, service), resolve=resolve)
    owner = player_owner(CREATOR_KEY)
    hook = hooks.add(owner, rec.url)
    event = {"id": "m.1", "type": "move", "match": "m", "game": "harbour-race", "ply": 1, "at": "now"}
    trusted = Delivery(hooks, service.server_key, hs, resolve=resolve, ca_certs=bundle)
    assert trusted.run(owner, hook["id"], "m.1", event).startswith("delivered")
    [got] = rec.got
    assert got.headers["host"] == f"hooks.example.org:{rec.url.split(':')[2].split('/')[0]}"
    assert verify(service.server_public_key, got.headers, got.body) and got.event == event
    # the same receiver, with only the public CAs trusted: the certificate is refused, nothing is sent
    untrusted = Delivery(hooks, service.server_key, hs, resolve=resolve)
    with pytest.raises(DeliveryFailed, match=r"CERTIFICATE_VERIFY_FAILED|certificate"):
        untrusted.run(owner, hook["id"], "m.2", {**event, "id": "m.2"})
    assert len(rec.got) == 1
    assert resolved.count("hooks.example.org") == 3  # at registration and at each delivery


# -- the whole way: commit -> outbox -> dispatcher -> RQ -> receiver --------------------------------

def test_a_bot_match_played_by_the_worker_reaches_the_matchs_hook_move_by_move(hs: Settings, hs_app: Any,
                                                                             receiver: Receiver) -> None:
    client = hs_app.test_client()
    made = signed_post(client, "/v1/matches", {"game": "harbour-race", "options": {"target": 5},
                                               "seats": [{"bot": "random"}, {"bot": "random"}]})
    mid = made.get_json()["id"]
    assert signed_post(client, f"/v1/matches/{mid}/webhooks", {"url": receiver.url}).status_code == 201
    worker_burst(hs)  # the dispatcher drains the outbox, the bots play it out, the hooks are delivered
    m: Matches = hs_app.extensions["portolan"]
    meta = m.meta(mid)
    assert meta["status"] == "finished"
    got = receiver.ok()
    pub = server_key(client)
    assert got and all(verify(pub, r.headers, r.body) for r in got)
    assert len({r.headers["webhook-id"] for r in got}) == len(got)  # each event once
    by_type: dict[str, list[dict[str, Any]]] = {}
    for r in got:
        by_type.setdefault(r.event["type"], []).append(r.event)
    assert set(by_type) == {"started", "move", "finished"} and len(by_type["finished"]) == 1
    assert sorted(e["ply"] for e in by_type["move"]) == list(range(1, meta["ply"] + 1))
    assert by_type["finished"][0]["outcome"] == meta["outcome"]


def test_pings_are_rate_limited_per_key(app: Any, players: list[Player]) -> None:
    from service.api.limits import PINGS_PER_KEY

    client = app.test_client()
    app.extensions["portolan.webhooks"].resolve = lambda host, port: ["93.184.215.14"]
    key = players[0].private_key
    hook = signed_post(client, "/v1/me/webhooks", {"url": "https://hooks.example.org/p"}, private_key=key).get_json()
    path = f"/v1/me/webhooks/{hook['id']}/ping"
    allowed = int(PINGS_PER_KEY.split("/")[0])
    assert all(signed_post(client, path, None, private_key=key, data=b"").status_code == 202 for _ in range(allowed))
    r = signed_post(client, path, None, private_key=key, data=b"")
    assert r.status_code == 429 and r.get_json()["code"] == "rate-limited" and int(r.headers["Retry-After"]) > 0
    # another key's pings are its own
    other = signed_post(client, "/v1/me/webhooks", {"url": "https://hooks.example.org/q"},
                        private_key=players[1].private_key).get_json()
    assert signed_post(client, f"/v1/me/webhooks/{other['id']}/ping", None, private_key=players[1].private_key,
                       data=b"").status_code == 202
