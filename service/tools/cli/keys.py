"""``portolan keygen``: the user's signing key (Ed25519) in the config folder (:mod:`.common`)."""

from __future__ import annotations

import argparse

from service.proof import signing
from service.tools.cli.common import CommandMaker, key_path, load_key, new_key
from service.tools.terminal import say


def cmd_keygen(args: argparse.Namespace) -> int:
    """Make the key ``--key`` unless it exists (``--force``: replace it); say its public key."""
    path = key_path(args.key)
    if path.exists() and not args.force:
        say(f"key {args.key!r} exists ({path}); public key: {signing.public_key_of(load_key(args.key))}")
        return 0
    new_key(args.key)
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``keygen``."""
    sp = cmd("keygen", cmd_keygen, "create your signing key (Ed25519) in the config folder")
    sp.add_argument("--key", default="default", help="key name (several identities)")
    sp.add_argument("--force", action="store_true")
