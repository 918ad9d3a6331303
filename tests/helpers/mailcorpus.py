"""Messages as real mail clients write them, built with the stdlib (tests of mail coming in)."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid

NOTICE = "Your turn in match abc (El Capitán), ply 12.\n 1. build a ship\n 2. sail north\n 3. end turn\n"
REPLY_TO = "turns+t-abc-1-12-abcdefghijkmnpqr@portolan.test"


def base(sender: str = "Ana Example <Ana@Example.org>", to: str = REPLY_TO, subject: str = "Re: Your turn") -> EmailMessage:
    """The headers every client writes on a reply."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate()
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg["In-Reply-To"] = "<notice-1@portolan.test>"
    return msg


def quoted(text: str) -> str:
    return "".join(f"> {line}\n" if line else ">\n" for line in text.splitlines())


def gmail(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\nOn Tue, Dec 1, 2026 at 3:40 PM Portolan <{REPLY_TO}> wrote:\n\n{quoted(NOTICE)}")
    msg.add_alternative(
        f'<div dir="ltr">{reply}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        f"On Tue, Dec 1, 2026 at 3:40 PM Portolan &lt;{REPLY_TO}&gt; wrote:<br></div>"
        f'<blockquote class="gmail_quote">{NOTICE.replace(chr(10), "<br>")}</blockquote></div>', subtype="html")
    return msg


def outlook(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\n-----Original Message-----\nFrom: Portolan <{REPLY_TO}>\n"
                    f"Sent: Tuesday, December 1, 2026 3:40 PM\nTo: Ana Example <ana@example.org>\n"
                    f"Subject: Your turn\n\n{NOTICE}")
    return msg


def outlook_new(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\n________________________________\nFrom: Portolan <{REPLY_TO}>\n"
                    f"Sent: Tuesday, December 1, 2026 3:40 PM\nTo: Ana Example <ana@example.org>\n"
                    f"Subject: Your turn\n\n{NOTICE}")
    return msg


def apple_html_only(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(
        '<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
        f'<body dir="auto"><div dir="ltr">{reply}</div><div dir="ltr"><br><blockquote type="cite">'
        f"On 1 Dec 2026, at 15:40, Portolan &lt;{REPLY_TO}&gt; wrote:<br><br></blockquote></div>"
        f'<blockquote type="cite"><div dir="ltr">{NOTICE.replace(chr(10), "<br>")}</div></blockquote></body></html>',
        subtype="html")
    return msg


def iphone(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\nSent from my iPhone\n\n> On 1 Dec 2026, at 15:40, Portolan <{REPLY_TO}> wrote:\n>\n"
                    f"{quoted(NOTICE)}")
    return msg


def signature(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\n-- \nAna Example\nhttps://example.org/~ana\n\n"
                    f"On Tue, Dec 1, 2026 at 3:40 PM Portolan <{REPLY_TO}> wrote:\n{quoted(NOTICE)}")
    return msg


def german(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\nAm Di., 1. Dez. 2026 um 15:40 Uhr schrieb Portolan <{REPLY_TO}>:\n\n{quoted(NOTICE)}")
    return msg


def french(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\nLe mar. 1 déc. 2026 à 15:40, Portolan <{REPLY_TO}> a écrit :\n\n{quoted(NOTICE)}")
    return msg


def latin1_qp(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\nOn Tue, Dec 1, 2026, Portolan wrote:\n{quoted(NOTICE)}", charset="iso-8859-1", cte="quoted-printable")
    return msg


def utf8_base64(reply: str) -> EmailMessage:
    msg = base()
    msg.set_content(f"{reply}\n\nOn Tue, Dec 1, 2026, Portolan wrote:\n{quoted(NOTICE)}", charset="utf-8", cte="base64")
    return msg


def mixed_with_attachment(reply: str, size: int = 2000) -> EmailMessage:
    msg = gmail(reply)
    msg.add_attachment(b"\x89PNG" + b"\0" * size, maintype="image", subtype="png", filename="board.png")
    return msg


CLIENTS = {
    "gmail": gmail, "outlook": outlook, "outlook_new": outlook_new, "apple_html_only": apple_html_only,
    "iphone": iphone, "signature": signature, "german": german, "french": french, "latin1_qp": latin1_qp,
    "utf8_base64": utf8_base64, "mixed_with_attachment": mixed_with_attachment,
}
REPLIES = ["3, 1, end", "join Zoë Ångström", "show"]


def wire(msg: EmailMessage) -> bytes:
    """The message as it travels over SMTP: CRLF line ends (smtplib sends bytes as they are)."""
    return msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
