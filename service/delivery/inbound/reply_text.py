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

Before mail-parser-reply runs, the ``>`` quoted blocks and their attribution lines are taken out
wherever they are (service.delivery.inbound.quotes), so an answer *below* the quote (Thunderbird's
default, mutt, Emacs) or between two quoted pieces is found as well as one above it, and Hungarian
quote headers, which mail-parser-reply does not know, are cut there too. An HTML-only reply
answered below its ``<blockquote>`` (Thunderbird composing HTML) is read again with the quoted
blocks marked ``>`` (inscriptis' annotations), when the part above the quote has no words.
"""

from __future__ import annotations

import quotequail
from inscriptis import get_annotated_text, get_text
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.model.config import ParserConfig
from mailparser_reply.parser import EmailMessage as ReplyParse

from service.delivery.inbound.quotes import cut_hungarian, is_quoted, without_quotes

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
        return _own_words(_bounded(plain))
    if html is not None and html.strip():
        html = html[:MAX_HTML_CHARS]
        words = _own_words(_bounded(html_to_text(html)))
        if words:
            return words
        # nothing above the first quote: perhaps the answer is below a <blockquote> (Thunderbird's
        # HTML reply). Only then: a quote that is no blockquote (Outlook's) is never read as words.
        marked = _bounded(html_quotes_marked(html))
        return _own_words(marked) if any(is_quoted(line) for line in marked.splitlines()) else ""
    return ""


def _bounded(text: str) -> str:
    """``text`` cut to MAX_TEXT_CHARS, each line to MAX_LINE_CHARS (see MAX_LINE_CHARS)."""
    return "\n".join(line[:MAX_LINE_CHARS] for line in text[:MAX_TEXT_CHARS].splitlines())


def html_to_text(html: str) -> str:
    """The text of an HTML mail without its quoted blocks."""
    try:
        own = "".join(fragment for visible, fragment in quotequail.quote_html(html) if visible)
    except Exception:  # quotequail (lxml) on HTML it cannot parse: convert all of it instead
        own = html
    return str(get_text(own or html))


def html_text(html: str) -> str:
    """The text of a whole HTML mail, quotes and all."""
    try:
        return str(get_text(html))
    except Exception:  # lxml on HTML it cannot parse
        return ""


def html_quotes_marked(html: str) -> str:
    """The text of a whole HTML mail, each line inside a ``<blockquote>`` marked with ``> ``, so
    the plain-text rules find the quote (and its attribution) wherever it is."""
    config = ParserConfig(css=CSS_PROFILES["strict"].copy(), annotation_rules={"blockquote": ["quote"]})
    try:
        annotated = get_annotated_text(html, config)
    except Exception:  # lxml on HTML it cannot parse: there is no text to read
        return ""
    text: str = annotated["text"][:MAX_TEXT_CHARS]
    # the quoted spans, sorted: one pass over lines and spans together, however many there are
    spans = sorted((start, end) for start, end, _ in annotated["label"] if start < len(text))
    lines: list[str] = []
    offset = 0
    span = 0
    for line in text.split("\n"):
        while span < len(spans) and spans[span][1] <= offset:
            span += 1
        inside = span < len(spans) and spans[span][0] <= offset
        lines.append(f"> {line}" if inside and line.strip() else line)
        offset += len(line) + 1
    return "\n".join(lines)


def _own_words(text: str) -> str:
    """The reply's own words in ``text``: without ``>`` quoted blocks and their attributions, cut
    at a Hungarian quote header, then the first reply as mail-parser-reply splits the rest, without
    its signature; "" when the rest starts with a quote header (nothing of the person's own)."""
    text = "\n".join(cut_hungarian(without_quotes(text.splitlines())))
    parsed = ReplyParse(text=text, languages=list(LANGUAGES), keep_hyphen_lists=True).read()
    first = parsed.replies[0] if parsed.replies else None
    if first is None or first.headers:  # the first piece is already a quoted mail
        return ""
    lines = [line.strip() for line in first.body.splitlines()]
    lines = [line for line in lines if not is_quoted(line)]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)
