"""The reply grammar (service.play.mail.grammar): pure units."""

from __future__ import annotations

import pytest

from service.play.mail.grammar import first_paragraph, read, resolve
from service.play.mail.menu import menu

LEGAL = [
    {"action": {"type": "buy-card", "card": "D18"}, "text": "buy card D18 (Alexandria, 2 seals)"},
    {"action": {"type": "buy-card", "card": "D08"}, "text": "buy card D08 (Valencia, 1 seal)"},
    {"action": {"type": "place-warehouse", "city": "Tunis"}, "text": "place a warehouse in Tunis"},
    {"action": {"type": "choose-action", "action": "deliver"}, "text": "choose the action Deliver goods"},
    {"action": {"type": "end-turn"}, "text": "end your turn"},
]
ITEMS = menu(LEGAL)


@pytest.mark.parametrize(("text", "picks"), [
    ("3", (3,)),
    ("  3  \n", (3,)),
    ("3, 1, end", (3, 1, "end")),
    ("3 1 end", (3, 1, "end")),
    ("3\n1\nEND", (3, 1, "end")),
    ("3; 1.", (3, 1)),
    ("place a warehouse, 5", ("place a warehouse", 5)),
    ("2 place a warehouse end", (2, "place a warehouse end")),
])
def test_moves_are_numbers_and_words_in_order(text: str, picks: tuple[object, ...]) -> None:
    reading = read(text)
    assert reading.is_move and reading.command is None and not reading.problem
    assert reading.picks == picks


@pytest.mark.parametrize(("text", "command", "argument"), [
    ("show", "show", ""), ("SHOW", "show", ""), ("Log", "log", ""), ("help", "help", ""), ("help!", "help", ""),
    ("key", "key", ""), ("resign", "resign", ""),
    ("stop notices", "notices", "off"), ("Stop", "notices", "off"), ("unsubscribe", "notices", "off"),
    ("notices digest", "notices", "digest"), ("Notices EVERY", "notices", "every"), ("notices off", "notices", "off"),
    ("join Ana Lima", "join", "Ana Lima"), ("JOIN  Zoë  O'Brien", "join", "Zoë O'Brien"),
])
def test_commands(text: str, command: str, argument: str) -> None:
    reading = read(text)
    assert (reading.command, reading.argument, reading.picks) == (command, argument, ())


@pytest.mark.parametrize("text", ["", "   \n\n", "> 3\n> show", "-- \nAna", "join", "notices sometimes", ", ,"])
def test_garbage_says_what_could_not_be_read(text: str) -> None:
    reading = read(text)
    assert reading.problem and reading.command is None and not reading.picks


def test_only_the_first_paragraph_is_read_and_never_quotes_or_signatures() -> None:
    text = "\n\n2, end\n\nThanks, that was fun!\n\nOn Tue, Portolan wrote:\n> 1. buy card\n-- \nAna"
    assert first_paragraph(text) == ["2, end"]
    assert read(text).picks == (2, "end")
    assert read("> 1\n> 2\n4\n> 5").picks == (4,)
    assert read("3\n-- \n1").picks == (3,)
    assert read("show\n3").command == "show"


def test_numbers_pick_the_items_of_the_menu_the_notice_showed() -> None:
    got = resolve([3, 1, 5], ITEMS)
    assert not got.problem
    assert got.actions == (LEGAL[2]["action"], LEGAL[0]["action"], LEGAL[4]["action"])
    assert [i.number for i in got.chosen] == [3, 1, 5]


def test_words_pick_by_type_or_unique_prefix_of_type_or_text() -> None:
    assert resolve(["end"], ITEMS).actions == (LEGAL[4]["action"],)
    assert resolve(["end-turn"], ITEMS).actions == (LEGAL[4]["action"],)
    assert resolve(["place"], ITEMS).actions == (LEGAL[2]["action"],)
    assert resolve(["place a warehouse"], ITEMS).actions == (LEGAL[2]["action"],)
    assert resolve(["deliver"], ITEMS).actions == (LEGAL[3]["action"],)


def test_a_word_that_fits_several_or_none_is_refused_by_name() -> None:
    several = resolve(["buy"], ITEMS)
    assert several.actions == () and "'buy' fits 2 items" in several.problem and "1. buy card D18" in several.problem
    none = resolve([1, "fly"], ITEMS)
    assert none.actions == () and "'fly'" in none.problem


def test_a_number_outside_the_menu_is_refused() -> None:
    got = resolve([2, 9], ITEMS)
    assert got.actions == () and "no item 9" in got.problem and "1 to 5" in got.problem
    assert "no action is open" in resolve([1], []).problem


def test_too_many_picks_are_garbage() -> None:
    assert read(", ".join(["1"] * 51)).problem
    assert read(", ".join(["1"] * 50)).picks == (1,) * 50


@pytest.mark.parametrize(("raw", "kept"), [
    ("<abc@example.org>", "<abc@example.org>"), (" <abc@example.org>\n", "<abc@example.org>"),
    ("abc@example.org", ""), ("<a>\r\nBcc: x@example.org <b>", ""), ("", ""), ("<" + "a" * 300 + ">", ""),
])
def test_an_answer_threads_only_under_a_well_formed_message_id(raw: str, kept: str) -> None:
    from service.play.mail.desk import thread_id

    assert thread_id(raw) == kept


def test_a_reply_without_words_may_say_a_command_in_its_subject() -> None:
    from service.play.mail.grammar import read_reply

    # what a List-Unsubscribe mailto sends: the subject "stop notices", nothing in the body
    assert read_reply("", "stop notices").command == "notices"
    assert read_reply("\n> quoted\n", "Re: notices digest").argument == "digest"
    assert read_reply("2", "stop notices").picks == (2,)  # the body wins
    assert read_reply("", "Re: [Portolan] Your turn 3").problem  # a subject never moves
