"""format=flowed (RFC 3676): undo the soft line breaks a client put into a plain-text reply.

Thunderbird, Apple Mail and others send ``text/plain; format=flowed``: a long line is cut into
lines that end with a space ("soft" breaks, to be joined again by the reader), a line without a
trailing space ends a paragraph, quoted lines start with ``>`` (one per level), and a line that
starts with a space, ``>`` or ``From `` is "space-stuffed" with one more space. With
``DelSp=yes`` (Apple Mail) the client may even break inside a word, so the trailing space is part
of the break, not of the text, and is deleted when joining.

Without this, ``sail to ty⏎re`` would be read as two lines. The stdlib ``email`` package decodes
the transfer encoding and charset but leaves the flowing to the reader; no maintained library does
just this, and RFC 3676 section 4 is a dozen lines of rules, so they are here.
"""

from __future__ import annotations


def unflow(text: str, *, delsp: bool = False) -> str:
    """``text`` (a decoded format=flowed body) with its soft line breaks joined and its space
    stuffing removed; quoted lines keep one ``>`` per level, then a space."""
    out: list[str] = []
    open_depth = -1  # the quote depth of the paragraph still flowing, -1 when none is
    for raw in text.splitlines():
        depth = len(raw) - len(raw.lstrip(">"))
        line = raw[depth:]
        if line.startswith(" "):
            line = line[1:]  # space stuffing (section 4.4)
        soft = line.endswith(" ") and line != "-- "  # the signature separator is never flowed (4.3)
        if soft and delsp:
            line = line[:-1]
        if open_depth == depth and out:
            out[-1] += line
        else:
            out.append((">" * depth + " " + line) if depth else line)
        open_depth = depth if soft else -1
    return "\n".join(out)
