"""Verifiable play (issue 6): records of finished matches verify offline; any tampering fails
and names the place; the seed stays secret until the end; randomness is per match."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service import games
from service.games.base import Rng
from service.play.matches import Matches
from service.proof import fairness, signing
from service.proof.verify import verify_record
from service.storage.log_codec import pack_entry, unpack_entry
from service.tools.rebuild import rebuild
from tests.conftest import CREATOR_KEY, Player
from tests.helpers.verify import play_to_end

GAME_IDS = sorted(games.registry())
LONG_GAMES = {"el-capitan", "ophir"}
"""Whole matches of 900 to 1,400 plies (20 to 45 s each on two busy cores): under the slow marker,
so .ci/run's slow step verifies them; the shorter games stay in the default run."""


@pytest.fixture
def finished(service: Matches) -> dict[str, Any]:
    return service.record(play_to_end(service, "harbour-race", 3))


@pytest.mark.parametrize("game", [pytest.param(g, marks=pytest.mark.slow) if g in LONG_GAMES else g for g in GAME_IDS])
def test_a_finished_match_of_every_game_verifies(service: Matches, game: str) -> None:
    g = games.get(game)
    assert g is not None
    mid = play_to_end(service, game, g.players.start)
    report = verify_record(service.record(mid))
    assert report.ok, report.text()
    assert rebuild(service, mid).ok


def test_cli_verify_accepts_and_rejects(finished: dict[str, Any], tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(finished))
    ok = subprocess.run([sys.executable, "-m", "service.tools.cli", "verify", str(good)], capture_output=True, text=True,
                        env={"PORTOLAN_PLUGINS": "tests.helpers.fixture_game", "PATH": ""}, cwd=Path(__file__).parent.parent)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "record verified" in ok.stdout and "outcome reproduced" in ok.stdout
    bad_record = copy.deepcopy(finished)
    bad_record["entries"][1]["receipt"] = bad_record["entries"][0]["receipt"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_record))
    r = subprocess.run([sys.executable, "-m", "service.tools.cli", "verify", str(bad)], capture_output=True, text=True,
                       env={"PORTOLAN_PLUGINS": "tests.helpers.fixture_game", "PATH": ""}, cwd=Path(__file__).parent.parent)
    assert r.returncode == 1 and "FAIL ply 1: the server receipt" in r.stdout


def _tamper(record: dict[str, Any], how: str) -> str:
    """Change one thing; return the place the verifier must name."""
    entries = record["entries"]
    if how == "action":
        entries[2]["envelope"]["actions"][0] = {"type": "bank" if entries[2]["envelope"]["actions"][0]["type"] == "roll" else "roll"}
        return "ply 2"
    if how == "signature":
        entries[3]["signature"] = entries[4]["signature"]
        return "ply 3"
    if how == "receipt":
        entries[1]["receipt"] = entries[2]["receipt"]
        return "ply 1"
    if how == "event":
        entries[2]["events"][0]["text"] += "!"
        return "ply 2"
    if how == "event-and-digest":  # a careful forger recomputes the digest and the hash: receipt breaks
        entries[2]["events"][0]["text"] += "!"
        entries[2]["events_digest"] = signing.digest(entries[2]["events"])
        return "ply 2"
    if how == "outcome":
        record["outcome"]["scores"][0] += 1
        return "outcome"
    if how == "seed":
        record["seed"] = "00" * 32
        return "seed"
    if how == "order":
        entries[3], entries[4] = entries[4], entries[3]
        return "ply 3"
    if how == "setup":
        record["setup_events"][0]["seat"] = 99
        return "setup"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["action", "signature", "receipt", "event", "event-and-digest", "outcome", "seed",
                                 "order", "setup"])
def test_tampering_fails_and_names_the_place(finished: dict[str, Any], how: str) -> None:
    assert verify_record(finished).ok
    record = copy.deepcopy(finished)
    place = _tamper(record, how)
    report = verify_record(record)
    assert not report.ok
    assert report.failure is not None and report.failure.startswith(place), report.text()


def test_a_seed_that_does_not_match_the_commitment_fails(finished: dict[str, Any]) -> None:
    record = copy.deepcopy(finished)
    record["header"]["commitment"] = fairness.commitment(b"another seed")
    report = verify_record(record)
    assert not report.ok and report.failure == "seed: sha256(seed) is not the commitment published at creation"


def test_pinning_the_server_key(finished: dict[str, Any]) -> None:
    assert verify_record(finished, server_key=finished["header"]["server_key"]).ok
    assert not verify_record(finished, server_key=signing.public_key_of(signing.generate_private_key())).ok


def test_the_seed_stays_secret_until_the_end(client: Any, service: Matches, players: list[Player]) -> None:
    from tests.helpers.matches import started

    mid, view = started(client, players)
    seed_hex = service.store.seed(mid).hex()
    seat = view["active_seats"][0]
    client.post(f"/v1/matches/{mid}/moves", json=players[seat].envelope(mid, seat, 0, [{"type": "roll"}]))
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    for body in (client.get(f"/v1/matches/{mid}").get_data(as_text=True),
                 client.get(path, headers=players[seat].auth("GET", path)).get_data(as_text=True),
                 client.get(f"/v1/matches/{mid}/log").get_data(as_text=True),
                 client.get(f"/v1/matches/{mid}/record").get_data(as_text=True)):
        assert seed_hex not in body
    live = client.get(f"/v1/matches/{mid}/record").get_json()
    assert live["seed"] is None
    report = verify_record(live)
    assert report.ok and "seed not revealed yet" in report.text()
    done = service.record(play_to_end(service, "harbour-race", 2))
    assert done["seed"] == service.store.seed(done["header"]["match"]).hex()


def test_same_keys_different_matches_independent_dice(service: Matches, players: list[Player]) -> None:
    streams = []
    for _ in range(2):
        made = service.create("harbour-race", {}, [{"invite": "a@example.org"}, {"invite": "b@example.org"}],
                              creator_key=CREATOR_KEY)
        for i in range(2):
            service.claim(made["id"], i, made["invites"][str(i)], players[i].public_key, players[i].name, "", nonce="same")
        meta = service.meta(made["id"])
        secret = fairness.match_secret(service.store.seed(made["id"]), made["id"], [r.to_dict() for r in meta.seats])
        rng = fairness.ply_rng(secret, 0)
        streams.append([rng.randbelow(1 << 32) for _ in range(8)])
    assert streams[0] != streams[1]


def test_player_contributions_change_the_dice() -> None:
    seed = bytes(32)
    seats = [{"seat": 0, "public_key": "A", "nonce": "1"}, {"seat": 1, "public_key": "B", "nonce": "2"}]
    other = [dict(seats[0]), dict(seats[1], nonce="3")]
    a = fairness.ply_rng(fairness.match_secret(seed, "m", seats), 0).randbelow(1 << 60)
    b = fairness.ply_rng(fairness.match_secret(seed, "m", other), 0).randbelow(1 << 60)
    assert a != b


def test_rebuild_finds_a_state_that_no_longer_follows_from_the_log(service: Matches) -> None:
    mid = play_to_end(service, "harbour-race", 2)
    assert rebuild(service, mid).ok
    blob = service.store.state(mid)
    assert blob is not None
    blob["state"]["banks"][0] += 5  # a corrupted cache
    service.store.set_state(mid, blob)
    line = rebuild(service, mid)
    assert not line.ok and "DIFFERS" in line.text()
    assert rebuild(service, mid, write=True).ok
    assert rebuild(service, mid).ok
    assert service.store.state(mid)["state"]["banks"][0] == blob["state"]["banks"][0] - 5


def test_rebuild_reports_a_log_that_no_longer_replays(service: Matches) -> None:
    mid = play_to_end(service, "harbour-race", 2)
    key = service.store._k(mid, "log")
    first = unpack_entry(service.store.r.lindex(key, 0), mid)
    first["envelope"]["actions"] = [{"type": "bank"}]  # banking an empty haul: illegal on replay
    service.store.r.lset(key, 0, pack_entry(first, mid))
    line = rebuild(service, mid)
    assert not line.ok and line.detail.startswith("ply 0: action 0 does not apply")


def _hostile_records(finished: dict[str, Any]) -> dict[str, str]:
    """Files an attacker hands someone to verify (the second outside test of issue 9)."""
    deep_action = copy.deepcopy(finished)
    deep_action["entries"][0]["envelope"]["actions"][0] = json.loads("[" * 600 + "]" * 600)
    huge_ply = copy.deepcopy(finished)
    huge_ply["entries"][0]["ply"] = 10**4000
    float_seat = copy.deepcopy(finished)
    float_seat["entries"][0]["envelope"]["seat"] = 1e308
    return {
        "deep-list-file": "[" * 100_000 + "]" * 100_000,
        "deep-object-file": '{"a":' * 5000 + "1" + "}" * 5000,
        "deep-action": json.dumps(deep_action),
        "huge-ply": json.dumps(huge_ply),
        "float-seat": json.dumps(float_seat),
        "digits-over-python-limit": '{"header": {"format": ' + "9" * 5000 + "}}",
        "a-list": "[]",
        "header-a-list": json.dumps({"header": [], "entries": "x"}),
        "entries-not-objects": json.dumps({**finished, "entries": [1, "x", None]}),
    }


@pytest.mark.parametrize("case", ["deep-list-file", "deep-object-file", "deep-action", "huge-ply", "float-seat",
                                  "digits-over-python-limit", "a-list", "header-a-list", "entries-not-objects"])
def test_verify_on_a_hostile_file_prints_fail_never_a_traceback(finished: dict[str, Any], tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str], case: str) -> None:
    """Found by the second outside test: a file of nested brackets made ``portolan verify`` die
    with a RecursionError traceback (exit 1, but no FAIL line and no reason)."""
    from service.tools.cli.main import main

    path = tmp_path / f"{case}.json"
    path.write_text(_hostile_records(finished)[case])
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    assert "FAIL " in out.out and out.out.rstrip().endswith("record does NOT verify")


def _narrated(game: Any, change: Any) -> Any:
    """``game`` with every event its ``apply`` causes passed through ``change`` (a later release)."""
    class Later(type(game)):  # type: ignore[misc]
        def apply(self, state: Any, seat: int, action: Any, rng: Rng) -> Any:
            applied = super().apply(state, seat, action, rng)
            return type(applied)(applied.state, [change(dict(e)) for e in applied.events])

    return Later()


def test_a_later_release_may_reword_events_or_add_fields_but_not_change_facts(
        finished: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Replay checks the events' facts, not their sentences (service.proof.replay.same_events): a
    record made before the words of issue 16 still verifies, a changed fact still fails."""
    game = games.get("harbour-race")
    assert game is not None

    def run_with(change: Any) -> Any:
        monkeypatch.setattr(games, "get", lambda gid: _narrated(game, change) if gid == "harbour-race" else None)
        try:
            return verify_record(copy.deepcopy(finished))
        finally:
            monkeypatch.undo()

    reworded = run_with(lambda e: {**e, "text": "in other words: " + str(e.get("text", ""))})
    assert reworded.ok, reworded.text()
    added = run_with(lambda e: {**e, "takes_back": 0})
    assert added.ok, added.text()
    changed = run_with(lambda e: {**e, "seat": -1} if "seat" in e else {**e, "type": e["type"] + "-x"})
    assert not changed.ok and "the stored events differ from what the replay produces" in changed.text()
