"""DKIM (``PORTOLAN_MAIL_REQUIRE_DKIM``): did the sender's own domain sign this message?

A From address is just text anyone may write; a DKIM signature (RFC 6376) whose ``d=`` is the
From's domain, or a parent of it (``example.org`` signs for ``mail.example.org``), shows the mail
came through that domain's servers. Checked with dkimpy over the raw bytes as received; a
signature by some other domain (a mailing list, a forwarding service) does not count.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import dkim

log = logging.getLogger("portolan.mail")


def dkim_of_sender(raw: bytes, sender: str, dnsfunc: Callable[..., bytes | None] | None = None) -> bool:
    """True when one of the message's DKIM signatures verifies and its ``d=`` is the sender's
    domain or a parent domain of it. ``dnsfunc(name, timeout=...)`` returns a TXT record (dkimpy's
    DNS lookup when None; tests inject one)."""
    domain = sender.rpartition("@")[2].lower().rstrip(".")
    if not domain:
        return False
    try:
        checker = dkim.DKIM(raw, minkey=1024)
        signatures = sum(1 for name, _ in checker.headers if name.lower() == b"dkim-signature")
        for index in range(signatures):
            kwargs = {} if dnsfunc is None else {"dnsfunc": dnsfunc}
            if not checker.verify(idx=index, **kwargs):
                continue
            signer = (checker.domain or b"").decode("ascii", "replace").lower().rstrip(".")
            if signer and (domain == signer or domain.endswith("." + signer)):
                return True
    except Exception as exc:  # dkimpy raises on malformed signatures and DNS failures: no pass
        log.info("DKIM check of a mail from %s failed: %s", sender, exc)
    return False
