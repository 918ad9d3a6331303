"""The invitation's List-Unsubscribe (RFC 2369), and what its mailto does: the invited address asks for
no more Portolan mail, and no later invitation goes to it (issue 27 part 1). The one-click URL beside it:
tests/delivery/test_one_click_unsubscribe.py."""

from __future__ import annotations

import os
import re
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from service.config import Settings
from service.delivery.inbound import parse
from service.delivery.unsubscribe import token_of
from service.play.matches import Matches
from service.runtime import build, build_desk
from service.storage.connection import connect
from service.storage.preferences import NoticePreferences
from tests.conftest import CREATOR_KEY
from tests.helpers.notices import parsed, raw_mail
from workers import jobs

ZOE, BEA = "zoe@example.org", "bea@example.org"
RFC2369 = re.compile(r"^\s*<([^<>\s]+)>(\s*,\s*<([^<>\s]+)>)*\s*$")
"""A List-Unsubscribe value: one or more ``<URL>``, comma-separated."""


def invite(m: Matches, *emails: str) -> tuple[str, dict[str, str]]:
    made = m.create("nauticus", {}, [{"invite": e} for e in emails], creator_key=CREATOR_KEY, creator_name="Ana")
    return str(made["id"]), dict(made["invites"])


def unsubscribe_urls(msg: EmailMessage) -> list[str]:
    value = str(msg["List-Unsubscribe"])
    assert RFC2369.match(value), value
    return re.findall(r"<([^<>]+)>", value)


def test_an_invitation_has_a_list_unsubscribe_that_stops_later_invitations(outbox_settings: Settings) -> None:
    s = outbox_settings
    m = build(s)
    mid, tokens = invite(m, ZOE, BEA)
    assert jobs.send_invite(mid, 0, ZOE, tokens["0"]).startswith("sent")
    msg = parsed(raw_mail(s, f"invite:{mid}:0"))
    web, url = unsubscribe_urls(msg)  # the one-click URL first (tests/delivery/test_one_click_unsubscribe.py)
    assert web == f"{s.public_url}/v1/unsubscribe/{token_of(m.server_key, ZOE)}"
    assert msg["List-Unsubscribe-Post"] is None  # RFC 8058 is for an https URL alone, and PUBLIC_URL is http here
    parts = urlsplit(url)
    assert parts.scheme == "mailto"
    assert parse_qs(parts.query)["subject"] == ["stop notices"]

    # what a mail client sends for it: an empty mail with that subject, from the invited address
    stop = EmailMessage()
    stop["From"] = f"Zoë <{ZOE}>"
    stop["To"] = unquote(parts.path)
    stop["Subject"] = "stop notices"
    stop["Message-ID"] = f"<{os.urandom(8).hex()}@mail.example.org>"
    stop.set_content("")
    account = build_desk(s, m).receive(parse(stop.as_bytes()))
    assert "dropped" not in account and "refused" not in account, account
    assert NoticePreferences(connect(s.redis_url), s.namespace).get(ZOE) == "off"

    later, more = invite(m, ZOE.upper(), BEA)  # the same mailbox, however its case is spelled
    assert jobs.send_invite(later, 0, ZOE.upper(), more["0"]) == "skipped: the address asked for no more Portolan mail"
    assert not Path(s.outbox_dir, f"invite-{later}-0.eml").exists()
    assert jobs.send_invite(later, 1, BEA, more["1"]).startswith("sent")  # others still get theirs
    assert parsed(raw_mail(s, f"invite:{later}:1"))["To"] == BEA


def test_a_stop_from_another_address_changes_nothing(outbox_settings: Settings) -> None:
    """The desk takes the stop only from the invited address: nobody can unsubscribe someone else."""
    s = outbox_settings
    m = build(s)
    mid, tokens = invite(m, ZOE, BEA)
    jobs.send_invite(mid, 0, ZOE, tokens["0"])
    _, url = unsubscribe_urls(parsed(raw_mail(s, f"invite:{mid}:0")))
    stop = EmailMessage()
    stop["From"] = "mallory@example.net"
    stop["To"] = unquote(urlsplit(url).path)
    stop["Subject"] = "stop notices"
    stop["Message-ID"] = f"<{os.urandom(8).hex()}@mail.example.net>"
    stop.set_content("")
    build_desk(s, m).receive(parse(stop.as_bytes()))
    assert NoticePreferences(connect(s.redis_url), s.namespace).get(ZOE) == "every"
    later, more = invite(m, ZOE, BEA)
    assert jobs.send_invite(later, 0, ZOE, more["0"]).startswith("sent")
