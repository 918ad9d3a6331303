"""What ``portolan create`` and ``claim`` print for a friend on another machine: the lines to
forward if the invitation mail does not arrive, and how the turn notices will come and be
answered. Every command carries ``--server``, so it works where ``PORTOLAN_URL`` is not set."""

from __future__ import annotations

from shlex import join as shell_line


def invitations_text(match: str, invites: dict[str, str], emails: list[str], server: str) -> str:
    """What ``create`` prints per invited seat: the invitation mail goes out by itself, and this
    is what to forward to the friend if it does not arrive (the token takes the seat, so send
    it to that friend only). The command carries ``--server``, so it works on their machine."""
    if not invites:
        return "no invited seats: the match started with its bots"
    lines = ["", "Each invited friend gets a mail with how to join: by replying \"join Their Name\" (nothing to",
             "install) or with the portolan command. If it does not arrive, forward them their seat's lines:"]
    for seat, token in invites.items():
        email = emails[int(seat)] if int(seat) < len(emails) else ""
        claim = ["portolan", "claim", match, seat, token, "--name", "Their name", *(["--email", email] if email else []),
                 "--server", server]
        lines += ["", f"  seat {seat}{f' ({email})' if email else ''}: invite token {token}", f"    {shell_line(claim)}"]
    return "\n".join(lines)


def claimed_text(match: str, seat: int, email: str, server: str) -> str:
    """What ``claim`` prints: where the turn notices will come and the two ways to answer them."""
    if not email:
        return ("No email given, so no turn notices: ask for your turns with "
                + shell_line(["portolan", "my-turns", "--server", server]))
    return "\n".join([
        f"Turn notices go to {email}. Answer one by replying to it: a number from its menu",
        "(\"3\"), several in order (\"3, 1, end\"), or show, log, help, stop notices.",
        "Or from here: " + shell_line(["portolan", "actions", match, "--server", server]) + ", then "
        + shell_line(["portolan", "move", match, "--pick", "N", "--server", server]),
        "A daily digest instead, or no mail: " + shell_line(["portolan", "notices", "digest", "--email", email,
                                                             "--server", server]),
    ])
