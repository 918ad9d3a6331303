"""Webhooks: where they may point (refusals at registration, DNS rebinding at delivery, HTTPS to
the checked address), who may manage them and how many, the ping limit, and the CLI."""

from __future__ import annotations

import dataclasses
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from service.delivery.webhooks import Delivery, DeliveryFailed
from service.play.matches import Matches
from service.play.outward.webhooks import match_owner, player_owner
from service.runtime import build_webhooks
from tests.conftest import CREATOR, CREATOR_KEY, Player, signed_headers, signed_post, worker_burst
from tests.helpers.hooks import Received, Receiver, signed_get, verify

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


# -- the CLI, over real HTTP ------------------------------------------------------------------------

def test_the_cli_adds_lists_pings_reads_and_removes_a_webhook(hs: Settings, hs_app: Any, receiver: Receiver,
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from werkzeug.serving import make_server

    from service.tools.cli.main import main

    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path / "home"))
    server = make_server("127.0.0.1", 0, hs_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = ["--server", f"http://127.0.0.1:{server.port}"]
        assert main([*base, "keygen"]) == 0
        assert main([*base, "--json", "webhook", "add", receiver.url, "--description", "mine"]) == 0
        out = capsys.readouterr().out
        hook = json.loads(out[out.index("{"):])
        assert main([*base, "webhook", "list"]) == 0
        assert hook["id"] in capsys.readouterr().out
        assert main([*base, "webhook", "ping", hook["id"]]) == 0
        assert "queued" in capsys.readouterr().out
        worker_burst(hs)
        assert [r.event["type"] for r in receiver.ok()] == ["ping"]
        assert main([*base, "webhook", "deliveries", hook["id"]]) == 0
        assert " 200 " in capsys.readouterr().out
        assert main([*base, "webhook", "add", "ftp://example.org/x"]) == 2
        assert "bad-webhook-url" in capsys.readouterr().err
        assert main([*base, "webhook", "remove", hook["id"]]) == 0
        assert main([*base, "webhook", "remove", hook["id"]]) == 2
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



def test_a_replayed_forged_or_malformed_registration_stores_nothing_and_no_key_sees_anothers_hooks(
        app: Any, players: list[Player]) -> None:
    """The hostile cases for POST /v1/me/webhooks: each a 4xx problem that changes nothing."""
    client = app.test_client()
    hooks = app.extensions["portolan.webhooks"]
    hooks.resolve = lambda host, port: ["93.184.215.14"]  # a public address; no DNS in the test
    ana, bea = players[0], players[1]
    path = "/v1/me/webhooks"
    body = json.dumps({"url": "https://hooks.example.org/ana"}).encode()
    headers = {**signed_headers(ana.private_key, "POST", path, body), "Content-Type": "application/json"}
    assert client.post(path, data=body, headers=headers).status_code == 201
    again = client.post(path, data=body, headers=headers)  # the same signed request, replayed
    assert again.status_code == 401 and again.get_json()["code"] == "replayed-request"
    # forged: Bea signs, but the header names Ana's key
    forged = signed_headers(bea.private_key, "POST", path, body)["Authorization"].replace(bea.public_key, ana.public_key)
    r = client.post(path, data=body, headers={"Authorization": forged, "Content-Type": "application/json"})
    assert r.status_code == 401 and r.get_json()["code"] == "bad-signature"
    for bad in (b"{not json", b"[" * 1000 + b"]" * 1000, json.dumps({"url": {"nested": ["x"] * 3}}).encode(),
                json.dumps({"url": "https://hooks.example.org/x", "extra": 1}).encode()):
        r = client.post(path, data=bad, headers={**signed_headers(ana.private_key, "POST", path, bad),
                                                  "Content-Type": "application/json"})
        assert r.status_code == 400 and r.content_type == "application/problem+json", (bad[:20], r.status_code)
    [only] = signed_get(client, path, ana.private_key).get_json()["webhooks"]
    assert only["url"] == "https://hooks.example.org/ana"
    assert signed_get(client, path, bea.private_key).get_json()["webhooks"] == []
    r = signed_get(client, f"{path}/{only['id']}/deliveries", bea.private_key)
    assert r.status_code == 404  # Bea cannot read Ana's delivery log, nor learn that the hook exists
