"""The match page's "What happened" in Chromium (issue 16 item 3): a step a player took back and
the undo itself leave the list, and the log read and the stream bringing the same move twice do
not take lines back twice."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

SCRIPT = """async () => {
  const list = document.createElement("ol");
  list.id = "happened";
  document.body.append(list);
  const { addHappened, movesHappened } = await import("/web/static/js/match/state.js");
  const view = { seats: [{ seat: 0, name: "Ana" }] };
  const moves = [
    [0, [{ type: "card-bought", text: "Red bought card D01." }]],
    [1, [{ type: "sailed", text: "Red sailed to Napoli." }]],
    [2, [{ type: "undone", takes_back: 1, text: "Red took back: sail to Napoli." }]],
    [3, [{ type: "loan-taken", takes_back: 1, text: "Red took a 10-Florin loan." },
         { type: "turn-ended", text: "Yellow's turn." }]],
  ];
  for (const [ply, events] of moves) addHappened(movesHappened(view, ply, 0, events));
  // the stream brings the undo and the loan again: nothing more is taken back
  for (const [ply, events] of moves.slice(2)) addHappened(movesHappened(view, ply, 0, events));
  return [...list.children].map((li) => li.textContent);
}"""


def test_undone_steps_leave_what_happened(browser: Any, served: str) -> None:
    context = browser.new_context(base_url=served)
    try:
        page = context.new_page()
        page.goto("/")
        assert page.evaluate(SCRIPT) == ["Red took a 10-Florin loan.", "Yellow's turn."]
    finally:
        context.close()
