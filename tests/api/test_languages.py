"""The API in the reader's language (issue 29): refusals, views, events, streams and rules pages.

``Accept-Language: hu`` gets Hungarian ``detail`` and ``title`` sentences, labels, match actions,
event words and the Hungarian rules page where there is one, with ``Content-Language`` saying which;
no header gets the English of before, byte for byte; the machine fields never change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.api import games as game_routes
from service.i18n import phrase
from tests.conftest import Player
from tests.helpers.fixture_game import GAME as FIXTURE
from tests.helpers.matches import assert_problem, started
from tests.helpers.untranslated import english_words

HU = {"Accept-Language": "hu-HU,hu;q=0.9,en;q=0.5"}


def test_a_refusal_speaks_hungarian_when_asked_and_english_otherwise(client: Any) -> None:
    r = client.get("/v1/matches/nosuchmatch1", headers=HU)
    body = assert_problem(r, 404, "unknown-match")
    assert body["detail"] == "nincs 'nosuchmatch1' azonosítójú játszma"
    assert body["title"] == "Nem található"
    assert body["type"] == "https://portolan.invalid/problems/unknown-match"  # machine fields stay
    assert r.headers["Content-Language"] == "hu"
    assert "Accept-Language" in r.headers["Vary"]

    r = client.get("/v1/matches/nosuchmatch1")
    body = assert_problem(r, 404, "unknown-match")
    assert body["detail"] == "there is no match 'nosuchmatch1'"
    assert body["title"] == "Not found"
    assert r.headers["Content-Language"] == "en"


def test_werkzeugs_own_refusals_and_query_refusals_follow_the_language(client: Any) -> None:
    body = assert_problem(client.get("/v1/no/such/route", headers=HU), 404, "not-found")
    assert body["title"] == "Nem található"
    assert body["detail"].startswith("A kért URL nem található a szerveren.")
    body = assert_problem(client.get("/v1/matches?status=lost", headers=HU), 400, "bad-query")
    assert body["detail"] == "a status értéke ezek egyike: waiting, active, finished, aborted"
    assert body["title"] == "Hibás formátumú kérés"
    body = assert_problem(client.get("/v1/matches?status=lost"), 400, "bad-query")
    assert body["detail"] == "status is one of waiting, active, finished, aborted"
    body = assert_problem(client.get("/v1/matches?status=lost&lang=hu"), 400, "bad-query")
    assert body["title"] == "Hibás formátumú kérés"  # ?lang= as the web client's switch sets it
    # the switch's cookie keeps the choice, and an answer it chose says it varies by it
    r = client.get("/v1/matches?status=lost")
    assert r.get_json()["title"] == "Hibás formátumú kérés"
    assert "Cookie" in r.headers["Vary"]


def _refusals(client: Any, players: list[Player], headers: dict[str, str]) -> list[dict[str, Any]]:
    """A sample of refusals from several use cases, each a problem body."""
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    other = 1 - seat
    me, them = players[seat], players[other]
    out = []
    # a move by the seat that need not act (409 not-your-turn)
    env = them.envelope(mid, other, view["ply"], [{"type": "roll"}], nonce="x1")
    out.append(client.post(f"/v1/matches/{mid}/moves", json=env, headers=headers))
    # a stale ply (409 stale-ply)
    env = me.envelope(mid, seat, view["ply"] + 5, [{"type": "roll"}], nonce="x2")
    out.append(client.post(f"/v1/matches/{mid}/moves", json=env, headers=headers))
    # a signature by the wrong key (401/403)
    env = them.envelope(mid, seat, view["ply"], [{"type": "roll"}], nonce="x3")
    out.append(client.post(f"/v1/matches/{mid}/moves", json=env, headers=headers))
    # no such seat, no record of a waiting match, an unknown game's rules
    out.append(client.post(f"/v1/matches/{mid}/seats/9/claim", json={"token": "t" * 20, "public_key": me.public_key,
                                                                      "name": "X"}, headers=headers))
    out.append(client.get("/v1/games/nosuchgame/rules", headers=headers))
    # a body that is not JSON, a query given twice, a bad Last-Event-ID
    out.append(client.post(f"/v1/matches/{mid}/moves", data=b"[1, 2", content_type="application/json",
                           headers=headers))
    out.append(client.get(f"/v1/matches/{mid}/log?from=1&from=2", headers=headers))
    out.append(client.get(f"/v1/matches/{mid}/events", headers={**headers, "Last-Event-ID": "99"}))
    # a resignation twice: the second is the standing's refusal (409 seat-left)
    for nonce in ("r1", "r2"):
        env = me.envelope(mid, seat, client.get(f"/v1/matches/{mid}").get_json()["ply"], [{"type": "match:resign"}],
                          nonce=nonce)
        last = client.post(f"/v1/matches/{mid}/moves", json=env, headers=headers)
    out.append(last)
    bodies = []
    for r in out:
        assert r.mimetype == "application/problem+json", r.get_data(as_text=True)
        bodies.append(r.get_json())
    return bodies


def test_a_sample_of_refusals_in_hungarian_has_no_english_word(client: Any, players: list[Player]) -> None:
    bodies = _refusals(client, players, HU)
    codes = [b["code"] for b in bodies]
    assert "not-your-turn" in codes and "stale-ply" in codes and "seat-left" in codes
    for body in bodies:
        said = f"{body['title']} {body['detail']}"
        # the machine words a sentence quotes (a header, a query parameter's name) may stay
        assert english_words(said, allow=["Last", "Event", "from", "Portolan"]) == [], body


def test_the_same_refusals_read_as_before_in_english(client: Any, players: list[Player]) -> None:
    bodies = {b["code"]: b for b in _refusals(client, players, {})}
    assert bodies["seat-left"]["detail"].endswith("has already left the match")
    assert bodies["stale-ply"]["title"] == "Conflict with the match's current state"
    assert "need not act now (waiting for seats" in bodies["not-your-turn"]["detail"]


def test_a_seat_view_says_its_labels_match_actions_and_board_in_the_readers_language(
        client: Any, players: list[Player], monkeypatch: pytest.MonkeyPatch) -> None:
    # the fixture game says its label as a phrase and renders its board per language, as the
    # real games do once their words are in the catalogs
    monkeypatch.setattr(type(FIXTURE), "label_action", lambda self, state, seat, action: phrase("undo your last step"))
    monkeypatch.setattr(type(FIXTURE), "render", lambda self, view, language="en": f"board in {language}")
    mid, view = started(client, players)
    seat = view["active_seats"][0]
    path = f"/v1/matches/{mid}/seats/{seat}/view"
    r = client.get(path, headers={**players[seat].auth("GET", path), **HU})
    mine = r.get_json()
    assert r.headers["Content-Language"] == "hu"
    assert r.headers["ETag"].endswith('-hu"')
    assert mine["legal_actions"][0]["text"] == "utolsó lépésed visszavonása"
    assert mine["legal_actions"][0]["action"] == {"type": "roll"}  # the action itself never changes
    assert mine["match_actions"][0]["text"] == "Feladás: lemondasz erről a helyről (az utolsó helyezést kapod)"
    assert mine["text"].startswith("board in hu")
    # the same view in English, and its ETag is another representation's
    r = client.get(path, headers=players[seat].auth("GET", path))
    english = r.get_json()
    assert english["match_actions"][0]["text"] == "Resign: give up this seat (you are ranked last)"
    assert english["legal_actions"][0]["text"] == "undo your last step"
    assert english["text"].startswith("board in en")
    assert not r.headers["ETag"].endswith('-hu"')
    # an If-None-Match of the English view does not answer 304 for the Hungarian one
    r = client.get(path, headers={**players[seat].auth("GET", path), **HU, "If-None-Match": r.headers["ETag"]})
    assert r.status_code == 200


def _aborted_by_vote(client: Any, players: list[Player]) -> str:
    mid, _ = started(client, players)
    for nonce, seat in (("a0", 0), ("a1", 1)):
        ply = client.get(f"/v1/matches/{mid}").get_json()["ply"]
        env = players[seat].envelope(mid, seat, ply, [{"type": "match:abort"}], nonce=nonce)
        r = client.post(f"/v1/matches/{mid}/moves", json=env)
        assert r.status_code == 201, r.get_json()
    assert client.get(f"/v1/matches/{mid}").get_json()["status"] == "aborted"
    return mid


def test_log_and_record_words_follow_the_language_and_leave_the_events_as_logged(
        client: Any, players: list[Player]) -> None:
    mid = _aborted_by_vote(client, players)
    hu = client.get(f"/v1/matches/{mid}/log", headers=HU)
    en = client.get(f"/v1/matches/{mid}/log").get_json()
    assert hu.headers["Content-Language"] == "hu"
    entries = hu.get_json()["entries"]
    assert entries[0]["words"] == ["A(z) 0. hely a játszma megszakítására szavazott; még szavaz: 1. hely."]
    assert entries[1]["words"][-1] == ("A játszma eredmény nélkül megszakadt: minden megmaradt játékos a "
                                      "megszakításra szavazott.")
    # English words say exactly what the stored text says; the events are the logged ones
    assert [e["words"] for e in en["entries"]] == [[ev["text"] for ev in e["events"]] for e in en["entries"]]
    assert [e["events"] for e in entries] == [e["events"] for e in en["entries"]]
    record = client.get(f"/v1/matches/{mid}/record", headers=HU).get_json()
    assert record["entries"][0]["words"] == entries[0]["words"]
    assert len(record["setup_words"]) == len(record["setup_events"])


def _frames(raw: str) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: "):]) for line in raw.splitlines() if line.startswith("data: ")]


def test_a_stream_speaks_the_language_of_the_request_that_opened_it(client: Any, players: list[Player],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type(FIXTURE), "describe_event",
                        lambda self, event: phrase("Seat {seat}", seat=event.get("seat")))
    mid = _aborted_by_vote(client, players)  # over: the stream sends everything and ends
    r = client.get(f"/v1/matches/{mid}/events", headers=HU)
    assert r.headers["Content-Language"] == "hu"
    moves = [e for e in _frames(r.get_data(as_text=True)) if e["type"] == "move"]
    assert moves[0]["words"] == ["A(z) 0. hely a játszma megszakítására szavazott; még szavaz: 1. hely."]
    started_event = _frames(client.get(f"/v1/matches/{mid}/events", headers=HU).get_data(as_text=True))[0]
    assert started_event["type"] == "started"
    assert started_event["words"] == [f"{e.get('seat')}. hely" for e in started_event["events"]]
    # another stream of the same match in English, after the Hungarian one (the feed is shared)
    english = [e for e in _frames(client.get(f"/v1/matches/{mid}/events").get_data(as_text=True)) if e["type"] == "move"]
    assert english[0]["words"] == ["Seat 0 voted to abort the match; still to vote: seat 1."]
    assert english[0]["events"] == moves[0]["events"]


def test_the_rules_page_is_served_in_the_readers_language_when_it_is_written_in_it(
        client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = tmp_path / "docs" / "rules"
    rules.mkdir(parents=True)
    (rules / "el-capitan.hu.md").write_text("# El Capitán: szabályok\n", encoding="utf-8")
    monkeypatch.setattr(game_routes, "_REPOSITORY", tmp_path)
    r = client.get("/v1/games/el-capitan/rules", headers=HU)
    assert r.status_code == 200
    assert r.get_data(as_text=True) == "# El Capitán: szabályok\n"
    assert r.headers["Content-Language"] == "hu"
    english = client.get("/v1/games/el-capitan/rules")
    assert english.headers["Content-Language"] == "en"
    assert english.get_data(as_text=True) != "# El Capitán: szabályok\n"
    # no Hungarian page for this game: the English one, and the header says so
    r = client.get("/v1/games/nauticus/rules", headers=HU)
    assert r.status_code == 200
    assert r.headers["Content-Language"] == "en"


def test_an_unsigned_creation_is_refused_in_hungarian(client: Any) -> None:
    body = json.dumps({"game": "harbour-race", "seats": [{"invite": "a@example.org"}], "options": {}})
    r = client.post("/v1/matches", data=body, content_type="application/json", headers=HU)
    problem = assert_problem(r, 401, "missing-signature")
    assert problem["detail"] == ('ehhez aláírt kérés kell (játszma létrehozása): egy Authorization: Portolan '
                                 'key="...", ts="...", sig="..." fejléc, a saját kulcsoddal aláírva')
    problem = assert_problem(client.post("/v1/matches", data=body, content_type="application/json"), 401,
                             "missing-signature")
    assert problem["detail"].startswith('creating a match needs a signed request: an Authorization: Portolan key=')
