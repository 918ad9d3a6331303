"""What every ``portolan`` command shares: the local config folder (signing keys and the seats
``claim`` remembered), the output, and the API client.

Keys live in the user's config directory (``$PORTOLAN_HOME``, else ``$XDG_CONFIG_HOME/portolan``,
else ``~/.config/portolan``), mode 0600. The command modules import this one, never the entry
point (:mod:`service.tools.cli.main`), which imports them to build its parser.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from shlex import join as shell_line
from typing import TYPE_CHECKING, Any

from service.i18n import DEFAULT, parse_language, tr
from service.proof import signing
from service.tools.terminal import say

if TYPE_CHECKING:
    from service.tools.client import Client

Command = Callable[[argparse.Namespace], int]
"""One command: its parsed arguments in, its exit code out."""

CommandMaker = Callable[[str, Command, str], argparse.ArgumentParser]
"""The parser's ``cmd(name, fn, help)``: adds a sub-command (with ``--server``) and returns its parser."""


# -- local config: keys and seats -------------------------------------------------------------


def home() -> Path:
    """The config folder: ``$PORTOLAN_HOME``, else ``$XDG_CONFIG_HOME/portolan``, else ``~/.config/portolan``."""
    if os.environ.get("PORTOLAN_HOME"):
        return Path(os.environ["PORTOLAN_HOME"])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "portolan"


def write_private(path: Path, text: str) -> None:
    """Write ``text`` readable by the user alone (the file 0600, a new folder 0700): keys are secrets."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)


def key_path(name: str) -> Path:
    """Where the key called ``name`` lives."""
    return home() / "keys" / f"{name}.key"


def load_key(name: str) -> str:
    """The private key called ``name``; SystemExit saying how to make it when there is none."""
    path = key_path(name)
    if not path.exists():
        raise SystemExit(tr(language(), "no key named {name} ({path}); run: {command}", name=repr(name), path=str(path),
                            command=shell_line(["portolan", "keygen", "--key", name])))
    return path.read_text().strip()


def new_key(name: str) -> None:
    """Make the key called ``name`` (replacing one of that name) and say where it is and its public key."""
    path = key_path(name)
    private = signing.generate_private_key()
    write_private(path, private + "\n")
    say(tr(language(), "new key {name} in {path} (mode 0600)\npublic key: {public}", name=repr(name), path=str(path),
           public=signing.public_key_of(private)))


def ensure_key(name: str) -> None:
    """Make the key called ``name`` unless it exists: what signs a creation or a claim is a key."""
    if not key_path(name).exists():
        new_key(name)


def seats_file() -> Path:
    """The seats ``claim`` remembered, by match."""
    return home() / "seats.json"


def remembered_seats() -> dict[str, dict[str, Any]]:
    """Match id -> ``{"seat": N, "key": NAME}`` for every seat claimed from here."""
    path = seats_file()
    return json.loads(path.read_text()) if path.exists() else {}


def remember_seat(match: str, seat: int, key: str) -> None:
    """Remember that ``key`` holds ``seat`` of ``match``, so later commands need no ``--seat``/``--key``."""
    seats = remembered_seats()
    seats[match] = {"seat": seat, "key": key}
    write_private(seats_file(), json.dumps(seats, indent=2))


def seat_and_key(args: argparse.Namespace) -> tuple[int, str]:
    """The seat and key name for a match: from the flags, else from what ``claim`` remembered."""
    known = remembered_seats().get(args.match, {})
    seat = args.seat if args.seat is not None else known.get("seat")
    if seat is None:
        raise SystemExit(tr(language(), "which seat? pass --seat (no claimed seat of match {match} is remembered here)",
                            match=args.match))
    return int(seat), args.key or known.get("key", "default")


# -- the language of the output ------------------------------------------------------------------

_language = DEFAULT

LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""The POSIX locale variables in the order they take precedence (the first one set wins)."""


def choose_language(given: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language the command speaks: ``--lang`` (``given``), else ``PORTOLAN_LANG``, else the
    POSIX locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``hu_HU.UTF-8`` is Hungarian), else English.

    A ``PORTOLAN_LANG`` we do not speak is passed over as if unset; a locale we do not speak (``C``,
    ``de_DE.UTF-8``) is English, as the locale is what the terminal speaks. ``--lang`` is checked by
    the parser (:func:`lang_argument`)."""
    env = os.environ if environ is None else environ
    for word in (given, env.get("PORTOLAN_LANG")):
        code = parse_language(word)
        if code:
            return code
    for name in LOCALE_VARIABLES:
        value = env.get(name, "").strip()
        if value:  # POSIX: the first variable set decides, even when it names no language we speak
            return parse_language(value.split(".", 1)[0].split("@", 1)[0]) or DEFAULT
    return DEFAULT


def lang_argument(word: str) -> str:
    """``--lang``'s type: the code of the language ``word`` names (``hu``, ``magyar``, ``hu_HU``)."""
    code = parse_language(word)
    if code is None:
        raise argparse.ArgumentTypeError(tr(language(), "unknown language {word} (en or hu)", word=repr(word)))
    return code


def set_language(code: str) -> None:
    """Make ``code`` the language of every line this process prints from now on (set by ``main``)."""
    global _language
    _language = code


def language() -> str:
    """The language of the output (:func:`set_language`; English until set)."""
    return _language


# -- output and the API ------------------------------------------------------------------------


def out(obj: Any, as_json: bool) -> None:
    """Print a result as JSON or text; either way escaped for the terminal (names and texts come
    from other players: see :mod:`service.tools.terminal`). Hints to paste are shell-quoted."""
    say(json.dumps(obj, indent=2, ensure_ascii=False) if as_json else obj)


def api_client(args: argparse.Namespace) -> Client:
    """The API client for ``--server``."""
    # Imported here: it brings in requests, which the operator's commands and --help do without.
    from service.tools.client import Client

    return Client(args.server, language=language())
