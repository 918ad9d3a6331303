"""What a person gives about themselves: an email address and a display name.

Both end up where other people read them: addresses in mail headers and in the shell line an
invite asks its reader to paste, names on other players' terminals (``portolan show``) and in
their mail. So both are checked at the door, by the use cases (the API, the workers and any other
caller go through the same checks), and refused with a 400 that says which rule they broke.
"""

from __future__ import annotations

import unicodedata

from email_validator import EmailNotValidError, validate_email

from service.i18n import phrase
from service.play.errors import BadRequest

MAX_EMAIL = 254
"""RFC 5321 §4.5.3.1.3 bounds a path to 256 octets, so an address to 254 characters."""
MAX_NAME = 80
SHELL_SYNTAX = frozenset("`$\\")
"""Characters RFC 5322 admits in a local part that only shells give a meaning (command
substitution, expansion, escapes). No mail provider hands out such addresses, and one that
carries them is an attack on whoever pastes it: refused on top of email-validator's rules."""


def normal_email(address: str, what: str = "email") -> str:
    """The address in its normal form (domain lower-cased and IDNA-checked), or 400 ``bad-email``.

    Checked with the maintained ``email-validator`` library rather than a home-made pattern, with
    ``check_deliverability=False``: a DNS lookup per request would make creation slow and flaky,
    and a typo'd domain simply bounces. RFC 5322 lets backticks, ``$`` and braces into the local
    part; the first two and the backslash (:data:`SHELL_SYNTAX`) are refused by a rule of ours,
    and every shell line built from an address quotes it anyway (see
    :func:`service.delivery.mail.shell_line`, the templates' ``shell`` filter).
    """
    if not isinstance(address, str) or len(address) > MAX_EMAIL:
        raise BadRequest("bad-email", phrase("{what} must be an email address of at most {most} characters (rule: RFC 5321 §4.5.3.1.3)", what=what, most=MAX_EMAIL))
    bad = sorted(SHELL_SYNTAX.intersection(address))
    if bad:
        raise BadRequest("bad-email", phrase("{what} {address!r} has {characters}: addresses with shell syntax (backtick, $, backslash) are refused, although RFC 5322 admits them, because people paste lines that contain them into a terminal", what=what, address=address, characters=' and '.join(repr(c) for c in bad)))
    try:
        return validate_email(address, check_deliverability=False).normalized
    except EmailNotValidError as exc:
        raise BadRequest("bad-email", phrase("{what} {address!r} is not an email address: {exc}", what=what, address=address, exc=exc)) from exc


def email_problem(address: str) -> str | None:
    """Why ``address`` is not acceptable, or None: :func:`normal_email` for schema validators."""
    try:
        normal_email(address)
    except BadRequest as exc:
        return exc.message
    return None


def check_name(name: str) -> str:
    """A display name without control characters, or 400 ``bad-name``.

    Refuses every code point of Unicode category C* (control, format, surrogate, private use,
    unassigned): ESC starts terminal escape sequences that would run on other players' terminals,
    NUL truncates in C tools, and format characters such as the bidi overrides U+202E/U+2066 make
    a name display as something else. Leading and trailing whitespace is trimmed; an empty
    name is refused.
    """
    text = name.strip() if isinstance(name, str) else ""
    if not 1 <= len(text) <= MAX_NAME:
        raise BadRequest("bad-name", phrase("name must have 1 to {most} visible characters", most=MAX_NAME))
    for i, ch in enumerate(text):
        if unicodedata.category(ch).startswith("C"):
            raise BadRequest("bad-name", phrase("name has the control or format character U+{code:04X} at position {position}; names are shown on other players' terminals and in mail, so they may not contain control, format (e.g. bidi override) or unassigned characters", code=ord(ch), position=i))
    return text
