"""``portolan show`` against a real server prints other players' names harmlessly (issue 9,
finding 5): a name stored before names were checked must not reach the terminal as escapes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.proof.match_record import MatchMeta
from service.tools.cli.main import main
from service.tools.terminal import terminal_safe
from tests.conftest import Player
from tests.helpers.matches import started

HOSTILE = "Eve\x1b]0;owned\x07\x1b[2J\u009b31m\u202eevil\x00"


def _plant_name(service: Any, mid: str, seat: int, name: str) -> None:
    """Write a name straight into the store, as a match from before the claim check would hold it."""
    def change(meta: MatchMeta) -> MatchMeta:
        return meta.with_seat(meta.seats[seat].but(name=name))

    service.store.update_meta(mid, change)


@pytest.mark.parametrize("as_json", [False, True])
def test_show_escapes_a_stored_hostile_name(served: str, client: Any, service: Any, players: list[Player],
                                            capsys: pytest.CaptureFixture[str], as_json: bool) -> None:
    mid, _ = started(client, players)
    _plant_name(service, mid, 1, HOSTILE)
    argv = ["--server", served, *(["--json"] if as_json else []), "show", mid]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    for raw in ("\x1b", "\x07", "\u009b", "\u202e", "\x00"):
        assert raw not in printed
    assert "Eve\\u001b]0;owned\\u0007" in printed and "\\u202eevil" in printed
    if as_json:  # the escapes are JSON escapes: the output still parses, to the stored name
        assert json.loads(printed)["seats"][1]["name"] == HOSTILE
    else:
        assert "Seats: 0=Ana, 1=Eve" in printed


def test_terminal_safe_keeps_text_and_layout() -> None:
    assert terminal_safe("Zoë 北条 🚀\n\tok") == "Zoë 北条 🚀\n\tok"
    assert terminal_safe("a\rb\x1bc\u2066") == "a\\u000db\\u001bc\\u2066"
    assert terminal_safe("\U000e0001") == "\\U000e0001"  # a tag character (Cf) beyond the BMP
