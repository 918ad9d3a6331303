"""``portolan dkim``: the DKIM key of outgoing mail (service.delivery.dkim_sign).

``keygen`` makes a key pair, writes the private key (PEM, 0600) where ``--out`` says and prints the
DNS TXT record to publish; ``check`` loads the key ``PORTOLAN_DKIM_KEY`` names, as a worker would,
and prints the record receivers must find for it. RSA 2048 is the default: in 2024 Gmail, Yahoo and
Microsoft verified RSA signatures but not Ed25519 ones (RFC 8463) reliably, and Portolan signs with
one key, so an Ed25519-only signature would leave DMARC to SPF alone (deploy/README.md "Mail that
lands")."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import cast

from service.tools.cli.common import CommandMaker, out


def cmd_dkim(args: argparse.Namespace) -> int:
    """``portolan dkim keygen --out PATH [--type rsa|ed25519]`` or ``portolan dkim check``."""
    from service.config import Settings
    from service.delivery import dkim_sign

    settings = Settings.from_env()
    selector = args.selector or settings.dkim_selector
    domain = (args.domain or dkim_sign.domain_of(settings.mail_from)).strip().lower().rstrip(".")
    if args.action == "keygen":
        if not args.out:
            raise SystemExit("portolan dkim keygen: where shall the private key go? (--out PATH)")
        if not domain or domain.endswith(".invalid"):
            raise SystemExit(f"portolan dkim keygen: no domain to publish the key under ({domain or 'none'}): "
                             "set MAIL_FROM to the sender address, or pass --domain")
        pem = dkim_sign.generate(cast(dkim_sign.KeyType, args.type))
        _write_private(Path(args.out), pem, args.force)
        signer = dkim_sign.from_pem(pem, selector, domain, where=args.out)
    else:
        if not settings.dkim_key:
            raise SystemExit("portolan dkim check: PORTOLAN_DKIM_KEY is not set: mail goes out unsigned "
                             "(make a key with `portolan dkim keygen`)")
        try:
            signer = dkim_sign.load(settings.dkim_key, selector, domain)
        except dkim_sign.DkimKeyError as exc:
            raise SystemExit(f"portolan dkim check: {exc}") from None
    name, record = signer.record_name(), signer.record()
    if args.json:
        out({"selector": selector, "domain": domain, "type": signer.key_type, "name": name, "record": record,
             "key": args.out if args.action == "keygen" else settings.dkim_key}, True)
        return 0
    if args.action == "keygen":
        out(f"private key ({signer.key_type}) written to {args.out} (mode 0600); give it to the workers as "
            f"PORTOLAN_DKIM_KEY={args.out}" + ("" if selector == settings.dkim_selector
                                              else f" with PORTOLAN_DKIM_SELECTOR={selector}"), False)
    else:
        kind = "an RSA" if signer.key_type == "rsa" else "an Ed25519"
        out(f"PORTOLAN_DKIM_KEY={settings.dkim_key}: {kind} key, signing for {domain} "
            f"with the selector {selector}", False)
    out("publish this DNS record (then check it: dig +short TXT " + name + "):", False)
    out(dkim_sign.record_line(name, record), False)
    return 0


def _write_private(path: Path, pem: bytes, force: bool) -> None:
    """Write the key readable by its owner alone (0600 from the start, whatever the umask); an
    existing file is kept unless ``force`` (a key in use must not be replaced by accident)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise SystemExit(f"portolan dkim keygen: {path} exists; it may be the key in use (--force replaces it)") from None
    except OSError as exc:
        raise SystemExit(f"portolan dkim keygen: cannot write {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)  # an existing file replaced with --force keeps its old mode otherwise
        f.write(pem)


def add_commands(cmd: CommandMaker) -> None:
    """Register ``dkim``."""
    sp = cmd("dkim", cmd_dkim, "the DKIM key of outgoing mail: make one (keygen) or check the configured one")
    sp.add_argument("action", choices=["keygen", "check"])
    sp.add_argument("--type", choices=["rsa", "ed25519"], default="rsa",
                    help="keygen: RSA 2048 (default: every receiver verifies it) or Ed25519 (RFC 8463, "
                         "not yet verified by every big provider)")
    sp.add_argument("--out", help="keygen: the file for the private key (PEM, written 0600)")
    sp.add_argument("--force", action="store_true", help="keygen: replace an existing file")
    sp.add_argument("--selector", help="the selector (default: PORTOLAN_DKIM_SELECTOR, else portolan)")
    sp.add_argument("--domain", help="the signing domain (default: the domain of MAIL_FROM)")
