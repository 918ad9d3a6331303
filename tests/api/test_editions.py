"""Data editions in the service (docs/editions.md): installed from PORTOLAN_EDITIONS, chosen at
creation, pinned in the match and its record, replayed by the verifier with exactly those
numbers, listed in the catalog, and named under the board players read."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from service import games
from service.games import editions
from service.play import editions as shelf_of
from service.play.errors import ServiceError
from service.play.matches import Matches
from service.proof.replay import ReplayMismatch, replay
from service.proof.verify import verify_record
from service.tools.cli.main import main as cli
from tests.conftest import CREATOR_KEY, create_match
from tests.helpers.editions import GAMES, changed_document
from tests.helpers.verify import play_bots


@pytest.fixture
def shelf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a changed edition "box" of each game, installed."""
    folder = tmp_path / "editions"
    folder.mkdir()
    for game_id in GAMES:
        (folder / f"{game_id}.json").write_text(json.dumps(changed_document(game_id)))
    monkeypatch.setenv("PORTOLAN_EDITIONS", str(folder))
    return folder


SHORT = 40
"""Plies of the short match: enough for every kind of entry a record holds (moves, receipts,
the pinned edition), far from the end. What only a whole match shows (the shipped numbers do not
reproduce its outcome) is checked on whole matches, under the slow marker."""


@pytest.mark.parametrize("plies", [SHORT, pytest.param(None, marks=pytest.mark.slow, id="whole")])
@pytest.mark.parametrize("game_id", GAMES)
def test_a_match_of_an_edition_verifies_only_with_it(service: Matches, shelf: Path, game_id: str,
                                                     plies: int | None) -> None:
    g = games.get(game_id)
    assert g is not None
    mid = str(service.create(game_id, {}, [{"bot": "random"}] * g.players.start, creator_key=CREATOR_KEY,
                             edition="box")["id"])
    play_bots(service, mid, "edition", plies or 20_000)
    meta = service.meta(mid)
    assert meta.status == ("active" if plies else "finished")
    record = service.record(mid)
    edition = service.edition_of(meta)
    assert edition.id == "box" and edition.digest != editions.shipped(g).digest
    assert record["header"]["edition"] == {"id": "box", "digest": edition.digest}
    assert record["edition"]["data"] == dict(edition.data)
    report = verify_record(record)
    assert report.ok, report.text()
    assert "data edition 'box'" in report.text()

    # the same log replayed with the shipped numbers does not reproduce the match: on a whole
    # match only (a running match's seed is not yet revealed, and a short one may not yet have
    # met a changed number)
    if plies is None:
        header, seed = record["header"], bytes.fromhex(record["seed"])
        try:
            steps = list(replay(header, seed, record["entries"], record["setup_events"], game=g))
        except ReplayMismatch:
            pass  # an action the shipped numbers forbid, or other events: either way not this match
        else:
            outcome = g.outcome(steps[-1].state)
            assert outcome is None or outcome.to_json() != record["outcome"], "the shipped data replayed the match"

    # and the verifier refuses another edition document, or none, in its place
    shipped_doc = {**copy.deepcopy(record["edition"]), "data": dict(editions.shipped(g).data)}
    assert not verify_record({**record, "edition": shipped_doc}).ok
    stripped = {k: v for k, v in record.items() if k != "edition"}
    failed = verify_record(stripped)
    assert not failed.ok and "give its file with --edition" in failed.text()
    assert verify_record(stripped, edition=record["edition"]).ok


def test_a_record_whose_edition_numbers_were_altered_fails(service: Matches, shelf: Path) -> None:
    # one track value changed in the record's edition document: its digest is not the pinned one
    mid = str(service.create("el-capitan", {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY, edition="box")["id"])
    play_bots(service, mid, "tracks", SHORT)  # the numbers are chosen by digest before any move is replayed
    record = service.record(mid)
    tampered = copy.deepcopy(record)
    tampered["edition"]["data"]["cities"][0]["track"][5] += 1
    report = verify_record(tampered)
    assert not report.ok and "another digest" in report.text()


def test_the_api_creates_with_an_edition_and_refuses_an_unknown_one(client: Any, shelf: Path) -> None:
    body = {"game": "nauticus", "seats": [{"invite": "ana@example.org"}, {"bot": "random"}]}
    r = create_match(client, {**body, "edition": "no-such-box"})
    assert r.status_code == 422, r.get_json()
    problem = r.get_json()
    assert problem["code"] == "unknown-edition" and problem["editions"] == ["shipped", "box"]
    assert "no-such-box" in problem["detail"]
    assert client.get("/v1/matches?game=nauticus").get_json()["matches"] == []  # nothing stored

    r = create_match(client, {**body, "edition": "box"})
    assert r.status_code == 201, r.get_json()
    view = client.get(f"/v1/matches/{r.get_json()['id']}").get_json()
    assert view["edition"]["id"] == "box" and len(view["edition"]["digest"]) == 64

    r = create_match(client, body)  # no edition: the shipped data (no operator default)
    assert client.get(f"/v1/matches/{r.get_json()['id']}").get_json()["edition"]["id"] == "shipped"


def test_the_operator_default_edition_applies_to_the_games_that_have_it(service: Matches, shelf: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORTOLAN_DEFAULT_EDITION", "box")
    mid = service.create("ophir", {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY)["id"]
    assert service.meta(mid).edition["id"] == "box"
    mid = service.create("ophir", {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY, edition="shipped")["id"]
    assert service.meta(mid).edition["id"] == "shipped"


def test_a_running_match_never_changes_under_its_players(service: Matches, shelf: Path) -> None:
    mid = service.create("el-capitan", {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY, edition="box")["id"]
    assert service.view(mid)["edition"]["id"] == "box"
    doc = changed_document("el-capitan")
    doc["data"]["cities"][1]["track"][0] += 5  # the operator edits the numbers under the match
    (shelf / "el-capitan.json").write_text(json.dumps(doc))
    # a new process (a new reading of the shelf) sees the new file; the match keeps its digest
    shelf_of._loaded.clear()
    g = games.get("el-capitan")
    assert g is not None
    assert shelf_of.installed().choose(g, "box").digest != service.meta(mid).edition["digest"]
    with pytest.raises(ServiceError) as caught:
        service.view(mid)
    assert caught.value.code == "edition-missing" and caught.value.status == 409


def test_views_show_and_the_catalog_name_the_edition_and_its_provisional_values(service: Matches, client: Any,
                                                                                shelf: Path) -> None:
    mid = service.create("el-capitan", {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY, edition="box")["id"]
    view = service.view(mid)
    g = games.get("el-capitan")
    assert g is not None
    assert view["edition"]["id"] == "box" and view["edition"]["provisional_values"] == len(g.provisional())
    assert "Edition: El Capitán, checked against my box (box)." in view["text"]
    assert f"* Provisional: {len(g.provisional())} values are not yet checked" in view["text"]
    svg = client.get(f"/v1/matches/{mid}/board.svg").get_data(as_text=True)
    assert "Edition: El Capitán, checked against my box (box)" in svg and 'class="provisional"' in svg

    catalog = client.get("/v1/games/el-capitan").get_json()
    assert [e["id"] for e in catalog["editions"]] == ["shipped", "box"]
    assert catalog["editions"][1]["provisional_values"] == len(g.provisional())
    listing = {x["id"]: x for x in client.get("/v1/games").get_json()["games"]}
    assert [e["id"] for e in listing["ophir"]["editions"]] == ["shipped", "box"]
    assert listing["ophir"]["editions"][0]["default"] is True


def test_data_check_and_template_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["data", "template", "ophir"]) == 0
    template = json.loads(capsys.readouterr().out)
    assert template["game"] == "ophir" and template["provisional"] and template["verified"] == []
    good = tmp_path / "good.json"
    good.write_text(json.dumps(changed_document("ophir")))
    assert cli(["data", "check", str(good)]) == 0
    out = capsys.readouterr().out
    assert "is valid" in out and "data.market.deck_A[0].favor_vp: 1 -> 3" in out
    bad_doc = changed_document("ophir")
    bad_doc["data"]["market"]["deck_B"][4]["favor_vp"] = "lots"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_doc))
    assert cli(["data", "check", str(bad)]) == 2
    assert "data.market.deck_B[4].favor_vp: 'lots' is not of type 'integer'" in capsys.readouterr().err


def test_a_bad_installed_file_stops_the_start_naming_file_and_field(settings: Any, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from service.games.edition_check import EditionError
    from service.runtime import build

    doc = changed_document("el-capitan")
    doc["data"]["cities"][0]["track"] = doc["data"]["cities"][0]["track"][:-1]
    bad = tmp_path / "short-track.json"
    bad.write_text(json.dumps(doc))
    monkeypatch.setenv("PORTOLAN_EDITIONS", str(bad))
    with pytest.raises(EditionError) as caught:
        build(settings)
    assert caught.value.field == f"{bad}: data.cities[0].track" and "has 11 entries" in caught.value.message


def test_a_new_build_that_only_rewords_the_shipped_data_still_plays_its_matches() -> None:
    g = games.get("el-capitan")
    assert g is not None
    current = editions.shipped(g)
    reworded = copy.deepcopy(dict(current.data))
    reworded["cities"][0]["name"] = "Massilia"
    renumbered = copy.deepcopy(dict(current.data))
    renumbered["cities"][0]["track"][1] += 1
    assert editions.numbers_digest(reworded) == current.numbers != editions.numbers_digest(renumbered)
    shelf = shelf_of.Shelf({})
    old = {"id": "shipped", "digest": "0" * 64, "title": "older shipped data"}
    assert shelf.pinned(g, {**old, "numbers": editions.numbers_digest(reworded)}) is current
    with pytest.raises(ServiceError) as caught:
        shelf.pinned(g, {**old, "numbers": editions.numbers_digest(renumbered)})
    assert caught.value.code == "edition-missing"


def test_the_picture_draws_the_edition_numbers(service: Matches, client: Any, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    doc = changed_document("el-capitan", "chart")
    doc["data"]["proliferation_chart"]["12"] = 777
    ophir = changed_document("ophir", "chart")
    ophir["data"]["goods"]["supply_per_type"] = 44
    for d in (doc, ophir):
        (tmp_path / f"{d['game']}.json").write_text(json.dumps(d))
    monkeypatch.setenv("PORTOLAN_EDITIONS", str(tmp_path))
    drawn = {}
    for game_id in ("el-capitan", "ophir"):
        mid = service.create(game_id, {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY, edition="chart")["id"]
        drawn[game_id] = client.get(f"/v1/matches/{mid}/board.svg").get_data(as_text=True)
    assert ">777" in drawn["el-capitan"]
    assert "of 44 each" in drawn["ophir"]
    shipped_mid = service.create("ophir", {}, [{"bot": "random"}] * 2, creator_key=CREATOR_KEY)["id"]
    assert "of 44 each" not in client.get(f"/v1/matches/{shipped_mid}/board.svg").get_data(as_text=True)


def test_portolan_create_and_show_with_an_edition(served: str, shelf: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PORTOLAN_HOME", str(tmp_path / "home"))
    assert cli(["--server", served, "--json", "create", "nauticus", "--bot", "random", "--bot", "random",
                "--edition", "box"]) == 0
    out = capsys.readouterr().out  # the new key's line, then the created match as JSON
    mid = json.loads(out[out.index("{"):])["id"]
    assert cli(["--server", served, "show", mid]) == 0
    shown = capsys.readouterr().out
    assert "Edition: Nauticus, checked against my box (box)." in shown and "* Provisional:" in shown
    assert cli(["--server", served, "create", "nauticus", "--bot", "random", "--bot", "random",
                "--edition", "nope"]) == 2
    assert "error 422 unknown-edition" in capsys.readouterr().err
