"""Text from the server, made harmless for the terminal it is printed on.

Player names, event texts and rendered boards come from the server, and through it from other
players. A terminal executes escape sequences it is sent: ESC (and the C1 control CSI, U+009B)
can retitle the window, rewrite what is shown, or on some terminals answer with keystrokes; bidi
overrides make text display as something else. The server refuses such characters in new names,
but a name stored before that rule (or a hostile server) must still print harmlessly, so the CLI
escapes every control and format character (Unicode category C*) except newline and tab, as
``\\uXXXX`` - which is also a valid JSON escape, so ``--json`` output stays JSON.
"""

from __future__ import annotations

import sys
import unicodedata
from typing import Any, TextIO

_KEEP = frozenset("\n\t")


def terminal_safe(text: str) -> str:
    """``text`` with every Unicode C* character but newline and tab written as ``\\uXXXX``
    (``\\UXXXXXXXX`` beyond the BMP)."""
    if text.isprintable():  # the common case; isprintable is False for every C* (and for \n, \t, Z*)
        return text
    return "".join(_escape(ch) if ch not in _KEEP and unicodedata.category(ch).startswith("C") else ch for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def say(*parts: Any, file: TextIO | None = None) -> None:
    """``print`` for anything that may hold server text: each part made :func:`terminal_safe`."""
    print(*(terminal_safe(str(p)) for p in parts), file=file or sys.stdout)
