"""PORTOLAN_MAIL_REQUIRE_DKIM: a message signed with dkimpy and a test key, verified against an
injected DNS lookup (no network)."""

from __future__ import annotations

import base64

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from service.delivery.inbound import parse
from tests.helpers import mailcorpus


@pytest.fixture(scope="module")
def key() -> tuple[bytes, bytes]:
    """A 2048-bit RSA key: its PEM private key and its DNS TXT record (RFC 6376 3.6.1)."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption())
    der = private.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return pem, b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)


def dns(records: dict[bytes, bytes]):  # type: ignore[no-untyped-def]
    """A DNS TXT lookup (dkimpy's dnsfunc) answering from ``records``; ``.asked`` lists the names."""
    asked: list[bytes] = []

    def txt(name: bytes, timeout: float = 5) -> bytes | None:
        asked.append(name)
        return records.get(name)

    txt.asked = asked  # type: ignore[attr-defined]
    return txt


def signed(pem: bytes, domain: bytes, sender: str = "Ana Example <ana@example.org>") -> bytes:
    msg = mailcorpus.base(sender=sender)
    msg.set_content("3, 1, end\n")
    raw = msg.as_bytes().replace(b"\n", b"\r\n")
    return dkim.sign(raw, b"sel", domain, pem, include_headers=[b"from", b"to", b"subject", b"message-id"]) + raw


def test_a_signature_of_the_sender_s_domain_passes(key: tuple[bytes, bytes]) -> None:
    pem, record = key
    lookup = dns({b"sel._domainkey.example.org.": record})
    mail = parse(signed(pem, b"example.org"), check_dkim=True, dnsfunc=lookup)
    assert mail.dkim is True and mail.text == "3, 1, end"
    assert lookup.asked == [b"sel._domainkey.example.org."]  # type: ignore[attr-defined]


def test_a_parent_domain_may_sign_for_a_subdomain_sender(key: tuple[bytes, bytes]) -> None:
    pem, record = key
    raw = signed(pem, b"example.org", sender="ana@mail.example.org")
    assert parse(raw, check_dkim=True, dnsfunc=dns({b"sel._domainkey.example.org.": record})).dkim is True


def test_a_tampered_body_fails(key: tuple[bytes, bytes]) -> None:
    pem, record = key
    raw = signed(pem, b"example.org").replace(b"3, 1, end", b"3, 2, end")
    mail = parse(raw, check_dkim=True, dnsfunc=dns({b"sel._domainkey.example.org.": record}))
    assert mail.dkim is False and mail.text == "3, 2, end"


def test_a_tampered_from_fails(key: tuple[bytes, bytes]) -> None:
    pem, record = key
    raw = signed(pem, b"example.org").replace(b"ana@example.org", b"bea@example.org")
    assert parse(raw, check_dkim=True, dnsfunc=dns({b"sel._domainkey.example.org.": record})).dkim is False


def test_a_valid_signature_of_another_domain_does_not_count(key: tuple[bytes, bytes]) -> None:
    """A list or a forwarder may sign validly, but for its own domain, not the sender's."""
    pem, record = key
    lookup = dns({b"sel._domainkey.lists.example.net.": record})
    raw = signed(pem, b"lists.example.net")
    assert dkim.verify(raw, dnsfunc=lookup)  # the signature itself is good
    assert parse(raw, check_dkim=True, dnsfunc=lookup).dkim is False
    lookalike = signed(pem, b"ample.org")
    assert parse(lookalike, check_dkim=True, dnsfunc=dns({b"sel._domainkey.ample.org.": record})).dkim is False


def test_an_unsigned_or_unresolvable_message_fails_and_unchecked_is_none(key: tuple[bytes, bytes]) -> None:
    pem, _ = key
    unsigned = mailcorpus.gmail("3").as_bytes()
    assert parse(unsigned, check_dkim=True, dnsfunc=dns({})).dkim is False
    assert parse(signed(pem, b"example.org"), check_dkim=True, dnsfunc=dns({})).dkim is False
    assert parse(b"DKIM-Signature: v=1; garbage\r\nFrom: ana@example.org\r\n\r\n3\r\n", check_dkim=True,
                 dnsfunc=dns({})).dkim is False
    assert parse(unsigned).dkim is None
