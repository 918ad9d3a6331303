"""Mail: rendering (Jinja2 templates beside this module) and delivery.

Delivery speaks SMTP when ``SMTP_URL`` is set and otherwise writes each message as an ``.eml``
file into the outbox folder, which is what ``portolan dev`` uses on a laptop.

Bodies go out as 8-bit UTF-8, not quoted-printable or base64: a player copies commands and
tokens out of the mail (or out of the ``.eml`` file), and a quoted-printable soft line break
or ``=3D`` in the middle of a command breaks it. RFC 5322 still limits a line to 998 octets,
so the templates wrap at ~76 characters, and a body that would break the limit anyway falls
back to quoted-printable rather than go out malformed.

Every message carries what RFC 5322 and the big receivers ask of it (issue 27): ``Date`` (set as
the message is built for delivery, so a resend after a crash has a fresh one but the same
``Message-ID``, and otherwise the same bytes: its MIME boundaries come from its key), ``Message-ID``, ``MIME-Version: 1.0`` and ``Auto-Submitted``. It is serialised
once, DKIM-signed when ``PORTOLAN_DKIM_KEY`` is set (service.delivery.dkim_sign), and those very
bytes are what the SMTP server or the outbox file gets.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import smtplib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime, getaddresses, parseaddr
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlparse

from jinja2 import Environment, PackageLoader, pass_eval_context, select_autoescape
from jinja2.nodes import EvalContext
from markupsafe import Markup

from service import i18n
from service.config import Settings
from service.delivery import dkim_sign
from service.observe.metrics import NOTICES


def _environment(language: str) -> Environment:
    """The templates' environment for letters in ``language``: jinja2's i18n extension with the
    catalogs' translations installed (``{{ _("...") | fill(x=...) }}`` in the templates)."""
    env = Environment(
        loader=PackageLoader("service.delivery", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(i18n.translations(language), newstyle=False)  # type: ignore[attr-defined]
    env.filters["shell"] = shell_line
    env.filters["fill"] = _fill
    env.globals.update(tag=_tag, quote=_quote, link_to=_link_to)
    env.globals["language"] = language
    return env


@pass_eval_context
def _fill(eval_ctx: EvalContext, message: str, **args: object) -> str:
    """A translated message with its ``{placeholders}`` filled: in an HTML template the message and
    every value not marked safe are escaped (:func:`_tag` marks a value's markup safe), so a
    translation can move ``<b>{game}</b>`` wherever its language puts it."""
    if eval_ctx.autoescape:
        # the message's own quotes stay as written (HTML text needs only &, < and > escaped)
        safe = str(message).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return Markup(safe).format(**args)
    return str(message).format(**args)


def _tag(name: str, value: object, style: str = "") -> Markup:
    """``<name>value</name>`` with the value escaped: for a placeholder's value in an HTML message."""
    attr = Markup(' style="{}"').format(style) if style else ""
    return Markup("<{0}{1}>{2}</{0}>").format(Markup(name), attr, value)


def _quote(value: object) -> Markup:
    """``value`` between typographic quotes, escaped: someone else's words quoted in a letter."""
    return Markup("&ldquo;{}&rdquo;").format(value)


def _link_to(href: str, text: object = None) -> Markup:
    """A link to ``href`` showing ``text`` (default: the address itself), both escaped."""
    return Markup('<a href="{}">{}</a>').format(href, href if text is None else text)


_envs: dict[str, Environment] = {}
_envs_lock = threading.Lock()


def environment(language: str) -> Environment:
    """The (cached) template environment of ``language`` (an unknown one is English)."""
    language = language if language in i18n.codes() else i18n.DEFAULT
    found = _envs.get(language)
    if found is None:
        with _envs_lock:
            found = _envs.setdefault(language, _environment(language))
    return found


def shell_line(words: Iterable[object]) -> str:
    """A command line to paste into a POSIX shell, every word quoted (``shlex.join``).

    Mail asks people to paste lines built from values other people chose: an invited address may
    validly hold backticks and ``$`` (RFC 5322 lets them into the local part), an action's JSON
    may hold quotes. Quoting every word, including the ones we made (ids, tokens, URLs), means no
    value can ever become shell syntax, whatever later changes what a value may contain. In the
    templates it is the ``shell`` filter: ``{{ ["portolan", "show", match] | shell }}``."""
    return shlex.join(str(w) for w in words)


MAX_LINE = 998
"""RFC 5322 section 2.1.1: a line is at most 998 octets, not counting CRLF."""

AUTO_SUBMITTED = ("Auto-Submitted", "auto-generated")
"""RFC 3834: every mail Portolan sends is machine-made, so a bounce or an auto-reply coming back
is recognisable as such, and mail desks (ours included) never answer it: no mail loops."""


HEADER_POLICY = default_policy.clone(max_line_length=MAX_LINE)
"""How a message is written out: the stdlib default, but headers fold only past RFC 5322's hard
limit. At the default 78, a header with one long word (a ``List-Unsubscribe`` mailto: URL, a
plus-addressed ``Reply-To``) is turned into RFC 2047 encoded words, which mail clients do not
decode in those headers: the unsubscribe link would be dead."""


@dataclass(frozen=True)
class InlineImage:
    """A picture the HTML body shows inline (``<img src="cid:...">``), sent in the same
    ``multipart/related`` part as the HTML: mail clients block remote images by default, but show
    the ones the message carries."""

    cid: str
    """The Content-ID without angle brackets (``board.<match>.<seat>.<ply>@<domain>``); the HTML
    refers to it as ``cid:<cid>``."""
    png: bytes
    alt: str
    """What the picture shows, in words: the HTML's ``alt``, and the part's description."""


@dataclass(frozen=True)
class Mail:
    """One message to send: its recipient, subject, bodies, identity and reply headers."""

    to: str
    subject: str
    text: str
    html: str
    key: str
    """A stable identity (match, seat, ply): the Message-ID is derived from it, so a resend of
    the same notice is recognisable as such by any mail system."""
    reply_to: str = ""
    """Where a reply goes (``Reply-To``): a reply address of service.play.mail.reply_address, so the
    reply itself says which match, seat and ply it answers. Empty: no ``Reply-To``."""
    in_reply_to: str = ""
    """The Message-ID this mail answers (``In-Reply-To``, and ``References`` unless ``headers``
    gives one), so mail clients thread an answer under the player's reply."""
    headers: tuple[tuple[str, str], ...] = ()
    """Extra headers in order (``List-Unsubscribe`` ...). One named like a default header
    (``Auto-Submitted``, ``References``) replaces the default."""
    images: tuple[InlineImage, ...] = ()
    """Pictures the HTML body shows inline (the plain-text body never depends on them)."""


def render(
    template: str,
    to: str,
    subject: str,
    key: str,
    context: dict[str, Any],
    *,
    reply_to: str = "",
    in_reply_to: str = "",
    headers: tuple[tuple[str, str], ...] = (),
    images: tuple[InlineImage, ...] = (),
    language: str = i18n.DEFAULT,
) -> Mail:
    """Render ``<template>.txt`` and ``<template>.html`` with ``context`` in ``language`` (the
    recipient's: its words from the catalogs); the HTML template sees ``images`` (to refer to each
    by ``cid:``) as ``images`` too."""
    env = environment(language)
    text = env.get_template(f"{template}.txt").render(**context)
    html = env.get_template(f"{template}.html").render(**context, images=images)
    return Mail(to=to, subject=subject, text=text, html=html, key=key, reply_to=reply_to, in_reply_to=in_reply_to,
                headers=headers, images=images)


def message_id(key: str, domain: str) -> str:
    """The Message-ID of the notice ``key`` (``notice:<match>:<seat>:<ply>``, ``over:...``,
    ``invite:...``): derived from the key and the installation's domain only, with no time, pid or
    random part (as ``email.utils.make_msgid`` would add). Delivery is at least once: a worker
    killed after the SMTP server's 250 and before the "sent" mark sends the notice again, and the
    same Message-ID lets mail clients fold the two copies into one."""
    return f"<{key.replace(':', '.')}@{domain}>"


def body_cte(body: str, eight_bit: bool = True) -> str:
    """The Content-Transfer-Encoding for ``body``: ``8bit`` (plain UTF-8, copies cleanly) when
    every line fits RFC 5322's 998 octets and the receiving side takes 8-bit mail, else
    ``quoted-printable`` (which wraps long lines and keeps 7-bit servers working)."""
    fits = all(len(line.encode("utf-8")) <= MAX_LINE for line in body.splitlines())
    return "8bit" if eight_bit and fits else "quoted-printable"


def to_message(mail: Mail, sender: str, domain: str = "portolan.invalid", *, eight_bit: bool = True,
               date: datetime | None = None) -> EmailMessage:
    """The MIME message of ``mail`` (text and HTML alternatives) from ``sender``, dated ``date``
    (default: now, in UTC).

    ``eight_bit=False`` is for an SMTP server that does not offer 8BITMIME: the bodies then go
    quoted-printable, which every server carries. The date is the machine's, not the service's
    clock (service.clock): a mail client sorts and shows it as the time the mail was sent."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = mail.to
    msg["Subject"] = mail.subject
    msg["Date"] = format_datetime(date or datetime.now(UTC))
    msg["Message-ID"] = message_id(mail.key, domain)
    msg["X-Portolan-Notice"] = mail.key
    extra = {name.lower() for name, _ in mail.headers}
    if mail.reply_to:
        msg["Reply-To"] = mail.reply_to
    if mail.in_reply_to:
        msg["In-Reply-To"] = mail.in_reply_to
        if "references" not in extra:
            msg["References"] = mail.in_reply_to
    if AUTO_SUBMITTED[0].lower() not in extra:
        msg[AUTO_SUBMITTED[0]] = AUTO_SUBMITTED[1]
    for name, value in mail.headers:
        msg[name] = value
    msg.set_content(mail.text, cte=body_cte(mail.text, eight_bit))
    msg.add_alternative(mail.html, subtype="html", cte=body_cte(mail.html, eight_bit))
    if "MIME-Version" not in msg:  # set_content adds it; said here so no change there can lose it
        msg["MIME-Version"] = "1.0"
    if mail.images:
        # multipart/alternative(text/plain, multipart/related(text/html, image/png...)): the
        # pictures belong to the HTML alternative alone (RFC 2387); a text-only reader never
        # sees them as attachments. PNG is binary, so these parts alone go base64.
        html_part = cast(EmailMessage, msg.get_payload()[-1])  # type: ignore[index]
        for image in mail.images:
            html_part.add_related(image.png, maintype="image", subtype="png", cid=f"<{image.cid}>",
                                  disposition="inline", filename=f"{image.cid.split('@')[0]}.png")
            cast(EmailMessage, html_part.get_payload()[-1])["Content-Description"] = image.alt  # type: ignore[index]
    # Boundaries from the key, not random (the stdlib draws one per serialisation): a resend of
    # the same letter is then the same bytes, Date and DKIM signature aside, and a receiver that
    # sees both copies may fold them (issue 28, item 9).
    for i, part in enumerate(p for p in msg.walk() if p.is_multipart()):
        part.set_boundary(boundary_of(mail.key, i))
    # only now: the bodies were encoded under the default policy (quoted-printable wraps at 76)
    msg.policy = HEADER_POLICY
    return msg


def boundary_of(key: str, index: int) -> str:
    """The MIME boundary of the ``index``-th multipart part of the mail ``key``: a digest of the
    two, which no body of ours contains (RFC 2046 section 5.1.1 asks only that it not occur in
    the parts it separates)."""
    return f"=_portolan_{hashlib.sha256(f'{key}:{index}'.encode()).hexdigest()[:40]}"


def deliver(settings: Settings, mail: Mail) -> str:
    """Send one message; returns where it went (``smtp://...`` or the outbox file path).

    Over SMTP the bodies go 8-bit with ``BODY=8BITMIME`` when the server offers 8BITMIME, and
    quoted-printable when it does not; ``send_message`` itself asks for SMTPUTF8 when an address
    is not ASCII (and refuses if the server cannot take it). Counted by the metrics by the kind
    of mail (the first word of its key: notice, over, invite, digest...) and the result."""
    kind = mail.key.split(":", 1)[0] or "mail"
    try:
        where = _deliver(settings, mail)
    except Exception:
        NOTICES.labels(kind, "failed").inc()
        raise
    NOTICES.labels(kind, "sent").inc()
    return where


def _deliver(settings: Settings, mail: Mail) -> str:
    # the key first: a bad one fails before a connection is opened or a file written
    signer = dkim_sign.signer(settings)
    if settings.smtp_url:
        url = urlparse(settings.smtp_url)
        # never wait on the server longer than the job may run: the "sending" lease ends then
        timeout = max(1.0, min(30.0, settings.job_timeout_s - 1.0))
        with smtplib.SMTP(url.hostname or "127.0.0.1", url.port or 25, timeout=timeout) as smtp:
            if url.username:
                smtp.starttls()
                smtp.login(url.username, url.password or "")
            smtp.ehlo_or_helo_if_needed()
            eight_bit = smtp.has_extn("8bitmime")
            msg = to_message(mail, settings.mail_from, settings.message_domain(), eight_bit=eight_bit)
            # as send_message would: SMTPUTF8 (and UTF-8 headers) for a non-ASCII address
            international = not (settings.mail_from + mail.to).isascii()
            raw = wire_bytes(msg, signer, utf8=international)
            options = ["SMTPUTF8", "BODY=8BITMIME"] if international else ["BODY=8BITMIME"] if eight_bit else []
            # sendmail, not send_message: the server gets these bytes, the ones the signature covers
            smtp.sendmail(parseaddr(settings.mail_from)[1], [a for _, a in getaddresses([mail.to]) if a], raw,
                          mail_options=options)
        return settings.smtp_url
    msg = to_message(mail, settings.mail_from, settings.message_domain())
    raw = wire_bytes(msg, signer, linesep="\n")
    return str(write_outbox(Path(settings.outbox_dir), f"{mail.key.replace(':', '-')}.eml", raw))


def wire_bytes(msg: EmailMessage, signer: dkim_sign.DkimSigner | None, *, linesep: str = "\r\n",
               utf8: bool = False) -> bytes:
    """The message as it is sent (CRLF lines, SMTP) or written (``linesep="\\n"``, the outbox file),
    with a DKIM signature of exactly these bytes in front when there is a ``signer``. ``utf8``:
    headers in raw UTF-8 (RFC 6532), for an SMTPUTF8 transaction."""
    raw = msg.as_bytes(policy=HEADER_POLICY.clone(linesep=linesep, utf8=utf8))
    return signer.sign(raw, linesep.encode()) if signer else raw


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
