"""A cheap look at a message's raw bytes before the ``email`` package builds its tree.

The stdlib parser spends its time per part and per header: a 4.9 MB mail of 100,000 tiny MIME
parts cost 69 s of CPU before parsing.py's part limit could apply (issue 28, F9), because the
limit was applied to the tree the parser had already built. Here the bytes are only counted
(``bytes.count`` and one regular expression over the header sections, linear and in C), and a
message over any of these limits is refused for good (:class:`MailUnreadable`: SMTP 554,
``mail-in`` exit 65) before it is parsed:

- :data:`MAX_HEADER_FIELDS` header fields and :data:`MAX_HEADER_BYTES` of header section at the top;
- :data:`MAX_CONTAINERS` multipart or message/* parts (which also bounds how deep it nests);
- :data:`MAX_PARTS` boundary delimiter lines of all the boundaries the message declares;
- :data:`MAX_FIELD_LINES` lines shaped like a header field anywhere (the parts' own headers: 400
  parts of 2,000 fields each cost 2.4 s of CPU to parse).

A reply is a few parts deep and wide; these limits are far above any mail client's.
"""

from __future__ import annotations

import re

MAX_HEADER_FIELDS = 500
"""Header fields of the message itself (a mail that crossed many servers has some 30)."""
MAX_HEADER_BYTES = 256 * 1024
"""Bytes of the message's own header section."""
MAX_CONTAINERS = 64
"""multipart/* and message/* parts together: a forwarded mail with attachments has a handful."""
MAX_PARTS = 500
"""Boundary delimiter lines (about one per part) of every multipart the message declares."""
MAX_FIELD_LINES = 20_000
"""Lines anywhere that start like a header field (``Name:``); base64 never does, and a reply's
text has a few."""

_CONTAINER = re.compile(rb"(?im)^content-type[ \t]*:[ \t\r\n]*(?:multipart|message)/")
_BOUNDARY = re.compile(rb"""(?i)boundary[ \t]*=[ \t]*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))""")
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_FIELD_LINE = re.compile(rb"(?m)^[!-9;-~]{1,76}:")


class MailUnreadable(ValueError):
    """The message cannot be read, or would cost too much to read: refused for good (SMTP
    ``554 5.6.0``, ``mail-in`` exit 65, EX_DATAERR), never a temporary failure, since sending
    the same bytes again cannot help."""


def prescan(raw: bytes) -> None:
    """Raise :class:`MailUnreadable` when ``raw`` is over one of the module's limits; cheap (a few
    passes of C over the bytes), whatever the message holds."""
    end = _HEADER_END.search(raw, 0, MAX_HEADER_BYTES + 4)
    head = raw[: end.start()] if end else raw[: MAX_HEADER_BYTES + 1]
    if end is None and len(raw) > MAX_HEADER_BYTES:
        raise MailUnreadable(f"the message's header section is over {MAX_HEADER_BYTES} bytes")
    fields = len(re.findall(rb"(?m)^[^ \t\r\n]", head))
    if fields > MAX_HEADER_FIELDS:
        raise MailUnreadable(f"the message has {fields} header fields, over the limit of {MAX_HEADER_FIELDS}")
    containers = len(_CONTAINER.findall(raw))
    if containers > MAX_CONTAINERS:
        raise MailUnreadable(f"the message has {containers} multipart or message parts, over the limit of "
                             f"{MAX_CONTAINERS}")
    boundaries = {found[0] or found[1] for found in _BOUNDARY.findall(raw, 0)}
    if len(boundaries) > MAX_CONTAINERS:  # boundary= written outside Content-Type headers: counted all the same
        raise MailUnreadable(f"the message declares {len(boundaries)} MIME boundaries, over the limit of "
                             f"{MAX_CONTAINERS}")
    lines = b"\n" + raw  # a delimiter line may open the message's very first line
    parts = sum(lines.count(b"\n--" + boundary) for boundary in boundaries)
    if parts > MAX_PARTS:
        raise MailUnreadable(f"the message has {parts} MIME boundary lines (one a part), over the limit of {MAX_PARTS}")
    field_lines = len(_FIELD_LINE.findall(raw))
    if field_lines > MAX_FIELD_LINES:
        raise MailUnreadable(f"the message has {field_lines} header-like lines, over the limit of {MAX_FIELD_LINES}")
