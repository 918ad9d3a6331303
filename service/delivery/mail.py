"""Turn notices: rendering (Jinja2 templates beside this module) and delivery.

Delivery speaks SMTP when ``SMTP_URL`` is set and otherwise writes each message as an ``.eml``
file into the outbox folder, which is what ``portolan dev`` uses on a laptop.
"""

from __future__ import annotations

import os
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
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


def to_message(mail: Mail, sender: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = mail.to
    msg["Subject"] = mail.subject
    msg["Message-ID"] = make_msgid(idstring=mail.key.replace(":", "."), domain="portolan.invalid")
    msg["X-Portolan-Notice"] = mail.key
    msg.set_content(mail.text)
    msg.add_alternative(mail.html, subtype="html")
    return msg


def deliver(settings: Settings, mail: Mail) -> str:
    """Send one message; returns where it went (``smtp://...`` or the outbox file path)."""
    msg = to_message(mail, settings.mail_from)
    if settings.smtp_url:
        url = urlparse(settings.smtp_url)
        with smtplib.SMTP(url.hostname or "127.0.0.1", url.port or 25, timeout=30) as smtp:
            if url.username:
                smtp.starttls()
                smtp.login(url.username, url.password or "")
            smtp.send_message(msg)
        return settings.smtp_url
    outbox = Path(settings.outbox_dir)
    outbox.mkdir(parents=True, exist_ok=True)
    path = outbox / f"{mail.key.replace(':', '-')}.eml"
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(bytes(msg))
    os.replace(tmp, path)  # atomic: a reader never sees half a message
    return str(path)
