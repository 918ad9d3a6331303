"""The pieces that find a reply's own words wherever a client put them: format=flowed, quoted
blocks with their attributions, Hungarian quote headers, out-of-office texts and forwards;
including the cases that must *not* trigger them, and hostile input."""

from __future__ import annotations

import pytest

from service.delivery.inbound import parse
from service.delivery.inbound.flowed import unflow
from service.delivery.inbound.forwarded import is_forwarded
from service.delivery.inbound.out_of_office import sounds_out_of_office
from service.delivery.inbound.quotes import cut_hungarian, without_quotes
from tests.helpers.mailcorpus import base


def test_flowed_soft_breaks_join_and_hard_ones_stay() -> None:
    assert unflow("build a fortress \nin barcelona\nend") == "build a fortress in barcelona\nend"
    assert unflow("sail to ty \nre", delsp=True) == "sail to tyre"
    assert unflow("sail to \ntyre", delsp=False) == "sail to tyre"
    # the signature separator ends with a space but never flows; a stuffed space is removed
    assert unflow("3\n-- \nAna") == "3\n-- \nAna"
    assert unflow("  3\n From here") == " 3\nFrom here"
    # quoted lines flow within their depth only, and keep their marker
    assert unflow("> a \n> b\n>> c \n> d") == "> a b\n>> c \n> d"


def test_flowed_is_applied_only_to_format_flowed_parts() -> None:
    flowed = base()
    flowed.set_content("sail to \ntyre\n")
    flowed.replace_header("Content-Type", 'text/plain; charset="utf-8"; format=flowed')
    assert parse(flowed.as_bytes()).text == "sail to tyre"
    fixed = base()
    fixed.set_content("sail to \ntyre\n")
    assert parse(fixed.as_bytes()).text == "sail to\ntyre"


def test_quoted_blocks_go_with_their_attribution_wherever_they_are() -> None:
    below = ["On 05/12/2026 10:00, Portolan wrote:", "> 1. build", "> 2. sail", "", "2", "", "-- ", "Ana"]
    assert without_quotes(below) == ["", "2", "", "-- ", "Ana"]
    between = ["Portolan wrote:", "> 1. build", "", "1", "", "> 2. sail", "", "end"]
    assert without_quotes(between) == ["", "1", "", "", "end"]
    wrapped = ["3", "", "On Sat, Dec 5, 2026 at 10:00 AM Portolan <", "turns+t-x@portolan.example> wrote:", "", "> 1."]
    assert without_quotes(wrapped) == ["3", "", ""]
    # a move right above an attribution stays: it neither ends with ":" nor starts like one
    assert without_quotes(["3", "Portolan wrote:", "> 1."]) == ["3"]
    # a line ending with ":" is an attribution only right above a quote
    assert without_quotes(["my move:", "", "3"]) == ["my move:", "", "3"]
    assert without_quotes(["1", "", "Sent with Proton Mail secure email."]) == ["1", ""]


def test_hungarian_quote_headers_cut_the_reply() -> None:
    outlook = ["3", "", "Feladó: Portolan <t@p.example>", "Elküldve: 2026. december 5., szombat 10:00", "Tárgy: x", "1."]
    assert cut_hungarian(outlook) == ["3", ""]
    assert cut_hungarian(["2", "", "-----Eredeti üzenet-----", "1."]) == ["2", ""]
    assert cut_hungarian(["4", "Portolan <t@p.example> ezt írta (időpont: 2026. dec. 5.,", "Szo, 10:00):"]) == ["4"]
    assert cut_hungarian(["show", "2026. 12. 05. 10:00 keltezéssel, Portolan írta:", "1."]) == ["show"]
    assert cut_hungarian(["show", "", "Üdv,", "Ádám"]) == ["show", ""]
    # a sign-off word as the first line is a greeting, not a signature; "Feladó:" alone is no header
    assert cut_hungarian(["Üdv!", "3"]) == ["Üdv!", "3"]
    assert cut_hungarian(["Feladó: én", "3"]) == ["Feladó: én", "3"]


@pytest.mark.parametrize(("subject", "words", "automatic"), [
    ("Automatic reply: Your turn", "", True),
    ("Automatikus válasz: Your turn", "", True),
    ("Házon kívül: Your turn", "", True),
    ("Re: Your turn", "Hello,\nI am out of the office until Monday.", True),
    ("Re: Your turn", "Ich bin bis 14.12. nicht im Büro.", True),
    # a person's reply: the move comes first, whatever follows it
    ("Re: Your turn", "3\nI'm out of office next week, so here is my move.", False),
    ("Re: Your turn", "show", False),
    ("Re: Your turn", "3, 1, end", False),
    ("Re: Out of office until Monday? Your turn", "2", False),
    # past the first three lines nothing is judged
    ("Re: Your turn", "Hello,\nfine weather.\nHere is what I think.\nI was out of office last week.", False),
])
def test_out_of_office_is_judged_by_subject_and_first_lines(subject: str, words: str, automatic: bool) -> None:
    assert sounds_out_of_office(subject, words) is automatic


def test_a_real_move_whose_quoted_notice_says_out_of_office_is_not_dropped() -> None:
    msg = base()
    msg.set_content("2\n\nOn Sat, Dec 5, 2026 Portolan wrote:\n> Automatic reply: Bea is out of the office.\n> 1. x\n")
    mail = parse(msg.as_bytes())
    assert (mail.text, mail.automatic) == ("2", False)


@pytest.mark.parametrize(("subject", "body", "forwarded"), [
    ("Fwd: Your turn", "3", True),
    ("FW: Your turn", "", True),
    ("WG: Your turn", "", True),
    ("TR: Your turn", "", True),
    ("Továbbítás: Your turn", "", True),
    ("Tov: Your turn", "", True),
    ("Re: Your turn", "\n\n---------- Forwarded message ---------\nFrom: Portolan", True),
    ("Your turn", "-------- Original Message --------\nSubject: x", True),
    ("Your turn", "Begin forwarded message:\n\nFrom: Portolan", True),
    ("Your turn", "-------- Weitergeleitete Nachricht --------", True),
    ("Your turn", "---------- Továbbított üzenet ---------", True),
    # replies: Outlook's reply separator, a reply to a forward, a forward block below the words
    ("RE: Your turn", "-----Original Message-----\nFrom: Portolan\nSent: x", False),
    ("Re: Fwd: Your turn", "3", False),
    ("Re: Your turn", "3\n\n---------- Forwarded message ---------", False),
    ("Re: Your turn", "", False),
])
def test_a_forward_is_known_by_subject_or_first_line(subject: str, body: str, forwarded: bool) -> None:
    assert is_forwarded(subject, body) is forwarded


@pytest.mark.timeout(60)
def test_hostile_quotes_and_blockquotes_stay_bounded() -> None:
    """Many attributions and quote blocks, or an HTML mail of thousands of blockquotes: read in one
    pass, the text cut as before (reply_text.MAX_TEXT_CHARS)."""
    plain = base()
    plain.set_content("x:\n> y\n" * 200_000 + "show\n")
    assert parse(plain.as_bytes()).text == ""
    html = base()
    html.set_content("<p>On x wrote:</p>" + "<blockquote>q<br>" * 2000 + "</blockquote>" * 2000
                     + "<p>3</p>" + "<blockquote>r</blockquote><p>s</p>" * 20_000, subtype="html")
    assert len(parse(html.as_bytes()).text) <= 8_000


def test_an_html_reply_without_words_reads_no_quote_as_words() -> None:
    """The below-the-blockquote reading is for blockquotes only: an empty HTML reply whose quote is
    no blockquote (Outlook's, with a header the parser may not know) stays empty."""
    outlook = base()
    outlook.set_content('<div><br></div><div>-----Original Message-----</div><div>Your turn.<br>1. build a ship<br>'
                        "2. sail</div>", subtype="html")
    assert parse(outlook.as_bytes()).text == ""
    gmail = base()
    gmail.set_content('<div dir="ltr"><br></div><div class="gmail_quote"><div class="gmail_attr">On Sat, Portolan '
                      'wrote:<br></div><blockquote class="gmail_quote">1. build<br>2. sail</blockquote></div>', subtype="html")
    assert parse(gmail.as_bytes()).text == ""
