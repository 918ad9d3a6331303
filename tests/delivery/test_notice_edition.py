"""The turn notice names the match's data edition and says that its provisional values are not yet
checked (issue 16 item 2, docs/editions.md): the footnote under the board the mail quotes."""

from __future__ import annotations

from service import games
from service.config import Settings
from tests.conftest import Player
from tests.helpers.notices import body, notice


def test_the_turn_notice_names_the_edition_and_its_provisional_values(outbox_settings: Settings,
                                                                     players: list[Player]) -> None:
    msg, _raw, _mid, _seat, _ply = notice(outbox_settings, players)
    ophir = games.get("ophir")
    assert ophir is not None
    text = body(msg)
    assert "Edition: Ophir, shipped data (shipped)." in text
    assert f"* Provisional: {len(ophir.provisional())} values are not yet checked against the printed game" in text
