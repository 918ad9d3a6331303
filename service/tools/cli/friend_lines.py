"""What ``portolan create`` and ``claim`` print for a friend on another machine: the lines to
forward if the invitation mail does not arrive, and how the turn notices will come and be
answered. Every command carries ``--server``, so it works where ``PORTOLAN_URL`` is not set."""

from __future__ import annotations

from shlex import join as shell_line

from service.i18n import DEFAULT, tr


def invitations_text(match: str, invites: dict[str, str], emails: list[str], server: str, lang: str = DEFAULT) -> str:
    """What ``create`` prints per invited seat: the invitation mail goes out by itself, and this
    is what to forward to the friend if it does not arrive (the token takes the seat, so send
    it to that friend only). The command carries ``--server``, so it works on their machine.
    ``lang``: the language of the words (the commands stay as the shell takes them)."""
    if not invites:
        return tr(lang, "no invited seats: the match started with its bots")
    # one message for the two lines, so a translation may break them where its words fall
    lines = ["", tr(lang, "Each invited friend gets a mail with how to join: by replying \"join Their Name\" (nothing to\n"
                          "install) or with the portolan command. If it does not arrive, forward them their seat's lines:")]
    for seat, token in invites.items():
        email = emails[int(seat)] if int(seat) < len(emails) else ""
        claim = ["portolan", "claim", match, seat, token, "--name", tr(lang, "Their name"),
                 *(["--email", email] if email else []), "--server", server]
        head = (tr(lang, "seat {seat} ({email}): invite token {token}", seat=seat, email=email, token=token) if email
                else tr(lang, "seat {seat}: invite token {token}", seat=seat, token=token))
        lines += ["", f"  {head}", f"    {shell_line(claim)}"]
    return "\n".join(lines)


def claimed_text(match: str, seat: int, email: str, server: str, lang: str = DEFAULT) -> str:
    """What ``claim`` prints: where the turn notices will come and the two ways to answer them."""
    if not email:
        return tr(lang, "No email given, so no turn notices: ask for your turns with {command}",
                  command=shell_line(["portolan", "my-turns", "--server", server]))
    return "\n".join([
        tr(lang, "Turn notices go to {email}. Answer one by replying to it: a number from its menu\n"
                 "(\"3\"), several in order (\"3, 1, end\"), or show, log, help, stop notices.", email=email),
        tr(lang, "Or from here: {actions}, then {move}",
           actions=shell_line(["portolan", "actions", match, "--server", server]),
           move=shell_line(["portolan", "move", match, "--pick", "N", "--server", server])),
        tr(lang, "A daily digest instead, or no mail: {command}",
           command=shell_line(["portolan", "notices", "digest", "--email", email, "--server", server])),
    ])
