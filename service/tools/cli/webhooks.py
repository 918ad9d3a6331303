"""``portolan webhook``: a player's webhooks, or a match's (``--match``): events POSTed to an HTTPS URL
(docs/webhooks.md), managed over the API with the owner's key."""

from __future__ import annotations

import argparse
from shlex import join as shell_line

from service.tools.cli.common import CommandMaker, api_client, load_key, out
from service.tools.terminal import say


def cmd_webhook(args: argparse.Namespace) -> int:
    """``portolan webhook add|list|remove|ping|deliveries``: a player's hooks, or a match's (--match)."""
    c = api_client(args)
    key = load_key(args.key)
    where = ["--match", args.match] if args.match else []
    if args.action == "add":
        if not args.target:
            raise SystemExit("portolan webhook add URL [--match ID]: which URL?")
        hook = c.add_webhook(args.target, args.match, args.description or "", private_key=key)
        out(hook if args.json else f"webhook {hook['id']} -> {hook['url']} "
            f"({'match ' + args.match if args.match else 'all your matches'}); test it: "
            + shell_line(["portolan", "webhook", "ping", hook["id"], *where]), args.json)
        return 0
    if args.action == "list":
        hooks = c.webhooks(args.match, private_key=key)
        if args.json:
            out(hooks, True)
        elif not hooks:
            say("no webhooks")
        for h in [] if args.json else hooks:
            state = f"OFF since {h['disabled_at']}: {h['disabled_reason']}" if h["disabled"] else "on"
            say(f"{h['id']} {h['url']} [{state}; {h['failures']} failures in a row]")
        return 0
    if not args.target:
        raise SystemExit(f"portolan webhook {args.action} HOOK [--match ID]: which hook? (portolan webhook list)")
    if args.action == "remove":
        c.remove_webhook(args.target, args.match, private_key=key)
        out({"removed": args.target} if args.json else f"webhook {args.target} removed", args.json)
    elif args.action == "ping":
        result = c.ping_webhook(args.target, args.match, private_key=key)
        out(result if args.json else f"ping {result['event']['id']} queued; see: "
            + shell_line(["portolan", "webhook", "deliveries", args.target, *where]), args.json)
    else:
        data = c.webhook_deliveries(args.target, args.match, private_key=key)
        if args.json:
            out(data, True)
            return 0
        h = data["webhook"]
        say(f"{h['id']} {h['url']}: {'OFF: ' + str(h['disabled_reason']) if h['disabled'] else 'on'}")
        for d in data["deliveries"]:
            say(f"{d['at']} {d['event']} attempt {d['attempt']}: {d['status'] or '-'} {d['latency_ms']} ms"
                + (f" {d['error']}" if d["error"] else ""))
    return 0


def add_commands(cmd: CommandMaker) -> None:
    """Register ``webhook``."""
    sp = cmd("webhook", cmd_webhook, "webhooks: events POSTed to your HTTPS URL (docs/webhooks.md)")
    sp.add_argument("action", choices=["add", "list", "remove", "ping", "deliveries"])
    sp.add_argument("target", nargs="?", help="the URL (add) or the webhook id (remove, ping, deliveries)")
    sp.add_argument("--match", help="a match's webhooks (you must have created it) instead of your own")
    sp.add_argument("--description", help="a note for yourself (add)")
    sp.add_argument("--key", default="default", help="the key that owns the webhooks (the creator's for --match)")
