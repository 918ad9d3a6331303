"""The reply's own words, from mails as real clients write them (tests/helpers/mailcorpus.py)."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

import pytest

from service.delivery.inbound import parse
from tests.helpers import mailcorpus
from tests.helpers.mailcorpus import CLIENTS, REPLIES, base


@pytest.mark.parametrize("reply", REPLIES)
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_text_is_exactly_the_reply(client: str, reply: str) -> None:
    make: Callable[[str], EmailMessage] = CLIENTS[client]
    raw = make(reply).as_bytes()
    mail = parse(raw)
    assert mail.text == reply
    assert mail.sender == "ana@example.org"
    assert mail.recipients == (mailcorpus.REPLY_TO,)
    assert mail.subject == "Re: Your turn"
    assert mail.in_reply_to == "<notice-1@portolan.test>"
    assert mail.message_id.endswith("@example.org>")
    assert mail.size == len(raw) and len(mail.digest) == 64
    assert not mail.automatic


def test_the_raw_bytes_show_the_encodings_the_corpus_claims() -> None:
    """The charset and transfer-encoding cases really are encoded (so the test above decodes them)."""
    latin = mailcorpus.latin1_qp("join Zoë Ångström").as_bytes()
    assert b"iso-8859-1" in latin and b"=C5ngstr=F6m" in latin
    b64 = mailcorpus.utf8_base64("join Zoë Ångström").as_bytes()
    assert b"base64" in b64 and "Ångström".encode() not in b64


def test_html_only_gmail_and_outlook_replies_lose_their_quotes() -> None:
    gmail = base()
    gmail.set_content('<div dir="ltr">3, 1, end</div><br><div class="gmail_quote"><div class="gmail_attr">On Tue, '
                      "Portolan wrote:<br></div><blockquote class=\"gmail_quote\">1. build<br>2. sail</blockquote></div>",
                      subtype="html")
    assert parse(gmail.as_bytes()).text == "3, 1, end"
    outlook = base()
    outlook.set_content('<html><body><div>show</div><div><br></div><hr style="display:inline-block;width:98%">'
                        '<div id="divRplyFwdMsg"><b>From:</b> Portolan &lt;turns@portolan.test&gt;<br><b>Sent:</b> '
                        "Tuesday<br><b>To:</b> Ana<br><b>Subject:</b> Your turn</div><div>1. build a ship</div></body></html>",
                        subtype="html")
    assert parse(outlook.as_bytes()).text == "show"


def test_a_quote_header_wrapped_over_two_lines_is_still_cut() -> None:
    """Gmail wraps its plain-text attribution at 78 columns; the reply address is long."""
    msg = base()
    msg.set_content(f"3, 1, end\n\nOn Tue, Dec 1, 2026 at 3:40 PM Portolan <{mailcorpus.REPLY_TO}>\nwrote:\n\n"
                    f"{mailcorpus.quoted(mailcorpus.NOTICE)}")
    assert parse(msg.as_bytes()).text == "3, 1, end"


def test_a_reply_of_several_lines_keeps_them_and_a_bare_quote_is_dropped() -> None:
    msg = base()
    msg.set_content("3\n1\n\nend\n> 1. build a ship\n> 2. sail north\n")
    assert parse(msg.as_bytes()).text == "3\n1\n\nend"


def test_a_mail_with_nothing_above_the_quote_has_no_text() -> None:
    msg = base()
    msg.set_content(f"-----Original Message-----\nFrom: Portolan\nSent: Tuesday\nTo: Ana\nSubject: x\n\n{mailcorpus.NOTICE}")
    assert parse(msg.as_bytes()).text == ""
    empty = base()
    empty.set_content("\n\n")
    assert parse(empty.as_bytes()).text == ""


def test_a_hyphen_at_the_start_of_a_reply_is_not_taken_for_a_signature() -> None:
    msg = base()
    msg.set_content("- 3\n")
    assert parse(msg.as_bytes()).text == "- 3"


def test_an_unknown_charset_or_broken_bytes_are_replaced_not_raised() -> None:
    raw = (b"From: ana@example.org\r\nTo: turns+x@portolan.test\r\nSubject: x\r\n"
           b"Content-Type: text/plain; charset=x-no-such-charset\r\n\r\nshow \xff\xfe\r\n")
    assert parse(raw).text == "show \ufffd\ufffd"
    raw = (b"From: ana@example.org\r\nContent-Type: text/plain; charset=utf-8\r\n"
           b"Content-Transfer-Encoding: base64\r\n\r\nc2hvdw==\r\n!!!\r\n")
    assert parse(raw).text.startswith("show")
    raw = b"From: ana@example.org\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nsh\xc3ow\r\n"
    assert parse(raw).text == "sh\ufffdow"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unit", ["Am a b c schrieb ", "On a b c wrote ", "Op a b schreef ", "Dne a b napsal "])
def test_text_made_to_make_the_quote_parser_backtrack_is_cut_first(unit: str) -> None:
    """One long line of almost-quote-headers took mail-parser-reply 30 s at 4,000 characters."""
    msg = base()
    msg.set_content("show\n" + unit * 200_000)
    mail = parse(msg.as_bytes())
    assert mail.text.startswith("show\n" + unit[:10]) and len(mail.text) <= 8_000
