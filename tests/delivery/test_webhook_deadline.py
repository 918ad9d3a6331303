"""Issue 28, item 6: where no webhook may point (addresses that carry a private IPv4 inside, odd
spellings of loopback), and the wall-clock deadline of one delivery attempt, against a real
receiver on loopback that drips its answer one byte at a time."""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from service.config import Settings
from service.delivery.deadline import Deadline, DeadlineHTTPConnection, PeerMismatch
from service.delivery.webhooks import AttemptTimedOut, Delivery, DeliveryFailed, RQWebhookQueue, post
from service.play.errors import ServiceError
from service.play.matches import Matches
from service.play.outward.hook_urls import Target, resolve_checked
from service.play.outward.webhooks import player_owner
from service.runtime import build_webhooks
from tests.conftest import CREATOR_KEY, Player, signed_post
from tests.helpers.hooks import signed_get

NO_DNS = {"hooks.example.org": ["93.184.215.14"]}

# -- the address table ------------------------------------------------------------------------

REFUSED = [
    ("https://[2002:7f00:1::]/", "6to4 address that embeds 127.0.0.1"),
    ("https://[2002:a00:1::]/", "6to4 address that embeds 10.0.0.1"),
    ("https://[2002:a9fe:a9fe::]/", "6to4 address that embeds 169.254.169.254"),
    ("https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Teredo address (its client) that embeds 127.0.0.1"),
    ("https://[2001:0:a00:1::1]/", "Teredo address (its server) that embeds 10.0.0.1"),
    ("https://[64:ff9b::7f00:1]/", "NAT64 address that embeds 127.0.0.1"),
    ("https://[64:ff9b::c0a8:1]/", "NAT64 address that embeds 192.168.0.1"),
    ("https://[64:ff9b:1::808:808]/", "local-use NAT64"),
    ("https://[::ffff:127.0.0.1]/", "IPv4-mapped address that embeds 127.0.0.1"),
    ("https://[::ffff:0:7f00:1]/", "IPv4-translated address that embeds 127.0.0.1"),
    ("https://[::127.0.0.1]/", "IPv4-compatible address that embeds 127.0.0.1"),
    ("https://[2a00:1450:4001::5efe:a00:1]/", "ISATAP address that embeds 10.0.0.1"),
    ("https://[2a00:1450:4001::200:5efe:7f00:1]/", "ISATAP address that embeds 127.0.0.1"),
    ("https://0.0.0.0/", "unspecified"),
    ("https://[::]/", "unspecified"),
    ("https://100.64.0.1/", "not public"),
    ("https://198.18.0.1/", "198.18.0.1"),
    ("https://224.0.0.1/", "multicast"),
    ("https://[ff02::1]/", "multicast"),
    ("https://[::1]/", "loopback"),
    ("https://[fc00::1]/", "private"),
    ("https://[fd12:3456::1]/", "private"),
    ("https://[fe80::1]/", "link-local"),
    ("https://169.254.169.254/", "link-local"),
    ("https://2130706433/", "127.0.0.1, a loopback"),
    ("https://0x7f.1/", "127.0.0.1, a loopback"),
    ("https://0x7f000001/", "127.0.0.1, a loopback"),
    ("https://0177.0.0.1/", "127.0.0.1, a loopback"),
    ("https://127.1/", "127.0.0.1, a loopback"),
    ("https://127.0.0.1./", "127.0.0.1, a loopback"),
    ("https://012.0.0.1/", "10.0.0.1, a private"),
]


@pytest.mark.parametrize(("url", "says"), REFUSED)
def test_an_address_that_is_or_carries_a_non_public_ipv4_is_refused(url: str, says: str) -> None:
    with pytest.raises(ServiceError) as refused:
        resolve_checked(url, allow_private=False, resolve=lambda host, port: pytest.fail(f"resolved {host}"))
    assert refused.value.code == "webhook-address-refused" and refused.value.status == 422
    assert says in refused.value.message and "webhooks go only to public addresses" in refused.value.message


@pytest.mark.parametrize("url", ["https://[2002:808:808::1]/", "https://[2606:4700:4700::1111]/", "https://8.8.8.8/",
                                 "https://[2a00:1450:4001::1]/"])
def test_public_addresses_and_a_6to4_of_a_public_ipv4_pass(url: str) -> None:
    assert resolve_checked(url, allow_private=False).address in url


@pytest.mark.parametrize("url", ["https://1.2.3.999/", "https://hooks.example.0x1f/", "https://example.123/"])
def test_a_host_ending_in_a_number_that_is_no_ipv4_is_a_bad_url(url: str) -> None:
    with pytest.raises(ServiceError) as refused:
        resolve_checked(url, allow_private=False, resolve=lambda host, port: ["93.184.215.14"])
    assert refused.value.code == "bad-webhook-url" and "last label is a number" in refused.value.message


def test_a_trailing_dot_name_is_judged_as_the_name(settings: Settings) -> None:
    seen: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        seen.append(host)
        return ["127.0.0.1"]

    with pytest.raises(ServiceError, match="loopback"):
        resolve_checked("https://localhost./x", allow_private=False, resolve=resolve)
    assert seen == ["localhost"]


def test_registration_of_a_6to4_loopback_is_a_422_naming_the_rule(client: Any, players: list[Player]) -> None:
    r = signed_post(client, "/v1/me/webhooks", {"url": "https://[2002:7f00:1::]/"}, private_key=players[0].private_key)
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert r.get_json()["code"] == "webhook-address-refused" and "6to4" in r.get_json()["detail"]
    assert signed_get(client, "/v1/me/webhooks", players[0].private_key).get_json()["webhooks"] == []


def test_a_name_that_later_resolves_to_a_6to4_of_loopback_is_refused_at_delivery(settings: Settings,
                                                                                   service: Matches) -> None:
    answers = dict(NO_DNS)
    hooks = dataclasses.replace(build_webhooks(settings, service), resolve=lambda host, port: answers[host])
    hook = hooks.add(player_owner(CREATOR_KEY), "https://hooks.example.org/x")
    answers["hooks.example.org"] = ["2002:7f00:1::"]
    delivery = Delivery(hooks, service.server_key, settings, resolve=lambda host, port: answers[host])
    with pytest.raises(DeliveryFailed, match="6to4"):
        delivery.run(player_owner(CREATOR_KEY), hook["id"], "e.1", {"id": "e.1", "type": "move"})


# -- the deadline ---------------------------------------------------------------------------------

@dataclass
class Drip:
    """A receiver on loopback that answers any request with ``head`` at once and then one byte of
    ``drip`` every ``every_s`` for as long as the connection lives; notes when it found it closed."""

    head: bytes = b""
    drip: bytes = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000
    every_s: float = 0.1
    port: int = 0
    accepted_at: float = 0.0
    closed_at: float | None = None
    done: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def drip() -> Iterator[Drip]:
    d = Drip()
    srv = socket.create_server(("127.0.0.1", 0))
    d.port = srv.getsockname()[1]

    def serve() -> None:
        conn, _ = srv.accept()
        d.accepted_at = time.monotonic()
        try:
            _read_request(conn)
            if d.head:
                conn.sendall(d.head)
            for byte in d.drip:
                conn.sendall(bytes([byte]))
                # a shut connection shows as readable with nothing to read (EOF), or the send fails
                conn.settimeout(d.every_s)
                try:
                    if conn.recv(1, socket.MSG_PEEK) == b"":
                        break
                except TimeoutError:
                    pass
        except OSError:
            pass
        d.closed_at = time.monotonic()
        conn.close()
        d.done.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield d
    srv.close()
    thread.join(5)


def _read_request(conn: socket.socket) -> None:
    """Read one whole request (headers and Content-Length body), so what is left is the client's silence."""
    got = b""
    while b"\r\n\r\n" not in got:
        got += conn.recv(65536)
    head, _, body = got.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        body += conn.recv(65536)


def _target(port: int) -> Target:
    return Target("http", "127.0.0.1", port, "/hook", "127.0.0.1")


@pytest.mark.parametrize("part", ["status line", "body"])
def test_a_receiver_dripping_its_answer_is_cut_at_the_deadline_and_its_connection_closed(drip: Drip, part: str) -> None:
    if part == "body":
        drip.head = b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n"
        drip.drip = b"x" * 5000
    started = time.monotonic()
    with pytest.raises(AttemptTimedOut):
        post(_target(drip.port), {}, b"{}", timeout=0.6)
    took = time.monotonic() - started
    assert 0.5 <= took < 1.5, took  # the deadline, not the drip's length (500 s at this pace)
    assert drip.done.wait(2) and drip.closed_at is not None
    assert drip.closed_at - drip.accepted_at < 1.5  # the receiver saw the connection close


def test_a_quick_answer_within_the_deadline_is_delivered(drip: Drip) -> None:
    drip.head = b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"
    drip.drip = b""
    assert post(_target(drip.port), {}, b"{}", timeout=2) == 204


def test_a_peer_other_than_the_checked_address_is_refused() -> None:
    with socket.create_server(("127.0.0.1", 0)) as srv:
        conn = DeadlineHTTPConnection("127.0.0.1", srv.getsockname()[1], deadline=Deadline(2),
                                      checked_address="127.0.0.2")
        with pytest.raises(PeerMismatch, match=r"not the checked address 127\.0\.0\.2"):
            conn.connect()
        conn.close()


def test_a_timed_out_attempt_is_a_failure_the_retries_count(settings: Settings, service: Matches, drip: Drip) -> None:
    s = dataclasses.replace(settings, webhooks_allow_private=True, webhook_timeout=1.0, webhook_disable_after=1)
    hooks = build_webhooks(s, service)
    hook = hooks.add(player_owner(CREATOR_KEY), f"http://127.0.0.1:{drip.port}/hook")
    result = Delivery(hooks, service.server_key, s).run(player_owner(CREATOR_KEY), hook["id"], "e.1",
                                                       {"id": "e.1", "type": "move"})
    assert "timed out" in result and "switched off" in result
    [attempt] = hooks.store.deliveries(player_owner(CREATOR_KEY), hook["id"])
    assert attempt["ok"] is False and attempt["latency_ms"] < 1500


def test_the_deadline_is_at_most_30_s_and_the_job_outlives_it(settings: Settings, service: Matches,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTOLAN_WEBHOOK_TIMEOUT", "600")
    assert Settings.from_env().webhook_timeout == 30
    monkeypatch.delenv("PORTOLAN_WEBHOOK_TIMEOUT")
    assert Settings.from_env().webhook_timeout == 10
    queue = RQWebhookQueue(service.store.q, dataclasses.replace(settings, webhook_timeout=30.0))
    queue.deliver(player_owner(CREATOR_KEY), "h1", "e.1", {"id": "e.1", "type": "ping"})
    [job] = queue.queue.get_jobs()
    assert job.timeout is not None and job.timeout > 30 + 3  # the deadline and the name's lookup


def test_a_receiver_dripping_its_tls_handshake_is_cut_at_the_deadline() -> None:
    closed = threading.Event()

    def serve(srv: socket.socket) -> None:
        conn, _ = srv.accept()
        with conn:
            conn.recv(4096)  # the ClientHello
            conn.sendall(b"\x16\x03\x03\x3e\x80")  # a handshake record of 16,000 bytes, then one byte at a time
            try:
                for _ in range(100):
                    conn.sendall(b"\x02")
                    time.sleep(0.1)
            except OSError:
                closed.set()

    with socket.create_server(("127.0.0.1", 0)) as srv:
        thread = threading.Thread(target=serve, args=(srv,), daemon=True)
        thread.start()
        started = time.monotonic()
        with pytest.raises(AttemptTimedOut):
            post(Target("https", "hooks.example.org", srv.getsockname()[1], "/", "127.0.0.1"), {}, b"{}", timeout=0.5)
        assert time.monotonic() - started < 1.5
        assert closed.wait(2)  # the receiver's next writes failed: the connection is gone
        thread.join(5)
