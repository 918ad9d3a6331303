"""Out-of-office mails that carry no robot headers: known by their subject and first lines.

Exchange, Gmail and most vacation programs mark their auto-replies (automatic.py), but hosted
vacation filters, some webmails and rules people write themselves send a plain mail: "Out of
Office: Your turn ...", "I am out of the office until ...". Answering one starts a mail loop with
a robot, so it is treated as automatic: dropped, logged, never answered.

Only the **subject** and the **first three lines of the reply's own words** are judged (quotes
already removed): the quoted notice below a real move may well contain any of these words (an
opponent's "Out of office" status), and a real move must never be dropped for them. A line before
the telling one that reads like a move (at most three words, no closing punctuation: ``3``,
``show``, ``3, 1, end``) means a person wrote this, so it is not taken for an auto-reply.
"""

from __future__ import annotations

_SUBJECTS = ("automatic reply", "auto reply", "auto-reply", "autoreply", "auto:", "out of office", "out of the office",
             "abwesenheitsnotiz", "automatische antwort", "abwesend", "automatikus válasz", "házon kívül",
             "réponse automatique", "absence", "respuesta automática", "risposta automatica", "automatisch antwoord")
"""How auto-reply subjects start (English, German, Hungarian, French, and a few more)."""
_PHRASES = ("out of the office", "out of office", "away until", "on vacation until", "on holiday until",
            "nicht im büro", "außer haus", "abwesend", "abwesenheitsnotiz", "automatische antwort",
            "házon kívül", "szabadságon vagyok", "automatikus válasz", "je suis absent", "je serai absent",
            "absent du bureau", "réponse automatique", "automatic reply")
"""What an out-of-office text says in its first lines."""
FIRST_LINES = 3


def sounds_out_of_office(subject: str, words: str) -> bool:
    """Whether a mail's subject starts like an auto-reply's, or the first lines of its own words
    (``words``, quotes removed) say the person is away (see the module doc)."""
    if subject.strip().lower().startswith(_SUBJECTS):
        return True
    lines = [line.strip().lower() for line in words.splitlines() if line.strip()][:FIRST_LINES]
    for line in lines:
        if any(phrase in line for phrase in _PHRASES):
            return True
        if len(line.split()) <= 3 and not line.endswith((",", ".", "!", ":")):
            return False  # a move or a command comes first: a person wrote this
    return False
