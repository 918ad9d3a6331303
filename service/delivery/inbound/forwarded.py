"""A forwarded notice sent to a reply address: the player pressed Forward instead of Reply.

The desk refuses it and says "you forwarded the notice: reply to it instead": a forwarded notice
carries the whole menu unquoted, and whatever was written above it was meant for someone else,
so it is never read as a move. Known by:

- the subject's first prefix: ``Fwd:``, ``Fw:``, ``WG:`` (German), ``TR:`` (French),
  ``Továbbítás:``, ``Tov:`` (Hungarian), ``RV:``/``ENC:`` (Spanish, Portuguese);
- or a body whose first line with words opens a forwarded-message block: "---------- Forwarded
  message ---------" (Gmail), "-------- Original Message --------" (Thunderbird's inline forward;
  Outlook's reply separator "-----Original Message-----" has no spaces and is not one), "Begin
  forwarded message:" (Apple Mail), "-------- Weitergeleitete Nachricht --------", "----------
  Továbbított üzenet ---------".
"""

from __future__ import annotations

_PREFIXES = {"fwd", "fw", "wg", "tr", "továbbítás", "tov", "rv", "enc"}
_BLOCKS = {"forwarded message", "weitergeleitete nachricht", "továbbított üzenet", "message transféré",
           "mensaje reenviado", "messaggio inoltrato", "doorgestuurd bericht"}
_OPENERS = {"begin forwarded message:", "anfang der weitergeleiteten nachricht:", "début du message réexpédié :",
            "továbbított levél kezdete:"}
LOOK_LINES = 20
"""How far down the body the first line with words is looked for (forwards often start blank)."""


def is_forwarded(subject: str, body: str) -> bool:
    """Whether a mail with this subject and (decoded, unquoted) body text forwards a message."""
    prefix, colon, _ = subject.strip().partition(":")
    if colon and prefix.strip().lower() in _PREFIXES:
        return True
    for line in body.splitlines()[:LOOK_LINES]:
        lowered = " ".join(line.lower().split())
        if not lowered:
            continue
        if lowered in _OPENERS:
            return True
        if lowered.startswith("--") and lowered.endswith("--"):
            inner = lowered.strip("-")
            return inner.strip() in _BLOCKS or inner == " original message "
        return False
    return False
