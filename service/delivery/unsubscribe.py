"""One-click unsubscribe tokens (RFC 8058): the signed name of one address, in the URL of a mail's
``List-Unsubscribe`` header (``<PUBLIC_URL>/v1/unsubscribe/<token>``).

What a token holds, and why: the address's **digest**, ``address_digest`` of
service.storage.preferences (SHA-256 of the address stripped and lower-cased, the very key its
notice preference is kept under), followed by an HMAC-SHA256 of that digest, the two as 64
characters of unpadded base64url (32 + 16 bytes: no spare bits, so no two spellings decode to the
same token). Not the address itself, even encoded: an unsubscribe URL travels through mailbox
providers' link scanners, proxies and access logs, and the address has no business there. The
digest is all the route needs (it sets the preference kept under it, nothing is looked up or
stored), and the MAC is what makes a token unguessable: without the server key nobody can make
the token of an address, or turn one address's token into another's. A digest does let someone
who already guesses an address confirm the guess; that is the price of a URL that works forever
without a table of tokens, and the digest is no more than the preference keys in Redis show.

A token never expires (a years-old mail's button must still work) and can only ever do one thing:
set its address's preference to ``off``. The MAC key is derived from the server key for this use
alone (as service.play.mail.reply_address derives its own), so a token is never a reply address's
MAC, a signature, or the reverse. 128 bits of MAC: far beyond guessing at any rate limit. Checked
in constant time (``hmac.compare_digest``). Pure: no I/O, so the letters, the API and the tests
share it.
"""

from __future__ import annotations

import hashlib
import hmac
import re

from service.proof import signing
from service.storage.preferences import address_digest

DIGEST_BYTES = 32
MAC_BYTES = 16
TOKEN_CHARS = (DIGEST_BYTES + MAC_BYTES) * 4 // 3
"""64: 48 bytes of unpadded base64url, exactly (48 is a multiple of 3)."""
_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{{TOKEN_CHARS}}}")

ONE_CLICK = ("List-Unsubscribe", "One-Click")
"""RFC 8058 section 3.1: the one field, and its one value, of the body a mail receiver POSTs."""
POST_HEADER = ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
"""The header that says the https URL of ``List-Unsubscribe`` takes that POST (RFC 8058 section 3.1)."""


def _mac_key(server_key: str) -> bytes:
    # a key of its own, derived from the server key: an unsubscribe token is nothing else's MAC
    return hashlib.sha256(signing.b64d(server_key) + b"portolan:unsubscribe").digest()


def _mac(server_key: str, digest: bytes) -> bytes:
    return hmac.new(_mac_key(server_key), b"unsubscribe:" + digest, hashlib.sha256).digest()[:MAC_BYTES]


def token_of(server_key: str, email: str) -> str:
    """The unsubscribe token of ``email`` (its case and surrounding space do not matter)."""
    digest = bytes.fromhex(address_digest(email))
    return signing.b64e(digest + _mac(server_key, digest))


def address_of(server_key: str, token: str) -> str | None:
    """The address digest (hex, as service.storage.preferences keeps it) a genuine ``token``
    names; None for anything else: malformed, altered, or made without this server's key."""
    if not _TOKEN.fullmatch(token):
        return None
    raw = signing.b64d(token)
    digest, mac = raw[:DIGEST_BYTES], raw[DIGEST_BYTES:]
    return digest.hex() if hmac.compare_digest(_mac(server_key, digest), mac) else None


def url_of(server_key: str, public_url: str, email: str) -> str:
    """The one-click URL of ``email`` on the server at ``public_url``."""
    return f"{public_url}/v1/unsubscribe/{token_of(server_key, email)}"
