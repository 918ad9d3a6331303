"""``portolan bot-run``: a program outside the server holds a seat with its own key, over HTTP.

Two external bots play a whole match against the API served over real HTTP: one is the CLI
command with a policy imported from a module, the other the loop itself with a policy that only
ever rolls, so the match can end only by the imported policy banking (with a random second
policy, seat 1 could win before seat 0 ever banked, and the test would check nothing).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from service import games
from service.games.base import Game, Rng
from service.games.editions import rules_module
from service.proof import signing
from service.tools.cli import bots
from service.tools.cli.common import load_key
from service.tools.cli.main import main
from service.tools.client import Client
from tests.conftest import CREATOR
from tests.helpers.editions import changed_document


def _claimed_match(served: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """A dice race with two invited seats: seat 0 claimed through the CLI (key ``bot0``), seat 1
    by a key the test holds; returns the match id and seat 1's private key."""
    monkeypatch.setenv("PORTOLAN_HOME", str(home))
    api = Client(served)
    created = api.create("harbour-race", [{"invite": "a@example.org"}, {"invite": "b@example.org"}], {"target": 20},
                         private_key=CREATOR)
    mid = created["id"]
    assert main(["--server", served, "claim", mid, "0", created["invites"]["0"], "--name", "Bot Zero",
                     "--key", "bot0", "--no-mail"]) == 0
    other = signing.generate_private_key()
    api.claim(mid, 1, created["invites"]["1"], other, "Bot One")
    return mid, other


def _never_banks(game: Any, view: Any, seat: int, legal: Any, rng: Rng) -> dict[str, Any]:
    """Seat 1's policy: roll, always; a roll of 1 loses the haul, so seat 1 never reaches the target."""
    return {"type": "roll"}


def test_two_external_bots_play_a_match_to_its_end(served: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    mid, other = _claimed_match(served, tmp_path, monkeypatch)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    codes: list[int] = []
    runner = threading.Thread(target=lambda: codes.append(main(
        ["--server", served, "bot-run", mid, "--policy", "tests.helpers.bot_policy_example:decide", "--wait", "2"])))
    runner.start()
    said: list[str] = []
    last = bots.run(Client(served), mid, 1, other, _never_banks, Rng.from_seed("one"), said.append, wait=2)
    runner.join(60)
    assert not runner.is_alive() and codes == [0]
    assert last["status"] == "finished" and said[-1] == f"match {mid} is finished"
    log = Client(served).log(mid)["entries"]
    seats = {e["envelope"]["seat"] for e in log}
    assert seats == {0, 1} and all(e["by"] == "human" for e in log)  # a key's holder answers for its moves
    # the imported policy banked only with a haul of 6 or more
    banked = [e for e in log if e["envelope"]["seat"] == 0 and e["envelope"]["actions"] == [{"type": "bank"}]]
    assert banked and all(any(ev.get("amount", 0) >= 6 for ev in e["events"]) for e in banked)


def test_bot_run_refuses_a_bad_policy_or_bot_before_it_moves(served: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    mid, _ = _claimed_match(served, tmp_path, monkeypatch)
    for argv, says in (([], "exactly one of"),
                       (["--policy", "nomodule"], "MODULE:FUNCTION"),
                       (["--policy", "no_such_module_here:decide"], "cannot import"),
                       (["--policy", "tests.helpers.bot_policy_example:nothing"], "no function"),
                       (["--bot", "search:ultra"], "has no bot")):
        with pytest.raises(SystemExit) as exc:
            main(["--server", served, "bot-run", mid, *argv])
        assert says in str(exc.value.code)
    assert Client(served).show(mid)["ply"] == 0


def test_a_policy_that_answers_an_illegal_action_is_stopped(served: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    mid, other = _claimed_match(served, tmp_path, monkeypatch)

    def cheat(game: Any, view: Any, seat: int, legal: Any, rng: Rng) -> dict[str, Any]:
        return {"type": "bank"}  # nothing to bank yet: not legal at a turn's start

    seat = Client(served).show(mid)["active_seats"][0]  # the race's first seat is drawn
    key = other if seat == 1 else load_key("bot0")
    with pytest.raises(SystemExit) as exc:
        bots.run(Client(served), mid, seat, key, cheat, Rng.from_seed(0), lambda _: None, wait=1)
    assert f"not one of seat {seat}'s legal actions" in str(exc.value.code)
    assert Client(served).show(mid)["ply"] == 0


def test_bot_run_judges_an_edition_match_by_the_editions_numbers(served: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # an El Capitán match of the edition "box" (other track values), both seats held by keys here
    folder = tmp_path / "editions"
    folder.mkdir()
    (folder / "el-capitan.json").write_text(json.dumps(changed_document("el-capitan")))
    monkeypatch.setenv("PORTOLAN_EDITIONS", str(folder))
    api = Client(served)
    created = api.create("el-capitan", [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                         private_key=CREATOR, edition="box")
    mid = created["id"]
    keys = [signing.generate_private_key() for _ in range(2)]
    for seat, key in enumerate(keys):
        api.claim(mid, seat, created["invites"][str(seat)], key, f"Owner {seat}")
    seat = api.show(mid)["active_seats"][0]
    given: list[Game[Any]] = []

    def first_legal(game: Any, view: Any, seat: int, legal: Any, rng: Rng) -> dict[str, Any]:
        given.append(game)
        return dict(legal[0])

    bots.run(Client(served), mid, seat, keys[seat], first_legal, Rng.from_seed("box"), lambda _: None,
                     wait=2, max_moves=1)
    shipped = games.get("el-capitan")
    assert shipped is not None and len(given) == 1
    # the policy got the edition's game: its package is the bound copy, whose tracks are the box's
    assert given[0] is not shipped and type(given[0]) is not type(shipped)
    tracks = [c["track"] for c in changed_document("el-capitan")["data"]["cities"]]
    assert [c.track for c in rules_module(given[0], "data").BASE_CITIES] == [tuple(t) for t in tracks]
    assert [c.track for c in rules_module(shipped, "data").BASE_CITIES] != [tuple(t) for t in tracks]
    assert Client(served).show(mid)["ply"] == 1

    # an edition document that does not hash to the pinned digest is refused, not played
    class Altered(Client):
        def record(self, match: str) -> dict[str, Any]:
            record = super().record(match)
            record["edition"]["data"]["cities"][0]["track"][3] += 1
            return record

    with pytest.raises(SystemExit) as exc:
        bots.game_of(Altered(served), mid, Client(served).show(mid))
    assert "cannot use" in str(exc.value.code) and "digest" in str(exc.value.code)
