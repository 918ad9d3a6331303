"""Reply addresses: made only with the server key, bound to match, seat and ply, and expiring
by the calendar (issue 28: the last day is inside the mac)."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime

from service.play.mail.reply_address import (
    LEGACY_UNTIL_DAY,
    _mac_key,
    authentic,
    check,
    day_of,
    parse_reply_address,
    reply_address,
)
from service.proof import signing

KEY = signing.generate_private_key()


def test_an_address_names_its_match_seat_and_ply_and_survives_case_folding() -> None:
    address = reply_address(KEY, "turns@example.org", "t", "abcdefgh2345", 2, 17)
    assert address.startswith("turns+t-abcdefgh2345-2-17-") and address.endswith("@example.org")
    assert len(address.partition("@")[0]) <= 64  # RFC 5321's bound on a local part
    reply = parse_reply_address(f'"Portolan" <{address.upper()}>')
    assert reply is not None and (reply.kind, reply.match, reply.seat, reply.ply) == ("t", "abcdefgh2345", 2, 17)
    assert authentic(KEY, reply)


def test_a_changed_ply_seat_or_kind_or_another_server_key_is_not_authentic() -> None:
    address = reply_address(KEY, "turns@example.org", "t", "abcdefgh2345", 2, 17)
    reply = parse_reply_address(address)
    assert reply is not None
    for forged in (address.replace("-17-", "-18-"), address.replace("-2-", "-1-"), address.replace("+t-", "+o-")):
        other = parse_reply_address(forged)
        assert other is not None and not authentic(KEY, other)
    assert not authentic(signing.generate_private_key(), reply)


def test_addresses_that_are_not_reply_addresses_parse_to_none() -> None:
    for text in ("turns@example.org", "someone+t-abc@example.org", "turns+t-abcdefgh2345-2-17-short@example.org",
                 "", "not an address", "turns+x-abcdefgh2345-2-17-aaaaaaaaaaaaaaaa@example.org"):
        assert parse_reply_address(text) is None


NOW = datetime(2026, 12, 5, 13, 0, tzinfo=UTC).timestamp()
DAY = 86400


def test_a_token_is_good_for_its_days_and_expired_after_them() -> None:
    address = reply_address(KEY, "turns@example.org", "o", "abcdefgh2345", 1, days=30, now=NOW)
    reply = parse_reply_address(address)
    assert reply is not None and reply.expires == day_of(NOW) + 30
    assert f"-{day_of(NOW) + 30}-" in address
    assert check(KEY, address, NOW).verdict == "ok"
    assert check(KEY, address, NOW + 30 * DAY).verdict == "ok"  # the whole last day
    assert check(KEY, address, NOW + 31 * DAY).verdict == "expired"
    assert not check(KEY, address, NOW + 31 * DAY).ok


def test_the_mac_covers_the_day_so_a_sender_cannot_extend_it() -> None:
    address = reply_address(KEY, "turns@example.org", "t", "abcdefgh2345", 2, 17, days=3, now=NOW)
    later = address.replace(f"-{day_of(NOW) + 3}-", f"-{day_of(NOW) + 300}-")
    assert later != address
    assert check(KEY, later, NOW).verdict == "forged"
    # dropping the day (a legacy-shaped token) does not verify either
    legacy_shape = address.replace(f"-{day_of(NOW) + 3}-", "-")
    assert check(KEY, legacy_shape, NOW).verdict == "forged"


def test_check_takes_a_whole_address_or_a_local_part_and_says_what_is_wrong() -> None:
    address = reply_address(KEY, "turns@example.org", "t", "abcdefgh2345", 2, 17, now=NOW)
    local = address.partition("@")[0]
    assert check(KEY, local, NOW).verdict == "ok" and check(KEY, local, NOW).reply == parse_reply_address(address)
    assert check(KEY, f"<{address.upper()}>", NOW).ok
    assert check(KEY, "turns", NOW).verdict == "not-ours" and check(KEY, "turns", NOW).reply is None
    assert check(KEY, "postmaster@example.org", NOW).verdict == "not-ours"
    assert check(signing.generate_private_key(), address, NOW).verdict == "forged"


def test_a_token_made_before_expiry_existed_is_honoured_until_the_grace_day() -> None:
    # the old shape: <kind>-<match>-<seat>-<ply>-<mac>, its mac over kind:match:seat:ply
    raw = hmac.new(_mac_key(KEY), b"o:abcdefgh2345:1:0", hashlib.sha256).digest()
    bits = int.from_bytes(raw[:10], "big")
    mac = "".join("abcdefghijkmnpqrstuvwxyz23456789"[(bits >> (5 * i)) & 31] for i in range(16))
    old = f"turns+o-abcdefgh2345-1-0-{mac}@example.org"
    reply = parse_reply_address(old)
    assert reply is not None and reply.expires is None and authentic(KEY, reply)
    assert check(KEY, old, NOW).verdict == "ok"
    assert check(KEY, old, LEGACY_UNTIL_DAY * DAY + DAY - 1).verdict == "ok"
    assert check(KEY, old, (LEGACY_UNTIL_DAY + 1) * DAY).verdict == "expired"
    assert datetime.fromtimestamp(LEGACY_UNTIL_DAY * DAY, UTC).date().isoformat() == "2027-01-31"
