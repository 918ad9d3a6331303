"""Turn notices: rendering (Jinja2 templates beside this module) and delivery.

Delivery speaks SMTP when ``SMTP_URL`` is set and otherwise writes each message as an ``.eml``
file into the outbox folder, which is what ``portolan dev`` uses on a laptop.
"""

from __future__ import annotations

import os
import shlex
import smtplib
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from jinja2 import Environment, PackageLoader, select_autoescape

from service.config import Settings

_env = Environment(
    loader=PackageLoader("service.delivery", "templates"),
    autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def shell_line(words: Iterable[object]) -> str:
    """A command line to paste into a POSIX shell, every word quoted (``shlex.join``).

    Mail asks people to paste lines built from values other people chose: an invited address may
    validly hold backticks and ``$`` (RFC 5322 lets them into the local part), an action's JSON
    may hold quotes. Quoting every word, including the ones we made (ids, tokens, URLs), means no
    value can ever become shell syntax, whatever later changes what a value may contain. In the
    templates it is the ``shell`` filter: ``{{ ["portolan", "show", match] | shell }}``."""
    return shlex.join(str(w) for w in words)


_env.filters["shell"] = shell_line


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    text: str
    html: str
    key: str
    """A stable identity (match, seat, ply): the Message-ID is derived from it, so a resend of
    the same notice is recognisable as such by any mail system."""


def render(template: str, to: str, subject: str, key: str, context: dict[str, Any]) -> Mail:
    """Render ``<template>.txt`` and ``<template>.html`` with ``context``."""
    text = _env.get_template(f"{template}.txt").render(**context)
    html = _env.get_template(f"{template}.html").render(**context)
    return Mail(to=to, subject=subject, text=text, html=html, key=key)


def message_id(key: str, domain: str) -> str:
    """The Message-ID of the notice ``key`` (``notice:<match>:<seat>:<ply>``, ``over:...``,
    ``invite:...``): derived from the key and the installation's domain only, with no time, pid or
    random part (as ``email.utils.make_msgid`` would add). Delivery is at least once: a worker
    killed after the SMTP server's 250 and before the "sent" mark sends the notice again, and the
    same Message-ID lets mail clients fold the two copies into one."""
    return f"<{key.replace(':', '.')}@{domain}>"


def to_message(mail: Mail, sender: str, domain: str = "portolan.invalid") -> EmailMessage:
    """The MIME message of ``mail`` (text and HTML alternatives) from ``sender``."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = mail.to
    msg["Subject"] = mail.subject
    msg["Message-ID"] = message_id(mail.key, domain)
    msg["X-Portolan-Notice"] = mail.key
    msg.set_content(mail.text)
    msg.add_alternative(mail.html, subtype="html")
    return msg


def deliver(settings: Settings, mail: Mail) -> str:
    """Send one message; returns where it went (``smtp://...`` or the outbox file path)."""
    msg = to_message(mail, settings.mail_from, settings.message_domain())
    if settings.smtp_url:
        url = urlparse(settings.smtp_url)
        # never wait on the server longer than the job may run: the "sending" lease ends then
        timeout = max(1.0, min(30.0, settings.job_timeout_s - 1.0))
        with smtplib.SMTP(url.hostname or "127.0.0.1", url.port or 25, timeout=timeout) as smtp:
            if url.username:
                smtp.starttls()
                smtp.login(url.username, url.password or "")
            smtp.send_message(msg)
        return settings.smtp_url
    return str(write_outbox(Path(settings.outbox_dir), f"{mail.key.replace(':', '-')}.eml", bytes(msg)))


def write_outbox(outbox: Path, name: str, data: bytes) -> Path:
    """Write one message file into the outbox: the file 0600 in a folder 0700, whatever the umask.

    Outbox messages hold invite tokens (which take a seat) and private views (a seat's hidden
    cards), so only the service's own user may read them. The modes are set explicitly after
    creating, because ``mkdir``/``open`` modes are filtered through the umask and a folder made
    earlier (by an operator, or an older version) keeps its mode. The file is created 0600 from
    the start, so its contents are never readable by others even for a moment, and renamed into
    place, so a reader never sees half a message."""
    outbox.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(outbox, 0o700)
    path = outbox / name
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # a .tmp left by a crash may be older and looser
        with os.fdopen(fd, "wb") as f:
            fd = -1
            f.write(data)
    finally:
        if fd != -1:
            os.close(fd)
    os.replace(tmp, path)
    return path
