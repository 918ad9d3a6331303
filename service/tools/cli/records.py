"""A match's verifiable record: ``portolan record`` downloads it, ``portolan verify`` checks it offline
(signatures, chain, seed, replay, outcome; docs/record-format.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from service.i18n import tr
from service.tools.cli.common import CommandMaker, api_client, language
from service.tools.terminal import say


def cmd_record(args: argparse.Namespace) -> int:
    """Download a match's verifiable record (to ``--output``, else to stdout)."""
    data = api_client(args).record(args.match)
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if args.output:
        Path(args.output).write_text(text)
        say(tr(language(), "record of {match} written to {path}", match=args.match, path=args.output))
    else:
        say(text)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a record offline; exit 1 when it does not verify."""
    from service.games.edition_check import EditionError, parse
    from service.proof.verify import verify_file

    edition = None
    if args.edition:  # the edition the record pins, when the record does not carry it
        try:
            edition = parse(Path(args.edition).read_bytes())
        except OSError as exc:
            raise SystemExit(f"cannot read the edition {args.edition}: {exc}") from exc
        except EditionError as exc:  # too large, too deep, not JSON, a float: one line
            raise SystemExit(f"cannot read the edition {args.edition}: {exc.field}: {exc.message}") from exc
    report = verify_file(args.record, server_key=args.server_key, edition=edition)
    say(report.text())
    return 0 if report.ok else 1


def add_commands(cmd: CommandMaker) -> None:
    """Register ``record`` and ``verify``."""
    L = language()
    sp = cmd("record", cmd_record, tr(L, "download a match's verifiable record"))
    sp.add_argument("match")
    sp.add_argument("-o", "--output")
    sp = cmd("verify", cmd_verify, tr(L, "check a record offline: signatures, chain, seed, replay, outcome"))
    sp.add_argument("record")
    sp.add_argument("--server-key", help=tr(L, "the server key you trust (GET /v1/server-key); default: the record's own"))
    sp.add_argument("--edition", metavar="FILE", help=tr(L, "the data edition the record pins, when it does not carry it"))
