"""One-click unsubscribe (RFC 8058) as a mailbox provider meets it: a turn notice and an invitation
carry ``List-Unsubscribe: <https://.../v1/unsubscribe/TOKEN>, <mailto:...>`` and
``List-Unsubscribe-Post: List-Unsubscribe=One-Click``; POSTing that body to that URL, as Gmail does,
turns the address's mail off, and no later invitation goes to it. Real jobs, outbox files, the app."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import urlsplit

import dkim
import pytest

from service.api import create_app
from service.config import Settings
from service.delivery import dkim_sign
from service.delivery.unsubscribe import token_of
from service.play.mail.reply_address import authentic, parse_reply_address
from service.play.matches import Matches
from service.runtime import build
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from tests.conftest import CREATOR_KEY, Player, forget_worker_service
from tests.helpers.notices import notice, parsed, raw_mail
from workers import jobs

ZOE, BEA = "zoe@example.org", "bea@example.org"
LIST = re.compile(r"^<([^<>\s]+)>, <([^<>\s]+)>$")
"""The List-Unsubscribe value Portolan writes: the https URL, then the mailto (RFC 2369 list syntax)."""


@pytest.fixture
def https_settings(outbox_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """The jobs' setup with an https PUBLIC_URL, as in production: RFC 8058 is for https alone."""
    s = dataclasses.replace(outbox_settings, public_url="https://portolan.test")
    monkeypatch.setenv("PUBLIC_URL", s.public_url)
    forget_worker_service()
    yield s
    forget_worker_service()


def one_click_url(m: Matches, msg: EmailMessage, to: str) -> str:
    """The mail's one-click URL, once its headers are checked: both URIs, the https one first and
    naming ``to``, the mailto an authentic ``stop notices`` to an ``o`` reply address, and the Post
    header; every one of them written as is, never as RFC 2047 encoded words."""
    value = str(msg["List-Unsubscribe"])
    found = LIST.match(value)
    assert found, value
    web, mailto = found.groups()
    assert web == f"https://portolan.test/v1/unsubscribe/{token_of(m.server_key, to)}"
    assert mailto.startswith("mailto:") and mailto.endswith("?subject=stop%20notices")
    reply = parse_reply_address(urlsplit(mailto).path)
    assert reply is not None and reply.kind == "o" and authentic(m.server_key, reply)
    assert msg.get_all("List-Unsubscribe-Post") == ["List-Unsubscribe=One-Click"]
    assert "=?" not in value
    return web


def invite(m: Matches, *emails: str) -> tuple[str, dict[str, str]]:
    made = m.create("nauticus", {}, [{"invite": e} for e in emails], creator_key=CREATOR_KEY, creator_name="Ana")
    return str(made["id"]), dict(made["invites"])


def test_a_turn_notice_carries_the_one_click_headers(https_settings: Settings, players: list[Player]) -> None:
    msg, raw, _, seat, _ = notice(https_settings, players)
    m = build(https_settings)
    one_click_url(m, msg, ["zoe@example.org", "bea@example.org"][seat])
    assert b"\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\n" in raw
    # a DKIM signature covers both (dkim_sign signs these names, present or not)
    assert {b"list-unsubscribe", b"list-unsubscribe-post"} <= set(dkim_sign.SIGNED_HEADERS)


def test_a_dkim_signature_covers_both_headers(https_settings: Settings, players: list[Player], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Gmail's rules: the unsubscribe headers are signed. Change the URL or the Post header, or drop
    the Post header, and the signature no longer verifies."""
    key = tmp_path / "dkim.pem"
    key.write_bytes(dkim_sign.generate("ed25519"))
    record = dkim_sign.load(str(key), "portolan", "example.org").record()
    monkeypatch.setenv("PORTOLAN_DKIM_KEY", str(key))
    monkeypatch.setenv("MAIL_FROM", "Portolan <turns@example.org>")
    forget_worker_service()
    s = dataclasses.replace(https_settings, dkim_key=str(key), mail_from="Portolan <turns@example.org>")
    _, raw, _, _, _ = notice(s, players)

    def verifies(data: bytes) -> bool:
        def txt(name: bytes, timeout: float = 5) -> bytes | None:
            return record.encode() if name == b"portolan._domainkey.example.org." else None
        return bool(dkim.verify(data, dnsfunc=txt))

    assert verifies(raw)
    post = b"List-Unsubscribe-Post: List-Unsubscribe=One-Click\n"
    assert post in raw
    assert not verifies(raw.replace(post, b""))
    assert not verifies(raw.replace(post, b"List-Unsubscribe-Post: List-Unsubscribe=Other\n"))
    assert not verifies(raw.replace(b"https://portolan.test/v1/unsubscribe/", b"https://evil.test/v1/unsubscribe/"))


def test_the_one_click_post_stops_the_mail_and_later_invitations(https_settings: Settings) -> None:
    s = https_settings
    m = build(s)
    mid, tokens = invite(m, ZOE, BEA)
    assert jobs.send_invite(mid, 0, ZOE, tokens["0"]).startswith("sent")
    url = one_click_url(m, parsed(raw_mail(s, f"invite:{mid}:0")), ZOE)
    prefs = NoticePreferences(connect(s.redis_url), s.namespace)

    # what a mailbox provider does (RFC 8058 section 3.2): POST the one field, no cookies, no auth
    client = create_app(s, m, TESTING=True).test_client()
    assert client.get(urlsplit(url).path).status_code == 200  # a link scanner first: nothing changes
    assert prefs.get(ZOE) == "every"
    r = client.post(urlsplit(url).path, data="List-Unsubscribe=One-Click",
                    content_type="application/x-www-form-urlencoded")
    assert r.status_code == 200, r.get_data(as_text=True)
    assert prefs.get(ZOE) == "off" and prefs.get(BEA) == "every"

    later, more = invite(m, ZOE.upper(), BEA)  # the same mailbox, however its case is spelled
    assert jobs.send_invite(later, 0, ZOE.upper(), more["0"]) == "skipped: the address asked for no more Portolan mail"
    assert not Path(s.outbox_dir, f"invite-{later}-0.eml").exists()
    assert jobs.send_invite(later, 1, BEA, more["1"]).startswith("sent")  # others still get theirs


def test_over_plain_http_the_url_is_listed_but_not_offered_as_one_click(outbox_settings: Settings) -> None:
    """``portolan dev`` and the like: the URL still opens the page with its button, but no receiver
    would POST to http, so no ``List-Unsubscribe-Post`` claims it."""
    m = build(outbox_settings)
    mid, tokens = invite(m, ZOE, BEA)
    jobs.send_invite(mid, 0, ZOE, tokens["0"])
    msg = parsed(raw_mail(outbox_settings, f"invite:{mid}:0"))
    found = LIST.match(str(msg["List-Unsubscribe"]))
    assert found and found[1] == f"http://portolan.test/v1/unsubscribe/{token_of(m.server_key, ZOE)}"
    assert msg["List-Unsubscribe-Post"] is None
