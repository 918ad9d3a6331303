"""One prompt per seat and ply: the answer to a reply that moved and the turn notice of the ply
it leads to never both ask for the same move (service.play.mail.answers.prompt_mark)."""

from __future__ import annotations

from service.play.mail.answers import prompt_mark, seat_context
from service.play.mail.reply_address import parse_reply_address
from service.play.matches import Matches
from tests.conftest import Player
from tests.helpers.jobs import start_human_match

BASE = "turns@portolan.test"


def asks(context: dict[str, object], reply_to: str) -> bool:
    """Does this answer ask for a move: a menu and a turn token ("t") as its Reply-To?"""
    address = parse_reply_address(reply_to)
    assert address is not None
    return bool(context["must_act"]) and bool(context["menu"]) and address.kind == "t"


def test_an_answer_asks_for_the_move_unless_the_turn_notice_of_that_ply_took_it(service: Matches,
                                                                               players: list[Player]) -> None:
    mid = start_human_match(service, players)
    seat = service.meta(mid).active[0]
    assert service.store.claim_for(prompt_mark(mid, seat, 0), "notice")
    context, reply_to = seat_context(service, mid, seat, BASE, prompt_owner="answer:m1")
    assert not asks(context, reply_to)
    assert "It is your turn (ply 0)" in str(context["turn"])  # the position is still told


def test_an_answer_that_takes_the_prompt_asks_and_asks_again_when_its_message_comes_again(service: Matches,
                                                                                         players: list[Player]) -> None:
    mid = start_human_match(service, players)
    seat = service.meta(mid).active[0]
    assert asks(*seat_context(service, mid, seat, BASE, prompt_owner="answer:m1"))
    assert asks(*seat_context(service, mid, seat, BASE, prompt_owner="answer:m1"))  # the same message redelivered
    assert not asks(*seat_context(service, mid, seat, BASE, prompt_owner="answer:m2"))
    assert not service.store.claim_for(prompt_mark(mid, seat, 0), "notice")


def test_without_an_owner_the_answer_asks_as_before(service: Matches, players: list[Player]) -> None:
    """A refusal asks again on purpose (the reply may be retried), whoever took the ply's prompt."""
    mid = start_human_match(service, players)
    seat = service.meta(mid).active[0]
    assert service.store.claim_for(prompt_mark(mid, seat, 0), "notice")
    assert asks(*seat_context(service, mid, seat, BASE))
