"""DKIM signatures on outgoing mail (RFC 6376; Ed25519 by RFC 8463), made with dkimpy.

With ``PORTOLAN_DKIM_KEY`` set (a PEM private key file, RSA or Ed25519), every message
:func:`service.delivery.mail.deliver` sends is signed for the domain of ``MAIL_FROM`` under the
selector ``PORTOLAN_DKIM_SELECTOR``: the signature covers the very bytes that go to the SMTP server or
into the outbox file (mail.py serialises once, then signs, then sends), so nothing rewrites the
message between the two. Receivers then find the public key at ``<selector>._domainkey.<domain>``
(``portolan dkim keygen`` prints that record; deploy/README.md "Mail that lands").

The key file is read once per process and checked when it is read: a missing, unreadable or
malformed key is a :class:`DkimKeyError` naming ``PORTOLAN_DKIM_KEY``, raised when the worker starts
(:func:`check`) rather than as a traceback in a mail job. dkimpy wants an RSA key as PKCS#1 or PKCS#8
PEM (it parses it itself) and an Ed25519 key as the base64 of its 32-byte seed, so the file is
loaded with ``cryptography`` and handed to dkimpy in the form each algorithm needs.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from email.utils import parseaddr
from functools import lru_cache
from pathlib import Path
from typing import Literal

import dkim
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from service.config import Settings

KeyType = Literal["rsa", "ed25519"]

SIGNED_HEADERS: tuple[bytes, ...] = (
    b"from", b"to", b"subject", b"date", b"message-id", b"reply-to", b"in-reply-to", b"references",
    b"mime-version", b"content-type", b"list-unsubscribe", b"list-unsubscribe-post", b"auto-submitted",
)
"""The headers a signature covers: who, what, when, the threading, the MIME structure and the
unsubscribe link (Gmail's bulk-sender rules ask for ``List-Unsubscribe`` to be signed). dkimpy signs
a header that a message lacks as absent, so nobody can add one later without breaking the signature
(RFC 6376 section 5.4, "oversigning" of the missing ones)."""

MIN_RSA_BITS = 1024
"""RFC 8301: verifiers may ignore shorter RSA keys; ``keygen`` makes 2048-bit ones."""

SETTING = "PORTOLAN_DKIM_KEY"


class DkimKeyError(ValueError):
    """The configured DKIM key cannot be used: the message names the setting and the file."""


@dataclass(frozen=True)
class DkimSigner:
    """One signing identity: the key, its algorithm, and where receivers find its public half."""

    selector: str
    domain: str
    key_type: KeyType
    private: bytes
    """The private key as dkimpy takes it: PKCS#1 PEM for RSA, base64 of the seed for Ed25519."""
    public: bytes
    """The ``p=`` of the DNS record: the base64 public key (RSA: SubjectPublicKeyInfo DER; Ed25519:
    the 32 raw bytes, RFC 8463 section 4.2)."""

    @property
    def algorithm(self) -> bytes:
        """dkimpy's ``a=`` for this key."""
        return b"ed25519-sha256" if self.key_type == "ed25519" else b"rsa-sha256"

    def record_name(self) -> str:
        """The DNS name of the public key record (fully qualified)."""
        return f"{self.selector}._domainkey.{self.domain}."

    def record(self) -> str:
        """The TXT record's text (RFC 6376 section 3.6.1)."""
        return txt_record(self.key_type, self.public)

    def sign(self, raw: bytes, linesep: bytes = b"\r\n") -> bytes:
        """``raw`` with a ``DKIM-Signature`` header in front (relaxed/relaxed canonicalisation:
        it survives the header refolding and trailing-space trimming some relays do). ``linesep``
        is the line ending of ``raw``, which the signature header's folding must use too."""
        header: bytes = dkim.sign(raw, self.selector.encode(), self.domain.encode(), self.private,
                           canonicalize=(b"relaxed", b"relaxed"), signature_algorithm=self.algorithm,
                           include_headers=list(SIGNED_HEADERS), linesep=linesep)
        if linesep != b"\r\n":  # dkimpy ends its header with CRLF whatever the folding
            header = header.rstrip(b"\r\n") + linesep
        return header + raw


def txt_record(key_type: KeyType, public: bytes) -> str:
    """The DKIM TXT record of a public key (``p=`` base64)."""
    return f"v=DKIM1; k={key_type}; p={public.decode('ascii')}"


def record_line(name: str, record: str) -> str:
    """The record as a zone-file line. A TXT string holds at most 255 characters (an RSA 2048
    record is about 400), so a long one is split into several quoted strings, which DNS joins."""
    chunks = [record[i:i + 250] for i in range(0, len(record), 250)]
    return f'{name} IN TXT ' + " ".join(f'"{c}"' for c in chunks)


def domain_of(address: str) -> str:
    """The domain of an address (``Portolan <turns@example.org>`` gives ``example.org``), "" if none."""
    return parseaddr(address)[1].rpartition("@")[2].strip().lower()


def from_pem(pem: bytes, selector: str, domain: str, where: str = SETTING) -> DkimSigner:
    """The signer of a PEM private key (PKCS#1 or PKCS#8; RSA or Ed25519; not encrypted). :class:`DkimKeyError` naming ``where`` for anything else."""
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise DkimKeyError(f"{where}: not a PEM private key without a passphrase ({exc})") from exc
    if isinstance(key, ed25519.Ed25519PrivateKey):
        seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
        raw_public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return DkimSigner(selector, domain, "ed25519", base64.b64encode(seed), base64.b64encode(raw_public))
    if isinstance(key, rsa.RSAPrivateKey):
        if key.key_size < MIN_RSA_BITS:
            raise DkimKeyError(f"{where}: an RSA key of {key.key_size} bits is too short for DKIM "
                               f"(receivers ignore keys under {MIN_RSA_BITS} bits; make one of 2048)")
        pkcs1 = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                  serialization.NoEncryption())
        der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        return DkimSigner(selector, domain, "rsa", pkcs1, base64.b64encode(der))
    raise DkimKeyError(f"{where}: a {type(key).__name__.removeprefix('_')} key; DKIM signs with RSA or Ed25519 only")


def generate(key_type: KeyType) -> bytes:
    """A new private key as unencrypted PKCS#8 PEM: RSA of 2048 bits (RFC 8301's recommended size,
    and a DNS record that still fits a UDP answer) or Ed25519."""
    key: rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048) if key_type == "rsa"
        else ed25519.Ed25519PrivateKey.generate())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def load(path: str, selector: str, domain: str) -> DkimSigner:
    """The signer of the key file ``path`` (:class:`DkimKeyError` naming the setting when the file
    cannot be read or holds no usable key)."""
    where = f"{SETTING}={path}"
    if not domain:
        raise DkimKeyError(f"{where}: MAIL_FROM has no domain to sign for")
    try:
        pem = Path(path).read_bytes()
    except OSError as exc:
        raise DkimKeyError(f"{where}: cannot read the key file ({exc.strerror or exc})") from exc
    return from_pem(pem, selector, domain, where)


@lru_cache(maxsize=4)
def _cached(path: str, selector: str, domain: str) -> DkimSigner:
    return load(path, selector, domain)


def signer(settings: Settings) -> DkimSigner | None:
    """The signer ``settings`` configure (read once per process), or None without ``PORTOLAN_DKIM_KEY``."""
    if not settings.dkim_key:
        return None
    return _cached(settings.dkim_key, settings.dkim_selector, domain_of(settings.mail_from))


def check(settings: Settings) -> None:
    """Load the configured key now (a process that sends mail calls it as it starts), so a bad
    key stops the process with :class:`DkimKeyError` before any mail job runs."""
    signer(settings)
