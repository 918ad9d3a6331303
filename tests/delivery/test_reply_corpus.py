"""Replies as real mail clients write them, raw (tests/delivery/replies/*.eml), through the real
parser and the reply grammar: each file's expected outcome is in tests/delivery/replies/cases.json.

The table says what the player meant, not what the code happens to do:

- ``move`` with ``picks`` (what :func:`read_reply` must read), ``command`` (e.g. ``show``),
  ``nothing`` (the reply has no words of its own: refused as such);
- ``automatic``: an out-of-office or other robot mail, dropped and never answered;
- ``forwarded``: a forwarded notice, refused with "you forwarded the notice: reply to it instead";
- ``words``: the reply's own words exactly as the transport must hand them over.

Every case passes: the replies once marked as waiting for issue 27 part 4's grammar (``#3``, ``3)``,
a copied menu line) are read by it now, so there are no expected failures left in the table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.delivery.inbound import parse
from service.play.mail.grammar import read_reply

REPLIES = Path(__file__).parent / "replies"
CASES: list[dict[str, Any]] = json.loads((REPLIES / "cases.json").read_text(encoding="utf-8"))


def _param(case: dict[str, Any]) -> Any:
    return pytest.param(case, id=case["file"].removesuffix(".eml"))


def test_the_corpus_is_large_and_every_file_has_one_case() -> None:
    files = sorted(p.name for p in REPLIES.glob("*.eml"))
    assert files == sorted(c["file"] for c in CASES)
    assert len(files) >= 30
    kinds = {c["outcome"] for c in CASES}
    assert kinds == {"move", "command", "automatic", "forwarded", "nothing"}
    # no field the test does not read (a case marked as an expected failure would pass unseen)
    assert all(set(c) <= {"file", "client", "outcome", "words", "picks", "command"} for c in CASES)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_each_client_s_reply_is_understood(case: dict[str, Any]) -> None:
    mail = parse((REPLIES / case["file"]).read_bytes())
    outcome = case["outcome"]
    assert mail.automatic == (outcome == "automatic"), case["client"]
    assert mail.forwarded == (outcome == "forwarded"), case["client"]
    assert mail.sender and mail.recipients
    if outcome in ("automatic", "forwarded"):
        return
    assert mail.text == case["words"].strip(), case["client"]
    reading = read_reply(mail.text, mail.subject)
    if outcome == "move":
        assert (reading.picks, reading.problem) == (tuple(case["picks"]), "")
    elif outcome == "command":
        assert (reading.command, reading.problem) == (case["command"], "")
    else:
        assert reading.problem.startswith("the reply has no words of its own")
