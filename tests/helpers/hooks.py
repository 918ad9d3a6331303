"""Helpers of the webhook tests: the documented verification, a real HTTP receiver, settings
that let webhooks reach it (loopback, retries at once), and an outbox entry to hand a handler."""

from __future__ import annotations

import base64
import dataclasses
import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from service.config import Settings
from service.play.matches import Matches
from service.runtime import build
from tests.conftest import CREATOR_KEY, Player, signed_headers
from workers import jobs
from workers import webhooks as hook_jobs

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


