"""The reply's own words: the quoted notice, the signature and the HTML taken away.

Libraries, chosen by trying each on the mails tests/delivery/test_inbound_text.py holds (Gmail,
Outlook, Apple Mail, iPhone, German and French clients):

- **mail-parser-reply** (``mailparser_reply``, maintained, releases through 2025) cuts a plain-text
  reply at the quote header of each client ("On ... wrote:", "-----Original Message-----", Outlook's
  "From: ... Sent: ..." block, "Am ... schrieb ...:", "Le ... a écrit :" and ten more languages)
  and removes signatures ("-- ", "Sent from my iPhone", "Best regards"). email-reply-parser (last
  release 2020) knows English only; talon is unmaintained since 2017.
- **quotequail** drops the quoted blocks of an HTML-only mail (``<blockquote>``, Gmail's
  ``gmail_quote``, Outlook's reply separator) by the HTML's structure, which is surer than
  guessing from its text.
- **inscriptis** turns what is left of the HTML into plain text. html2text was the other
  candidate, but it writes Markdown and escapes a reply like ``3. build`` as ``3\\. build``.

Lines quoted with ``>`` that no header introduced (RFC 3676's quote marker) are dropped as well.
"""

from __future__ import annotations

import quotequail
from inscriptis import get_text
from mailparser_reply.parser import EmailMessage as ReplyParse

LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "da", "sv", "pl", "cs"]
"""The languages whose quote headers and signatures are recognised (mail-parser-reply's)."""
MAX_TEXT_CHARS = 8_000
MAX_LINE_CHARS = 240
"""The reply's words come first, so the text is cut to MAX_TEXT_CHARS and each line to
MAX_LINE_CHARS before mail-parser-reply's regular expressions run over it: on one long line
of "Am a b c schrieb " repeated they backtrack for 3.6 s at 2,000 characters and 30 s at 4,000;
on lines of 240 they take a tenth of a second for the whole text. A move is a line or two, and
quote headers are shorter than that."""
MAX_HTML_CHARS = 500_000


def reply_words(plain: str | None, html: str | None) -> str:
    """The reply's own words from a message's text/plain part (preferred) or text/html part:
    stripped lines, no blank ones at either end; "" when there are none."""
    if plain is not None and plain.strip():
        text = plain
    elif html is not None and html.strip():
        text = html_to_text(html[:MAX_HTML_CHARS])
    else:
        return ""
    return _own_words("\n".join(line[:MAX_LINE_CHARS] for line in text[:MAX_TEXT_CHARS].splitlines()))


def html_to_text(html: str) -> str:
    """The text of an HTML mail without its quoted blocks."""
    try:
        own = "".join(fragment for visible, fragment in quotequail.quote_html(html) if visible)
    except Exception:  # quotequail (lxml) on HTML it cannot parse: convert all of it instead
        own = html
    return str(get_text(own or html))


def _own_words(text: str) -> str:
    """The first reply of ``text`` as mail-parser-reply splits it, without its signature; "" when
    the text starts with a quote (the person wrote nothing above it)."""
    parsed = ReplyParse(text=text, languages=list(LANGUAGES), keep_hyphen_lists=True).read()
    first = parsed.replies[0] if parsed.replies else None
    if first is None or first.headers:  # the first piece is already a quoted mail
        return ""
    lines = [line.strip() for line in first.body.splitlines()]
    lines = [line for line in lines if not line.startswith(">")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)
