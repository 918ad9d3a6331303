"""Quoted text, however a client places it: above, below or between the reply's own words.

mail-parser-reply cuts a reply at the first quote header it knows and keeps what is above it:
right for top-posting (Gmail, Outlook, Apple Mail), but Thunderbird's default, mutt and Emacs put
the answer *below* the quote (the quote header, the ``>`` quoted notice, then the words), and some
people answer between two quoted pieces. So before that library runs, every block of ``>`` lines
(RFC 3676's quote marker) is taken out together with its attribution, the line just above it
that ends with ``:`` ("On ... wrote:", "Am ... schrieb ...:", "Portolan <...> writes:", "... ezt
írta (időpont: ...):", "... keltezéssel, ... írta:"), in any language; when that line was wrapped
(Gmail wraps at 78 columns, and the reply address is long), the line above it goes too if it
starts like one (an address, "On ", "Am ", a year).

mail-parser-reply (1.36, the newest release) knows no Hungarian, so :func:`cut_hungarian` cuts at
the Hungarian quote headers that come without ``>`` quotes: Outlook's "Feladó: / Elküldve:" block,
"-----Eredeti üzenet-----" and a bare "... írta:" attribution; and at a Hungarian sign-off.

Everything here is plain string tests over lines already cut to a few hundred characters: no
regular expression, so nothing can backtrack (reply_text.MAX_LINE_CHARS).
"""

from __future__ import annotations

from collections.abc import Sequence

_OPENERS = ("on ", "am ", "le ", "el ", "il ", "op ", "den ", "dne ", "w dniu ", "em ", "pe ")
"""How a wrapped attribution's first line starts ("On Sat, Dec 5, 2026 at 10:00 AM Portolan <"),
besides an address or a year."""
_HU_OUTLOOK = ("elküldve:", "küldve:", "dátum:", "címzett:", "tárgy:")
_HU_SIGN_OFFS = {"üdv", "üdvözlettel", "üdvözlet", "tisztelettel", "köszönettel", "barátsággal", "baráti üdvözlettel"}
"""Hungarian closing words: the signature starts there (mail-parser-reply has its own for its languages)."""
_TAGLINES = ("sent with proton mail", "sent from yahoo mail", "sent from mail for windows", "von meinem iphone gesendet",
             "von meinem ipad gesendet", "envoyé de mon iphone", "iphone-ról küldve", "elküldve iphone-ról",
             "get outlook for ios", "get outlook for android")
"""The lines a client adds under the words ("Sent with Proton Mail secure email."): not the player's."""


def is_quoted(line: str) -> bool:
    """A line of a quoted block (``>`` after optional white space)."""
    return line.lstrip().startswith(">")


def without_quotes(lines: Sequence[str]) -> list[str]:
    """``lines`` without their ``>`` blocks and the attribution line above each block, and without
    client taglines; the own words above, between and below the blocks stay in order."""
    out: list[str] = []
    in_quote = False
    for line in lines:
        if is_quoted(line):
            if not in_quote:
                _drop_attribution(out)
            in_quote = True
            continue
        in_quote = False
        if line.strip().lower().startswith(_TAGLINES):
            continue
        out.append(line)
    return out


def _drop_attribution(out: list[str]) -> None:
    """Remove the attribution that introduces the quoted block starting now: the last line with
    words (at most two blank lines above the block) if it ends with ``:``, and the line right above
    it if the attribution was wrapped there."""
    index = len(out) - 1
    blanks = 0
    while index >= 0 and not out[index].strip() and blanks < 2:
        index -= 1
        blanks += 1
    if index < 0 or not out[index].rstrip().endswith(":"):
        return
    del out[index]
    above = out[index - 1].strip() if index >= 1 else ""
    if above and _starts_attribution(above):
        del out[index - 1]


def _starts_attribution(line: str) -> bool:
    """Whether ``line`` can be the first half of a wrapped attribution."""
    lowered = line.lower()
    return "@" in line or "<" in line or lowered.startswith(_OPENERS) or (len(line) > 4 and line[:4].isdigit())


def cut_hungarian(lines: Sequence[str]) -> list[str]:
    """``lines`` up to the first Hungarian quote header not marked with ``>`` (see the module doc),
    or up to a Hungarian sign-off ("Üdv," "Üdvözlettel,") below the first line with words."""
    words_seen = False
    for index, line in enumerate(lines):
        lowered = line.strip().lower()
        if words_seen and lowered.rstrip(",.!") in _HU_SIGN_OFFS:
            return list(lines[:index])
        words_seen = words_seen or bool(lowered)
        if lowered.startswith("feladó:") and any(
                later.strip().lower().startswith(_HU_OUTLOOK) for later in lines[index + 1:index + 5]):
            return list(lines[:index])
        if lowered.startswith("-") and "eredeti üzenet" in lowered:
            return list(lines[:index])
        if lowered.endswith("írta:") or "ezt írta (időpont:" in lowered:
            return list(lines[:index])
    return list(lines)
