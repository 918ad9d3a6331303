"""A turn notice is light (issue 27, part 2): at most 64 KiB as sent, every part counted, for every
game, player count and position; the board picture is what gives way (a smaller palette PNG, or
none and a link). Notices are written from the recorded random playthroughs
(tests/helpers/notice_sizes.py) through the real notice code, with the real renderers.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from service.config import Settings
from service.delivery import dkim_sign, letters
from service.delivery.mail import to_message, wire_bytes
from service.games import registry
from service.runtime import build
from tests.conftest import Player
from tests.helpers.board_stub import use_stub
from tests.helpers.notice_sizes import GAMES, match_for, notices, sample
from tests.helpers.notices import human_to_act, ophir_match
from tests.helpers.playthrough import default_seeds, playthrough

BUDGET = 64 * 1024
COUNTS = [(game_id, players) for game_id in GAMES for players in registry()[game_id].players]
MOST = [(game_id, max(registry()[game_id].players)) for game_id in GAMES]
"""Each game with the most players: the biggest boards (the default run; every count is ``slow``)."""


@cache
def rsa_signer() -> dkim_sign.DkimSigner:
    return dkim_sign.from_pem(dkim_sign.generate("rsa"), "portolan", "portolan.test")


def check(settings: Settings, game_id: str, players: int, positions: int) -> None:
    m = build(settings)
    # the default run's playthrough: the one the conformance checks play anyway (cached per process)
    play = playthrough(game_id, players, default_seeds(players)[0])
    assert play.failure is None, play.failure
    steps = sample(play, positions) if positions > 1 else [len(play.steps) - 1]
    for n in notices(m, settings, match_for(m, game_id, players), play, steps):
        assert n.size <= BUDGET, f"{game_id}/{players}p step {n.step}: {n.size} bytes"
        # and DKIM-signed with an RSA key (the longer signature), as part 1's delivery sends it
        signed = wire_bytes(to_message(n.mail, settings.mail_from, settings.message_domain()), rsa_signer())
        assert b"DKIM-Signature:" in signed and len(signed) <= BUDGET, f"{game_id}/{players}p step {n.step}"
        # the picture is what gives way, never the menu or the words
        assert "What you can do now" in n.mail.text and "What you can do now" in n.mail.html
        assert n.mail.images or "see it on the web" in n.mail.html


@pytest.mark.parametrize(("game_id", "players"), MOST)
def test_the_last_notice_of_a_game_fits_the_budget(settings: Settings, game_id: str, players: int) -> None:
    """The last position of a whole game: the fullest board and the longest story."""
    check(settings, game_id, players, positions=1)


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "players"), COUNTS)
def test_notices_all_through_a_game_fit_the_budget(settings: Settings, game_id: str, players: int) -> None:
    """Four positions spread over a whole game, the last among them, for every player count (eight
    cost CI's slow step a minute for little: bench/notice_sizes.py samples twelve)."""
    check(settings, game_id, players, positions=4)


def test_a_picture_too_big_for_the_budget_is_linked_instead(outbox_settings: Settings, players: list[Player],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    use_stub(monkeypatch)
    m = build(outbox_settings)
    mid = ophir_match(m, players)
    seat = human_to_act(m, mid)
    shown = letters.turn_notice(m, outbox_settings, mid, seat, "k", m.meta(mid).ply)
    assert shown is not None and shown.images and "see it on the web" not in shown.html
    # the budget as it would be if the picture were the only thing that did not fit
    monkeypatch.setattr(letters, "NOTICE_BUDGET", letters.mail_size(outbox_settings, shown) - len(shown.images[0].png))
    linked = letters.turn_notice(m, outbox_settings, mid, seat, "k", m.meta(mid).ply)
    assert linked is not None and not linked.images
    ply = m.meta(mid).ply
    assert f'href="http://portolan.test/v1/matches/{mid}/board.png?ply={ply}"' in linked.html
    assert "<img" not in linked.html and re.search(r"<pre [^>]*>", linked.html)  # the text board instead
    assert linked.text == shown.text  # the plain text never depended on the picture
    assert "The board:" in linked.text and "The board:" in linked.html


def test_the_menu_comes_before_the_board_in_both_parts(outbox_settings: Settings, players: list[Player]) -> None:
    m = build(outbox_settings)
    mid = ophir_match(m, players)
    seat = human_to_act(m, mid)
    mail = letters.turn_notice(m, outbox_settings, mid, seat, "k", m.meta(mid).ply)
    assert mail is not None
    assert mail.text.index("What you can do now") < mail.text.index("The board:")
    assert mail.html.index("What you can do now") < mail.html.index("<img")
