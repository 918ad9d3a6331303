"""The ``Authentication-Results`` headers our own MTA wrote: those at the top of the message.

An MTA adds its trace headers above the ones it received: its ``Received`` line, and its
checkers' (OpenDKIM, OpenDMARC, rspamd) ``Authentication-Results`` just above or just below it.
Everything under the *next* ``Received`` came from the hops before ours, or from the sender, who
may write any header it likes, ``Authentication-Results`` of our authserv-id included. So only the
A-R headers of the top block count: from the first header down, through the trace and filter
headers an MTA adds (:data:`TRACE`), until a second ``Received`` or any other header. The desk then
trusts only those of ``PORTOLAN_MAIL_AUTHSERV_ID`` (service.play.mail.sender_auth). A sender who
connects straight to our MX can still put a forged one right under ours: the MTA must remove
incoming A-R headers of its own id (RFC 8601 section 5; deploy/README.md "Mail in" shows the
Postfix ``header_checks`` line).
"""

from __future__ import annotations

from email.message import Message

TRACE = ("return-path", "delivered-to", "x-original-to", "received-spf", "arc-", "x-spam-", "x-virus-",
         "x-rspamd-", "authentication-results", "received")
"""Header names (or their prefixes, ending in ``-``) an MTA and its filters add on the way in."""
MAX_TRUSTED = 16
"""More A-R headers than this at the top is no MTA of ours: the rest are not read."""


def top_auth_results(msg: Message) -> tuple[str, ...]:
    """The values of the ``Authentication-Results`` headers in the message's top trace block, in order."""
    found: list[str] = []
    received = 0
    for name, value in msg.raw_items():
        lower = name.strip().lower()
        if not any(lower == t or (t.endswith("-") and lower.startswith(t)) for t in TRACE):
            break
        if lower == "received":
            received += 1
            if received > 1:
                break
        elif lower == "authentication-results" and len(found) < MAX_TRUSTED:
            found.append(" ".join(str(value).split()))
    return tuple(found)
