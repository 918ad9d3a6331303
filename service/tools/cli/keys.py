"""``portolan keygen``: the user's signing key (Ed25519) in the config folder (:mod:`.common`)."""

from __future__ import annotations

import argparse

from service.i18n import tr
from service.proof import signing
from service.tools.cli.common import CommandMaker, key_path, language, load_key, new_key
from service.tools.terminal import say


def cmd_keygen(args: argparse.Namespace) -> int:
    """Make the key ``--key`` unless it exists (``--force``: replace it); say its public key."""
    path = key_path(args.key)
    if path.exists() and not args.force:
        say(tr(language(), "key {name} exists ({path}); public key: {public}", name=repr(args.key), path=str(path),
               public=signing.public_key_of(load_key(args.key))))
        return 0
    new_key(args.key)
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``keygen``."""
    sp = cmd("keygen", cmd_keygen, tr(language(), "create your signing key (Ed25519) in the config folder"))
    sp.add_argument("--key", default="default", help=tr(language(), "key name (several identities)"))
    sp.add_argument("--force", action="store_true")
