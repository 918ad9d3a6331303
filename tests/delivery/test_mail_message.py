"""The message itself (service.delivery.mail): reply headers, Auto-Submitted, and 8-bit UTF-8
bodies that copy cleanly out of the outbox file and arrive intact through a real SMTP server."""

from __future__ import annotations

import dataclasses
from email import message_from_bytes
from email.policy import default
from pathlib import Path
from typing import Any

from service.config import Settings
from service.delivery.mail import Mail, deliver, to_message
from tests.conftest import SmtpSink, smtp_server

NAME = "Zoë Ångström-Þórsdóttir"
COMMAND = "portolan claim m1 --seat 0 --token tok=en+/== --server https://play.example.org"


def mail(**changes: Any) -> Mail:
    base = Mail(to="zoe@example.org", subject=f"Your turn, {NAME}",
                text=f"Hello {NAME},\n\n  {COMMAND}\n", html=f"<p>Hello {NAME}</p><pre>{COMMAND}</pre>",
                key="notice:m1:0:3")
    return dataclasses.replace(base, **changes)


def test_reply_headers_and_auto_submitted_are_written() -> None:
    msg = to_message(mail(reply_to="turns+t.m1.0.3.abc@example.org", in_reply_to="<their@client>",
                          headers=(("List-Unsubscribe", "<mailto:turns+o@example.org?subject=stop%20notices>"),)),
                     "Portolan <turns@example.org>", "example.org")
    assert msg["Reply-To"] == "turns+t.m1.0.3.abc@example.org"
    assert msg["In-Reply-To"] == "<their@client>"
    assert msg["References"] == "<their@client>"
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["List-Unsubscribe"] == "<mailto:turns+o@example.org?subject=stop%20notices>"


def test_a_long_one_word_header_is_written_as_is_not_encoded() -> None:
    long = "<mailto:turns+o-ea6xbfc299cp-1-0-8xsfeqqswzvxjp6y@mail.portolan.example.org?subject=stop%20notices>"
    raw = bytes(to_message(mail(headers=(("List-Unsubscribe", long),)), "turns@example.org"))
    assert f"List-Unsubscribe: {long}\n".encode() in raw


def test_a_plain_mail_has_no_reply_headers_but_is_still_auto_submitted() -> None:
    msg = to_message(mail(), "turns@example.org")
    assert msg["Reply-To"] is None and msg["In-Reply-To"] is None and msg["References"] is None
    assert msg.get_all("Auto-Submitted") == ["auto-generated"]


def test_a_header_given_replaces_the_default_one() -> None:
    msg = to_message(mail(in_reply_to="<a@b>", headers=(("Auto-Submitted", "auto-replied"), ("References", "<x@y> <a@b>"))),
                     "turns@example.org")
    assert msg.get_all("Auto-Submitted") == ["auto-replied"]
    assert msg.get_all("References") == ["<x@y> <a@b>"]


def test_the_outbox_file_is_plain_utf8_that_copies_cleanly(settings: Settings) -> None:
    raw = Path(deliver(settings, mail())).read_bytes()
    assert NAME.encode("utf-8") in raw  # the name itself, not =C3=AB or base64
    assert COMMAND.encode() in raw  # the command on one line, no soft line break or =3D in it
    assert b"Content-Transfer-Encoding: 8bit" in raw
    assert b"quoted-printable" not in raw and b"base64" not in raw
    assert all(len(line) <= 998 for line in raw.split(b"\r\n") + raw.split(b"\n"))
    msg = message_from_bytes(raw, policy=default)
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None and NAME in body.get_content()


def test_a_line_over_the_rfc_limit_falls_back_to_quoted_printable(settings: Settings) -> None:
    long = "x" * 2000
    raw = Path(deliver(settings, mail(text=long + "\n", html=f"<p>{long}</p>"))).read_bytes()
    assert all(len(line) <= 998 for line in raw.splitlines())
    body = message_from_bytes(raw, policy=default).get_body(preferencelist=("plain",))
    assert body is not None and body.get_content() == long + "\n"


def test_a_real_smtp_server_receives_the_8bit_message_intact(settings: Settings, smtp_sink: SmtpSink) -> None:
    deliver(dataclasses.replace(settings, smtp_url=smtp_sink.url), mail(reply_to="turns+r@example.org"))
    [got] = smtp_sink.messages
    body = got.get_body(preferencelist=("plain",))
    assert body["Content-Transfer-Encoding"] == "8bit"
    assert NAME in body.get_content() and COMMAND in body.get_content()
    assert got["Reply-To"] == "turns+r@example.org" and got["Auto-Submitted"] == "auto-generated"


def test_the_smtp_session_declares_8bitmime(settings: Settings) -> None:
    seen: list[Any] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            seen.append((list(envelope.mail_options), envelope.content))
            return "250 OK"

    with smtp_server(Handler()) as url:
        deliver(dataclasses.replace(settings, smtp_url=url), mail())
    [(options, content)] = seen
    assert "BODY=8BITMIME" in options
    assert NAME.encode("utf-8") in content


def test_a_non_ascii_address_goes_with_smtputf8(settings: Settings) -> None:
    seen: list[Any] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            seen.append((list(envelope.mail_options), envelope.rcpt_tos))
            return "250 OK"

    from aiosmtpd.controller import Controller

    from tests.conftest import free_port

    port = free_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, enable_SMTPUTF8=True)
    controller.start()
    try:
        deliver(dataclasses.replace(settings, smtp_url=f"smtp://127.0.0.1:{port}"), mail(to="zoë@exämple.org"))
    finally:
        controller.stop()
    [(options, rcpts)] = seen
    assert "SMTPUTF8" in options and rcpts == ["zoë@exämple.org"]
