"""The words of the mails a box owner reads (issue 16, item 4): the turn notices of a few matches
of every game, with the board, the numbered menu and "since you last acted", hold no internal
marker, no "1 coins" and no rule id the game's rules page does not define. Real Redis, the real
jobs, real outbox files, as in test_notices."""

from __future__ import annotations

import random

import pytest

from service.config import Settings
from service.games import get as get_game
from service.runtime import build
from tests.conftest import CREATOR_KEY, Player
from tests.games.player_words import problems
from tests.helpers.notices import assert_clean_8bit, body, human_to_act, parsed, raw_mail
from workers import jobs

# lines of a notice that are commands, hashes or the fairness vocabulary, not words about the game:
# a CLI line carries the action's JSON (ids by design), the seed commitment is docs/fairness.md's term
_NOT_WORDS = ("portolan ", "curl ", "Chain head", "Final chain head", "Seed commitment", "The record:")


def _word_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.strip().startswith(_NOT_WORDS)]


@pytest.mark.parametrize("game_id", ["el-capitan", "nauticus", "ophir"])
def test_turn_notices_speak_plain_english(outbox_settings: Settings, players: list[Player], game_id: str) -> None:
    m = build(outbox_settings)
    game = get_game(game_id)
    assert game is not None
    made = m.create(game_id, {}, [{"invite": "zoe@example.org"}, {"bot": "random"}], creator_key=CREATOR_KEY,
                    creator_name="Ana")
    mid = str(made["id"])
    m.claim(mid, 0, made["invites"]["0"], players[0].public_key, "Zoe", "zoe@example.org")
    pick = random.Random(f"mail-words/{game_id}")
    found: dict[str, str] = {}
    notices = 0
    for turn in range(6):
        meta = m.meta(mid)
        if meta.status != "active":
            break
        seat = human_to_act(m, mid)
        ply = m.meta(mid).ply
        assert jobs.send_turn_notice(mid, seat, ply).startswith("sent")
        raw = raw_mail(outbox_settings, f"notice:{mid}:{seat}:{ply}")
        assert_clean_8bit(raw)  # labels with prices are longer: every line still within RFC 5322's limit
        text = body(parsed(raw))
        assert "What you can do now:" in text
        assert f"http://portolan.test/v1/games/{game_id}/rules" in text  # where the cited rules are
        notices += 1
        for line in _word_lines(text):
            for why in problems(game, line, "mail"):
                # a mail names a seat by number beside its colour on purpose (the CLI lines need it)
                if "seat by its number" not in why:
                    found.setdefault(why, line)
        # the whole turn, step by step: a notice is sent for the ply a turn begins at, never within one
        for step in range(100):
            meta = m.meta(mid)
            if meta.status != "active" or seat not in meta.active:
                break
            legal = m.view(mid, seat)["legal_actions"]
            action = legal[pick.randrange(len(legal))]["action"]
            signed = players[0].envelope(mid, seat, meta.ply, [action], nonce=f"t{turn}.{step}")
            m.submit(mid, signed["envelope"], signed["signature"])
    assert notices >= 3
    assert not found, "\n".join(f"{why}: {line!r}" for why, line in found.items())
