"""The door (issue 28 item 2): only an authentic reply address brings a mail in; nothing else
reaches the desk, so nothing is ever answered to a forged or missing reply token."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest

from service.delivery.inbound import NOT_FOR_THE_DESK, Door, deliver_raw
from service.delivery.inbound.gate import judge
from service.play.mail import reply_address as tokens
from service.play.mail.reply_address import reply_address
from service.proof import signing
from tests.helpers import mailcorpus
from tests.helpers.mailcorpus import wire
from tests.helpers.recording import RecordingDesk

KEY = signing.private_key_from_seed(b"the door test key")  # fixed: the test ids name addresses made with it
BASE = "turns@portolan.test"
DOOR = Door(KEY, BASE)


@pytest.mark.parametrize("kind", ["t", "i", "o"])
def test_an_authentic_reply_address_of_every_kind_is_let_in(kind: str) -> None:
    address = reply_address(KEY, BASE, kind, "abc", 2, 7 if kind == "t" else 0)  # type: ignore[arg-type]
    assert judge(KEY, BASE, address).verdict == "reply"
    assert judge(KEY, BASE, address.upper()).verdict == "reply"  # some servers fold the local part's case
    assert judge(KEY, BASE, f"Ana <{address}>").verdict == "reply"


@pytest.mark.parametrize(("address", "reason"), [
    ("turns@portolan.test", "unknown local part"),
    ("someone@portolan.test", "unknown local part"),
    (reply_address(KEY, "moves@portolan.test", "t", "abc", 2, 7), "unknown local part"),
    ("turns+x-abc-2-7-abcdefghijkmnpqr@portolan.test", "unknown reply token prefix"),
    ("turns+nonsense@portolan.test", "unknown reply token prefix"),
    ("turns+t-abc-2-7@portolan.test", "malformed reply token"),
    ("turns+t-abc-2-7-abcdefghijkmnpq1@portolan.test", "malformed reply token"),
    ("turns+t-abc-2-7-abcdefghijkmnpqr@portolan.test", "bad reply token"),
    (reply_address(signing.private_key_from_seed(b"another server"), BASE, "t", "abc", 2, 7), "bad reply token"),
    (reply_address(KEY, BASE, "t", "abc", 2, 7).replace("-2-7-", "-2-8-"), "bad reply token"),
    (reply_address(KEY, BASE, "o", "abc", 2).replace("+o-", "+t-"), "bad reply token"),
])
def test_what_is_not_authentic_is_refused_with_a_reason(address: str, reason: str) -> None:
    judgement = judge(KEY, BASE, address)
    assert judgement.verdict == "refused" and not judgement.taken
    assert judgement.reason.startswith(reason)


@pytest.mark.parametrize("address", ["postmaster@portolan.test", "Abuse@portolan.test"])
def test_postmaster_and_abuse_are_taken_but_are_no_reply_address(address: str) -> None:
    judgement = judge(KEY, BASE, address)
    assert judgement.taken and judgement.verdict == "role"
    assert not DOOR.lets_in([address])


def test_a_forged_token_never_reaches_the_desk() -> None:
    desk = RecordingDesk()
    forged = mailcorpus.base(to="turns+t-abc-2-7-abcdefghijkmnpqr@portolan.test")
    forged.set_content("3")
    assert deliver_raw(desk, wire(forged), ["turns+t-abc-2-7-abcdefghijkmnpqr@portolan.test"], door=DOOR) == NOT_FOR_THE_DESK
    assert deliver_raw(desk, wire(forged), ["postmaster@portolan.test"], door=DOOR) == NOT_FOR_THE_DESK
    assert desk.mails == []


def test_an_authentic_token_in_the_envelope_or_only_in_the_headers_reaches_the_desk() -> None:
    """mail-in without an envelope recipient (a .forward that passes none) reads the To header."""
    desk = RecordingDesk()
    address = reply_address(KEY, BASE, "t", "abc", 2, 7)
    reply = mailcorpus.base(to=address)
    reply.set_content("3")
    assert deliver_raw(desk, wire(reply), [address], door=DOOR).startswith("recorded")
    assert deliver_raw(desk, wire(reply), [], door=DOOR).startswith("recorded")
    assert len(desk.mails) == 2


def test_an_expired_token_is_refused_at_the_door() -> None:
    """Expiry is the reply_address module's (issue 28 item 3): the door asks it."""
    make = cast(Any, tokens.reply_address)
    now = time.time()
    old = make(KEY, BASE, "o", "abc", 1, days=1, now=now - 10 * 86400)
    fresh = make(KEY, BASE, "o", "abc", 1, days=1, now=now)
    assert judge(KEY, BASE, old, now).reason.startswith("expired reply token")
    assert judge(KEY, BASE, fresh, now).verdict == "reply"
