"""Reply addresses: made only with the server key, bound to match, seat and ply."""

from __future__ import annotations

from service.play.mail.reply_address import authentic, parse_reply_address, reply_address
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
