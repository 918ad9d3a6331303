"""The reply grammar (service.play.mail.grammar): pure units."""

from __future__ import annotations

import pytest

from service.play.mail.grammar import first_paragraph, read


def steps_of(text: str) -> tuple[object, ...]:
    """The reply's steps: a numbers-only piece as its numbers, a phrase as its words."""
    reading = read(text)
    assert reading.is_move and reading.command is None and not reading.problem, reading
    return tuple(x for p in reading.pieces for x in (p.numbers or (p.written,)))


@pytest.mark.parametrize(("text", "steps"), [
    ("3", (3,)),
    ("  3  \n", (3,)),
    ("3, 1, end", (3, 1, "end")),
    ("3 1, end", (3, 1, "end")),
    ("3\n1\nEND", (3, 1, "END")),
    ("3; 1.", (3, 1)),
    ("place a warehouse, 5", ("place a warehouse", 5)),
    # every way of writing a menu number that mail clients and people use
    ("#3", (3,)), ("3.", (3,)), ("3)", (3,)), ("(3)", (3,)), ("no. 3", (3,)), ("No 3", (3,)), (" 3 ", (3,)),
    ("#3, 2)", (3, 2)), ("3 1", (3, 1)),
    # a piece with a word in it is one phrase, digits and all
    ("2 place a warehouse end", ("2 place a warehouse end",)),
    ("buy card C27 (Napoli-Athina) for 1", ("buy card C27 (Napoli-Athina) for 1",)),
    ("sail to Tunis then build a warehouse, and then end", ("sail to Tunis", "build a warehouse", "end")),
    ("sail to Tunis, then build\nthen end", ("sail to Tunis", "build", "end")),
    ("Athens, end", ("Athens", "end")),  # "then" only as a word of its own
])
def test_moves_are_steps_in_order(text: str, steps: tuple[object, ...]) -> None:
    assert steps_of(text) == steps


def test_a_copied_menu_line_is_one_phrase_never_a_menu_number() -> None:
    [piece] = read("buy card C27 (Napoli-Athina) for 1").pieces
    assert piece.is_phrase and piece.numbers == () and piece.size == 1
    # its comma-split label parts keep what separated them, so the label can be found whole again
    first, second = read("pass, then play the extra action: Buy goods").pieces
    assert (first.written, second.written, second.joiner) == ("pass", "play the extra action: Buy goods", ", then")


@pytest.mark.parametrize(("text", "command", "argument"), [
    ("show", "show", ""), ("SHOW", "show", ""), ("Log", "log", ""), ("help", "help", ""), ("help!", "help", ""),
    ("key", "key", ""), ("resign", "resign", ""),
    ("stop notices", "notices", "off"), ("Stop", "notices", "off"), ("unsubscribe", "notices", "off"),
    ("notices digest", "notices", "digest"), ("Notices EVERY", "notices", "every"), ("notices off", "notices", "off"),
    ("join Ana Lima", "join", "Ana Lima"), ("JOIN  Zoë  O'Brien", "join", "Zoë O'Brien"),
])
def test_commands(text: str, command: str, argument: str) -> None:
    reading = read(text)
    assert (reading.command, reading.argument, reading.pieces) == (command, argument, ())


@pytest.mark.parametrize("text", ["", "   \n\n", "> 3\n> show", "-- \nAna", "join", "notices sometimes", ", ,"])
def test_garbage_says_what_could_not_be_read(text: str) -> None:
    reading = read(text)
    assert reading.problem and reading.command is None and not reading.pieces


def test_only_the_first_paragraph_is_read_and_never_quotes_or_signatures() -> None:
    text = "\n\n2, end\n\nThanks, that was fun!\n\nOn Tue, Portolan wrote:\n> 1. buy card\n-- \nAna"
    assert first_paragraph(text) == ["2, end"]
    assert steps_of(text) == (2, "end")
    assert steps_of("> 1\n> 2\n4\n> 5") == (4,)
    assert steps_of("3\n-- \n1") == (3,)
    assert read("show\n3").command == "show"


def test_too_many_steps_are_garbage() -> None:
    assert read(", ".join(["1"] * 51)).problem
    assert read(" ".join(["1"] * 51)).problem
    assert steps_of(", ".join(["1"] * 50)) == (1,) * 50


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
    assert read_reply("2", "stop notices").pieces[0].numbers == (2,)  # the body wins
    assert read_reply("", "Re: [Portolan] Your turn 3").problem  # a subject never moves
