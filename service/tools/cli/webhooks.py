"""``portolan webhook``: a player's webhooks, or a match's (``--match``): events POSTed to an HTTPS URL
(docs/webhooks.md), managed over the API with the owner's key."""

from __future__ import annotations

import argparse
from shlex import join as shell_line

from service.i18n import tr
from service.tools.cli.common import CommandMaker, api_client, language, load_key, out
from service.tools.terminal import say


def cmd_webhook(args: argparse.Namespace) -> int:
    """``portolan webhook add|list|remove|ping|deliveries``: a player's hooks, or a match's (--match)."""
    c = api_client(args)
    key = load_key(args.key)
    where = ["--match", args.match] if args.match else []
    L = language()
    if args.action == "add":
        if not args.target:
            raise SystemExit(tr(L, "portolan webhook add URL [--match ID]: which URL?"))
        hook = c.add_webhook(args.target, args.match, args.description or "", private_key=key)
        scope = tr(L, "match {match}", match=args.match) if args.match else tr(L, "all your matches")
        out(hook if args.json else tr(L, "webhook {id} -> {url} ({scope}); test it: {command}", id=hook["id"],
                                      url=hook["url"], scope=scope,
                                      command=shell_line(["portolan", "webhook", "ping", hook["id"], *where])), args.json)
        return 0
    if args.action == "list":
        hooks = c.webhooks(args.match, private_key=key)
        if args.json:
            out(hooks, True)
        elif not hooks:
            say(tr(L, "no webhooks"))
        for h in [] if args.json else hooks:
            state = (tr(L, "OFF since {at}: {reason}", at=h["disabled_at"], reason=h["disabled_reason"]) if h["disabled"]
                     else tr(L, "on"))
            failures = tr(L, "{n} failures in a row", n=h["failures"])  # English has always said "1 failures"
            say(f"{h['id']} {h['url']} [{state}; {failures}]")
        return 0
    if not args.target:
        raise SystemExit(tr(L, "portolan webhook {action} HOOK [--match ID]: which hook? (portolan webhook list)",
                            action=args.action))
    if args.action == "remove":
        c.remove_webhook(args.target, args.match, private_key=key)
        out({"removed": args.target} if args.json else tr(L, "webhook {id} removed", id=args.target), args.json)
    elif args.action == "ping":
        result = c.ping_webhook(args.target, args.match, private_key=key)
        out(result if args.json else tr(L, "ping {id} queued; see: {command}", id=result["event"]["id"],
                                        command=shell_line(["portolan", "webhook", "deliveries", args.target, *where])),
            args.json)
    else:
        data = c.webhook_deliveries(args.target, args.match, private_key=key)
        if args.json:
            out(data, True)
            return 0
        h = data["webhook"]
        state = tr(L, "OFF: {reason}", reason=str(h["disabled_reason"])) if h["disabled"] else tr(L, "on")
        say(f"{h['id']} {h['url']}: {state}")
        for d in data["deliveries"]:
            attempt = tr(L, "attempt {n}", n=d["attempt"])
            say(f"{d['at']} {d['event']} {attempt}: {d['status'] or '-'} {d['latency_ms']} ms"
                + (f" {d['error']}" if d["error"] else ""))
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``webhook``."""
    L = language()
    sp = cmd("webhook", cmd_webhook, tr(L, "webhooks: events POSTed to your HTTPS URL (docs/webhooks.md)"))
    sp.add_argument("action", choices=["add", "list", "remove", "ping", "deliveries"])
    sp.add_argument("target", nargs="?", help=tr(L, "the URL (add) or the webhook id (remove, ping, deliveries)"))
    sp.add_argument("--match", help=tr(L, "a match's webhooks (you must have created it) instead of your own"))
    sp.add_argument("--description", help=tr(L, "a note for yourself (add)"))
    sp.add_argument("--key", default="default", help=tr(L, "the key that owns the webhooks (the creator's for --match)"))
