"""Raw RFC 5322 bytes to an :class:`InboundMail`, with the stdlib ``email`` package (``policy.default``).

The reply's own words come from reply_text (a ``format=flowed`` plain part unflowed first,
flowed.py); a mail is automatic when its headers say so (automatic.py) or when it reads as an
out-of-office text (out_of_office.py); ``forwarded`` says it forwards a notice (forwarded.py).

Hostile mail must not stop the receiver, so parsing is bounded everywhere a message could make
it slow or deep:

- every header value is cut to :data:`MAX_HEADER_CHARS` before it is parsed (``policy.default``'s
  header parser needed 28 s for a 1 MB Subject of short words; 8 KB take milliseconds);
- the MIME tree is walked without recursion and no deeper than :data:`MAX_DEPTH`; a message nested
  so deep that the stdlib parser itself runs out of stack (``RecursionError``, about 1,000 levels)
  is read for its headers only, with no text;
- a part whose charset is unknown, no text charset (``idna``, ``punycode``, ``base64``) or whose
  bytes do not decode is decoded as UTF-8 with replacement characters, never an exception; a
  header the stdlib cannot parse reads as empty;
- NULs and other control characters are dropped from what the desk reads.
"""

from __future__ import annotations

import hashlib
import logging
import unicodedata
from collections.abc import Callable, Iterator
from email import message_from_bytes
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.policy import EmailPolicy
from email.utils import getaddresses, parseaddr
from typing import Any

from service.delivery.inbound.auth_headers import top_auth_results
from service.delivery.inbound.automatic import is_automatic
from service.delivery.inbound.dkim_check import dkim_of_sender
from service.delivery.inbound.flowed import unflow
from service.delivery.inbound.forwarded import is_forwarded
from service.delivery.inbound.out_of_office import sounds_out_of_office
from service.delivery.inbound.prescan import MAX_PARTS as PRESCAN_MAX_PARTS
from service.delivery.inbound.reply_text import MAX_HTML_CHARS, MAX_TEXT_CHARS, html_text, reply_words
from service.play.mail.inbound import InboundMail

log = logging.getLogger("portolan.mail")

MAX_HEADER_CHARS = 8192
"""A header value longer than this is cut before parsing (RFC 5322 lines are 998 characters;
even a long folded To of a hundred addresses fits)."""
MAX_DEPTH = 32
"""MIME nesting beyond this is not walked: no client nests a reply deeper than a handful."""
MAX_PARTS = PRESCAN_MAX_PARTS  # the pre-scan refuses more before parsing; the walk stops there too


class _CappedPolicy(EmailPolicy):
    """``policy.default``, but every header value is cut to :data:`MAX_HEADER_CHARS` before the
    (slow on long input) structured header parser sees it."""

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        """The header as ``policy.default`` parses it, from at most MAX_HEADER_CHARS characters;
        one the stdlib cannot parse (an RFC 2231 parameter in the ``idna`` charset raises
        UnicodeError) is read as empty: a header we cannot read is no header."""
        if isinstance(value, str) and len(value) > MAX_HEADER_CHARS:
            value = value[:MAX_HEADER_CHARS]
        try:
            return super().header_fetch_parse(name, value)
        except Exception:
            return super().header_fetch_parse(name, "")


POLICY = _CappedPolicy()


def parse(raw: bytes, *, envelope_recipients: tuple[str, ...] = (), envelope_sender: str | None = None,
          check_dkim: bool = False, dnsfunc: Callable[..., bytes | None] | None = None) -> InboundMail:
    """The :class:`InboundMail` of one raw message; never raises on malformed input.

    ``envelope_recipients`` are the SMTP RCPT TO addresses (or the MTA's ``$RECIPIENT``), listed
    first; ``envelope_sender`` is MAIL FROM when known ("" or "<>" is the null sender of a bounce).
    With ``check_dkim`` the message's DKIM signatures are verified (``dnsfunc`` looks up the keys;
    dkimpy's DNS lookup when None) and ``dkim`` says whether one of the sender's domain passed."""
    try:
        msg: Message = message_from_bytes(raw, policy=POLICY)
        readable = True
    except RecursionError:  # nested past the stdlib parser's stack: the headers still tell who and what
        msg = BytesParser(policy=POLICY).parsebytes(raw, headersonly=True)
        readable = False
    sender = _address(_header(msg, "From"))
    plain, html, attachments = _body(msg) if readable else (None, None, 0)
    subject = _clean(_header(msg, "Subject")).strip()
    text = _clean(reply_words(plain, html), keep_newlines=True)
    automatic = is_automatic(msg, sender, envelope_sender)
    if not automatic and sounds_out_of_office(subject, text):
        log.info("mail from %s reads as an out-of-office text (its subject or first lines): automatic", sender or "?")
        automatic = True
    return InboundMail(
        sender=sender,
        recipients=_recipients(msg, envelope_recipients),
        message_id=_clean(_header(msg, "Message-ID")).strip(),
        digest=hashlib.sha256(raw).hexdigest(),
        subject=subject,
        text=text,
        automatic=automatic,
        forwarded=is_forwarded(subject, _start(plain, html)),
        attachments=attachments,
        size=len(raw),
        dkim=dkim_of_sender(raw, sender, dnsfunc) if check_dkim else None,
        in_reply_to=_clean(_header(msg, "In-Reply-To")).strip(),
        auth_results=top_auth_results(msg),
    )


def _start(plain: str | None, html: str | None) -> str:
    """The beginning of the whole body as text, quotes and all (where a forwarded block opens)."""
    if plain is not None and plain.strip():
        return plain[:MAX_TEXT_CHARS]
    if html is not None and html.strip():
        return html_text(html[:MAX_HTML_CHARS])[:MAX_TEXT_CHARS]
    return ""


def _header(msg: Message, name: str) -> str:
    """The first ``name`` header as text ("" when absent or unparseable)."""
    try:
        value = msg.get(name)
    except Exception:  # the header parser on broken input: a header we cannot read is no header
        return ""
    return "" if value is None else str(value)


def _headers(msg: Message, name: str) -> list[str]:
    """Every ``name`` header as text."""
    try:
        return [str(v) for v in msg.get_all(name) or []]
    except Exception:
        return []


def _address(value: str) -> str:
    """The bare address of a From-like header value, lower-cased ("" when there is none)."""
    address = parseaddr(_clean(value))[1].strip().lower()
    return address if "@" in address else ""


def _recipients(msg: Message, envelope: tuple[str, ...]) -> tuple[str, ...]:
    """The envelope's recipients, then Delivered-To, X-Original-To, To and Cc: each once, lower-cased."""
    found: list[str] = []
    seen: set[str] = set()

    def add(address: str) -> None:
        address = _clean(address).strip().strip("<>").strip().lower()
        if "@" in address and address not in seen:
            seen.add(address)
            found.append(address)

    for address in envelope:
        add(address)
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        for _, address in getaddresses(_headers(msg, name)):
            add(address)
    return tuple(found)


def _walk(msg: Message) -> Iterator[tuple[Message, bool]]:
    """Every leaf part, depth first in order, with whether it is an attachment; no recursion, and
    no deeper than MAX_DEPTH. What a client adds to a plain reply is not an attachment: the
    signature of a signed mail (multipart/signed's second part, S/MIME or PGP) and the inline
    images an HTML body shows (multipart/related parts with a Content-ID, such as a logo in a
    signature). A part of another message (message/rfc822, a bounce's copy) is one attachment:
    a forwarded mail's words are not the reply's."""
    stack: list[tuple[Message, int, bool]] = [(msg, 0, False)]
    count = 0
    while stack and count < MAX_PARTS:
        part, depth, related = stack.pop()
        count += 1
        if part.get_content_maintype() == "multipart":
            children = [c for c in part.get_payload() or [] if isinstance(c, Message)] if part.is_multipart() else []
            if part.get_content_subtype() == "signed":
                children = children[:1]  # the rest is the signature
            if depth < MAX_DEPTH:
                inside = part.get_content_subtype() == "related"
                stack.extend((child, depth + 1, inside) for child in reversed(children))
            continue
        disposition = part.get_content_disposition()
        if related and disposition != "attachment" and part.get("Content-ID") is not None:
            continue  # an image the HTML body shows
        yield part, disposition == "attachment" or part.get_content_maintype() != "text"


def _body(msg: Message) -> tuple[str | None, str | None, int]:
    """The first text/plain and text/html parts that are not attachments, and how many attachments
    there are (their content is never decoded)."""
    plain: str | None = None
    html: str | None = None
    attachments = 0
    for part, attachment in _walk(msg):
        if attachment:
            attachments += 1
        elif part.get_content_subtype() == "plain" and plain is None:
            plain = _text_of(part)
            if str(part.get_param("format", "")).lower() == "flowed":  # RFC 3676: join the soft breaks
                plain = unflow(plain[:MAX_TEXT_CHARS], delsp=str(part.get_param("delsp", "")).lower() == "yes")
        elif part.get_content_subtype() == "html" and html is None:
            html = _text_of(part)
    return plain, html, attachments


def _text_of(part: Message) -> str:
    """A text part decoded (transfer encoding and charset); undecodable bytes become U+FFFD."""
    if isinstance(part, EmailMessage):
        try:
            content = part.get_content()
            if isinstance(content, str):
                return content
        except (LookupError, ValueError):  # an unknown charset name, a broken encoding (UnicodeError too)
            pass
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # a transfer encoding the stdlib chokes on: the part has no readable words
        payload = b""
    data = payload if isinstance(payload, bytes) else b""
    try:
        return data.decode(part.get_content_charset() or "utf-8", errors="replace")
    except (LookupError, UnicodeError, TypeError):
        # an unknown name, or a codec that is no text charset (idna, punycode, rot13: some take
        # no "replace" or give no str): read as UTF-8 with replacement characters
        return data.decode("utf-8", errors="replace")


def _clean(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` without NULs and other control characters (tabs and, if asked, newlines stay)."""
    keep = "\t\n" if keep_newlines else "\t"
    return "".join(c for c in text if c in keep or unicodedata.category(c) != "Cc")
